//! Attempt limits per client address and per account (login, PIN checks, mail-sending starts).

use std::net::IpAddr;
use std::num::NonZeroU32;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::config::RateLimitConfig;
use crate::error::Error;

pub struct RateLimits {
    login_per_address: DefaultKeyedRateLimiter<IpAddr>,
    login_per_account: DefaultKeyedRateLimiter<String>,
    pin_per_address: DefaultKeyedRateLimiter<IpAddr>,
    mail_per_address: DefaultKeyedRateLimiter<IpAddr>,
}

fn per_minute(n: u32) -> Quota {
    Quota::per_minute(NonZeroU32::new(n.max(1)).expect("at least one"))
}

fn check<K: std::hash::Hash + Eq + Clone>(limiter: &DefaultKeyedRateLimiter<K>, key: &K) -> Result<(), Error> {
    limiter.check_key(key).map_err(|not_until| Error::RateLimited {
        retry_after_seconds: not_until.wait_time_from(DefaultClock::default().now()).as_secs_f64().ceil() as u64,
    })
}

impl RateLimits {
    pub fn new(config: &RateLimitConfig) -> Self {
        Self {
            login_per_address: RateLimiter::keyed(per_minute(config.login_per_address)),
            login_per_account: RateLimiter::keyed(per_minute(config.login_per_account)),
            pin_per_address: RateLimiter::keyed(per_minute(config.pin_per_address)),
            mail_per_address: RateLimiter::keyed(per_minute(config.mail_per_address)),
        }
    }

    pub fn login(&self, address: IpAddr, login: &str) -> Result<(), Error> {
        check(&self.login_per_address, &address)?;
        check(&self.login_per_account, &login.to_lowercase())
    }

    pub fn pin(&self, address: IpAddr) -> Result<(), Error> {
        check(&self.pin_per_address, &address)
    }

    pub fn mail(&self, address: IpAddr) -> Result<(), Error> {
        check(&self.mail_per_address, &address)
    }

    /// Forgets keys whose limits have fully recovered, so memory stays bounded.
    pub fn shrink(&self) {
        self.login_per_address.retain_recent();
        self.login_per_account.retain_recent();
        self.pin_per_address.retain_recent();
        self.mail_per_address.retain_recent();
    }
}
