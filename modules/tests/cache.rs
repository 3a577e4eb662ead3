//! Compiled code is cached on disk and loaded by the next start.

use std::sync::Arc;

use trellis_modules::{CodeOrigin, MemoryKv, ModuleHost, ModulesConfig};

use crate::support::{TAGS, bundled, tags_only};

#[test]
fn second_start_loads_from_the_cache() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    let settings = ModulesConfig { cache_dir: Some(dir.path().join("module-cache")), ..tags_only() };

    // Act
    let first = ModuleHost::new(settings.clone(), bundled(), Arc::new(MemoryKv::new())).unwrap();
    let second = ModuleHost::new(settings, bundled(), Arc::new(MemoryKv::new())).unwrap();

    // Assert
    assert_eq!(first.code_loads()[TAGS].origin, CodeOrigin::Compiled);
    assert_eq!(second.code_loads()[TAGS].origin, CodeOrigin::Cache);
    // Beside it, the lock its compile took turns under (kept: removing it would race a waiter).
    let entries: Vec<_> = std::fs::read_dir(dir.path().join("module-cache"))
        .unwrap()
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().ends_with(".lock"))
        .collect();
    assert_eq!(entries.len(), 1, "one .cwasm, no temporary files left: {entries:?}");
}

#[test]
fn corrupt_cache_entry_is_recompiled_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let settings = ModulesConfig { cache_dir: Some(dir.path().to_path_buf()), ..tags_only() };
    ModuleHost::new(settings.clone(), bundled(), Arc::new(MemoryKv::new())).unwrap();
    let entry = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|path| path.extension().is_some_and(|x| x == "cwasm"))
        .unwrap();
    std::fs::write(&entry, b"not machine code").unwrap();

    let host = ModuleHost::new(settings.clone(), bundled(), Arc::new(MemoryKv::new())).unwrap();
    let again = ModuleHost::new(settings, bundled(), Arc::new(MemoryKv::new())).unwrap();

    assert_eq!(host.code_loads()[TAGS].origin, CodeOrigin::Compiled);
    assert_eq!(again.code_loads()[TAGS].origin, CodeOrigin::Cache);
}

/// The author's tools (`module check`, `dev`): a check compiles into the cache a server then loads from, and
/// compiling again reuses the functions Cranelift compiled before. Not all: the keys of some functions differ
/// from one compile to the next (measured: 8 % of a JavaScript component's 12,300; 23 % of the Tags
/// module's 830 once, on a loaded machine), so those are compiled again; most are read back, which makes
/// such a compile about three times faster.
#[test]
fn a_check_fills_the_cache_a_server_loads_and_a_recompile_reuses_most_functions() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("modules");
    let wasm = crate::support::plugin(crate::support::TAGS_WASM);
    let function_files = || std::fs::read_dir(cache.join("functions")).unwrap().count();

    // Act
    let report = trellis_modules::check_cached(&wasm, Some(&cache)).unwrap();
    let compiled = function_files();
    let settings = ModulesConfig { cache_dir: Some(cache.clone()), ..tags_only() };
    let server = ModuleHost::new(settings, bundled(), Arc::new(MemoryKv::new())).unwrap();
    for entry in std::fs::read_dir(&cache).unwrap().flatten().filter(|e| e.path().is_file()) {
        std::fs::remove_file(entry.path()).unwrap();
    }
    let again = trellis_modules::check_cached(&wasm, Some(&cache)).unwrap();

    // Assert
    assert!(report.fits && again.fits, "{:?}", report.problems);
    assert_eq!(server.code_loads()[TAGS].origin, CodeOrigin::Cache, "the server loaded what the check compiled");
    assert!(compiled > 10, "functions were kept: {compiled}");
    let new = function_files() - compiled;
    assert!(new * 2 < compiled, "the recompile compiled {new} of {compiled} functions again");
}
