//! Deployment settings for modules: which ones are enabled, what file modules are granted, and the limits of
//! every invocation.

use std::borrow::Cow;
use std::path::PathBuf;
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use crate::capabilities::Grant;

/// Settings of the module host. The host nests these keys in its `[modules]` table.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ModulesConfig {
    /// Modules this deployment runs, in catalogue order. Defaults to none; the host crate chooses its own default.
    pub enable: Vec<EnabledModule>,
    /// Where compiled code is cached; `None` compiles on every start.
    pub cache_dir: Option<PathBuf>,
    /// Budget of one request to a module's routes: milliseconds of the guest's own time (CPU time while its
    /// code runs; waiting for a guest thread or inside host calls does not count).
    pub request_deadline_ms: u64,
    /// Budget of one event delivery, in milliseconds of the guest's own time.
    pub event_deadline_ms: u64,
    /// Budget of one marketplace call (trending score, registration decision), in milliseconds of the guest's
    /// own time.
    pub marketplace_deadline_ms: u64,
    /// Wall-clock time a call may take beyond its deadline, waiting for a guest thread or inside host calls
    /// (key-value, outbound HTTP, asset reads), in milliseconds; past it the call ends as failed.
    pub max_call_wait_ms: u64,
    /// How long a route call waits for a free instance (`max_instances`), in milliseconds; past it the call is
    /// refused as busy (429) before any guest code runs.
    pub max_queue_wait_ms: u64,
    /// Budget of one analysis step's own code, in milliseconds. Time inside the inference capabilities
    /// (media, vision, speech) does not count: the two bounds below cover it.
    pub analysis_deadline_ms: u64,
    /// Upper bound of one inference capability call of an analysis step, in milliseconds; a call that
    /// takes longer answers the step with an error.
    pub analysis_capability_timeout_ms: u64,
    /// Upper bound of all inference capability calls of one analysis step together, in milliseconds; past
    /// it the step ends as over its deadline.
    pub analysis_capability_budget_ms: u64,
    /// Linear memory one instance may grow to, in bytes.
    pub memory_limit_bytes: u64,
    /// Instances alive at once across all modules; further invocations wait for a slot.
    pub max_instances: u32,
    /// Upper bound of one outbound HTTP request, in milliseconds (also bounded by the invocation's budget).
    pub http_timeout_ms: u64,
    /// Largest outbound HTTP response body handed to a module, in bytes.
    pub http_max_response_bytes: u64,
    /// Ports outbound HTTP may go to; an empty list allows any.
    pub http_allowed_ports: Vec<u16>,
    /// Let modules reach loopback, private, link-local and unique-local addresses (an allowed host
    /// inside the deployment's own network). Off: such addresses are refused after resolving.
    pub http_allow_private_addresses: bool,
    /// Threads that run guest code past its first epoch tick, apart from the threads serving HTTP: a call
    /// starts on its caller's thread (most end within microseconds) and moves here at its first wait, so a
    /// module that computes until its deadline holds one of these, and a request thread for at most 1 ms.
    pub guest_threads: usize,
    /// Route calls of one module running at once; beyond them a call is refused at once (busy).
    pub max_calls_per_module: usize,
    /// Route calls for one space running at once; beyond them a call is refused at once (busy).
    pub max_calls_per_space: usize,
    /// How long a route call refused as busy waits before its refusal goes out, in milliseconds: a client
    /// that ignores `Retry-After` and calls again at once then costs the server little.
    pub busy_answer_delay_ms: u64,
    /// Guest time (milliseconds of its modules' own time, as the deadlines count it) a space earns per second.
    pub space_guest_ms_per_second: u64,
    /// Guest time a space may save up and spend in a burst, in milliseconds.
    pub space_guest_burst_ms: u64,
    /// Events waiting for delivery per space; beyond them new events of the space are dropped (logged).
    pub max_queued_events_per_space: usize,
    /// Log lines the modules of one space may emit per second on average; the rest are dropped.
    pub log_lines_per_space_per_second: u32,
    /// Log lines the modules of one space may emit at once.
    pub log_lines_per_space_burst: u32,
    /// Keys one module may keep in one space's key-value store.
    pub kv_max_keys_per_space: u64,
    /// Bytes (keys plus values) one module may keep in one space's key-value store.
    pub kv_max_bytes_per_space: u64,
    /// Minutes between the log lines summing up each module's call metrics; 0 turns them off.
    pub metrics_log_minutes: u64,
}

impl Default for ModulesConfig {
    fn default() -> Self {
        Self {
            enable: Vec::new(),
            cache_dir: None,
            request_deadline_ms: 50,
            event_deadline_ms: 200,
            marketplace_deadline_ms: 50,
            max_call_wait_ms: 2_000,
            max_queue_wait_ms: 1_000,
            analysis_deadline_ms: 30_000,
            analysis_capability_timeout_ms: 600_000,
            analysis_capability_budget_ms: 1_800_000,
            memory_limit_bytes: 32 * 1024 * 1024,
            max_instances: 256,
            http_timeout_ms: 10_000,
            http_max_response_bytes: 1024 * 1024,
            http_allowed_ports: vec![80, 443],
            http_allow_private_addresses: false,
            guest_threads: 1,
            max_calls_per_module: 32,
            max_calls_per_space: 8,
            busy_answer_delay_ms: 20,
            space_guest_ms_per_second: 250,
            space_guest_burst_ms: 1_000,
            max_queued_events_per_space: 1_000,
            log_lines_per_space_per_second: 50,
            log_lines_per_space_burst: 500,
            kv_max_keys_per_space: 100_000,
            kv_max_bytes_per_space: 64 << 20,
            metrics_log_minutes: 5,
        }
    }
}

impl ModulesConfig {
    pub(crate) fn request_deadline(&self) -> Duration {
        Duration::from_millis(self.request_deadline_ms)
    }

    pub(crate) fn event_deadline(&self) -> Duration {
        Duration::from_millis(self.event_deadline_ms)
    }

    pub(crate) fn marketplace_deadline(&self) -> Duration {
        Duration::from_millis(self.marketplace_deadline_ms)
    }

    pub(crate) fn analysis_deadline(&self) -> Duration {
        Duration::from_millis(self.analysis_deadline_ms)
    }

    pub(crate) fn max_call_wait(&self) -> Duration {
        Duration::from_millis(self.max_call_wait_ms)
    }

    pub(crate) fn max_queue_wait(&self) -> Duration {
        Duration::from_millis(self.max_queue_wait_ms)
    }
}

/// One enabled module: `{ id = "tags" }` for a bundled module, or
/// `{ path = "/x/y.wasm", grants = [...], allow_hosts = [...] }` for a file.
///
/// A bundled module gets every permission its manifest asks for; a file module only those in `grants`, and
/// outbound HTTP only to hosts that are both in its manifest and in `allow_hosts`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct EnabledModule {
    /// Id of a bundled module.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Path of a component file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// Permissions granted to a file module.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grants: Vec<Grant>,
    /// Host names a file module may reach with outbound HTTP (exact names).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow_hosts: Vec<String>,
}

impl EnabledModule {
    /// A bundled module by id.
    pub fn bundled(id: impl Into<String>) -> Self {
        Self { id: Some(id.into()), ..Self::default() }
    }

    /// A component file with the permissions the deployment grants it.
    pub fn file(path: impl Into<PathBuf>, grants: Vec<Grant>, allow_hosts: Vec<String>) -> Self {
        Self { path: Some(path.into()), grants, allow_hosts, ..Self::default() }
    }

    pub(crate) fn source(&self) -> anyhow::Result<Source<'_>> {
        match (&self.id, &self.path) {
            (Some(id), None) if self.grants.is_empty() && self.allow_hosts.is_empty() => Ok(Source::Bundled(id)),
            (Some(id), None) => {
                anyhow::bail!("bundled module {id:?} takes no grants or allow_hosts: it gets what its manifest asks")
            }
            (None, Some(path)) => Ok(Source::File(path)),
            _ => anyhow::bail!("an enabled module needs exactly one of `id` (bundled) or `path` (file)"),
        }
    }
}

/// A module compiled into the binary that runs the host, offered to deployments under its id: an
/// [`EnabledModule::bundled`] entry with that id runs it. Its manifest must give the same id.
#[derive(Clone)]
pub struct BundledModule {
    id: Cow<'static, str>,
    wasm: Cow<'static, [u8]>,
}

impl BundledModule {
    /// A bundled module: its id and its component's bytes (usually from `include_bytes!`).
    pub fn new(id: impl Into<Cow<'static, str>>, wasm: impl Into<Cow<'static, [u8]>>) -> Self {
        Self { id: id.into(), wasm: wasm.into() }
    }

    /// The id a deployment enables it by.
    pub fn id(&self) -> &str {
        &self.id
    }

    pub(crate) fn wasm(&self) -> &[u8] {
        &self.wasm
    }
}

impl std::fmt::Debug for BundledModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BundledModule").field("id", &self.id).field("bytes", &self.wasm.len()).finish()
    }
}

pub(crate) enum Source<'a> {
    Bundled(&'a str),
    File(&'a PathBuf),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_module_entry_parses_grants_and_hosts() {
        let entry: EnabledModule = serde_json::from_value(serde_json::json!({
            "path": "/x/y.wasm", "grants": ["key-value", "outbound-http"], "allow_hosts": ["api.example.com"]
        }))
        .unwrap();

        assert_eq!(
            entry,
            EnabledModule::file(
                "/x/y.wasm",
                vec![Grant::KeyValue, Grant::OutboundHttp],
                vec!["api.example.com".into()]
            )
        );
    }

    #[test]
    fn inference_grants_parse_in_kebab_case() {
        let entry: EnabledModule = serde_json::from_value(serde_json::json!({
            "path": "/x/step.wasm", "grants": ["media-decode", "vision", "speech"]
        }))
        .unwrap();

        assert_eq!(entry.grants, [Grant::MediaDecode, Grant::Vision, Grant::Speech]);
    }

    #[test]
    fn unknown_grant_and_unknown_key_are_rejected() {
        assert!(serde_json::from_value::<EnabledModule>(serde_json::json!({"path": "a", "grants": ["root"]})).is_err());
        assert!(serde_json::from_value::<ModulesConfig>(serde_json::json!({"enabled": []})).is_err());
    }

    #[test]
    fn entry_needs_exactly_one_source() {
        assert!(EnabledModule::default().source().is_err());
        let both = EnabledModule { id: Some("tags".into()), path: Some("a".into()), ..Default::default() };
        assert!(both.source().is_err());
        let granted_bundle = EnabledModule { grants: vec![Grant::Logging], ..EnabledModule::bundled("tags") };
        assert!(granted_bundle.source().is_err());
    }

    #[test]
    fn defaults_enable_nothing_with_documented_budgets() {
        let config: ModulesConfig = serde_json::from_value(serde_json::json!({})).unwrap();

        assert!(config.enable.is_empty());
        assert_eq!(config.request_deadline(), Duration::from_millis(50));
        assert_eq!(config.event_deadline(), Duration::from_millis(200));
        assert_eq!(config.analysis_deadline(), Duration::from_secs(30));
        assert_eq!(config.analysis_capability_timeout_ms, 600_000);
        assert_eq!(config.memory_limit_bytes, 32 << 20);
    }
}
