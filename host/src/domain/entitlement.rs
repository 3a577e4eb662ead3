//! Plan entitlements: daily quotas counted per license key (or gateway subscriber) per UTC day, and
//! for each signed-in user a share of each, so one user of a shared key cannot spend the day for all.

use std::fmt;

/// A quota a plan sets. The names are the contract's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Entitlement {
    FormUploads,
    PublishedAssets,
    Messages,
    /// Bytes of attachments stored per day (the count alone let a few huge files through).
    FormUploadBytes,
    /// Form configurations one user creates per day (counted per user, not per key).
    FormConfigurations,
    /// Analyses a space owner queues again per day (counted per user, not per key): each runs
    /// every analysis step over the asset's bytes once more.
    Reanalyses,
}

impl Entitlement {
    pub const ALL: [Entitlement; 6] = [
        Self::FormUploads,
        Self::PublishedAssets,
        Self::Messages,
        Self::FormUploadBytes,
        Self::FormConfigurations,
        Self::Reanalyses,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::FormUploads => "forms.attachments.uploadPerDay",
            Self::PublishedAssets => "spaces.publishedAssets.perDay",
            Self::Messages => "messaging.perDay",
            Self::FormUploadBytes => "forms.attachments.uploadBytesPerDay",
            Self::FormConfigurations => "forms.configurations.createPerDay",
            Self::Reanalyses => "spaces.assets.reanalysisPerDay",
        }
    }

    pub fn default_quota(self) -> u64 {
        match self {
            Self::FormUploads => 10_000,
            Self::PublishedAssets => 1_000,
            Self::Messages => 1_000,
            Self::FormUploadBytes => 10 << 30,
            Self::FormConfigurations => 200,
            Self::Reanalyses => 100,
        }
    }

    /// Accepts the contract name in any letter case; the interface's `messaging/day` too.
    pub fn parse(name: &str) -> Option<Self> {
        if name.eq_ignore_ascii_case("messaging/day") {
            return Some(Self::Messages);
        }
        Self::ALL.into_iter().find(|e| e.name().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for Entitlement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A named plan with its resolved quotas.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    name: String,
    quotas: [u64; Entitlement::ALL.len()],
    /// The percentage of each quota one user may spend (100: the whole).
    user_share_percent: u64,
}

impl Plan {
    pub fn new(name: &str, quota: impl Fn(Entitlement) -> u64) -> Self {
        Self { name: name.to_owned(), quotas: Entitlement::ALL.map(quota), user_share_percent: 100 }
    }

    /// The plan with each user limited to `percent` (1..=100) of each quota.
    pub fn with_user_share(mut self, percent: u64) -> Self {
        self.user_share_percent = percent.clamp(1, 100);
        self
    }

    /// What one user may spend of `entitlement` per day: their share of the quota, rounded up (so
    /// never nothing); `None` when the share is the whole quota.
    pub fn user_quota(&self, entitlement: Entitlement) -> Option<u64> {
        (self.user_share_percent < 100).then(|| {
            let quota = u128::from(self.quota(entitlement));
            u64::try_from((quota * u128::from(self.user_share_percent)).div_ceil(100)).unwrap_or(u64::MAX).max(1)
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn quota(&self, entitlement: Entitlement) -> u64 {
        self.quotas[entitlement as usize]
    }
}

/// Who a quota is counted for: a license key, or a gateway subscriber.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct QuotaSubject(String);

impl QuotaSubject {
    pub fn license(license_id: &str) -> Self {
        Self(format!("license:{license_id}"))
    }

    pub fn gateway(user: &str) -> Self {
        Self(format!("gateway:{user}"))
    }

    /// One signed-in user, for quotas that bound what each user makes whatever key they use.
    pub fn user(user_id: &str) -> Self {
        Self(format!("user:{user_id}"))
    }

    /// One user's share of this subject's quotas.
    pub fn share_of(&self, user_id: &str) -> Self {
        Self(format!("{}/user:{user_id}", self.0))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The UTC day number (days since the epoch) quotas are counted in.
pub fn utc_day(now: time::OffsetDateTime) -> i64 {
    now.unix_timestamp().div_euclid(86_400)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_case_insensitively_and_the_interface_alias_is_known() {
        assert_eq!(Entitlement::parse("FORMS.ATTACHMENTS.UPLOADPERDAY"), Some(Entitlement::FormUploads));
        assert_eq!(Entitlement::parse("messaging/day"), Some(Entitlement::Messages));
        assert_eq!(Entitlement::parse("nope"), None);
    }

    #[test]
    fn a_users_share_is_rounded_up_and_never_nothing() {
        let plan = Plan::new("p", |_| 1_000).with_user_share(25);
        assert_eq!(plan.user_quota(Entitlement::Messages), Some(250));
        let tiny = Plan::new("p", |_| 3).with_user_share(25);
        assert_eq!(tiny.user_quota(Entitlement::Messages), Some(1));
        assert_eq!(Plan::new("p", |_| 3).user_quota(Entitlement::Messages), None);
        let huge = Plan::new("p", |_| u64::MAX).with_user_share(50);
        assert_eq!(huge.user_quota(Entitlement::Messages), Some(u64::MAX / 2 + 1));
    }

    #[test]
    fn utc_days_start_at_midnight() {
        let before = time::macros::datetime!(2026-11-21 23:59:59 UTC);
        let after = time::macros::datetime!(2026-11-22 00:00:00 UTC);
        assert_eq!(utc_day(before) + 1, utc_day(after));
    }
}
