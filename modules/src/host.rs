//! `ModuleHost`: the enabled modules, ready to invoke, and what the host crate asks of them outside calls
//! (catalogue, config validation, counters). The calls themselves are in `invoke/calls.rs`.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use anyhow::Context as _;
use tokio::sync::{Semaphore, SemaphorePermit};
use wasmtime::Engine;

use crate::api::{ConfigError, ConfigProblem, ModuleSummary};
use crate::capabilities::key_value::KeyValueBackend;
use crate::capabilities::logging::LogBudget;
use crate::capabilities::outbound_http::HttpAccess;
use crate::config::{BundledModule, ModulesConfig};
use crate::invoke::admission::Admission;
use crate::invoke::engine;
use crate::invoke::failure::{FailureCounts, ModuleFailure};
use crate::invoke::guests::GuestThreads;
use crate::invoke::metrics::ModuleMetricsReport;
use crate::invoke::replays::ReplayTurns;
use crate::load::cache::CodeLoad;
use crate::load::manifest::{Manifest, ModuleKind};
use crate::load::{LoadedModule, Loader, wasi_linker};

/// An entry of `[modules] enable` the host could not load.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RefusedModule {
    /// The entry as the configuration gives it: `bundled module "tags"` or `module file /m/x.wasm`.
    pub entry: String,
    /// The id of a bundled entry (a file entry's id is in its component, which may not be readable).
    pub id: Option<String>,
    /// Why it was refused, with every cause.
    pub reason: String,
}

/// The module host. Cheap to clone: clones share the engine and the loaded modules.
#[derive(Clone)]
pub struct ModuleHost {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub engine: Engine,
    pub settings: ModulesConfig,
    pub memory_limit: usize,
    /// In enable order, which is the catalogue's order.
    modules: Vec<LoadedModule>,
    /// Entries of `enable` that could not be loaded, in enable order.
    refused: Vec<RefusedModule>,
    by_id: HashMap<String, usize>,
    /// One permit per pooled instance slot: callers wait for a slot instead of failing when all are busy.
    slots: Semaphore,
    /// Bounds on calls running per module and per space, and each space's guest time.
    pub admission: Arc<Admission>,
    /// The threads guest code runs on, apart from the caller's.
    pub guests: GuestThreads,
    /// Calls that lost a commit race run again one at a time per module and space.
    pub replays: ReplayTurns,
}

impl std::fmt::Debug for ModuleHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<&str> = self.inner.modules.iter().map(|m| m.manifest.id.as_str()).collect();
        f.debug_struct("ModuleHost").field("modules", &ids).finish_non_exhaustive()
    }
}

impl ModuleHost {
    /// Builds the engine and loads every enabled module, compiling each or loading it from the cache. A bundled
    /// entry (`{ id = ... }`) names one of `bundled`, which the binary embeds; a file entry names a component
    /// file. An entry that cannot be loaded as configured is refused: logged as an error and listed by
    /// [`ModuleHost::refused`], while the others load. Fails only when the engine itself cannot be built.
    ///
    /// Blocks while loading. It may be called from inside a tokio runtime: the work runs on its own thread.
    pub fn new(
        settings: ModulesConfig,
        bundled: &[BundledModule],
        kv: Arc<dyn KeyValueBackend>,
    ) -> anyhow::Result<ModuleHost> {
        crate::load::inspect::on_own_thread(Self::load(settings, bundled, kv))
    }

    async fn load(
        settings: ModulesConfig,
        bundled: &[BundledModule],
        kv: Arc<dyn KeyValueBackend>,
    ) -> anyhow::Result<ModuleHost> {
        let memory_limit = engine::memory_limit(&settings)?;
        let engine = engine::pooled(&settings).context("cannot create the wasmtime engine")?;
        engine::start_ticker(&engine)?;
        let loader = Loader {
            engine: &engine,
            settings: &settings,
            bundled,
            kv,
            http: HttpAccess::client(&settings)?,
            log_budget: Arc::new(LogBudget::new(
                settings.log_lines_per_space_per_second,
                settings.log_lines_per_space_burst,
            )),
            memory_limit,
            wasi: wasi_linker(&engine)?,
        };
        let mut modules = Vec::with_capacity(settings.enable.len());
        let mut by_id = HashMap::new();
        let mut refused = Vec::new();
        for entry in &settings.enable {
            let what = match (&entry.id, &entry.path) {
                (Some(id), _) => format!("bundled module {id:?}"),
                (None, Some(path)) => format!("module file {}", path.display()),
                (None, None) => "module entry".to_owned(),
            };
            let loaded = loader.load(entry).await.with_context(|| format!("cannot load {what}")).and_then(|module| {
                let id = &module.manifest.id;
                anyhow::ensure!(!by_id.contains_key(id), "cannot load {what}: module id {id:?} is enabled twice");
                Ok(module)
            });
            let module = match loaded {
                Ok(module) => module,
                Err(err) => {
                    let reason = format!("{err:#}");
                    tracing::error!(module = %what, %reason, "module refused; the server runs without it");
                    refused.push(RefusedModule { entry: what, id: entry.id.clone(), reason });
                    continue;
                }
            };
            let id = module.manifest.id.clone();
            tracing::info!(
                module = %id,
                version = %module.manifest.version,
                kind = module.manifest.kind.as_str(),
                wit = module.version.as_str(),
                code = ?module.code.origin,
                slots = module.slots,
                ms = module.code.duration.as_secs_f64() * 1e3,
                "module loaded"
            );
            by_id.insert(id, modules.len());
            modules.push(module);
        }
        let slots = Semaphore::new(settings.max_instances.max(1) as usize);
        drop(loader);
        let admission = Arc::new(Admission::new(&settings));
        let guests = GuestThreads::new(settings.guest_threads)?;
        let inner = Arc::new(Inner {
            engine,
            settings,
            memory_limit,
            modules,
            refused,
            by_id,
            slots,
            admission,
            guests,
            replays: ReplayTurns::new(),
        });
        log_metrics_periodically(&inner);
        Ok(ModuleHost { inner })
    }

    /// Every enabled module, in the order of the configuration.
    pub fn catalogue(&self) -> Vec<ModuleSummary> {
        self.inner.modules.iter().map(|m| m.summary.clone()).collect()
    }

    /// The entries of `[modules] enable` that were refused at start, with the reason.
    pub fn refused(&self) -> &[RefusedModule] {
        &self.inner.refused
    }

    /// One enabled module's summary.
    pub fn summary(&self, module_id: &str) -> Option<ModuleSummary> {
        self.inner.module(module_id).map(|m| m.summary.clone())
    }

    /// One enabled module's manifest, as the module gave it.
    pub fn manifest(&self, module_id: &str) -> Option<Manifest> {
        self.inner.module(module_id).map(|m| m.manifest.clone())
    }

    /// Checks a configuration against the module's schema, listing every problem.
    pub fn validate_config(&self, module_id: &str, config: &serde_json::Value) -> Result<(), ConfigError> {
        let module = self.inner.module(module_id).ok_or(ConfigError::UnknownModule)?;
        let problems: Vec<ConfigProblem> = module
            .validator
            .iter_errors(config)
            .map(|err| ConfigProblem { path: err.instance_path().to_string(), message: err.to_string() })
            .collect();
        if problems.is_empty() { Ok(()) } else { Err(ConfigError::Invalid(problems)) }
    }

    /// What a client learns of a failed request to `module_id`'s routes: the limit hit and its value.
    pub fn describe_request_failure(&self, module_id: &str, failure: &ModuleFailure) -> String {
        let settings = &self.inner.settings;
        let deadline = (settings.request_deadline(), "request_deadline_ms");
        failure.describe(module_id, deadline, settings)
    }

    /// Each module's call metrics since start (calls, failures by kind, busy refusals, p50/p99 duration, memory
    /// high-water), in the order of the configuration.
    pub fn metrics(&self) -> Vec<ModuleMetricsReport> {
        self.inner.modules.iter().map(|m| m.failures.report(&m.manifest.id)).collect()
    }

    /// Failures per module id and kind since start.
    pub fn failure_counts(&self) -> BTreeMap<String, FailureCounts> {
        self.inner.modules.iter().map(|m| (m.manifest.id.clone(), m.failures.snapshot())).collect()
    }

    /// Whether each module's code was compiled or loaded from the cache at start, and how long that took.
    pub fn code_loads(&self) -> BTreeMap<String, CodeLoad> {
        self.inner.modules.iter().map(|m| (m.manifest.id.clone(), m.code)).collect()
    }
}

/// One summary line per module every `metrics_log_minutes`, until the host is dropped.
fn log_metrics_periodically(inner: &Arc<Inner>) {
    let minutes = inner.settings.metrics_log_minutes;
    let Some(runtime) = inner.guests.handle() else { return };
    if minutes == 0 {
        return;
    }
    let weak = Arc::downgrade(inner);
    runtime.spawn(async move {
        let period = std::time::Duration::from_secs(minutes.saturating_mul(60));
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
        loop {
            ticks.tick().await;
            let Some(inner) = weak.upgrade() else { break };
            for module in &inner.modules {
                module.failures.report(&module.manifest.id).log();
            }
        }
    });
}

impl Inner {
    pub fn module(&self, module_id: &str) -> Option<&LoadedModule> {
        self.by_id.get(module_id).map(|&index| &self.modules[index])
    }

    /// The module, if it exists and is of `kind`.
    pub fn module_of_kind(&self, module_id: &str, kind: ModuleKind) -> Result<&LoadedModule, ModuleFailure> {
        let module = self.module(module_id).ok_or(ModuleFailure::Unknown)?;
        if module.manifest.kind != kind {
            return Err(ModuleFailure::WrongKind { expected: kind, actual: module.manifest.kind });
        }
        Ok(module)
    }

    /// The instance slots one instance of `module` takes ([`LoadedModule::slots`]).
    pub async fn slot(&self, module: &LoadedModule) -> Result<SemaphorePermit<'_>, ModuleFailure> {
        let shut = |_| ModuleFailure::Host("module host is shutting down".into());
        self.slots.acquire_many(module.slots).await.map_err(shut)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{AssetInfo, BytesAsset};
    use crate::api::{Invocation, ModuleEvent, ModuleRequest};

    fn send<T: Send>(_: T) {}

    #[allow(clippy::unimplemented)]
    fn media() -> Arc<dyn crate::analysis::MediaAnalysis> {
        unimplemented!("only the future's type is checked")
    }

    /// The host crate keeps the host in axum state and awaits its calls inside handlers.
    #[allow(dead_code)]
    fn host_and_its_futures_are_send_and_sync(
        host: ModuleHost,
        request: ModuleRequest,
        event: ModuleEvent,
        asset: AssetInfo,
    ) {
        fn shared<T: Send + Sync + Clone + 'static>() {}
        shared::<ModuleHost>();
        send(host.handle_request("m", Invocation::default(), request));
        send(host.dispatch_event("m", Invocation::default(), event));
        send(host.analyze("m", Invocation::default(), asset, Arc::new(BytesAsset::default()), media()));
    }
}
