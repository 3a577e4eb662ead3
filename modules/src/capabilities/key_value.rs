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
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::invoke::clock::GuestClock;
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
        StoreState::new(Arc::new(caps), "space".into(), GuestClock::new(budget, Duration::ZERO), 1 << 20)
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

#[cfg(test)]
mod atomic_tests {
    use std::time::Duration;

    use super::*;
    use crate::invoke::clock::GuestClock;
    use crate::invoke::state::Capabilities;

    fn state() -> StoreState {
        let caps = Capabilities { key_value: Some(Arc::new(MemoryKv::new())), ..Capabilities::none("m") };
        StoreState::new(Arc::new(caps), "space".into(), GuestClock::new(Duration::from_secs(5), Duration::ZERO), 1 << 20)
    }

    #[test]
    fn counters_are_decimal_text_and_overflow_is_an_error() {
        assert_eq!(add_to_counter(None, 5), Ok(5));
        assert_eq!(add_to_counter(Some(b"-12"), 2), Ok(-10));
        assert_eq!(add_to_counter(Some(b"9223372036854775807"), 0), Ok(i64::MAX));
        assert!(add_to_counter(Some(b"9223372036854775807"), 1).unwrap_err().contains("overflows"));
        assert!(add_to_counter(Some(b"-9223372036854775808"), -1).is_err());
        for bad in [&b""[..], b"-", b"+1", b" 1", b"1.5", b"\"1\"", b"99999999999999999999", b"\xff"] {
            assert!(add_to_counter(Some(bad), 1).unwrap_err().contains("not a decimal"), "{bad:?}");
        }
    }

    #[tokio::test]
    async fn compare_and_swap_writes_only_over_the_expected_value() {
        // Arrange
        let mut state = state();
        let cas = |expected: Option<&[u8]>, new: Option<&[u8]>| (expected.map(<[u8]>::to_vec), new.map(<[u8]>::to_vec));

        // Act
        let (e, n) = cas(None, Some(b"a"));
        let created = key_value::Host::compare_and_swap(&mut state, "k".into(), e, n).await.unwrap();
        let (e, n) = cas(None, Some(b"b"));
        let exists = key_value::Host::compare_and_swap(&mut state, "k".into(), e, n).await.unwrap();
        let (e, n) = cas(Some(b"x"), Some(b"b"));
        let stale = key_value::Host::compare_and_swap(&mut state, "k".into(), e, n).await.unwrap();
        let (e, n) = cas(Some(b"a"), Some(b"b"));
        let swapped = key_value::Host::compare_and_swap(&mut state, "k".into(), e, n).await.unwrap();
        let value = key_value::Host::get(&mut state, "k".into()).await.unwrap();
        let (e, n) = cas(Some(b"b"), None);
        let removed = key_value::Host::compare_and_swap(&mut state, "k".into(), e, n).await.unwrap();
        let big = Some(vec![0; MAX_VALUE_BYTES + 1]);
        let too_big = key_value::Host::compare_and_swap(&mut state, "k".into(), None, big).await.unwrap();

        // Assert
        assert_eq!((created, exists, stale, swapped, removed), (Ok(true), Ok(false), Ok(false), Ok(true), Ok(true)));
        assert_eq!(value.as_deref(), Some(&b"b"[..]));
        assert_eq!(key_value::Host::get(&mut state, "k".into()).await.unwrap(), None);
        assert!(too_big.unwrap_err().contains("larger"));
    }

    #[tokio::test]
    async fn increment_counts_from_zero_and_refuses_non_integers_changing_nothing() {
        // Arrange
        let mut state = state();
        key_value::Host::set(&mut state, "text".into(), b"seven".to_vec()).await.unwrap().unwrap();

        // Act
        let first = key_value::Host::increment(&mut state, "n".into(), 3).await.unwrap();
        let second = key_value::Host::increment(&mut state, "n".into(), -5).await.unwrap();
        let refused = key_value::Host::increment(&mut state, "text".into(), 1).await.unwrap();
        let long_key = key_value::Host::increment(&mut state, "k".repeat(MAX_KEY_BYTES + 1), 1).await.unwrap();

        // Assert
        assert_eq!((first, second), (Ok(3), Ok(-2)));
        assert_eq!(key_value::Host::get(&mut state, "n".into()).await.unwrap().as_deref(), Some(&b"-2"[..]));
        assert!(refused.unwrap_err().contains("not a decimal"));
        assert_eq!(key_value::Host::get(&mut state, "text".into()).await.unwrap().as_deref(), Some(&b"seven"[..]));
        assert!(long_key.is_err());
        assert_eq!(state.verdict, None);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_increments_and_swaps_lose_no_update() {
        // Arrange
        let kv = Arc::new(MemoryKv::new());
        let scope = KvScope { space_id: "s".into(), module_id: "m".into() };

        // Act: 50 tasks, each one increment and one compare-and-swap loop on a JSON-free counter.
        let tasks: Vec<_> = (0..50)
            .map(|_| {
                let (kv, scope) = (kv.clone(), scope.clone());
                tokio::spawn(async move {
                    kv.increment(&scope, "inc", 2).await.unwrap().unwrap();
                    loop {
                        let old = kv.get(&scope, "cas").await.unwrap();
                        let n = add_to_counter(old.as_deref(), 1).unwrap().to_string();
                        if kv
                            .compare_and_swap(&scope, "cas", old.as_deref(), Some(n.as_bytes()))
                            .await
                            .unwrap()
                            .unwrap()
                        {
                            break;
                        }
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }

        // Assert
        assert_eq!(kv.get(&scope, "inc").await.unwrap().as_deref(), Some(&b"100"[..]));
        assert_eq!(kv.get(&scope, "cas").await.unwrap().as_deref(), Some(&b"50"[..]));
    }
}
