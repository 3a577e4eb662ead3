//! An in-memory [`KeyValueBackend`] for tests and benchmarks: one map behind a mutex, so every operation
//! is atomic.

use std::collections::BTreeMap;
use std::sync::Mutex;

use async_trait::async_trait;

use super::{CommitRefused, KeyValueBackend, KvScope, KvWrite, add_to_counter, apply_writes};

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

    async fn compare_and_swap(
        &self,
        scope: &KvScope,
        key: &str,
        expected: Option<&[u8]>,
        new: Option<&[u8]>,
    ) -> anyhow::Result<Result<bool, String>> {
        let mut data = self.lock();
        let entry = (scope.clone(), key.to_owned());
        if data.get(&entry).map(Vec::as_slice) != expected {
            return Ok(Ok(false));
        }
        match new {
            Some(value) => data.insert(entry, value.to_vec()),
            None => data.remove(&entry),
        };
        Ok(Ok(true))
    }

    async fn increment(&self, scope: &KvScope, key: &str, delta: i64) -> anyhow::Result<Result<i64, String>> {
        let mut data = self.lock();
        let entry = (scope.clone(), key.to_owned());
        let value = match add_to_counter(data.get(&entry).map(Vec::as_slice), delta) {
            Ok(value) => value,
            Err(why) => return Ok(Err(why)),
        };
        data.insert(entry, value.to_string().into_bytes());
        Ok(Ok(value))
    }

    async fn commit(&self, scope: &KvScope, writes: &[KvWrite]) -> anyhow::Result<Result<(), CommitRefused>> {
        let mut data = self.lock();
        let values = match apply_writes(writes, |key| data.get(&(scope.clone(), key.to_owned())).cloned()) {
            Ok(values) => values,
            Err(refused) => return Ok(Err(refused)),
        };
        for (key, value) in values {
            match value {
                Some(value) => data.insert((scope.clone(), key), value),
                None => data.remove(&(scope.clone(), key)),
            };
        }
        Ok(Ok(()))
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
