//! `trellis module new|inspect|check`, run as the real binary against the components built from
//! `plugins/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn trellis(dir: &Path, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_trellis"));
    command.args(args).current_dir(dir);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("TRELLIS_") {
            command.env_remove(name);
        }
    }
    command.output().expect("running trellis")
}

fn plugin(file: &str) -> String {
    PathBuf::from(trellis_plugins_build::DIR).join(file).to_string_lossy().into_owned()
}

fn json_stdout(output: &Output) -> Value {
    let text = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(&text).unwrap_or_else(|_| panic!("stdout is not JSON: {text}"))
}

#[test]
fn module_inspect_prints_the_manifest_as_json() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    // Act
    let output = trellis(dir.path(), &["module", "inspect", &plugin("word_count.wasm")]);
    // Assert
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let manifest = json_stdout(&output);
    assert_eq!(manifest["id"], "word-count");
    assert_eq!(manifest["kind"], "space");
    assert_eq!(manifest["configSchema"]["type"], "object");
    assert!(!dir.path().join("data").exists(), "module tools touch no data directory");
}

#[test]
fn module_check_accepts_a_module_built_for_this_host() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    // Act
    let output = trellis(dir.path(), &["module", "check", &plugin("trellis_hostile.wasm")]);
    // Assert
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report = json_stdout(&output);
    assert_eq!(report["fits"], true, "{report}");
    assert_eq!(report["world"], "space-module");
    assert_eq!(report["manifest"]["id"], "hostile");
}

#[test]
fn module_check_and_inspect_refuse_a_file_that_is_no_component() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    let bogus = dir.path().join("bogus.wasm");
    std::fs::write(&bogus, b"\0asm not really").unwrap();
    let bogus = bogus.to_string_lossy().into_owned();
    // Act
    let check = trellis(dir.path(), &["module", "check", &bogus]);
    let inspect = trellis(dir.path(), &["module", "inspect", &bogus]);
    let missing = trellis(dir.path(), &["module", "inspect", "nowhere.wasm"]);
    // Assert
    for output in [check, inspect, missing] {
        assert!(!output.status.success());
        assert!(!String::from_utf8_lossy(&output.stderr).trim().is_empty());
    }
}

#[test]
fn module_new_scaffolds_a_crate_and_refuses_to_overwrite() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    // Act
    let created = trellis(dir.path(), &["module", "new", "greeter"]);
    let again = trellis(dir.path(), &["module", "new", "greeter"]);
    let bad = trellis(dir.path(), &["module", "new", "Greeter", "--dir", "elsewhere"]);
    // Assert
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let manifest = std::fs::read_to_string(dir.path().join("greeter/Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"greeter\"") && manifest.contains("trellis-plugin-sdk"), "{manifest}");
    assert!(dir.path().join("greeter/src/lib.rs").exists());
    assert!(!again.status.success(), "an existing crate is never overwritten");
    assert!(!bad.status.success() && !dir.path().join("elsewhere").exists());
}

/// Runs what `trellis module new` writes: the template's own unit tests (`cargo test-native`), then its one
/// build command, and checks the component against the host. Needs the wasm32-wasip2 target, so it is
/// `#[ignore]`d in plain `cargo test`; `scripts/test` runs it with `--ignored`.
///
/// Offline and quick: the scaffold gets `plugins/Cargo.lock` (the same dependency versions, all already
/// downloaded for plugins/) and builds in the target directory of plugins/, whose release profile it shares,
/// so only the new crate itself is compiled for wasm.
#[test]
#[ignore]
fn a_scaffolded_module_passes_its_tests_builds_with_one_command_and_fits_the_host() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    let created = trellis(dir.path(), &["module", "new", "greeter", "--dir", "greeter"]);
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let crate_dir = dir.path().join("greeter");
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("host/ sits in the workspace");
    std::fs::copy(workspace.join("plugins/Cargo.lock"), crate_dir.join("Cargo.lock")).unwrap();
    // `<target>/plugins/wasm32-wasip2/release` -> `<target>/plugins`
    let target_dir = Path::new(trellis_plugins_build::DIR).ancestors().nth(2).expect("the plugins target dir");
    let cargo = |args: &[&str]| {
        Command::new(env!("CARGO"))
            .args(args)
            .arg("--offline")
            .current_dir(&crate_dir)
            .env("CARGO_TARGET_DIR", target_dir)
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .output()
            .expect("running cargo")
    };

    // Act
    let tests = cargo(&["test-native"]);
    let build = cargo(&["build", "--release"]);

    // Assert
    assert!(tests.status.success(), "{}", String::from_utf8_lossy(&tests.stderr));
    assert!(String::from_utf8_lossy(&tests.stdout).contains("test result: ok. 2 passed"), "the template's tests ran");
    assert!(build.status.success(), "{}", String::from_utf8_lossy(&build.stderr));
    let component = target_dir.join("wasm32-wasip2/release/greeter.wasm");
    let check = trellis(dir.path(), &["module", "check", &component.to_string_lossy()]);
    std::fs::remove_file(&component).ok();
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stdout));
    assert_eq!(json_stdout(&check)["manifest"]["id"], "greeter");
}
