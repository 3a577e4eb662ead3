//! The key-value store modules see, scoped to (space, module): the backend the host crate implements, the
//! limits the host enforces on it, and the `key-value` import over it.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use crate::bindings::key_value;
use crate::invoke::state::{HostVerdict, StoreState};

/// Longest key a module may use, in bytes.
pub const MAX_KEY_BYTES: usize = 512;
/// Largest value a module may store, in bytes.
pub const MAX_VALUE_BYTES: usize = 1024 * 1024;
/// Most keys one `list-keys` call returns.
pub const MAX_LIST_LIMIT: u32 = 1000;

/// Whether a key (or prefix) is one a backend can hold: within [`MAX_KEY_BYTES`] and without a NUL
/// character, which no database text column (PostgreSQL's) accepts.
fn storable(key: &str) -> bool {
    key.len() <= MAX_KEY_BYTES && !key.contains('\0')
}

/// A backend's refusal to store a value because the (space, module) would exceed its quota. A
/// backend returns it (as the `anyhow` error of [`KeyValueBackend::set`]) and the module sees its
/// message as the error of `set`; any other error is a host failure.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct QuotaExceeded(pub String);

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

impl StoreState {
    fn key_value(&mut self) -> wasmtime::Result<Arc<dyn KeyValueBackend>> {
        match self.caps.key_value.clone() {
            Some(kv) => Ok(kv),
            None => Err(self.fail(HostVerdict::Host("key-value called without the key-value grant".into()))),
        }
    }
}

impl key_value::Host for StoreState {
    async fn get(&mut self, key: String) -> wasmtime::Result<Option<Vec<u8>>> {
        let kv = self.key_value()?;
        let left = self.remaining()?;
        if !storable(&key) {
            return Ok(None);
        }
        let outcome = tokio::time::timeout(left, kv.get(&self.scope, &key)).await;
        self.settle(outcome)
    }

    async fn set(&mut self, key: String, value: Vec<u8>) -> wasmtime::Result<Result<(), String>> {
        let kv = self.key_value()?;
        let left = self.remaining()?;
        if key.len() > MAX_KEY_BYTES {
            return Ok(Err(format!("key is longer than {MAX_KEY_BYTES} bytes")));
        }
        if !storable(&key) {
            return Ok(Err("key holds a NUL character".to_owned()));
        }
        if value.len() > MAX_VALUE_BYTES {
            return Ok(Err(format!("value is larger than {MAX_VALUE_BYTES} bytes")));
        }
        let outcome = match tokio::time::timeout(left, kv.set(&self.scope, &key, &value)).await {
            Ok(Err(error)) if error.downcast_ref::<QuotaExceeded>().is_some() => return Ok(Err(error.to_string())),
            other => other,
        };
        self.settle(outcome).map(Ok)
    }

    async fn delete(&mut self, key: String) -> wasmtime::Result<()> {
        let kv = self.key_value()?;
        let left = self.remaining()?;
        if !storable(&key) {
            return Ok(());
        }
        let outcome = tokio::time::timeout(left, kv.delete(&self.scope, &key)).await;
        self.settle(outcome)
    }

    async fn list_keys(
        &mut self,
        prefix: String,
        start_after: Option<String>,
        limit: u32,
    ) -> wasmtime::Result<Vec<String>> {
        let kv = self.key_value()?;
        let left = self.remaining()?;
        if !storable(&prefix) || limit == 0 {
            return Ok(Vec::new());
        }
        let limit = limit.min(MAX_LIST_LIMIT);
        // No stored key holds a NUL, so the keys after "x\0..." are exactly those after "x".
        let start_after = start_after.map(|after| after.split('\0').next().unwrap_or_default().to_owned());
        let list = kv.list_keys(&self.scope, &prefix, start_after.as_deref(), limit);
        let outcome = tokio::time::timeout(left, list).await;
        let mut keys = self.settle(outcome)?;
        // A backend that ignores the limit must not make the module hold more than it asked for.
        keys.truncate(limit as usize);
        Ok(keys)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::invoke::state::Capabilities;

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

    fn state(budget: Duration) -> StoreState {
        let caps = Capabilities { key_value: Some(Arc::new(MemoryKv::new())), ..Capabilities::none("m") };
        StoreState::new(Arc::new(caps), "space".into(), budget, 1 << 20)
    }

    #[tokio::test]
    async fn key_and_value_limits_are_the_module_s_errors_not_traps() {
        // Arrange
        let mut state = state(Duration::from_secs(5));
        let long_key = "k".repeat(MAX_KEY_BYTES + 1);
        let big_value = vec![0; MAX_VALUE_BYTES + 1];

        // Act
        let too_long = key_value::Host::set(&mut state, long_key.clone(), Vec::new()).await.unwrap();
        let too_big = key_value::Host::set(&mut state, "k".into(), big_value).await.unwrap();
        let fits = key_value::Host::set(&mut state, "k".repeat(MAX_KEY_BYTES), vec![0; MAX_VALUE_BYTES]).await;

        // Assert
        assert!(too_long.unwrap_err().contains("512"));
        assert!(too_big.unwrap_err().contains("1048576"));
        assert_eq!(fits.unwrap(), Ok(()));
        assert_eq!(key_value::Host::get(&mut state, long_key).await.unwrap(), None);
        assert_eq!(state.verdict, None);
    }

    #[tokio::test]
    async fn keys_holding_a_nul_character_are_the_module_s_errors_and_reach_no_backend() {
        // Arrange: a backend that counts every call would fail a real database with NUL keys.
        let mut state = state(Duration::from_secs(5));
        key_value::Host::set(&mut state, "a".into(), b"1".to_vec()).await.unwrap().unwrap();
        key_value::Host::set(&mut state, "a\u{1}".into(), b"2".to_vec()).await.unwrap().unwrap();
        // Act
        let refused = key_value::Host::set(&mut state, "a\0b".into(), b"x".to_vec()).await.unwrap();
        let read = key_value::Host::get(&mut state, "a\0b".into()).await.unwrap();
        key_value::Host::delete(&mut state, "a\0".into()).await.unwrap();
        let by_prefix = key_value::Host::list_keys(&mut state, "a\0".into(), None, 10).await.unwrap();
        let after = key_value::Host::list_keys(&mut state, "a".into(), Some("a\0z".into()), 10).await.unwrap();
        // Assert
        assert!(refused.unwrap_err().contains("NUL"));
        assert_eq!(read, None);
        assert!(by_prefix.is_empty());
        assert_eq!(after, ["a\u{1}"]);
        assert_eq!(state.verdict, None);
    }

    #[tokio::test]
    async fn list_limit_is_capped_at_1000() {
        let mut state = state(Duration::from_secs(5));
        for i in 0..1005 {
            key_value::Host::set(&mut state, format!("k{i:04}"), Vec::new()).await.unwrap().unwrap();
        }

        let keys = key_value::Host::list_keys(&mut state, "k".into(), None, u32::MAX).await.unwrap();

        assert_eq!(keys.len(), MAX_LIST_LIMIT as usize);
    }

    #[tokio::test]
    async fn call_after_the_deadline_traps_and_is_noted_as_a_deadline() {
        let mut state = state(Duration::ZERO);

        assert!(key_value::Host::get(&mut state, "k".into()).await.is_err());

        assert_eq!(state.verdict, Some(HostVerdict::Deadline));
    }
}
