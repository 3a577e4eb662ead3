//! The trending ranking: computed in the background by the deployment's rule module from what it
//! may see of each listing, and kept in memory, so a trending request reads a ready list and never
//! waits on a module. A ranking that fails (a module that traps, errs or runs past its budget) leaves
//! the last good one in place.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use time::OffsetDateTime;
use tokio::sync::Notify;
use trellis_modules::{Invocation, ListingStats, ModuleHost};

use super::PublicListing;
use crate::error::{Error, Result};
use crate::store::{ListingSignals, Store};

/// The activity a listing's signals count: the last seven days.
const RECENT: time::Duration = time::Duration::days(7);

/// One ranked listing.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranked {
    pub rank: usize,
    pub listing: PublicListing,
}

/// A whole ranking, replaced at once.
#[derive(Debug, Default)]
pub struct Trending {
    /// Counts up with every good ranking (0: none yet); the HTTP edge makes its ETag of it.
    pub generation: u64,
    pub ranked_at: Option<OffsetDateTime>,
    pub items: Vec<Ranked>,
}

/// How the ranking runs.
#[derive(Clone, Debug)]
pub struct RankingSettings {
    /// The rule module; `None`: most members first.
    pub rule_module: Option<String>,
    /// The deployment's configuration of the rule module, as JSON text.
    pub rule_config: String,
    /// Budget of a whole ranking.
    pub budget: Duration,
    /// Listings kept (the best ranked).
    pub size: usize,
}

pub struct Ranking {
    store: Store,
    host: ModuleHost,
    settings: RankingSettings,
    current: RwLock<Arc<Trending>>,
    wake: Notify,
}

impl Ranking {
    pub fn new(store: Store, host: ModuleHost, settings: RankingSettings) -> Self {
        Self { store, host, settings, current: RwLock::new(Arc::new(Trending::default())), wake: Notify::new() }
    }

    /// The deployment's rule module, if any.
    pub fn rule_module(&self) -> Option<&str> {
        self.settings.rule_module.as_deref()
    }

    /// The ranking in place (cheap: one `Arc`).
    pub fn current(&self) -> Arc<Trending> {
        self.current.read().unwrap_or_else(|poison| poison.into_inner()).clone()
    }

    /// Something the ranking reads changed: the background job ranks again soon.
    pub fn changed(&self) {
        self.wake.notify_one();
    }

    /// Waits until [`Ranking::changed`] was called (at least once since the last wait).
    pub async fn wait_for_change(&self) {
        self.wake.notified().await;
    }

    /// Ranks every listed space now and puts the result in place; on failure the last good ranking
    /// stays and the error says why.
    #[tracing::instrument(skip_all)]
    pub async fn rank(&self) -> Result<usize> {
        let started = Instant::now();
        let now = OffsetDateTime::now_utc();
        let signals = self.store.listings.signals(now - RECENT).await?;
        let over_budget = || {
            Error::ModuleFailed(
                format!(
                    "the ranking ran past its budget of {} ms; the last good ranking stays",
                    self.settings.budget.as_millis()
                )
                .into(),
            )
        };
        let scores = tokio::time::timeout(self.settings.budget, self.scores(&signals, now))
            .await
            .map_err(|_| over_budget())??;
        let mut scored: Vec<(f64, ListingSignals)> = scores.into_iter().zip(signals).collect();
        // Highest score first; ties go to the newer listing, then the id, so the order is stable.
        scored.sort_by(|(a, x), (b, y)| {
            b.total_cmp(a)
                .then_with(|| y.listed.listed_at.cmp(&x.listed.listed_at))
                .then_with(|| x.listed.space_id.cmp(&y.listed.space_id))
        });
        let listings = scored.len();
        scored.truncate(self.settings.size);
        let items: Vec<Ranked> = scored
            .into_iter()
            .enumerate()
            .map(|(i, (_, signal))| Ranked { rank: i + 1, listing: PublicListing::from_listed(signal.listed) })
            .collect();
        let count = items.len();
        let mut current = self.current.write().unwrap_or_else(|poison| poison.into_inner());
        // A ranking that puts the same listings, as shown, in the same places is the same ranking:
        // it keeps its generation and time, so the ETag a client holds still names it.
        if current.generation > 0 && current.items == items {
            return Ok(count);
        }
        let generation = current.generation + 1;
        *current = Arc::new(Trending { generation, ranked_at: Some(now), items });
        tracing::debug!(
            listings,
            kept = count,
            elapsed_ms = started.elapsed().as_millis() as u64,
            "ranked the marketplace"
        );
        Ok(count)
    }

    /// One score per listing, in order: the rule module's (in batches, see `ModuleHost::trending_scores`),
    /// or the member count without one.
    async fn scores(&self, signals: &[ListingSignals], now: OffsetDateTime) -> Result<Vec<f64>> {
        let Some(module_id) = &self.settings.rule_module else {
            return Ok(signals.iter().map(|signal| signal.listed.members as f64).collect());
        };
        let count = |n: i64| u32::try_from(n).unwrap_or(u32::MAX);
        let listings = signals
            .iter()
            .map(|signal| ListingStats {
                space_id: signal.listed.space_id.clone(),
                members: count(signal.listed.members),
                assets: count(signal.listed.assets),
                comments_last_week: count(signal.comments_last_week),
                registrations_last_week: count(signal.registrations_last_week),
                age_days: count((now - signal.listed.listed_at).whole_days().max(0)),
            })
            .collect();
        // Marketplace modules run for the deployment, not for a space (the WIT's context).
        let invocation = Invocation { space_id: String::new(), config_json: self.settings.rule_config.clone() };
        self.host.trending_scores(module_id, invocation, listings).await.map_err(|failure| {
            Error::ModuleFailed(format!("rule module {module_id} failed to score the listings: {failure}").into())
        })
    }
}
