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
    let entries: Vec<_> = std::fs::read_dir(dir.path().join("module-cache")).unwrap().flatten().collect();
    assert_eq!(entries.len(), 1, "one .cwasm, no temporary files left: {entries:?}");
}

#[test]
fn corrupt_cache_entry_is_recompiled_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let settings = ModulesConfig { cache_dir: Some(dir.path().to_path_buf()), ..tags_only() };
    ModuleHost::new(settings.clone(), bundled(), Arc::new(MemoryKv::new())).unwrap();
    let entry = std::fs::read_dir(dir.path()).unwrap().flatten().next().unwrap().path();
    std::fs::write(&entry, b"not machine code").unwrap();

    let host = ModuleHost::new(settings.clone(), bundled(), Arc::new(MemoryKv::new())).unwrap();
    let again = ModuleHost::new(settings, bundled(), Arc::new(MemoryKv::new())).unwrap();

    assert_eq!(host.code_loads()[TAGS].origin, CodeOrigin::Compiled);
    assert_eq!(again.code_loads()[TAGS].origin, CodeOrigin::Cache);
}
