//! WIT 0.2.0 (`wit/v0.2.0/trellis-module.wit`, frozen): host bindings for its three worlds, and the adapters
//! to the newest version: its imports call the 0.3.0 implementation (`imports.rs`), its exports are called
//! with arguments and answers converted (`exports.rs`), and its manifest is read into the host's
//! (`manifest.rs`). 0.3.0 added `vision.read-text` and `analysis-result.text`; the rest is the same.
//!
//! The space world is generated in full; the other two point the interfaces they share at it with `with`,
//! so a `Manifest` or a `logging::Level` is one Rust type whatever the world. Imports are async (the
//! key-value backend is a database) and trappable (a host failure ends the invocation); exports are called
//! with `call_async` under the store's epoch deadline.

pub(crate) mod exports;
mod imports;
mod manifest;

pub mod space {
    wasmtime::component::bindgen!({
        path: "../wit/v0.2.0",
        world: "space-module",
        imports: { default: async | trappable },
        exports: { default: async },
    });
}

pub mod marketplace {
    wasmtime::component::bindgen!({
        path: "../wit/v0.2.0",
        world: "marketplace-rule",
        imports: { default: async | trappable },
        exports: { default: async },
        with: {
            "trellis:module/types": crate::wit::v0_2::space::trellis::module::types,
            "trellis:module/key-value": crate::wit::v0_2::space::trellis::module::key_value,
            "trellis:module/logging": crate::wit::v0_2::space::trellis::module::logging,
        },
    });
}

pub mod analysis {
    wasmtime::component::bindgen!({
        path: "../wit/v0.2.0",
        world: "analysis-step",
        imports: { default: async | trappable },
        exports: { default: async },
        with: {
            "trellis:module/types": crate::wit::v0_2::space::trellis::module::types,
            "trellis:module/logging": crate::wit::v0_2::space::trellis::module::logging,
            "trellis:module/outbound-http": crate::wit::v0_2::space::trellis::module::outbound_http,
        },
    });
}

pub use space::trellis::module::{item_read, key_value, logging, outbound_http, types};

pub use analysis::trellis::module::{asset_read, media, speech, vision};

/// Fully qualified names of the 0.2.0 interfaces, as they appear among a component's imports and exports.
pub mod names {
    pub const PACKAGE: &str = "trellis:module@0.2.0";
    pub const MODULE_INFO: &str = "trellis:module/module-info@0.2.0";
}
