//! The key-value store private to (space, module). Needs [`Permission::KeyValue`](crate::Permission).
//!
//! Keys are at most 512 bytes and values at most 1 MiB; [`list_keys`] pages in byte order, so keys such as
//! `tag/{tag}/{item}` make prefixes into indexes.
//!
//! Events and route calls run concurrently, so never update shared state by reading it and writing it
//! back ([`get`] then [`set`]): two invocations would both read the old value and one update would be
//! lost. Count with [`increment`], and change anything else with [`compare_and_swap`] or
//! [`update_json`], which retry until no other invocation came in between.
//!
//! The writes of one call commit together when it returns `Ok`, and none is kept when it panics, errs
//! or runs out of time; its reads see its own writes. A call whose compare-and-swap finds at the commit
//! that another call changed the key is run again by the host (so keep route code safe to re-run).
//!
//! ```
//! use trellis_plugin_sdk::{kv, testing::TestHost};
//!
//! let _host = TestHost::new();
//! kv::set("tag/red/item-1", b"")?;
//! kv::set("tag/red/item-2", b"")?;
//! kv::set_json("counts", &serde_json::json!({"red": 2}))?;
//! assert_eq!(kv::list_keys("tag/red/", None, 10), ["tag/red/item-1", "tag/red/item-2"]);
//! assert_eq!(kv::list_keys("tag/red/", Some("tag/red/item-1"), 10), ["tag/red/item-2"]);
//! let counts: serde_json::Value = kv::get_json("counts")?.unwrap();
//! assert_eq!(counts["red"], 2);
//! kv::delete("counts");
//! assert_eq!(kv::get("counts"), None);
//! # Ok::<(), trellis_plugin_sdk::Error>(())
//! ```

use std::fmt;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// Why a write failed: the key or value is too large, or the module's quota is used up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KvError(pub String);

impl fmt::Display for KvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "key-value write failed: {}", self.0)
    }
}

impl std::error::Error for KvError {}

/// The value stored under `key`, if any.
pub fn get(key: impl AsRef<str>) -> Option<Vec<u8>> {
    imp::get(key.as_ref())
}

/// Stores `value` under `key`, replacing what was there.
pub fn set(key: impl AsRef<str>, value: impl AsRef<[u8]>) -> Result<(), KvError> {
    imp::set(key.as_ref(), value.as_ref()).map_err(KvError)
}

/// Removes `key`; removing a missing key is not an error.
pub fn delete(key: impl AsRef<str>) {
    imp::delete(key.as_ref())
}

/// Keys beginning with `prefix`, in byte order, after `start_after` when given, at most `limit` (the host caps
/// it at 1000).
pub fn list_keys(prefix: impl AsRef<str>, start_after: Option<&str>, limit: u32) -> Vec<String> {
    imp::list_keys(prefix.as_ref(), start_after, limit)
}

/// Stores `new` under `key` (removes the key when `new` is `None`) only if the key holds exactly
/// `expected` now (`None`: absent), atomically. Answers whether it did; on `false` another invocation
/// changed the key first: read it again and retry, or use [`update_json`], which does.
///
/// ```
/// use trellis_plugin_sdk::{kv, testing::TestHost};
///
/// let _host = TestHost::new();
/// assert!(kv::compare_and_swap("owner", None, Some(b"ann"))?);
/// assert!(!kv::compare_and_swap("owner", None, Some(b"bob"))?, "someone was first");
/// assert!(kv::compare_and_swap("owner", Some(b"ann"), None)?);
/// assert_eq!(kv::get("owner"), None);
/// # Ok::<(), trellis_plugin_sdk::kv::KvError>(())
/// ```
pub fn compare_and_swap(key: impl AsRef<str>, expected: Option<&[u8]>, new: Option<&[u8]>) -> Result<bool, KvError> {
    imp::compare_and_swap(key.as_ref(), expected, new).map_err(KvError)
}

/// Adds `delta` (which may be negative) to the counter under `key` and answers the new value,
/// atomically: concurrent events never lose a count. The counter is kept as decimal ASCII text, so
/// [`get`] reads `b"42"`; an absent key counts as 0. Fails, changing nothing, when the key holds
/// something else or the sum overflows an `i64`.
///
/// ```
/// use trellis_plugin_sdk::{kv, testing::TestHost};
///
/// let _host = TestHost::new();
/// assert_eq!(kv::increment("words", 5)?, 5);
/// assert_eq!(kv::increment("words", -2)?, 3);
/// assert_eq!(kv::get("words").as_deref(), Some(&b"3"[..]));
/// kv::set("name", "ann")?;
/// assert!(kv::increment("name", 1).is_err());
/// # Ok::<(), trellis_plugin_sdk::kv::KvError>(())
/// ```
pub fn increment(key: impl AsRef<str>, delta: i64) -> Result<i64, KvError> {
    imp::increment(key.as_ref(), delta).map_err(KvError)
}

/// Updates the JSON value under `key` atomically: calls `update` with the current value (`None` when
/// absent) and stores what it answers (removes the key on `None`) with [`compare_and_swap`], calling
/// it again on the newer value whenever another invocation wrote in between. Answers the stored value.
/// `update` may run several times, so it must not have other effects.
///
/// ```
/// use std::collections::BTreeMap;
/// use trellis_plugin_sdk::{kv, testing::TestHost};
///
/// let _host = TestHost::new();
/// let add = |name: &str| {
///     kv::update_json("members", |old: Option<BTreeMap<String, u32>>| {
///         let mut members = old.unwrap_or_default();
///         *members.entry(name.to_owned()).or_default() += 1;
///         Some(members)
///     })
/// };
/// add("ann")?;
/// let members = add("ann")?.unwrap();
/// assert_eq!(members["ann"], 2);
/// # Ok::<(), trellis_plugin_sdk::Error>(())
/// ```
pub fn update_json<T, F>(key: impl AsRef<str>, mut update: F) -> crate::Result<Option<T>>
where
    T: Serialize + DeserializeOwned,
    F: FnMut(Option<T>) -> Option<T>,
{
    let key = key.as_ref();
    loop {
        let old_bytes = get(key);
        let old =
            match &old_bytes {
                None => None,
                Some(bytes) => Some(serde_json::from_slice(bytes).map_err(|error| {
                    crate::Error::new(format!("key-value {key:?} is not the expected JSON: {error}"))
                })?),
            };
        let new = update(old);
        let new_bytes = new.as_ref().map(serde_json::to_vec).transpose()?;
        if compare_and_swap(key, old_bytes.as_deref(), new_bytes.as_deref())? {
            return Ok(new);
        }
    }
}

/// The value under `key` deserialized from JSON, if any.
pub fn get_json<T: DeserializeOwned>(key: impl AsRef<str>) -> crate::Result<Option<T>> {
    let key = key.as_ref();
    match get(key) {
        None => Ok(None),
        Some(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|error| crate::Error::new(format!("key-value {key:?} is not the expected JSON: {error}"))),
    }
}

/// Stores `value` serialized as JSON under `key`.
pub fn set_json<T: Serialize + ?Sized>(key: impl AsRef<str>, value: &T) -> crate::Result<()> {
    let bytes = serde_json::to_vec(value)?;
    Ok(set(key, bytes)?)
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use crate::wit::imports::trellis::module::key_value as host;

    pub(super) fn get(key: &str) -> Option<Vec<u8>> {
        host::get(key)
    }
    pub(super) fn set(key: &str, value: &[u8]) -> Result<(), String> {
        host::set(key, value)
    }
    pub(super) fn delete(key: &str) {
        host::delete(key)
    }
    pub(super) fn list_keys(prefix: &str, start_after: Option<&str>, limit: u32) -> Vec<String> {
        host::list_keys(prefix, start_after, limit)
    }
    pub(super) fn compare_and_swap(key: &str, expected: Option<&[u8]>, new: Option<&[u8]>) -> Result<bool, String> {
        host::compare_and_swap(key, expected, new)
    }
    pub(super) fn increment(key: &str, delta: i64) -> Result<i64, String> {
        host::increment(key, delta)
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use crate::testing::HostState;

    fn with_host<R>(f: impl FnOnce(&mut HostState) -> R) -> R {
        crate::testing::with_host(|host| {
            host.require(crate::Permission::KeyValue, "kv");
            f(host)
        })
    }

    pub(super) fn get(key: &str) -> Option<Vec<u8>> {
        with_host(|host| host.kv_get(key))
    }
    pub(super) fn set(key: &str, value: &[u8]) -> Result<(), String> {
        with_host(|host| host.kv_set(key, value))
    }
    pub(super) fn delete(key: &str) {
        with_host(|host| host.kv_delete(key));
    }
    pub(super) fn list_keys(prefix: &str, start_after: Option<&str>, limit: u32) -> Vec<String> {
        with_host(|host| host.kv_list(prefix, start_after, limit))
    }
    pub(super) fn compare_and_swap(key: &str, expected: Option<&[u8]>, new: Option<&[u8]>) -> Result<bool, String> {
        with_host(|host| host.kv_compare_and_swap(key, expected, new))
    }
    pub(super) fn increment(key: &str, delta: i64) -> Result<i64, String> {
        with_host(|host| host.kv_increment(key, delta))
    }
}
