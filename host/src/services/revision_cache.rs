//! Parsed documents (form and workflow configurations) kept in memory by id. An entry is served
//! as it is for `ttl` after its revision was last confirmed; after that the caller reads the
//! stored revision and [`RevisionCache::confirm`] reuses the parsed value if it is unchanged, so
//! a document is parsed (and its patterns compiled) once per revision.

use std::time::{Duration, Instant};

use dashmap::DashMap;

/// Entries beyond which the cache starts over rather than grow without bound.
const MAX_ENTRIES: usize = 10_000;

pub struct RevisionCache<T> {
    ttl: Duration,
    entries: DashMap<String, Entry<T>>,
}

struct Entry<T> {
    value: T,
    revision: i64,
    confirmed_at: Instant,
}

impl<T: Clone> RevisionCache<T> {
    pub fn new(ttl: Duration) -> Self {
        Self { ttl, entries: DashMap::new() }
    }

    /// The value, if its revision was confirmed within `ttl`.
    pub fn fresh(&self, id: &str) -> Option<T> {
        self.entries.get(id).filter(|e| e.confirmed_at.elapsed() < self.ttl).map(|e| e.value.clone())
    }

    /// The value, if it is of `revision` (which the caller just read from the store).
    pub fn confirm(&self, id: &str, revision: i64) -> Option<T> {
        let mut entry = self.entries.get_mut(id).filter(|e| e.revision == revision)?;
        entry.confirmed_at = Instant::now();
        Some(entry.value.clone())
    }

    pub fn insert(&self, id: String, revision: i64, value: T) {
        if self.entries.len() >= MAX_ENTRIES {
            self.entries.clear();
        }
        self.entries.insert(id, Entry { value, revision, confirmed_at: Instant::now() });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_reused_only_for_its_own_revision() {
        let cache = RevisionCache::new(Duration::from_secs(60));
        cache.insert("a".into(), 1, "parsed v1");
        assert_eq!(cache.fresh("a"), Some("parsed v1"));
        assert_eq!(cache.confirm("a", 1), Some("parsed v1"));
        assert_eq!(cache.confirm("a", 2), None);
        assert_eq!(cache.fresh("b"), None);
    }

    #[test]
    fn with_no_ttl_every_read_confirms_the_revision() {
        let cache = RevisionCache::new(Duration::ZERO);
        cache.insert("a".into(), 1, 7);
        assert_eq!(cache.fresh("a"), None);
        assert_eq!(cache.confirm("a", 1), Some(7));
    }
}
