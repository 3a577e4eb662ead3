//! The one in-memory cache of the server, for lookups read far more often than they change
//! (license keys, sessions, space memberships, parsed configurations).
//!
//! Every cache is bounded twice: by age (an entry is served for `ttl` after it was stored, so
//! another server's write is seen within that time; writes made through this server remove the
//! entries they affect at once) and by size (entries, or a weight such as bytes), evicting the
//! least useful entries first (moka's TinyLFU), so no request pattern makes one grow without end.
//!
//! A read-through fill takes a [`Ticket`] before it reads the store and stores its answer with it:
//! an answer read before a removal that happened meanwhile is not kept, so a fill racing a write
//! cannot put back what the write just removed (a removed member reading on for a whole `ttl`).

use std::borrow::Borrow;
use std::hash::Hash;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A bounded map whose entries expire `ttl` after they were stored. With a zero `ttl` it stores
/// nothing, which is how a deployment turns a cache off.
pub struct Cache<K, V> {
    entries: Option<moka::sync::Cache<K, V>>,
    /// Bumped by every removal, before it removes: a fill whose ticket is older may hold what was removed.
    removals: AtomicU64,
}

/// When a fill began reading the store (see the module's documentation).
#[derive(Clone, Copy, Debug)]
#[must_use = "a ticket is for storing what was read after it was taken"]
pub struct Ticket(u64);

impl<K, V> Cache<K, V>
where
    K: Hash + Eq + Send + Sync + 'static,
    V: Clone + Send + Sync + 'static,
{
    /// At most `max_entries` entries, each served for `ttl`.
    pub fn new(ttl: Duration, max_entries: u64) -> Self {
        Self::build(ttl, moka::sync::Cache::builder().max_capacity(max_entries))
    }

    /// At most `max_weight` in total as `weigher` counts it (e.g. bytes), each served for `ttl`.
    pub fn weighted(ttl: Duration, max_weight: u64, weigher: fn(&K, &V) -> u32) -> Self {
        Self::build(ttl, moka::sync::Cache::builder().max_capacity(max_weight).weigher(weigher))
    }

    fn build(ttl: Duration, builder: moka::sync::CacheBuilder<K, V, moka::sync::Cache<K, V>>) -> Self {
        Self { entries: (!ttl.is_zero()).then(|| builder.time_to_live(ttl).build()), removals: AtomicU64::new(0) }
    }

    /// Taken before reading what will be stored with [`Cache::insert`].
    pub fn ticket(&self) -> Ticket {
        Ticket(self.removals.load(Ordering::SeqCst))
    }

    pub fn get<Q>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.entries.as_ref()?.get(key)
    }

    /// Stores `value`, read after `ticket` was taken, unless something was removed since: then the
    /// value may be older than that removal and is dropped (the next read fills again).
    pub fn insert(&self, ticket: Ticket, key: K, value: V)
    where
        K: Clone,
    {
        let Some(entries) = &self.entries else { return };
        if self.removals.load(Ordering::SeqCst) != ticket.0 {
            return;
        }
        entries.insert(key.clone(), value);
        // A removal between the check and the insert has bumped the count before removing; if it
        // removed before this insert landed, take the entry out again.
        if self.removals.load(Ordering::SeqCst) != ticket.0 {
            entries.invalidate(&key);
        }
    }

    fn removing(&self) {
        self.removals.fetch_add(1, Ordering::SeqCst);
    }

    pub fn remove<Q>(&self, key: &Q)
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.removing();
        if let Some(entries) = &self.entries {
            entries.invalidate(key);
        }
    }

    pub fn clear(&self) {
        self.removing();
        if let Some(entries) = &self.entries {
            entries.invalidate_all();
        }
    }

    /// Forgets every entry that `matches`; walks the whole cache, so it is for rare events
    /// (a password reset ending all of a user's sessions), not for the request path.
    pub fn remove_where(&self, mut matches: impl FnMut(&K, &V) -> bool) {
        self.removing();
        let Some(entries) = &self.entries else { return };
        let doomed: Vec<Arc<K>> =
            entries.iter().filter(|(key, value)| matches(key, value)).map(|(key, _)| key).collect();
        for key in doomed {
            entries.invalidate(&*key);
        }
    }
}

/// Parsed documents by id, reused for as long as their stored revision is unchanged.
///
/// An entry is served as it is for `ttl` after its revision was last confirmed; after that the
/// caller reads the stored revision and [`RevisionCache::confirm`] reuses the parsed value if it
/// is unchanged, so a document is parsed (and its patterns compiled) once per revision. Entries
/// are weighed by the size of their source document, so the cache holds at most `max_bytes` of
/// documents however large each one is.
pub struct RevisionCache<T> {
    ttl: Duration,
    entries: moka::sync::Cache<String, Arc<Revision<T>>>,
}

struct Revision<T> {
    value: T,
    revision: i64,
    /// The source document's size, the entry's weight.
    bytes: u32,
    confirmed_at: Instant,
}

impl<T: Clone + Send + Sync + 'static> RevisionCache<T> {
    pub fn new(ttl: Duration, max_bytes: u64) -> Self {
        let entries = moka::sync::Cache::builder()
            .max_capacity(max_bytes)
            .weigher(|id: &String, entry: &Arc<Revision<T>>| entry.bytes.saturating_add(id.len() as u32))
            .build();
        Self { ttl, entries }
    }

    /// The value, if its revision was confirmed within `ttl`.
    pub fn fresh(&self, id: &str) -> Option<T> {
        self.entries.get(id).filter(|e| e.confirmed_at.elapsed() < self.ttl).map(|e| e.value.clone())
    }

    /// The value, if it is of `revision` (which the caller just read from the store).
    pub fn confirm(&self, id: &str, revision: i64) -> Option<T> {
        let entry = self.entries.get(id).filter(|e| e.revision == revision)?;
        let value = entry.value.clone();
        if !self.ttl.is_zero() {
            let confirmed =
                Revision { value: value.clone(), revision, bytes: entry.bytes, confirmed_at: Instant::now() };
            self.entries.insert(id.to_owned(), Arc::new(confirmed));
        }
        Some(value)
    }

    /// Drops one document (another server changed it).
    pub fn forget(&self, id: &str) {
        self.entries.invalidate(id);
    }

    pub fn clear(&self) {
        self.entries.invalidate_all();
    }

    /// Remembers `value`, parsed from a document of `source_bytes` bytes at `revision`.
    pub fn insert(&self, id: String, revision: i64, source_bytes: usize, value: T) {
        let bytes = u32::try_from(source_bytes).unwrap_or(u32::MAX);
        self.entries.insert(id, Arc::new(Revision { value, revision, bytes, confirmed_at: Instant::now() }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_served_until_removed() {
        let cache = Cache::new(Duration::from_secs(60), 100);
        cache.insert(cache.ticket(), "a".to_owned(), 1);
        cache.insert(cache.ticket(), "b".to_owned(), 2);
        assert_eq!(cache.get("a"), Some(1));
        cache.remove("a");
        assert_eq!(cache.get("a"), None);
        cache.remove_where(|key, _| key.starts_with('b'));
        assert_eq!(cache.get("b"), None);
    }

    #[test]
    fn a_fill_that_read_before_a_removal_is_not_kept() {
        // Arrange: a fill takes its ticket and reads the store (the member's role) ...
        let cache = Cache::new(Duration::from_secs(60), 100);
        let ticket = cache.ticket();
        // ... the member is removed meanwhile, and the removal forgets the (absent) entry ...
        cache.remove("role");
        // Act: the fill stores what it read before the removal.
        cache.insert(ticket, "role".to_owned(), "reader");
        // Assert: it is not served; a fill that began after the removal is.
        assert_eq!(cache.get("role"), None);
        cache.insert(cache.ticket(), "role".to_owned(), "none");
        assert_eq!(cache.get("role"), Some("none"));
    }

    #[test]
    fn a_zero_ttl_caches_nothing() {
        let cache = Cache::new(Duration::ZERO, 100);
        cache.insert(cache.ticket(), "a".to_owned(), 1);
        assert_eq!(cache.get("a"), None);
    }

    #[test]
    fn entries_expire_after_their_ttl() {
        let cache = Cache::new(Duration::from_millis(20), 100);
        cache.insert(cache.ticket(), "a".to_owned(), 1);
        std::thread::sleep(Duration::from_millis(60));
        assert_eq!(cache.get("a"), None);
    }

    #[test]
    fn a_weighted_cache_stays_within_its_weight() {
        let cache: Cache<u32, Vec<u8>> = Cache::weighted(Duration::from_secs(60), 10_000, |_, v| v.len() as u32);
        for key in 0..100 {
            cache.insert(cache.ticket(), key, vec![0; 1_000]);
        }
        cache.entries.as_ref().unwrap().run_pending_tasks();
        assert!(cache.entries.as_ref().unwrap().weighted_size() <= 10_000);
    }

    #[test]
    fn a_value_is_reused_only_for_its_own_revision() {
        let cache = RevisionCache::new(Duration::from_secs(60), 1 << 20);
        cache.insert("a".into(), 1, 10, "parsed v1");
        assert_eq!(cache.fresh("a"), Some("parsed v1"));
        assert_eq!(cache.confirm("a", 1), Some("parsed v1"));
        assert_eq!(cache.confirm("a", 2), None);
        assert_eq!(cache.fresh("b"), None);
    }

    #[test]
    fn with_no_ttl_every_read_confirms_the_revision() {
        let cache = RevisionCache::new(Duration::ZERO, 1 << 20);
        cache.insert("a".into(), 1, 10, 7);
        assert_eq!(cache.fresh("a"), None);
        assert_eq!(cache.confirm("a", 1), Some(7));
    }

    #[test]
    fn revisions_are_bounded_by_the_bytes_of_their_documents() {
        let cache = RevisionCache::new(Duration::from_secs(60), 100_000);
        for id in 0..100 {
            cache.insert(id.to_string(), 1, 10_000, id);
        }
        cache.entries.run_pending_tasks();
        assert!(cache.entries.weighted_size() <= 100_000);
    }
}
