// Tells `src/bundled.rs` where the components built from `plugins/` are, for its `include_bytes!`: the
// `trellis-plugins-build` dependency builds them and hands their directory to this script as
// `DEP_TRELLIS_PLUGINS_DIR`. Cargo reruns this script when that dependency's build output changes, and
// recompiles the crate when an embedded file changes.
fn main() {
    let dir = std::env::var("DEP_TRELLIS_PLUGINS_DIR").expect("trellis-plugins-build says where plugins/ is built");
    // Not under `TRELLIS_`: `cargo run` puts this into the server's environment, where `TRELLIS_*` are settings.
    println!("cargo:rustc-env=BUNDLED_MODULES_DIR={dir}");
    println!("cargo:rerun-if-changed=build.rs");
}
