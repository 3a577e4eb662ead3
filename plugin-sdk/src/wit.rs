//! The generated bindings. Not part of the public API: modules use the wrappers.
//!
//! `wit_bindgen::generate!` with `pub_export_macro` names its export macros after the exported interface, at
//! the crate root; generating the three worlds of the contract here would define `module-info`'s macro three
//! times. So the worlds are split into parts that a module's component puts back together: `imports` (every
//! host interface; `wit-component` drops those a module does not call), `info` (the `module-info` export) and
//! one part per kind with that kind's hooks. An `export_*!` macro invokes `info`'s `export!` and its kind's,
//! and each `export!` brings the custom section describing its exports; so a component exports exactly what
//! its kind's world does, and imports what its code uses. Every part is written against `../wit/v0.3.0`
//! (SDK 0.3.0), so a component imports and exports only `trellis:module@0.3.0` interfaces. Paths are
//! absolute (`::trellis_plugin_sdk`) because the export glue expands inside the module's crate.
#![allow(unsafe_code, missing_docs, clippy::all)]

pub mod imports {
    wit_bindgen::generate!({
        path: "../wit/v0.3.0",
        inline: "
            package trellis:sdk;
            world imports {
                import trellis:module/types@0.3.0;
                import trellis:module/key-value@0.3.0;
                import trellis:module/logging@0.3.0;
                import trellis:module/item-read@0.3.0;
                import trellis:module/outbound-http@0.3.0;
                import trellis:module/asset-read@0.3.0;
                import trellis:module/media@0.3.0;
                import trellis:module/vision@0.3.0;
                import trellis:module/speech@0.3.0;
            }
        ",
        world: "imports",
        generate_all,
        runtime_path: "::trellis_plugin_sdk::__private::wit_bindgen::rt",
    });
}

pub mod info {
    wit_bindgen::generate!({
        path: "../wit/v0.3.0",
        inline: "package trellis:sdk; world info { export trellis:module/module-info@0.3.0; }",
        world: "info",
        pub_export_macro: true,
        runtime_path: "::trellis_plugin_sdk::__private::wit_bindgen::rt",
        with: { "trellis:module/types@0.3.0": ::trellis_plugin_sdk::wit::imports::trellis::module::types },
    });
}

pub mod space {
    wit_bindgen::generate!({
        path: "../wit/v0.3.0",
        inline: "package trellis:sdk; world space { export trellis:module/space-hooks@0.3.0; }",
        world: "space",
        pub_export_macro: true,
        runtime_path: "::trellis_plugin_sdk::__private::wit_bindgen::rt",
        with: { "trellis:module/types@0.3.0": ::trellis_plugin_sdk::wit::imports::trellis::module::types },
    });
}

pub mod marketplace {
    wit_bindgen::generate!({
        path: "../wit/v0.3.0",
        inline: "package trellis:sdk; world marketplace { export trellis:module/marketplace-hooks@0.3.0; }",
        world: "marketplace",
        pub_export_macro: true,
        runtime_path: "::trellis_plugin_sdk::__private::wit_bindgen::rt",
        with: { "trellis:module/types@0.3.0": ::trellis_plugin_sdk::wit::imports::trellis::module::types },
    });
}

pub mod analysis {
    wit_bindgen::generate!({
        path: "../wit/v0.3.0",
        inline: "package trellis:sdk; world analysis { export trellis:module/analysis-hooks@0.3.0; }",
        world: "analysis",
        pub_export_macro: true,
        runtime_path: "::trellis_plugin_sdk::__private::wit_bindgen::rt",
        with: { "trellis:module/types@0.3.0": ::trellis_plugin_sdk::wit::imports::trellis::module::types },
    });
}
