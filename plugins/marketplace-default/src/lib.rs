//! The default marketplace rule (`marketplace-default`).
//!
//! **Trending**: a listing's score is its activity divided by a power of its age, so a young listing
//! with some activity passes an old, quiet one, and an old one stays up only while it stays busy:
//!
//! `score = (1 + members + 2·assets + 3·comments_last_week + 5·registrations_last_week) / (age_days + 2)^gravity`
//!
//! with `gravity` 1.5 unless the deployment's configuration gives another (`{"gravity": 1.2}`).
//!
//! **Registrations** (spaces whose membership is `APPROVAL`): the owner's rules in the listing's
//! `rules` decide first: a handle in `approveHandles` is let in at once; a handle in `rejectHandles`, or
//! a registration without a note while `requireNote` is true, is suggested for rejection (the owner
//! still decides); everything else is left to the owner.

use serde::Deserialize;
use serde_json::json;
use trellis_plugin_sdk::marketplace::{Decision, ListingStats, MarketplaceRule, Registration};
use trellis_plugin_sdk::{Context, Error, Manifest, Result};

/// The module.
pub struct MarketplaceDefault;

/// The configuration, from the deployment (trending) or from a listing's rules (registrations).
#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Config {
    /// How fast age pulls a listing down (the deployment's setting).
    pub gravity: Option<f64>,
    /// Handles let in at once.
    #[serde(default)]
    pub approve_handles: Vec<String>,
    /// Handles suggested for rejection.
    #[serde(default)]
    pub reject_handles: Vec<String>,
    /// Suggest rejecting registrations that carry no note.
    #[serde(default)]
    pub require_note: bool,
}

const DEFAULT_GRAVITY: f64 = 1.5;

/// The configuration's JSON Schema: what the host checks a listing's rules against.
pub fn schema() -> serde_json::Value {
    let handles = json!({
        "type": "array",
        "maxItems": 1000,
        "uniqueItems": true,
        "items": {"type": "string", "pattern": "^[a-z0-9_]{3,30}$"}
    });
    json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "gravity": {"type": "number", "minimum": 0, "maximum": 4},
            "approveHandles": handles,
            "rejectHandles": handles,
            "requireNote": {"type": "boolean"}
        }
    })
}

/// The activity a listing shows, weighted.
pub fn activity(stats: &ListingStats) -> f64 {
    1.0 + f64::from(stats.members)
        + 2.0 * f64::from(stats.assets)
        + 3.0 * f64::from(stats.comments_last_week)
        + 5.0 * f64::from(stats.registrations_last_week)
}

impl MarketplaceRule for MarketplaceDefault {
    fn manifest() -> Manifest {
        Manifest::new("marketplace-default", "Marketplace default rule", env!("CARGO_PKG_VERSION"))
            .description("Ranks listings by recent activity against age; lets owners auto-decide registrations")
            .config_schema(schema())
    }

    fn trending_score(ctx: &Context, stats: &ListingStats) -> Result<f64> {
        let config: Config = ctx.config()?;
        let gravity = config.gravity.unwrap_or(DEFAULT_GRAVITY);
        if !(0.0..=4.0).contains(&gravity) {
            return Err(Error::new(format!("gravity {gravity} is outside 0 to 4")));
        }
        Ok(activity(stats) / (f64::from(stats.age_days) + 2.0).powf(gravity))
    }

    fn registration_decision(ctx: &Context, registration: &Registration) -> Result<Decision> {
        let config: Config = ctx.config()?;
        let handle = &registration.handle;
        if config.approve_handles.iter().any(|h| h == handle) {
            Ok(Decision::Approve)
        } else if config.reject_handles.iter().any(|h| h == handle)
            || (config.require_note && registration.note.trim().is_empty())
        {
            Ok(Decision::Reject)
        } else {
            Ok(Decision::DeferToOwner)
        }
    }
}

trellis_plugin_sdk::export_marketplace_rule!(MarketplaceDefault);

#[cfg(test)]
mod tests {
    use super::*;

    fn context(config: serde_json::Value) -> Context {
        Context::new("", config.to_string())
    }

    fn stats(members: u32, comments: u32, age_days: u32) -> ListingStats {
        ListingStats { members, comments_last_week: comments, age_days, ..ListingStats::default() }
    }

    #[test]
    fn a_busy_young_listing_passes_a_quiet_old_one() {
        let ctx = Context::default();
        let young = MarketplaceDefault::trending_score(&ctx, &stats(3, 10, 1)).unwrap();
        let old = MarketplaceDefault::trending_score(&ctx, &stats(50, 0, 300)).unwrap();
        assert!(young > old, "{young} <= {old}");
    }

    #[test]
    fn more_activity_at_the_same_age_scores_higher() {
        let ctx = Context::default();
        let quiet = MarketplaceDefault::trending_score(&ctx, &stats(2, 0, 10)).unwrap();
        let busy = MarketplaceDefault::trending_score(&ctx, &stats(2, 5, 10)).unwrap();
        assert!(busy > quiet);
    }

    #[test]
    fn gravity_comes_from_the_configuration_and_is_bounded() {
        let flat = MarketplaceDefault::trending_score(&context(json!({"gravity": 0})), &stats(1, 0, 100)).unwrap();
        assert_eq!(flat, 2.0);
        assert!(MarketplaceDefault::trending_score(&context(json!({"gravity": 9})), &stats(1, 0, 1)).is_err());
        assert!(MarketplaceDefault::trending_score(&context(json!({"unknown": 1})), &stats(1, 0, 1)).is_err());
    }

    #[test]
    fn the_owners_rules_decide_registrations() {
        let ctx = context(json!({"approveHandles": ["ada"], "rejectHandles": ["mallory"], "requireNote": true}));
        let ask = |handle: &str, note: &str| Registration {
            handle: handle.into(),
            note: note.into(),
            membership: "APPROVAL".into(),
            ..Registration::default()
        };
        assert_eq!(MarketplaceDefault::registration_decision(&ctx, &ask("ada", "")).unwrap(), Decision::Approve);
        assert_eq!(MarketplaceDefault::registration_decision(&ctx, &ask("mallory", "hi")).unwrap(), Decision::Reject);
        assert_eq!(MarketplaceDefault::registration_decision(&ctx, &ask("bob", " ")).unwrap(), Decision::Reject);
        assert_eq!(
            MarketplaceDefault::registration_decision(&ctx, &ask("bob", "let me in")).unwrap(),
            Decision::DeferToOwner
        );
        let none = Context::default();
        assert_eq!(MarketplaceDefault::registration_decision(&none, &ask("bob", "")).unwrap(), Decision::DeferToOwner);
    }

    #[test]
    fn the_manifest_checks_and_its_schema_takes_the_rules() {
        MarketplaceDefault::manifest().check().unwrap();
    }
}
