//! The `[marketplace]` table: which rule module ranks listings and how often, and the bounds on
//! registrations.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Settings of the marketplace.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct MarketplaceConfig {
    /// The enabled `marketplace-rule` module that scores listings for trending and may decide
    /// registrations. Left out: the bundled `marketplace-default` when `[modules] enable` has it,
    /// else none (a warning at start). Empty: no module; trending lists the most members first and
    /// registrations go to the owner. Naming a module that is not enabled stops the start.
    pub rule_module: Option<String>,
    /// The deployment's configuration of the rule module (checked against its schema at start).
    pub rule_config: Map<String, Value>,
    /// Seconds between two rankings when nothing changes; a relevant change ranks sooner.
    pub ranking_interval_seconds: u64,
    /// Milliseconds a change waits for others before the ranking runs, so a burst costs one ranking.
    pub ranking_settle_ms: u64,
    /// Wall-clock budget of one whole ranking, in milliseconds; a ranking that runs over keeps the
    /// last good one in place (each call is also bounded by `modules.marketplace_deadline_ms`).
    pub ranking_budget_ms: u64,
    /// Listings the trending list holds at most (the best ranked).
    pub trending_size: usize,
    /// Registrations awaiting the owner per space; beyond them new ones are refused (409).
    pub max_pending_registrations_per_space: i64,
    /// Registrations one user may have waiting across spaces; beyond them new ones are refused (409).
    pub max_pending_registrations_per_user: i64,
}

impl Default for MarketplaceConfig {
    fn default() -> Self {
        Self {
            rule_module: None,
            rule_config: Map::new(),
            ranking_interval_seconds: 60,
            ranking_settle_ms: 2_000,
            ranking_budget_ms: 20_000,
            trending_size: 1_000,
            max_pending_registrations_per_space: 1_000,
            max_pending_registrations_per_user: 100,
        }
    }
}
