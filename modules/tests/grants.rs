//! A file module gets only what the deployment grants; asking is not enough.

use std::sync::Arc;

use trellis_modules::{EnabledModule, Grant, MemoryKv, ModuleHost, ModulesConfig};

use crate::support::{HOSTILE_WASM, TAGS_WASM, bundled, plugin};

#[test]
fn file_module_importing_an_ungranted_interface_is_refused_with_the_fix() {
    // Arrange: Tags, loaded as a file, uses key-value, which this deployment does not grant.
    let settings = ModulesConfig {
        enable: vec![EnabledModule::file(plugin(TAGS_WASM), vec![Grant::Logging], Vec::new())],
        cache_dir: Some(crate::support::cache_dir()),
        ..ModulesConfig::default()
    };

    // Act
    let host = ModuleHost::new(settings, bundled(), Arc::new(MemoryKv::new())).expect("a bad entry is not fatal");

    // Assert: refused with the reason, the rest (the bundled modules) loaded
    let [refused] = host.refused() else { panic!("one refusal expected: {:?}", host.refused()) };
    let message = format!("{} {}", refused.entry, refused.reason);
    assert!(host.summary("tags").is_none(), "the refused file module is not loaded");
    assert!(message.contains("did not grant") && message.contains("key-value"), "{message}");
    assert!(message.contains(TAGS_WASM), "{message}");
}

#[test]
fn same_module_enabled_twice_is_refused() {
    let entry = EnabledModule::file(plugin(HOSTILE_WASM), crate::support::all_grants(), Vec::new());
    let settings = ModulesConfig { enable: vec![entry.clone(), entry], ..ModulesConfig::default() };

    let host = ModuleHost::new(settings, bundled(), Arc::new(MemoryKv::new())).expect("a bad entry is not fatal");

    let [refused] = host.refused() else { panic!("one refusal expected: {:?}", host.refused()) };
    assert!(refused.reason.contains("enabled twice"), "{}", refused.reason);
    assert!(host.summary("hostile").is_some(), "the first entry still loads");
}
