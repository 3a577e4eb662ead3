//! The key-value store private to (space, module). Needs [`Permission::KeyValue`](crate::Permission).
//!
//! Keys are at most 512 bytes and values at most 1 MiB; [`list_keys`] pages in byte order, so keys such as
//! `tag/{tag}/{item}` make prefixes into indexes.
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
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use crate::testing::with_host;

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
}
