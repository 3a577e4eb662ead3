//! Host bindings for `wit/v0.2.0/trellis-module.wit`, which so far holds only the `analysis-step` world.
//!
//! Generated in full: `with` can point an interface only at bindings of the same name and version (it links
//! the instance under the original's name), so the 0.1.0 modules cannot stand in for `logging@0.2.0` and
//! the rest. The interfaces 0.2.0 shares with 0.1.0 (types, logging, asset-read, outbound-http) are served
//! by the 0.1.0 host code through small adapters (`imports/since_v0_2_0.rs`); media, vision and speech are
//! new here.

pub mod analysis {
    wasmtime::component::bindgen!({
        path: "../wit/v0.2.0",
        world: "analysis-step",
        imports: { default: async | trappable },
        exports: { default: async },
    });
}

pub use analysis::trellis::module::{asset_read, logging, media, outbound_http, speech, types, vision};

/// Fully qualified names of the 0.2.0 interfaces, as they appear among a component's imports and exports.
pub mod names {
    pub const PACKAGE: &str = "trellis:module@0.2.0";
    pub const MODULE_INFO: &str = "trellis:module/module-info@0.2.0";
    pub const ANALYSIS_HOOKS: &str = "trellis:module/analysis-hooks@0.2.0";
}
