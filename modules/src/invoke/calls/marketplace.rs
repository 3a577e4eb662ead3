//! The calls of marketplace rules: trending scores in batches, and registration decisions. A WIT 0.1.0
//! rule scores one listing per call, so its batch makes one call per listing on one instance.

use crate::api::{Decision, Invocation, ListingStats, Registration};
use crate::host::ModuleHost;
use crate::invoke::failure::ModuleFailure;
use crate::invoke::replays::until_committed;
use crate::invoke::{bounded, commit, record, settle};
use crate::load::Prepared;
use crate::load::manifest::ModuleKind;
use crate::wit::latest::marketplace::exports::trellis::module::marketplace_hooks as mh;

use crate::wit::v0_1::exports as adapt;
use crate::wit::v0_2::exports as adapt_v2;

/// Most listings one `trending-scores` call gets (the WIT promises it).
pub(crate) const TRENDING_BATCH: usize = 1000;

impl ModuleHost {
    /// A marketplace rule's trending scores for `listings`, in order: one call (and instance) per batch of
    /// at most [`TRENDING_BATCH`], each under `marketplace_deadline_ms`. The first failing batch fails the
    /// whole: an answer must hold exactly one finite, non-negative score per listing.
    pub(crate) async fn trending_scores_here(
        &self,
        module_id: &str,
        invocation: Invocation,
        listings: Vec<ListingStats>,
    ) -> Result<Vec<f64>, ModuleFailure> {
        let mut scores = Vec::with_capacity(listings.len());
        for batch in listings.chunks(TRENDING_BATCH) {
            let attempt = || self.trending_batch(module_id, invocation.clone(), batch);
            let inner = &*self.inner;
            scores.extend(until_committed(&inner.replays, (module_id, ""), attempt).await?);
        }
        Ok(scores)
    }

    async fn trending_batch(
        &self,
        module_id: &str,
        invocation: Invocation,
        batch: &[ListingStats],
    ) -> Result<Vec<f64>, ModuleFailure> {
        let inner = &*self.inner;
        let mut call = inner
            .begin(module_id, ModuleKind::MarketplaceRule, inner.settings.marketplace_deadline(), invocation, None)
            .await?;
        let module = call.module;
        let (store, ctx) = (&mut call.store, &call.ctx);
        let clock = store.data().clock.clone();
        let listings: Vec<mh::ListingStats> = batch
            .iter()
            .map(|stats| mh::ListingStats {
                space_id: stats.space_id.clone(),
                members: stats.members,
                assets: stats.assets,
                comments_last_week: stats.comments_last_week,
                registrations_last_week: stats.registrations_last_week,
                age_days: stats.age_days,
            })
            .collect();
        let invoke = async {
            match &module.prepared {
                Prepared::Marketplace(pre) => {
                    let instance = pre.instantiate_async(&mut *store).await?;
                    let hooks = instance.trellis_module_marketplace_hooks();
                    hooks.call_trending_scores(&mut *store, ctx, &listings).await
                }
                Prepared::MarketplaceV0_2(pre) => {
                    let instance = pre.instantiate_async(&mut *store).await?;
                    let hooks = instance.trellis_module_marketplace_hooks();
                    let ctx = adapt_v2::context(ctx);
                    let listings: Vec<_> = listings.iter().map(adapt_v2::listing).collect();
                    hooks.call_trending_scores(&mut *store, &ctx, &listings).await
                }
                Prepared::MarketplaceV0_1(pre) => {
                    let instance = pre.instantiate_async(&mut *store).await?;
                    let hooks = instance.trellis_module_marketplace_hooks();
                    let ctx = adapt::context(ctx);
                    let mut scores = Vec::with_capacity(listings.len());
                    for stats in &listings {
                        match hooks.call_trending_score(&mut *store, &ctx, &adapt::listing(stats)).await? {
                            Ok(score) => scores.push(score),
                            Err(message) => return Ok(Err(message)),
                        }
                    }
                    Ok(Ok(scores))
                }
                _ => unreachable!("a rule has the marketplace world"),
            }
        };
        let outcome = bounded(clock, invoke).await;
        let scores = match settle(module, &call.store, outcome)? {
            Ok(scores) => scores,
            Err(message) => return Err(record(module, ModuleFailure::module_error(message))),
        };
        check_scores(&scores, batch.len()).map_err(|why| record(module, ModuleFailure::InvalidAnswer(why)))?;
        commit(module, &mut call.store).await?;
        Ok(scores)
    }

    /// Asks a marketplace rule to decide a registration (budget: `marketplace_deadline_ms`).
    pub(crate) async fn registration_decision_here(
        &self,
        module_id: &str,
        invocation: Invocation,
        registration: Registration,
    ) -> Result<Decision, ModuleFailure> {
        let attempt = || self.decision_attempt(module_id, invocation.clone(), registration.clone());
        let inner = &*self.inner;
        until_committed(&inner.replays, (module_id, ""), attempt).await
    }

    async fn decision_attempt(
        &self,
        module_id: &str,
        invocation: Invocation,
        registration: Registration,
    ) -> Result<Decision, ModuleFailure> {
        let inner = &*self.inner;
        let mut call = inner
            .begin(module_id, ModuleKind::MarketplaceRule, inner.settings.marketplace_deadline(), invocation, None)
            .await?;
        let module = call.module;
        let (store, ctx) = (&mut call.store, &call.ctx);
        let clock = store.data().clock.clone();
        let registration = mh::Registration {
            space_id: registration.space_id,
            user_id: registration.user_id,
            handle: registration.handle,
            note: registration.note,
            membership: registration.membership,
        };
        let invoke = async {
            match &module.prepared {
                Prepared::Marketplace(pre) => {
                    let instance = pre.instantiate_async(&mut *store).await?;
                    let hooks = instance.trellis_module_marketplace_hooks();
                    hooks.call_registration_decision(&mut *store, ctx, &registration).await
                }
                Prepared::MarketplaceV0_2(pre) => {
                    let instance = pre.instantiate_async(&mut *store).await?;
                    let hooks = instance.trellis_module_marketplace_hooks();
                    let (ctx, registration) = (adapt_v2::context(ctx), adapt_v2::registration(&registration));
                    let answer = hooks.call_registration_decision(&mut *store, &ctx, &registration).await?;
                    Ok(answer.map(adapt_v2::decision))
                }
                Prepared::MarketplaceV0_1(pre) => {
                    let instance = pre.instantiate_async(&mut *store).await?;
                    let hooks = instance.trellis_module_marketplace_hooks();
                    let (ctx, registration) = (adapt::context(ctx), adapt::registration(&registration));
                    let answer = hooks.call_registration_decision(&mut *store, &ctx, &registration).await?;
                    Ok(answer.map(adapt::decision))
                }
                _ => unreachable!("a rule has the marketplace world"),
            }
        };
        let outcome = bounded(clock, invoke).await;
        let decision = match settle(module, &call.store, outcome)? {
            Ok(mh::Decision::Approve) => Decision::Approve,
            Ok(mh::Decision::Reject) => Decision::Reject,
            Ok(mh::Decision::DeferToOwner) => Decision::DeferToOwner,
            Err(message) => return Err(record(module, ModuleFailure::module_error(message))),
        };
        commit(module, &mut call.store).await?;
        Ok(decision)
    }
}

/// Exactly one finite, non-negative score per listing.
fn check_scores(scores: &[f64], listings: usize) -> Result<(), String> {
    if scores.len() != listings {
        return Err(format!("{} scores for {listings} listings", scores.len()));
    }
    match scores.iter().position(|score| !(score.is_finite() && *score >= 0.0)) {
        Some(at) => Err(format!("score {} (listing {at}) is not a finite number >= 0", scores[at])),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_answer_holds_one_finite_non_negative_score_per_listing() {
        assert!(check_scores(&[0.0, 2.5], 2).is_ok());
        assert!(check_scores(&[1.0], 2).unwrap_err().contains("1 scores for 2"));
        assert!(check_scores(&[1.0, 2.0, 3.0], 2).is_err());
        assert!(check_scores(&[1.0, -0.5], 2).unwrap_err().contains("listing 1"));
        assert!(check_scores(&[f64::NAN], 1).is_err());
        assert!(check_scores(&[f64::INFINITY], 1).is_err());
    }
}
