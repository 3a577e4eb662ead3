//! The shared host and request builders.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use trellis_modules::{
    BundledModule, CallerRole, EnabledModule, Grant, Invocation, MemoryKv, Method, ModuleHost, ModuleRequest,
    ModulesConfig,
};

/// Request budget of the shared host.
pub const REQUEST_BUDGET: Duration = Duration::from_millis(250);

pub const TAGS_WASM: &str = "trellis_tags.wasm";
pub const HOSTILE_WASM: &str = "trellis_hostile.wasm";
pub const WORD_COUNT_WASM: &str = "word_count.wasm";

/// Tags' id. The tests bundle Tags the way the server does: its bytes handed to the host under this id.
pub const TAGS: &str = "tags";

pub fn plugin(file: &str) -> PathBuf {
    trellis_plugins_build::path(file)
}

/// What the tests bundle: Tags.
pub fn bundled() -> &'static [BundledModule] {
    static BUNDLED: OnceLock<Vec<BundledModule>> = OnceLock::new();
    BUNDLED.get_or_init(|| {
        let wasm = std::fs::read(plugin(TAGS_WASM)).expect("plugins/ built Tags");
        vec![BundledModule::new(TAGS, wasm)]
    })
}

/// Settings enabling the bundled Tags alone, with the tests' shared code cache.
pub fn tags_only() -> ModulesConfig {
    ModulesConfig {
        enable: vec![EnabledModule::bundled(TAGS)],
        cache_dir: Some(cache_dir()),
        ..ModulesConfig::default()
    }
}

/// A host of its own: its failure counters and key-value store are the calling test's alone.
pub fn private_host(settings: ModulesConfig) -> ModuleHost {
    ModuleHost::new(settings, bundled(), Arc::new(MemoryKv::new())).expect("modules load")
}

/// Every permission, for file modules whose manifests the tests do not control.
pub fn all_grants() -> Vec<Grant> {
    vec![Grant::KeyValue, Grant::Logging, Grant::ItemRead, Grant::AssetRead, Grant::OutboundHttp]
}

pub struct Shared {
    pub host: ModuleHost,
    pub hostile_id: String,
    pub word_count_id: String,
}

/// Tags (bundled), the hostile module and word-count (files), loaded once per test binary.
pub fn shared() -> &'static Shared {
    static SHARED: OnceLock<Shared> = OnceLock::new();
    SHARED.get_or_init(|| {
        let hostile_id = trellis_modules::inspect(&plugin(HOSTILE_WASM)).expect("hostile manifest").id;
        let word_count_id = trellis_modules::inspect(&plugin(WORD_COUNT_WASM)).expect("word-count manifest").id;
        let settings = ModulesConfig {
            enable: vec![
                EnabledModule::bundled(TAGS),
                EnabledModule::file(plugin(HOSTILE_WASM), all_grants(), Vec::new()),
                EnabledModule::file(plugin(WORD_COUNT_WASM), all_grants(), Vec::new()),
            ],
            // Longer than the 50 ms default: on a loaded 2-core machine, filling 32 MiB page by page can take
            // more than 50 ms, and the allocation test must hit the memory cap, not the deadline.
            cache_dir: Some(cache_dir()),
            request_deadline_ms: REQUEST_BUDGET.as_millis() as u64,
            ..ModulesConfig::default()
        };
        let host = ModuleHost::new(settings, bundled(), Arc::new(MemoryKv::new())).expect("test modules load");
        Shared { host, hostile_id, word_count_id }
    })
}

/// A compiled-code cache shared by the hosts tests build beside the shared one, so each module compiles once.
pub fn cache_dir() -> PathBuf {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().expect("temporary directory")).path().to_path_buf()
}

pub fn invocation(space_id: &str) -> Invocation {
    Invocation { space_id: space_id.into(), config_json: "{}".into() }
}

pub fn request(method: Method, path: &str) -> ModuleRequest {
    ModuleRequest {
        method,
        path: path.into(),
        query: String::new(),
        body: Vec::new(),
        caller_user_id: "user-1".into(),
        caller_handle: "ada".into(),
        caller_role: CallerRole::Owner,
    }
}

pub fn get(path: &str) -> ModuleRequest {
    request(Method::Get, path)
}
