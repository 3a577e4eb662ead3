//! The modules compiled into this binary, enabled by `{ id = "..." }` in `[modules] enable`. They are built
//! from `plugins/` (by the `trellis-plugins-build` dependency) and embedded here; the module host gets their
//! bytes and ids from [`modules`] and knows none of them by itself.

use trellis_modules::{BundledModule, EnabledModule};

/// The id of the bundled Tags module.
pub const TAGS: &str = "tags";

/// Tags: tags space items from form metadata and lets members add and remove tags.
const TAGS_WASM: &[u8] = include_bytes!(concat!(env!("TRELLIS_BUNDLED_DIR"), "/trellis_tags.wasm"));

/// Every bundled module, for [`trellis_modules::ModuleHost::new`].
pub fn modules() -> Vec<BundledModule> {
    vec![BundledModule::new(TAGS, TAGS_WASM)]
}

/// What `[modules] enable` is when a deployment does not set it: Tags.
pub fn enabled_by_default() -> Vec<EnabledModule> {
    vec![EnabledModule::bundled(TAGS)]
}
