// Builds the first-party modules in `plugins/` (their own workspace, target wasm32-wasip2) and says where the
// components are: to this crate (`PLUGINS_BUILD_DIR`, exported as `trellis_plugins_build::DIR`, where tests
// find them) and, through `links`, to the build scripts of dependents (`DEP_TRELLIS_PLUGINS_DIR`: the host
// embeds the modules it bundles from there).
//
// The one place the nested build runs: the host depends on this crate and the module host's tests do too,
// as the same unit, so one cargo call runs this script at most once, and not at all when nothing it watches
// changed.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

const WASM_TARGET: &str = "wasm32-wasip2";

// Variables a build script inherits that would steer the nested cargo at the wrong target, flags, wrapper or
// directories. The jobserver (CARGO_MAKEFLAGS) is kept so both builds share the same job slots.
const CLEARED_ENV: &[&str] = &[
    "CARGO_ENCODED_RUSTFLAGS",
    "RUSTFLAGS",
    "CARGO_BUILD_RUSTFLAGS",
    "CARGO_TARGET_DIR",
    "CARGO_BUILD_TARGET_DIR",
    "CARGO_BUILD_BUILD_DIR",
    "CARGO_BUILD_TARGET",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "CARGO_BUILD_RUSTC_WRAPPER",
    "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER",
    "RUSTC_LINKER",
    "CARGO_INCREMENTAL",
    "CARGO_PRIMARY_PACKAGE",
    "CARGO_MANIFEST_DIR",
    "CARGO_MANIFEST_PATH",
    "OUT_DIR",
    "TARGET",
    "HOST",
    "PROFILE",
    "OPT_LEVEL",
    "DEBUG",
];

fn main() {
    let crate_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let workspace = crate_dir.parent().expect("the crate sits in the workspace");
    let plugins = workspace.join("plugins");
    let manifest = plugins.join("Cargo.toml");
    if !manifest.exists() {
        panic!("{} is missing: the bundled modules are built from it", manifest.display());
    }
    watch(workspace, &plugins);
    ensure_wasm_target();

    let (target_dir, build_dir) = plugins_dirs(workspace);
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .args(["build", "--release", "--target", WASM_TARGET, "--manifest-path"])
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target_dir);
    for key in CLEARED_ENV {
        command.env_remove(key);
    }
    command.env("CARGO_BUILD_BUILD_DIR", &build_dir);
    let output = command.output().expect("cannot run cargo for plugins/");
    if !output.status.success() {
        panic!(
            "building plugins/ for {WASM_TARGET} failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }

    let built = target_dir.join(WASM_TARGET).join("release");
    if !built.is_dir() {
        panic!("{} was not written: plugins/ built no component", built.display());
    }
    // Not under `TRELLIS_`: `cargo run` and `cargo test` put these variables into the environment of what they
    // start, and `TRELLIS_*` variables are the server's settings.
    println!("cargo:rustc-env=PLUGINS_BUILD_DIR={}", built.display());
    println!("cargo:rustc-env=PLUGINS_TARGET_DIR={}", target_dir.display());
    println!("cargo:rustc-env=PLUGINS_BUILD_BUILD_DIR={}", build_dir.display());
    println!("cargo::metadata=dir={}", built.display());
}

/// Rebuild when a guest's sources, the SDK or the WIT change. Files, not folders: cargo reads a watched folder
/// as changed when anything inside it changes, and other tools write beside the Rust guests (Python's
/// `__pycache__` in the Python examples, npm's `node_modules` in the JavaScript ones), which must not
/// rebuild the server.
fn watch(workspace: &Path, plugins: &Path) {
    println!("cargo:rerun-if-changed={}", workspace.join("wit").display());
    // The SDK is locked by plugins/Cargo.lock, watched below with the rest of plugins/. The analysis types are
    // the SDK's too.
    for dir in ["plugin-sdk", "analysis-types"] {
        for file in ["Cargo.toml", "src"] {
            println!("cargo:rerun-if-changed={}", workspace.join(dir).join(file).display());
        }
    }
    watch_sources(plugins);
}

/// Every file below `dir` that a Rust build reads (sources, manifests, the lock, WIT), skipping build output,
/// hidden folders and the other languages' tool folders. A file added later shows as a change to a file that
/// names it (a `mod` line, a manifest).
fn watch_sources(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            if !(name == "target" || name == "node_modules" || name == "__pycache__" || name.starts_with('.')) {
                watch_sources(&path);
            }
        } else if matches!(path.extension().and_then(|x| x.to_str()), Some("rs" | "toml" | "lock" | "wit")) {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
}

/// Fails early, with the fix, when the standard library for the wasm target is not installed.
fn ensure_wasm_target() {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let libdir = Command::new(rustc)
        .args(["--print", "target-libdir", "--target", WASM_TARGET])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()));
    if !libdir.is_some_and(|dir| dir.exists()) {
        panic!("the {WASM_TARGET} target is not installed; run `rustup target add {WASM_TARGET}`");
    }
}

/// Where the guest build writes: its components in `<target dir>/plugins` of this checkout (`CARGO_TARGET_DIR` or
/// `<workspace>/target`), its intermediate files in `<build dir>/plugins`, the build dir derived from OUT_DIR
/// (`<build dir>/<profile>/build/<pkg>-<hash>/out`). Both are beside the outer build's own folders, so the guest
/// build shares them without sharing their locks, and a build dir shared by several checkouts (.cargo/config.toml)
/// never mixes one checkout's components with another's.
fn plugins_dirs(workspace: &Path) -> (PathBuf, PathBuf) {
    let target = env::var_os("CARGO_TARGET_DIR").map_or_else(|| workspace.join("target"), PathBuf::from);
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let build = out_dir.ancestors().nth(2);
    let build_dir = match build.filter(|dir| dir.file_name().is_some_and(|name| name == "build")) {
        Some(build) => build.parent().and_then(Path::parent).expect("profile dir has a parent").join("plugins"),
        None => out_dir.join("plugins-build"),
    };
    (target.join("plugins"), build_dir)
}
