//! The item that triggered the invocation. Needs [`Permission::ItemRead`](crate::Permission).
//!
//! ```
//! use trellis_plugin_sdk::{item, testing::TestHost};
//!
//! let host = TestHost::new();
//! assert!(item::current().is_none());
//! host.set_item(&serde_json::json!({
//!     "formId": "f1", "configurationId": "c1", "state": "SUBMITTED",
//!     "payload": {"metadata": {"tags": "red, blue"}},
//! }));
//! let instance = item::current_form_instance()?.unwrap();
//! assert_eq!(instance.payload["metadata"]["tags"], "red, blue");
//! # Ok::<(), trellis_plugin_sdk::Error>(())
//! ```

use serde::Deserialize;
use serde::de::DeserializeOwned;

/// A form instance as [`current`] describes it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct FormInstance {
    /// The form it answers.
    pub form_id: String,
    /// The form configuration it was filled in with.
    pub configuration_id: String,
    /// Its workflow state.
    pub state: String,
    /// The answers, as the form document shapes them.
    pub payload: serde_json::Value,
}

/// The triggering item as JSON text, or `None` when the invocation has no item.
pub fn current() -> Option<String> {
    imp::current()
}

/// The triggering item deserialized from JSON.
pub fn current_json<T: DeserializeOwned>() -> crate::Result<Option<T>> {
    match current() {
        None => Ok(None),
        Some(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|error| crate::Error::new(format!("current item is not the expected JSON: {error}"))),
    }
}

/// The triggering item read as a form instance.
pub fn current_form_instance() -> crate::Result<Option<FormInstance>> {
    current_json()
}

#[cfg(target_arch = "wasm32")]
mod imp {
    pub(super) fn current() -> Option<String> {
        crate::wit::imports::trellis::module::item_read::current_item()
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    pub(super) fn current() -> Option<String> {
        crate::testing::with_host(|host| {
            host.require(crate::Permission::ItemRead, "item::current");
            host.item.clone()
        })
    }
}
