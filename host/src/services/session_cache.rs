//! A short-lived memory of checked sessions, so that most authenticated requests need no
//! database round trip for the session itself.

use std::time::{Duration, Instant};

use dashmap::DashMap;
use time::OffsetDateTime;

use crate::store::SessionUser;

/// Entries beyond which the cache starts over rather than grow without bound.
const MAX_ENTRIES: usize = 100_000;

pub struct SessionCache {
    ttl: Duration,
    entries: DashMap<String, (SessionUser, Instant)>,
}

impl SessionCache {
    pub fn new(ttl: Duration) -> Self {
        Self { ttl, entries: DashMap::new() }
    }

    /// The cached session for a token digest, if fresh and not expired.
    pub fn get(&self, digest: &str, now: OffsetDateTime) -> Option<SessionUser> {
        let entry = self.entries.get(digest)?;
        let (user, cached_at) = &*entry;
        (cached_at.elapsed() < self.ttl && user.expires_at > now).then(|| user.clone())
    }

    pub fn insert(&self, digest: String, user: SessionUser) {
        if self.ttl.is_zero() {
            return;
        }
        if self.entries.len() >= MAX_ENTRIES {
            self.entries.clear();
        }
        self.entries.insert(digest, (user, Instant::now()));
    }

    pub fn remove(&self, digest: &str) {
        self.entries.remove(digest);
    }

    /// Forgets every session of a user (password reset ends them all).
    pub fn remove_user(&self, user_id: &str) {
        self.entries.retain(|_, (user, _)| user.user_id != user_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(id: &str, expires_at: OffsetDateTime) -> SessionUser {
        SessionUser { user_id: id.into(), handle: id.into(), operator: false, expires_at }
    }

    #[test]
    fn entries_expire_with_the_session_and_can_be_dropped_per_user() {
        let now = OffsetDateTime::now_utc();
        let cache = SessionCache::new(Duration::from_secs(60));
        cache.insert("a".into(), user("u1", now + time::Duration::hours(1)));
        cache.insert("b".into(), user("u1", now + time::Duration::hours(1)));
        cache.insert("c".into(), user("u2", now - time::Duration::seconds(1)));
        assert!(cache.get("a", now).is_some());
        assert!(cache.get("c", now).is_none(), "an expired session is never served");
        cache.remove_user("u1");
        assert!(cache.get("a", now).is_none() && cache.get("b", now).is_none());
    }

    #[test]
    fn a_zero_ttl_caches_nothing() {
        let cache = SessionCache::new(Duration::ZERO);
        cache.insert("a".into(), user("u1", OffsetDateTime::now_utc() + time::Duration::hours(1)));
        assert!(cache.get("a", OffsetDateTime::now_utc()).is_none());
    }
}
