//! The settings of accounts: sessions and password hashing, mail, attempt limits, and the built-in
//! authentication routes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct AuthConfig {
    /// Session lifetime in seconds (default 30 days).
    pub session_ttl_seconds: u64,
    /// Password hashes (argon2, ~19 MiB each) computed at once; 0 means one per core.
    pub max_parallel_hashes: usize,
    /// Logins and password changes waiting for a hash place; beyond them RATE_LIMITED at once.
    pub max_waiting_hashes: usize,
    /// Memory of one new password hash in KiB (argon2id's `m`): with the passes, what each guess at a
    /// stolen hash costs. Below the defaults (OWASP's minimum) the server warns at start: only test
    /// suites should go lower. Hashes keep the cost they were made with.
    pub password_hash_memory_kib: u32,
    /// Passes over that memory (argon2id's `t`).
    pub password_hash_iterations: u32,
}

impl AuthConfig {
    pub fn password_cost(&self) -> crate::domain::account::PasswordCost {
        crate::domain::account::PasswordCost {
            memory_kib: self.password_hash_memory_kib,
            iterations: self.password_hash_iterations,
        }
    }
}

impl Default for AuthConfig {
    fn default() -> Self {
        let cost = crate::domain::account::PasswordCost::RECOMMENDED;
        Self {
            session_ttl_seconds: 30 * 24 * 3600,
            max_parallel_hashes: 0,
            max_waiting_hashes: 64,
            password_hash_memory_kib: cost.memory_kib,
            password_hash_iterations: cost.iterations,
        }
    }
}

/// SMTP when `smtp_url` is set (e.g. `smtps://user:pass@host:465`), else `.eml` files in the outbox.
#[derive(Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct MailConfig {
    /// SMTP server URL, e.g. `smtps://user:pass@smtp.example.org:465`; unset writes `.eml` files to `<data_dir>/outbox`.
    pub smtp_url: Option<String>,
    /// The sender of every mail.
    pub from: String,
}

impl Default for MailConfig {
    fn default() -> Self {
        Self { smtp_url: None, from: "Trellis <no-reply@trellis.invalid>".into() }
    }
}

/// Attempts allowed per minute; each limiter also allows a burst of the same size.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RateLimitConfig {
    /// Logins per client address.
    pub login_per_address: u32,
    /// Logins of one account from one client address (a handle and an e-mail of the same account
    /// count together); a stranger who guesses locks only their own address out.
    pub login_per_account: u32,
    /// Failed logins of one account from all addresses together; beyond them each attempt on the
    /// account waits a second first, which slows guessing but lets the owner in.
    pub login_failures_per_account: u32,
    /// PIN checks (sign-up and reset) per client address.
    pub pin_per_address: u32,
    /// Sign-up and reset starts (each sends a mail) per client address.
    pub mail_per_address: u32,
    /// PIN mails (starts and resends) to one e-mail address per hour, whether or not it has an
    /// account, so nobody can flood a mailbox through the server.
    pub mail_per_recipient_hour: u32,
    /// Comments one user posts (on spaces and channels together).
    pub comments_per_user: u32,
    /// Reconnections with `Last-Event-ID` to `GET /v0/events` by one user (each replays what the
    /// user missed); one more is 429 with `Retry-After`. Connections without it replay nothing.
    pub live_replays_per_user: u32,
    /// Refused event tickets (`GET /v0/events?ticket=`: unknown, used, expired or malformed) per client
    /// address; beyond them the address's ticket redemptions are 429 for a minute, before any lookup.
    pub live_ticket_failures_per_address: u32,
    /// Seconds after a user declines a channel's invite during which that channel may not invite
    /// them again (429 with `Retry-After`), so a declined invite cannot be sent again at once;
    /// 0 allows it at once.
    pub reinvite_after_decline_seconds: u64,
}

impl Default for RateLimitConfig {
    fn default() -> Self {
        Self {
            login_per_address: 30,
            login_per_account: 10,
            login_failures_per_account: 30,
            pin_per_address: 30,
            mail_per_address: 10,
            mail_per_recipient_hour: 10,
            comments_per_user: 60,
            live_replays_per_user: 60,
            live_ticket_failures_per_address: 30,
            reinvite_after_decline_seconds: 24 * 3600,
        }
    }
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct WebModuleConfig {
    /// Built-in authentication routes.
    pub authentication: AuthenticationModuleConfig,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct AuthenticationModuleConfig {
    /// The password-reset routes (`modules.web.authentication.passwordReset.enabled`).
    #[serde(rename = "passwordReset")]
    pub password_reset: Switch,
}

#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Switch {
    /// Whether the routes are served.
    pub enabled: bool,
}

impl Default for Switch {
    fn default() -> Self {
        Self { enabled: true }
    }
}
