//! The key-value store modules see, scoped to (space, module): the backend the host crate implements, the
//! limits the host enforces on it, and the `key-value` import over it (WIT 0.2.0: with `compare-and-swap`
//! and `increment`). `memory.rs` holds the in-memory backend of tests and benchmarks.

mod memory;
mod txn;

pub use memory::MemoryKv;
pub(crate) use txn::KvTxn;
pub use txn::{CommitRefused, KvWrite, apply_writes, usage_change};

use std::sync::Arc;

use async_trait::async_trait;
use wasmtime::component::Linker;

use crate::capabilities::{Capability, Data, data};
use crate::invoke::state::{HostVerdict, StoreState};
use crate::load::manifest::ModuleKind;
use crate::wit::latest::key_value;
use crate::wit::{WitVersion, v0_1, v0_2, v0_3};

/// The `key-value` permission.
pub(crate) const CAPABILITY: Capability = Capability {
    name: "key-value",
    interface: "key-value",
    since: WitVersion::V0_1,
    kinds: &[ModuleKind::Space, ModuleKind::MarketplaceRule],
    carried_over: false,
    link,
};

fn link(linker: &mut Linker<StoreState>, version: WitVersion) -> anyhow::Result<()> {
    match version {
        WitVersion::V0_1 => v0_1::key_value::add_to_linker::<_, Data>(linker, data)?,
        WitVersion::V0_2 => v0_2::key_value::add_to_linker::<_, Data>(linker, data)?,
        WitVersion::V0_3 => v0_3::key_value::add_to_linker::<_, Data>(linker, data)?,
    }
    Ok(())
}

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
    /// Stores `new` under `key` (removes the key when `new` is `None`) only if it holds exactly `expected`
    /// now (`None`: absent), atomically; answers whether it did. `Ok(Err(why))` is the module's error (the
    /// quota), and nothing changed.
    async fn compare_and_swap(
        &self,
        scope: &KvScope,
        key: &str,
        expected: Option<&[u8]>,
        new: Option<&[u8]>,
    ) -> anyhow::Result<Result<bool, String>>;
    /// Adds `delta` to the counter at `key` as [`add_to_counter`] says, atomically, and answers the new
    /// value. `Ok(Err(why))` is the module's error (not an integer, overflow, quota), and nothing changed.
    async fn increment(&self, scope: &KvScope, key: &str, delta: i64) -> anyhow::Result<Result<i64, String>>;
    /// What the scope holds and may hold, so that a call's write past the quota is refused when it is made
    /// (the commit checks again). `None`: no quota.
    async fn room(&self, _scope: &KvScope) -> anyhow::Result<Option<KvRoom>> {
        Ok(None)
    }
    /// Applies one call's `writes` in order, all or none, atomically against other commits and writes of
    /// the scope, as [`apply_writes`] says, within the scope's quota. `Ok(Err(_))`: nothing was written.
    async fn commit(&self, scope: &KvScope, writes: &[KvWrite]) -> anyhow::Result<Result<(), CommitRefused>>;
}

/// A scope's use of its quota, and the quota.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KvRoom {
    /// Keys held.
    pub keys: i64,
    /// Bytes held (keys plus values).
    pub bytes: i64,
    /// Most keys.
    pub max_keys: i64,
    /// Most bytes.
    pub max_bytes: i64,
}

impl KvRoom {
    /// The module's error for a write past the quota.
    pub fn refusal(&self) -> String {
        format!("quota exceeded: a module stores at most {} keys and {} bytes in a space", self.max_keys, self.max_bytes)
    }
}

/// The value of a counter after adding `delta` to `old` (an absent key counts as 0): `increment`'s
/// semantics, which every backend shares. A counter is kept as decimal ASCII text (`-` for negatives, no
/// `+`, no spaces); anything else, or a sum past the 64-bit range, is the module's error.
pub fn add_to_counter(old: Option<&[u8]>, delta: i64) -> Result<i64, String> {
    let old = match old {
        None => 0,
        Some(bytes) => {
            let digits = bytes.strip_prefix(b"-").unwrap_or(bytes);
            let text = std::str::from_utf8(bytes).ok().filter(|_| !digits.is_empty());
            let parsed = text.filter(|_| digits.iter().all(u8::is_ascii_digit)).and_then(|t| t.parse::<i64>().ok());
            parsed.ok_or_else(|| "the value is not a decimal 64-bit integer".to_owned())?
        }
    };
    old.checked_add(delta).ok_or_else(|| format!("{old} + {delta} overflows a 64-bit integer"))
}

impl StoreState {
    fn key_value(&mut self) -> wasmtime::Result<Arc<dyn KeyValueBackend>> {
        match self.caps.key_value.clone() {
            Some(kv) => Ok(kv),
            None => Err(self.fail(HostVerdict::Host("key-value called without the key-value grant".into()))),
        }
    }
}

impl StoreState {
    /// Records a write of `key` whose value becomes `now`, unless it would take the scope past its quota
    /// (then nothing is recorded and the module gets the reason).
    async fn write(
        &mut self,
        kv: &Arc<dyn KeyValueBackend>,
        write: KvWrite,
        now: Option<Vec<u8>>,
    ) -> wasmtime::Result<Result<(), String>> {
        self.current(kv, write.key()).await?;
        if self.kv_txn.room().is_none() {
            let left = self.remaining()?;
            let outcome = tokio::time::timeout(left, kv.room(&self.scope)).await;
            let room = self.settle(outcome)?;
            self.kv_txn.set_room(room);
        }
        if let Some(why) = self.kv_txn.past_quota(write.key(), now.as_deref()) {
            return Ok(Err(why));
        }
        self.kv_txn.write(write, now);
        Ok(Ok(()))
    }

    /// The value the call sees under `key`: its own write, or the backend's value (remembered).
    async fn current(&mut self, kv: &Arc<dyn KeyValueBackend>, key: &str) -> wasmtime::Result<Option<Vec<u8>>> {
        if let Some(value) = self.kv_txn.seen(key) {
            return Ok(value);
        }
        let left = self.remaining()?;
        let outcome = tokio::time::timeout(left, kv.get(&self.scope, key)).await;
        let value = self.settle(outcome)?;
        self.kv_txn.saw(key, value.clone());
        Ok(value)
    }
}

/// Every write is kept in the call's [`KvTxn`] and reaches the backend when the call ends well.
impl key_value::Host for StoreState {
    async fn get(&mut self, key: String) -> wasmtime::Result<Option<Vec<u8>>> {
        let kv = self.key_value()?;
        self.remaining()?;
        if !storable(&key) {
            return Ok(None);
        }
        self.current(&kv, &key).await
    }

    async fn set(&mut self, key: String, value: Vec<u8>) -> wasmtime::Result<Result<(), String>> {
        let kv = self.key_value()?;
        self.remaining()?;
        if let Err(why) = check_key(&key).and_then(|()| check_value(&value)) {
            return Ok(Err(why));
        }
        self.write(&kv, KvWrite::Put { key, value: Some(value.clone()) }, Some(value)).await
    }

    async fn delete(&mut self, key: String) -> wasmtime::Result<()> {
        self.key_value()?;
        self.remaining()?;
        if !storable(&key) {
            return Ok(());
        }
        self.kv_txn.write(KvWrite::Put { key, value: None }, None);
        Ok(())
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
        // Keys the call removed may be in the backend's page: ask for that many more.
        let asked = limit.saturating_add(self.kv_txn.removed_under(&prefix).min(u32::MAX as usize) as u32);
        let list = kv.list_keys(&self.scope, &prefix, start_after.as_deref(), asked);
        let outcome = tokio::time::timeout(left, list).await;
        let mut keys = self.settle(outcome)?;
        // A backend that ignores the limit must not make the module hold more than it asked for.
        keys.truncate(asked as usize);
        Ok(self.kv_txn.merge_listing(keys, asked as usize, &prefix, start_after.as_deref(), limit as usize))
    }

    async fn compare_and_swap(
        &mut self,
        key: String,
        expected: Option<Vec<u8>>,
        new: Option<Vec<u8>>,
    ) -> wasmtime::Result<Result<bool, String>> {
        let kv = self.key_value()?;
        self.remaining()?;
        if let Err(why) = check_key(&key).and_then(|()| new.as_deref().map_or(Ok(()), check_value)) {
            return Ok(Err(why));
        }
        if self.current(&kv, &key).await? != expected {
            return Ok(Ok(false));
        }
        Ok(self.write(&kv, KvWrite::Swap { key, expected, new: new.clone() }, new).await?.map(|()| true))
    }

    async fn increment(&mut self, key: String, delta: i64) -> wasmtime::Result<Result<i64, String>> {
        let kv = self.key_value()?;
        self.remaining()?;
        if let Err(why) = check_key(&key) {
            return Ok(Err(why));
        }
        let sum = match add_to_counter(self.current(&kv, &key).await?.as_deref(), delta) {
            Ok(sum) => sum,
            Err(why) => return Ok(Err(why)),
        };
        Ok(self.write(&kv, KvWrite::Add { key, delta }, Some(sum.to_string().into_bytes())).await?.map(|()| sum))
    }
}

/// A key the module may write, or the module's error.
fn check_key(key: &str) -> Result<(), String> {
    if key.len() > MAX_KEY_BYTES {
        return Err(format!("key is longer than {MAX_KEY_BYTES} bytes"));
    }
    if !storable(key) {
        return Err("key holds a NUL character".to_owned());
    }
    Ok(())
}

/// A value the module may store, or the module's error.
fn check_value(value: &[u8]) -> Result<(), String> {
    if value.len() > MAX_VALUE_BYTES {
        return Err(format!("value is larger than {MAX_VALUE_BYTES} bytes"));
    }
    Ok(())
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod atomic_tests;
