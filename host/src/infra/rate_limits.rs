//! Attempt limits per client address and per account (login, PIN checks, mail-sending starts), and
//! the pace of what a signed-in user writes for others to read (comments).
//! A client address counts as what one client controls: the IPv4 address, or the IPv6 /64.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::config::RateLimitConfig;
use crate::error::Error;
use crate::infra::cache::Cache;

/// The part of an address one client controls: the address for IPv4 (an IPv4-mapped IPv6
/// address counts as IPv4), the /64 for IPv6, since one host is commonly handed a whole /64.
pub fn client_key(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V4(_) => address,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into()),
        },
    }
}

/// Accounts remembered as under attack at once.
const STRAINED_ACCOUNTS: u64 = 100_000;
/// Client addresses held as guessing event tickets at once (each for a minute); beyond, the oldest go.
const GUESSING_ADDRESSES: u64 = 100_000;

pub struct RateLimits {
    login_per_address: DefaultKeyedRateLimiter<IpAddr>,
    /// Attempts on one account from one client: a stranger guessing locks only themselves out.
    login_per_account: DefaultKeyedRateLimiter<(IpAddr, String)>,
    /// Failed logins of one account from anywhere; beyond them every attempt on it is slowed.
    login_failures: DefaultKeyedRateLimiter<String>,
    /// Accounts over their failure budget, for a minute.
    strained: Cache<String, ()>,
    pin_per_address: DefaultKeyedRateLimiter<IpAddr>,
    mail_per_address: DefaultKeyedRateLimiter<IpAddr>,
    mail_per_recipient: DefaultKeyedRateLimiter<String>,
    comments_per_user: DefaultKeyedRateLimiter<String>,
    live_replays_per_user: DefaultKeyedRateLimiter<String>,
    ticket_failures_per_address: DefaultKeyedRateLimiter<IpAddr>,
    /// Client addresses over their ticket failure budget, for a minute.
    guessing_tickets: Cache<IpAddr, ()>,
}

fn per_minute(n: u32) -> Quota {
    Quota::per_minute(NonZeroU32::new(n.max(1)).expect("at least one"))
}

/// Takes one attempt from `key`'s budget in `limiter` (named `limit` in the metrics).
fn check<K: std::hash::Hash + Eq + Clone>(
    limit: &'static str,
    limiter: &DefaultKeyedRateLimiter<K>,
    key: &K,
) -> Result<(), Error> {
    limiter.check_key(key).map_err(|not_until| {
        crate::infra::metrics::rate_limit_refused(limit);
        Error::RateLimited {
            retry_after_seconds: not_until.wait_time_from(DefaultClock::default().now()).as_secs_f64().ceil() as u64,
        }
    })
}

impl RateLimits {
    pub fn new(config: &RateLimitConfig) -> Self {
        Self {
            login_per_address: RateLimiter::keyed(per_minute(config.login_per_address)),
            login_per_account: RateLimiter::keyed(per_minute(config.login_per_account)),
            login_failures: RateLimiter::keyed(per_minute(config.login_failures_per_account)),
            strained: Cache::new(Duration::from_secs(60), STRAINED_ACCOUNTS),
            pin_per_address: RateLimiter::keyed(per_minute(config.pin_per_address)),
            mail_per_address: RateLimiter::keyed(per_minute(config.mail_per_address)),
            mail_per_recipient: RateLimiter::keyed(Quota::per_hour(
                NonZeroU32::new(config.mail_per_recipient_hour.max(1)).expect("at least one"),
            )),
            comments_per_user: RateLimiter::keyed(per_minute(config.comments_per_user)),
            live_replays_per_user: RateLimiter::keyed(per_minute(config.live_replays_per_user)),
            ticket_failures_per_address: RateLimiter::keyed(per_minute(config.live_ticket_failures_per_address)),
            guessing_tickets: Cache::new(Duration::from_secs(60), GUESSING_ADDRESSES),
        }
    }

    /// A login attempt from `address`, before anything is looked up.
    pub fn login_from(&self, address: IpAddr) -> Result<(), Error> {
        check("login_per_address", &self.login_per_address, &client_key(address))
    }

    /// A login attempt on `account` (a user id, or a digest of an unknown login) from `address`.
    pub fn login_to(&self, address: IpAddr, account: &str) -> Result<(), Error> {
        check("login_per_account", &self.login_per_account, &(client_key(address), account.to_owned()))
    }

    /// Counts a failed login of `account`; over the budget, the next minute's attempts on it are
    /// slowed (not refused: the owner must still get in).
    pub fn login_failed(&self, account: &str) {
        if self.login_failures.check_key(&account.to_owned()).is_err() {
            self.strained.insert(self.strained.ticket(), account.to_owned(), ());
        }
    }

    /// Whether `account` went over its failure budget within the last minute.
    pub fn login_strained(&self, account: &str) -> bool {
        self.strained.get(&account.to_owned()).is_some()
    }

    pub fn pin(&self, address: IpAddr) -> Result<(), Error> {
        check("pin_per_address", &self.pin_per_address, &client_key(address))
    }

    pub fn mail(&self, address: IpAddr) -> Result<(), Error> {
        check("mail_per_address", &self.mail_per_address, &client_key(address))
    }

    /// A PIN mail to `email` (lower-cased), whether or not it has an account.
    pub fn mail_to(&self, email: &str) -> Result<(), Error> {
        check("mail_per_recipient", &self.mail_per_recipient, &email.to_lowercase())
    }

    /// A comment by `user_id`, wherever it is made.
    pub fn comment(&self, user_id: &str) -> Result<(), Error> {
        check("comments_per_user", &self.comments_per_user, &user_id.to_owned())
    }

    /// A reconnection of `user_id`'s to the live events that asks for a replay.
    pub fn live_replay(&self, user_id: &str) -> Result<(), Error> {
        check("live_replays_per_user", &self.live_replays_per_user, &user_id.to_owned())
    }

    /// A ticket redemption from `address`: 429 while the address is over its failure budget.
    pub fn ticket_from(&self, address: IpAddr) -> Result<(), Error> {
        if self.guessing_tickets.get(&client_key(address)).is_some() {
            crate::infra::metrics::rate_limit_refused("live_ticket_failures_per_address");
            return Err(Error::RateLimited { retry_after_seconds: 60 });
        }
        Ok(())
    }

    /// Counts a refused ticket from `address`; over the budget, the address's redemptions are refused
    /// for a minute.
    pub fn ticket_failed(&self, address: IpAddr) {
        let key = client_key(address);
        if self.ticket_failures_per_address.check_key(&key).is_err() {
            self.guessing_tickets.insert(self.guessing_tickets.ticket(), key, ());
        }
    }

    /// Forgets keys whose limits have fully recovered, so memory stays bounded.
    pub fn shrink(&self) {
        self.login_per_address.retain_recent();
        self.login_per_account.retain_recent();
        self.login_failures.retain_recent();
        self.pin_per_address.retain_recent();
        self.mail_per_address.retain_recent();
        self.mail_per_recipient.retain_recent();
        self.comments_per_user.retain_recent();
        self.live_replays_per_user.retain_recent();
        self.ticket_failures_per_address.retain_recent();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_client_is_its_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff:1:2:3".parse().unwrap();
        let other: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(client_key(a), client_key(b));
        assert_ne!(client_key(a), client_key(other));
        assert_eq!(client_key("::ffff:10.0.0.1".parse().unwrap()), "10.0.0.1".parse::<IpAddr>().unwrap());
        assert_eq!(client_key("10.0.0.1".parse().unwrap()), "10.0.0.1".parse::<IpAddr>().unwrap());
    }
}
