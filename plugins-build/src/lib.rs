//! The components built from `plugins/` (their own cargo workspace, target `wasm32-wasip2`), by this crate's
//! build script.
//!
//! A build step, not a library of the server: the host (`trellis`) depends on it to embed the modules it
//! bundles (its build script reads `DEP_TRELLIS_PLUGINS_DIR`), and the module host's tests, the benchmark and
//! the black-box tests depend on it to find the test components. The module host itself (`trellis-modules`)
//! knows no particular module.
#![deny(missing_docs)]

use std::path::PathBuf;

/// Directory holding the built components: the bundled `trellis_tags.wasm`, `trellis_marketplace_default.wasm`
/// and `trellis_analysis_default.wasm`; the test components `trellis_hostile.wasm`, `trellis_rule_probe.wasm`,
/// `trellis_analysis_probe.wasm` and `trellis_analysis_legacy.wasm` (a WIT 0.1.0 step); the example
/// `word_count.wasm`.
pub const DIR: &str = env!("PLUGINS_BUILD_DIR");

/// The guest build's target directory (`DIR` is `<it>/wasm32-wasip2/release`) and its build directory (its
/// intermediate files): another build of a guest against the same SDK that names both (`CARGO_TARGET_DIR`,
/// `CARGO_BUILD_BUILD_DIR`) compiles only its own crate.
pub const TARGET_DIR: &str = env!("PLUGINS_TARGET_DIR");
/// See [`TARGET_DIR`].
pub const BUILD_DIR: &str = env!("PLUGINS_BUILD_BUILD_DIR");

/// The path of one built component, by file name (`word_count.wasm`).
pub fn path(file: &str) -> PathBuf {
    PathBuf::from(DIR).join(file)
}
