//! `inspect` and `check`, as the CLI calls them.

use trellis_modules::{ModuleKind, check, inspect};

use crate::support::{HOSTILE_WASM, plugin};

#[test]
fn inspect_reads_the_manifest() {
    let manifest = inspect(&plugin("trellis_tags.wasm")).unwrap();

    assert_eq!(manifest.id, "tags");
    assert_eq!(manifest.kind, ModuleKind::Space);
    assert!(manifest.problems().is_empty(), "{:?}", manifest.problems());
}

#[test]
fn check_says_the_component_fits_the_space_world() {
    let report = check(&plugin(HOSTILE_WASM)).unwrap();

    assert!(report.fits, "{report:#?}");
    assert_eq!(report.world.as_deref(), Some("space-module"));
    assert!(report.imports.all.iter().any(|name| name.starts_with("wasi:")), "{report:#?}");
}

#[test]
fn check_refuses_what_is_not_a_component() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("junk.wasm");
    std::fs::write(&path, b"\0asm junk").unwrap();

    assert!(check(&path).is_err());
    assert!(check(&dir.path().join("missing.wasm")).is_err());
}

#[test]
fn check_lists_host_imports_with_their_permissions() {
    let report = check(&plugin("trellis_tags.wasm")).unwrap();

    let mut permissions: Vec<&str> = report.imports.host.iter().map(|import| import.permission).collect();
    permissions.sort_unstable();
    assert_eq!(permissions, ["item-read", "key-value", "logging"], "{report:#?}");
    assert!(report.imports.unsupported.is_empty() && report.undeclared_imports.is_empty());
}
