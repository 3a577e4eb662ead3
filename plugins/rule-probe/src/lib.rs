//! A marketplace rule for the host's tests (`rule-probe`): it ranks the *quietest* listing first (the
//! opposite of the default rule, so a test sees which rule ranked), and misbehaves on demand, set by the
//! deployment's configuration: `{"trapAtComments": n}` traps (a panic) and `{"spinAtComments": n}` computes
//! until the deadline when a listing has at least `n` comments in the last week.

use std::hint::black_box;

use serde::Deserialize;
use serde_json::json;
use trellis_plugin_sdk::marketplace::{Decision, ListingStats, MarketplaceRule, Registration};
use trellis_plugin_sdk::{Context, Manifest, Result};

/// The module.
pub struct RuleProbe;

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Config {
    trap_at_comments: Option<u32>,
    spin_at_comments: Option<u32>,
    /// Registrations from these handles are approved, all others rejected.
    approve_handles: Option<Vec<String>>,
}

impl MarketplaceRule for RuleProbe {
    fn manifest() -> Manifest {
        Manifest::new("rule-probe", "Rule probe", env!("CARGO_PKG_VERSION"))
            .description("Test rule: quietest first; traps or spins on demand")
            .config_schema(json!({
                "type": "object",
                "properties": {
                    "trapAtComments": {"type": "integer", "minimum": 0},
                    "spinAtComments": {"type": "integer", "minimum": 0},
                    "approveHandles": {"type": "array", "items": {"type": "string"}}
                }
            }))
    }

    fn trending_score(ctx: &Context, stats: &ListingStats) -> Result<f64> {
        let config: Config = ctx.config()?;
        if config.trap_at_comments.is_some_and(|n| stats.comments_last_week >= n) {
            panic!("rule-probe traps as configured");
        }
        if config.spin_at_comments.is_some_and(|n| stats.comments_last_week >= n) {
            spin();
        }
        Ok(1.0 / (1.0 + f64::from(stats.members) + f64::from(stats.comments_last_week)))
    }

    fn registration_decision(ctx: &Context, registration: &Registration) -> Result<Decision> {
        let config: Config = ctx.config()?;
        Ok(match config.approve_handles {
            Some(handles) if handles.contains(&registration.handle) => Decision::Approve,
            Some(_) => Decision::Reject,
            None => Decision::DeferToOwner,
        })
    }
}

trellis_plugin_sdk::export_marketplace_rule!(RuleProbe);

/// Never returns; `black_box` keeps the optimiser from proving the loop has no effect.
fn spin() -> ! {
    let mut counter = 0u64;
    loop {
        counter = black_box(counter.wrapping_add(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quietest_listing_scores_highest() {
        let ctx = Context::default();
        let quiet = RuleProbe::trending_score(&ctx, &ListingStats { members: 1, ..Default::default() }).unwrap();
        let busy = RuleProbe::trending_score(&ctx, &ListingStats { members: 9, ..Default::default() }).unwrap();
        assert!(quiet > busy);
    }
}
