//! Plan entitlements: daily quotas counted per license key (or gateway subscriber) per UTC day.

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
}

impl Entitlement {
    pub const ALL: [Entitlement; 5] =
        [Self::FormUploads, Self::PublishedAssets, Self::Messages, Self::FormUploadBytes, Self::FormConfigurations];

    pub fn name(self) -> &'static str {
        match self {
            Self::FormUploads => "forms.attachments.uploadPerDay",
            Self::PublishedAssets => "spaces.publishedAssets.perDay",
            Self::Messages => "messaging.perDay",
            Self::FormUploadBytes => "forms.attachments.uploadBytesPerDay",
            Self::FormConfigurations => "forms.configurations.createPerDay",
        }
    }

    pub fn default_quota(self) -> u64 {
        match self {
            Self::FormUploads => 10_000,
            Self::PublishedAssets => 1_000,
            Self::Messages => 1_000,
            Self::FormUploadBytes => 10 << 30,
            Self::FormConfigurations => 200,
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
}

impl Plan {
    pub fn new(name: &str, quota: impl Fn(Entitlement) -> u64) -> Self {
        Self { name: name.to_owned(), quotas: Entitlement::ALL.map(quota) }
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
    fn utc_days_start_at_midnight() {
        let before = time::macros::datetime!(2026-11-21 23:59:59 UTC);
        let after = time::macros::datetime!(2026-11-22 00:00:00 UTC);
        assert_eq!(utc_day(before) + 1, utc_day(after));
    }
}
