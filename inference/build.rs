//! Copies rustface's SeetaFace model out of the rustface crate's own source into `OUT_DIR`, so the library
//! embeds it with `include_bytes!` without naming any path of the build machine. Cargo itself says where
//! the crate's source is (`cargo metadata`), whether it came from a registry, a vendor directory or git.

use std::{env, fs, path::PathBuf, process::Command};

const MODEL: &str = "model/seeta_fd_frontal_v1.0.bin";

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=Cargo.toml");
    let manifest =
        PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // Offline first (every source is normally downloaded by now); a partial download of the workspace's
    // dependencies (e.g. `cargo build -p trellis-inference` on an empty cache) needs the registry once.
    let metadata = |offline: bool| {
        let mut command = Command::new(&cargo);
        command.args(["metadata", "--format-version", "1", "--manifest-path"]).arg(&manifest);
        if offline {
            command.arg("--offline");
        }
        command.output().expect("running cargo metadata")
    };
    let mut output = metadata(true);
    if !output.status.success() {
        output = metadata(false);
    }
    assert!(output.status.success(), "cargo metadata failed: {}", String::from_utf8_lossy(&output.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).expect("cargo metadata's JSON");
    let rustface = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "rustface")
        .expect("rustface among the dependencies");
    let source = PathBuf::from(rustface["manifest_path"].as_str().expect("a manifest path"))
        .parent()
        .expect("the crate's directory")
        .join(MODEL);
    let target = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("seeta_fd_frontal_v1.0.bin");
    fs::copy(&source, &target).unwrap_or_else(|e| panic!("copying {}: {e}", source.display()));
    println!("cargo::rustc-env=RUSTFACE_VERSION={}", rustface["version"].as_str().unwrap_or("?"));
}
