//! Marketplace rules: trending scores for listings and decisions on registrations.

use crate::wit::marketplace::exports::trellis::module::marketplace_hooks as wit;
use crate::{Context, Manifest, Result};

/// A module that scores marketplace listings and decides registrations.
/// Export it with [`export_marketplace_rule!`](crate::export_marketplace_rule).
///
/// ```
/// use trellis_plugin_sdk::marketplace::{ListingStats, MarketplaceRule};
/// use trellis_plugin_sdk::{Context, Manifest, Result};
///
/// struct Busy;
///
/// impl MarketplaceRule for Busy {
///     fn manifest() -> Manifest {
///         Manifest::new("busy", "Busy spaces trend", "0.1.0")
///     }
///
///     fn trending_score(_ctx: &Context, stats: &ListingStats) -> Result<f64> {
///         Ok(f64::from(stats.comments_last_week) / f64::from(stats.age_days.max(1)))
///     }
/// }
///
/// let stats = ListingStats { comments_last_week: 10, age_days: 5, ..ListingStats::default() };
/// assert_eq!(Busy::trending_score(&Context::default(), &stats).unwrap(), 2.0);
/// let quiet = ListingStats { age_days: 1, ..ListingStats::default() };
/// assert_eq!(Busy::trending_scores(&Context::default(), &[stats, quiet]).unwrap(), [2.0, 0.0]);
/// ```
pub trait MarketplaceRule {
    /// What the module says about itself.
    fn manifest() -> Manifest;

    /// A non-negative score; higher trends more.
    fn trending_score(ctx: &Context, stats: &ListingStats) -> Result<f64>;

    /// One non-negative score per listing, in order (the host passes at most 1,000 at a time). The
    /// default calls [`trending_score`](Self::trending_score) for each; override it to compare listings
    /// with each other or to share work across them.
    fn trending_scores(ctx: &Context, listings: &[ListingStats]) -> Result<Vec<f64>> {
        listings.iter().map(|stats| Self::trending_score(ctx, stats)).collect()
    }

    /// Whether to let this registration in. The default leaves it to the owner.
    fn registration_decision(ctx: &Context, registration: &Registration) -> Result<Decision> {
        let _ = (ctx, registration);
        Ok(Decision::DeferToOwner)
    }
}

/// What the marketplace knows about a listed space.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListingStats {
    /// The listed space.
    pub space_id: String,
    /// Its member count.
    pub members: u32,
    /// Its asset count.
    pub assets: u32,
    /// Comments in the last seven days.
    pub comments_last_week: u32,
    /// Registrations in the last seven days.
    pub registrations_last_week: u32,
    /// Days since it was listed.
    pub age_days: u32,
}

/// Someone asking to join a space.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Registration {
    /// The space asked for.
    pub space_id: String,
    /// Who asks.
    pub user_id: String,
    /// Their handle.
    pub handle: String,
    /// What they wrote.
    pub note: String,
    /// The space's membership policy: `OPEN`, `APPROVAL` or `CLOSED`.
    pub membership: String,
}

/// The answer to a [`Registration`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Let them in.
    Approve,
    /// Keep them out.
    Reject,
    /// Let the owner decide.
    DeferToOwner,
}

impl From<wit::ListingStats> for ListingStats {
    fn from(stats: wit::ListingStats) -> Self {
        Self {
            space_id: stats.space_id,
            members: stats.members,
            assets: stats.assets,
            comments_last_week: stats.comments_last_week,
            registrations_last_week: stats.registrations_last_week,
            age_days: stats.age_days,
        }
    }
}

impl From<wit::Registration> for Registration {
    fn from(registration: wit::Registration) -> Self {
        Self {
            space_id: registration.space_id,
            user_id: registration.user_id,
            handle: registration.handle,
            note: registration.note,
            membership: registration.membership,
        }
    }
}

impl From<Decision> for wit::Decision {
    fn from(decision: Decision) -> Self {
        match decision {
            Decision::Approve => wit::Decision::Approve,
            Decision::Reject => wit::Decision::Reject,
            Decision::DeferToOwner => wit::Decision::DeferToOwner,
        }
    }
}
