//! A small memory of lookups that are read far more often than they change (space memberships,
//! a space's connected modules). An entry is served for `ttl` after it was stored; writes made
//! through this server remove the entries they affect, so only other servers' writes wait for
//! the TTL.

use std::borrow::Borrow;
use std::hash::Hash;
use std::time::{Duration, Instant};

use dashmap::DashMap;

/// Entries beyond which the cache starts over rather than grow without bound.
const MAX_ENTRIES: usize = 100_000;

pub struct TtlCache<K, V> {
    ttl: Duration,
    entries: DashMap<K, (V, Instant)>,
}

impl<K: Eq + Hash, V: Clone> TtlCache<K, V> {
    pub fn new(ttl: Duration) -> Self {
        Self { ttl, entries: DashMap::new() }
    }

    /// The value, if it was stored within `ttl`.
    pub fn get<Q>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let entry = self.entries.get(key)?;
        (entry.1.elapsed() < self.ttl).then(|| entry.0.clone())
    }

    pub fn insert(&self, key: K, value: V) {
        if self.ttl.is_zero() {
            return;
        }
        if self.entries.len() >= MAX_ENTRIES {
            self.entries.clear();
        }
        self.entries.insert(key, (value, Instant::now()));
    }

    pub fn remove<Q>(&self, key: &Q)
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.entries.remove(key);
    }

    /// Forgets every entry whose key matches.
    pub fn remove_where(&self, mut matches: impl FnMut(&K) -> bool) {
        self.entries.retain(|key, _| !matches(key));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_served_until_removed() {
        let cache = TtlCache::new(Duration::from_secs(60));
        cache.insert("a".to_owned(), 1);
        cache.insert("b".to_owned(), 2);
        assert_eq!(cache.get("a"), Some(1));
        cache.remove("a");
        assert_eq!(cache.get("a"), None);
        cache.remove_where(|key| key.starts_with('b'));
        assert_eq!(cache.get("b"), None);
    }

    #[test]
    fn a_zero_ttl_caches_nothing() {
        let cache = TtlCache::new(Duration::ZERO);
        cache.insert("a".to_owned(), 1);
        assert_eq!(cache.get("a"), None);
    }
}
