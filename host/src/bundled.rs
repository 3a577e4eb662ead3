//! The modules compiled into this binary, enabled by `{ id = "..." }` in `[modules] enable`. They are built
//! from `plugins/` (by the `trellis-plugins-build` dependency) and embedded here; the module host gets their
//! bytes and ids from [`modules`] and knows none of them by itself.

use trellis_modules::{BundledModule, EnabledModule};

/// The id of the bundled Tags module.
pub const TAGS: &str = "tags";

/// The id of the bundled marketplace rule.
pub const MARKETPLACE_DEFAULT: &str = "marketplace-default";

/// The id of the bundled analysis step.
pub const ANALYSIS_DEFAULT: &str = "analysis-default";

/// Tags: tags space items from form metadata and lets members add and remove tags.
const TAGS_WASM: &[u8] = include_bytes!(concat!(env!("BUNDLED_MODULES_DIR"), "/trellis_tags.wasm"));
/// The default marketplace rule: trending by activity against age, the owners' registration rules.
const MARKETPLACE_DEFAULT_WASM: &[u8] =
    include_bytes!(concat!(env!("BUNDLED_MODULES_DIR"), "/trellis_marketplace_default.wasm"));

/// The default analysis step: labels, faces, picture facts and speech through the host's models,
/// composed into tags, an English description and a transcript.
const ANALYSIS_DEFAULT_WASM: &[u8] =
    include_bytes!(concat!(env!("BUNDLED_MODULES_DIR"), "/trellis_analysis_default.wasm"));

/// Every bundled module, for [`trellis_modules::ModuleHost::new`].
pub fn modules() -> Vec<BundledModule> {
    vec![
        BundledModule::new(TAGS, TAGS_WASM),
        BundledModule::new(MARKETPLACE_DEFAULT, MARKETPLACE_DEFAULT_WASM),
        BundledModule::new(ANALYSIS_DEFAULT, ANALYSIS_DEFAULT_WASM),
    ]
}

/// What `[modules] enable` is when a deployment does not set it: Tags, the marketplace rule and the
/// analysis step.
pub fn enabled_by_default() -> Vec<EnabledModule> {
    vec![
        EnabledModule::bundled(TAGS),
        EnabledModule::bundled(MARKETPLACE_DEFAULT),
        EnabledModule::bundled(ANALYSIS_DEFAULT),
    ]
}
