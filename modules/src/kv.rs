//! The key-value store modules see, scoped to (space, module), and the limits the host enforces on it.

use std::collections::BTreeMap;
use std::sync::Mutex;

use async_trait::async_trait;

/// Longest key a module may use, in bytes.
pub const MAX_KEY_BYTES: usize = 512;
/// Largest value a module may store, in bytes.
pub const MAX_VALUE_BYTES: usize = 1024 * 1024;
/// Most keys one `list-keys` call returns.
pub const MAX_LIST_LIMIT: u32 = 1000;

/// Whose data a key-value call touches: one module's data in one space.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KvScope {
    /// The space the module is connected to (empty for marketplace modules).
    pub space_id: String,
    /// The module's manifest id.
    pub module_id: String,
}

/// Storage behind the `key-value` import. The host implements it over its database.
///
/// Calls arrive already checked against the limits above, so a backend only stores and fetches. An `Err` is a
/// host failure: it ends the invocation (the module sees a trap) and is counted as a host failure, not the
/// module's.
#[async_trait]
pub trait KeyValueBackend: Send + Sync + 'static {
    /// The value under `key`, if any.
    async fn get(&self, scope: &KvScope, key: &str) -> anyhow::Result<Option<Vec<u8>>>;
    /// Stores `value` under `key`, replacing any previous value.
    async fn set(&self, scope: &KvScope, key: &str, value: &[u8]) -> anyhow::Result<()>;
    /// Removes `key`; removing a missing key is not an error.
    async fn delete(&self, scope: &KvScope, key: &str) -> anyhow::Result<()>;
    /// Keys beginning with `prefix` in byte order, strictly after `start_after` when given, at most `limit`.
    async fn list_keys(
        &self,
        scope: &KvScope,
        prefix: &str,
        start_after: Option<&str>,
        limit: u32,
    ) -> anyhow::Result<Vec<String>>;
}

/// An in-memory [`KeyValueBackend`] for tests and benchmarks.
#[derive(Debug, Default)]
pub struct MemoryKv {
    data: Mutex<BTreeMap<(KvScope, String), Vec<u8>>>,
}

impl MemoryKv {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many keys the store holds across every scope.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether the store holds no key at all.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<(KvScope, String), Vec<u8>>> {
        // A panic while holding the lock cannot leave the map half-updated, so poisoning carries no meaning.
        self.data.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[async_trait]
impl KeyValueBackend for MemoryKv {
    async fn get(&self, scope: &KvScope, key: &str) -> anyhow::Result<Option<Vec<u8>>> {
        Ok(self.lock().get(&(scope.clone(), key.to_owned())).cloned())
    }

    async fn set(&self, scope: &KvScope, key: &str, value: &[u8]) -> anyhow::Result<()> {
        self.lock().insert((scope.clone(), key.to_owned()), value.to_vec());
        Ok(())
    }

    async fn delete(&self, scope: &KvScope, key: &str) -> anyhow::Result<()> {
        self.lock().remove(&(scope.clone(), key.to_owned()));
        Ok(())
    }

    async fn list_keys(
        &self,
        scope: &KvScope,
        prefix: &str,
        start_after: Option<&str>,
        limit: u32,
    ) -> anyhow::Result<Vec<String>> {
        let from = match start_after {
            Some(after) if after > prefix => after,
            _ => prefix,
        };
        let start = (scope.clone(), from.to_owned());
        let keys = self
            .lock()
            .range(start..)
            .map(|((s, key), _)| (s, key))
            .take_while(|(s, key)| *s == scope && key.starts_with(prefix))
            .filter(|(_, key)| start_after.is_none_or(|after| key.as_str() > after))
            .take(limit as usize)
            .map(|(_, key)| key.clone())
            .collect();
        Ok(keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(space: &str) -> KvScope {
        KvScope { space_id: space.into(), module_id: "m".into() }
    }

    #[tokio::test]
    async fn memory_kv_lists_by_prefix_within_one_scope_in_byte_order() {
        // Arrange
        let kv = MemoryKv::new();
        for key in ["tag:b", "tag:a", "tag:c", "other", "tag;"] {
            kv.set(&scope("s1"), key, b"1").await.unwrap();
        }
        kv.set(&scope("s2"), "tag:z", b"1").await.unwrap();

        // Act
        let all = kv.list_keys(&scope("s1"), "tag:", None, 10).await.unwrap();
        let page = kv.list_keys(&scope("s1"), "tag:", Some("tag:a"), 1).await.unwrap();
        let before_prefix = kv.list_keys(&scope("s1"), "tag:", Some("a"), 10).await.unwrap();

        // Assert
        assert_eq!(all, ["tag:a", "tag:b", "tag:c"]);
        assert_eq!(page, ["tag:b"]);
        assert_eq!(before_prefix, all);
    }

    #[tokio::test]
    async fn memory_kv_delete_removes_only_that_scope() {
        let kv = MemoryKv::new();
        kv.set(&scope("s1"), "k", b"1").await.unwrap();
        kv.set(&scope("s2"), "k", b"2").await.unwrap();

        kv.delete(&scope("s1"), "k").await.unwrap();

        assert_eq!(kv.get(&scope("s1"), "k").await.unwrap(), None);
        assert_eq!(kv.get(&scope("s2"), "k").await.unwrap(), Some(b"2".to_vec()));
    }
}
