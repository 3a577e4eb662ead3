//! Turning an enabled module into something ready to invoke (here): code, compiled or from the on-disk cache
//! (`cache.rs`), its world (`wit_check.rs`), its manifest (`manifest.rs`), the permissions it ends up with, and
//! an `InstancePre` whose linker holds only those imports. `inspect.rs` offers the same reading to the CLI.

pub(crate) mod cache;
pub(crate) mod function_cache;
pub(crate) mod inspect;
pub(crate) mod manifest;
pub(crate) mod wit_check;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use wasmtime::component::{Component, HasSelf, Linker};
use wasmtime::{Engine, Store};

use crate::api::ModuleSummary;
use crate::capabilities::Grant;
use crate::capabilities::key_value::KeyValueBackend;
use crate::capabilities::logging::LogBudget;
use crate::capabilities::outbound_http::HttpAccess;
use crate::config::{BundledModule, EnabledModule, ModulesConfig, Source};
use crate::invoke::clock::GuestClock;
use crate::invoke::failure::FailureCounters;
use crate::invoke::state::{Capabilities, InferenceAccess, StoreState};
use crate::invoke::{configure_store, engine};
use crate::load::cache::CodeLoad;
use crate::load::manifest::{Manifest, ModuleKind, Permission};
use crate::load::wit_check::{ImportReport, world_of};
use crate::wit::{WitVersion, v0_1, v0_2, v0_3};

/// Time a module gets to answer `manifest()`.
const MANIFEST_BUDGET: Duration = Duration::from_secs(1);

/// A module ready to instantiate, by world and WIT version. The `V0_1` and `V0_2` variants are called
/// through the frozen bindings of their version and their answers adapted to the newest version's.
pub(crate) enum Prepared {
    SpaceV0_1(v0_1::space::SpaceModulePre<StoreState>),
    SpaceV0_2(v0_2::space::SpaceModulePre<StoreState>),
    Space(v0_3::space::SpaceModulePre<StoreState>),
    MarketplaceV0_1(v0_1::marketplace::MarketplaceRulePre<StoreState>),
    MarketplaceV0_2(v0_2::marketplace::MarketplaceRulePre<StoreState>),
    Marketplace(v0_3::marketplace::MarketplaceRulePre<StoreState>),
    AnalysisV0_1(v0_1::analysis::AnalysisStepPre<StoreState>),
    AnalysisV0_2(v0_2::analysis::AnalysisStepPre<StoreState>),
    Analysis(v0_3::analysis::AnalysisStepPre<StoreState>),
}

impl Prepared {
    fn new(
        pre: wasmtime::component::InstancePre<StoreState>,
        kind: ModuleKind,
        version: WitVersion,
    ) -> anyhow::Result<Self> {
        use WitVersion::{V0_1, V0_2, V0_3};
        Ok(match (kind, version) {
            (ModuleKind::Space, V0_1) => Self::SpaceV0_1(v0_1::space::SpaceModulePre::new(pre)?),
            (ModuleKind::Space, V0_2) => Self::SpaceV0_2(v0_2::space::SpaceModulePre::new(pre)?),
            (ModuleKind::Space, V0_3) => Self::Space(v0_3::space::SpaceModulePre::new(pre)?),
            (ModuleKind::MarketplaceRule, V0_1) => {
                Self::MarketplaceV0_1(v0_1::marketplace::MarketplaceRulePre::new(pre)?)
            }
            (ModuleKind::MarketplaceRule, V0_2) => {
                Self::MarketplaceV0_2(v0_2::marketplace::MarketplaceRulePre::new(pre)?)
            }
            (ModuleKind::MarketplaceRule, V0_3) => Self::Marketplace(v0_3::marketplace::MarketplaceRulePre::new(pre)?),
            (ModuleKind::AnalysisStep, V0_1) => Self::AnalysisV0_1(v0_1::analysis::AnalysisStepPre::new(pre)?),
            (ModuleKind::AnalysisStep, V0_2) => Self::AnalysisV0_2(v0_2::analysis::AnalysisStepPre::new(pre)?),
            (ModuleKind::AnalysisStep, V0_3) => Self::Analysis(v0_3::analysis::AnalysisStepPre::new(pre)?),
        })
    }
}

pub(crate) struct LoadedModule {
    pub manifest: Manifest,
    /// The WIT version the component targets.
    pub version: WitVersion,
    pub summary: ModuleSummary,
    pub validator: jsonschema::Validator,
    pub prepared: Prepared,
    pub caps: Arc<Capabilities>,
    pub code: CodeLoad,
    pub failures: FailureCounters,
    /// Instance slots (`modules.max_instances`) one instance of it takes: more than one for components
    /// that hold more core instances, memories or tables than the pool reserves per slot.
    pub slots: u32,
}

pub(crate) struct Loader<'a> {
    pub engine: &'a Engine,
    pub settings: &'a ModulesConfig,
    /// What the embedding binary bundles, for `{ id = ... }` entries.
    pub bundled: &'a [BundledModule],
    pub kv: Arc<dyn KeyValueBackend>,
    pub http: reqwest::Client,
    pub log_budget: Arc<LogBudget>,
    pub memory_limit: usize,
    /// WASI with no authority, linked once and cloned per module.
    pub wasi: Linker<StoreState>,
}

/// A linker with WASI p2 only; host imports are added per module.
pub(crate) fn wasi_linker(engine: &Engine) -> anyhow::Result<Linker<StoreState>> {
    let mut linker = Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_async(&mut linker)?;
    v0_1::types::add_to_linker::<_, HasSelf<StoreState>>(&mut linker, |s| s)?;
    v0_2::types::add_to_linker::<_, HasSelf<StoreState>>(&mut linker, |s| s)?;
    v0_3::types::add_to_linker::<_, HasSelf<StoreState>>(&mut linker, |s| s)?;
    Ok(linker)
}

/// Adds the host imports for `grants` (each only if the world of that version has it), under the names of
/// the version the component targets.
pub(crate) fn link_grants(
    linker: &mut Linker<StoreState>,
    kind: ModuleKind,
    version: WitVersion,
    grants: &[Grant],
) -> anyhow::Result<()> {
    let importable = Grant::importable(kind, version);
    for grant in grants.iter().filter(|g| importable.contains(g)) {
        (grant.capability().link)(linker, version)?;
    }
    Ok(())
}

impl Loader<'_> {
    pub async fn load(&self, entry: &EnabledModule) -> anyhow::Result<LoadedModule> {
        let source = entry.source()?;
        let (bytes, expected_id) = match source {
            Source::Bundled(id) => {
                let bundled = self.bundled.iter().find(|bundled| bundled.id() == id);
                let names: Vec<_> = self.bundled.iter().map(BundledModule::id).collect();
                let bundled = bundled.with_context(|| format!("no bundled module {id:?} (bundled: {names:?})"))?;
                (std::borrow::Cow::Borrowed(bundled.wasm()), Some(id))
            }
            Source::File(path) => {
                let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
                (std::borrow::Cow::Owned(bytes), None)
            }
        };
        let cache_dir = self.settings.cache_dir.as_deref();
        let (component, code) = cache::load_component(self.engine, &bytes, cache_dir).context("cannot compile")?;
        let slots = engine::slots_needed(&component, &bytes);
        anyhow::ensure!(
            slots <= self.settings.max_instances,
            "one instance of it takes {slots} instance slots (core instances, memories and tables), more than \
             modules.max_instances ({}) allows",
            self.settings.max_instances
        );
        let (kind, version) = world_of(self.engine, &component).map_err(anyhow::Error::msg)?;
        let manifest = read_manifest(self.engine, &self.wasi, &component, self.memory_limit).await?;
        let problems = manifest.problems();
        anyhow::ensure!(problems.is_empty(), "invalid manifest: {}", problems.join("; "));
        anyhow::ensure!(
            manifest.kind == kind,
            "manifest says kind {} but the component implements world {}",
            manifest.kind,
            kind.world()
        );
        if let Some(id) = expected_id {
            anyhow::ensure!(manifest.id == id, "bundled module {id:?} calls itself {:?}", manifest.id);
        }

        let (grants, hosts) = match source {
            Source::Bundled(_) => (manifest.asked(), manifest.asked_hosts().unwrap_or_default().to_vec()),
            Source::File(_) => file_grants(&manifest, &entry.grants, &entry.allow_hosts),
        };
        let imports = ImportReport::of(self.engine, &component, kind, version);
        imports.ensure_allowed(&manifest, &grants)?;

        let mut linker = self.wasi.clone();
        link_grants(&mut linker, kind, version, &grants)?;
        let pre = linker
            .instantiate_pre(&component)
            .map_err(anyhow::Error::from)
            .with_context(|| format!("component does not fit the host's WIT {version}"))?;
        let prepared = Prepared::new(pre, kind, version)?;

        let validator = manifest.compile_schema().map_err(anyhow::Error::msg)?;
        let caps = self.capabilities(&manifest.id, &grants, hosts);
        let summary = summary(&manifest, version, &grants, &caps);
        Ok(LoadedModule {
            manifest,
            version,
            summary,
            validator,
            prepared,
            caps: Arc::new(caps),
            code,
            failures: FailureCounters::default(),
            slots,
        })
    }

    fn capabilities(&self, module_id: &str, grants: &[Grant], hosts: Vec<String>) -> Capabilities {
        let has = |grant| grants.contains(&grant);
        Capabilities {
            module_id: module_id.to_owned(),
            granted: grants.to_vec(),
            key_value: has(Grant::KeyValue).then(|| self.kv.clone()),
            log_budget: self.log_budget.clone(),
            http: has(Grant::OutboundHttp).then(|| HttpAccess::new(self.http.clone(), hosts, self.settings)),
            inference: InferenceAccess {
                call_timeout: Duration::from_millis(self.settings.analysis_capability_timeout_ms),
                invocation_budget: Duration::from_millis(self.settings.analysis_capability_budget_ms),
            },
        }
    }
}

/// What a file module ends up with: what it asks for and the deployment grants, and outbound HTTP only to hosts
/// on both lists.
fn file_grants(manifest: &Manifest, granted: &[Grant], allowed_hosts: &[String]) -> (Vec<Grant>, Vec<String>) {
    let grants: Vec<Grant> = manifest.asked().into_iter().filter(|g| granted.contains(g)).collect();
    let hosts = manifest
        .asked_hosts()
        .unwrap_or_default()
        .iter()
        .filter(|host| allowed_hosts.iter().any(|allowed| allowed.eq_ignore_ascii_case(host)))
        .cloned()
        .collect();
    (grants, hosts)
}

fn summary(manifest: &Manifest, version: WitVersion, grants: &[Grant], caps: &Capabilities) -> ModuleSummary {
    let permissions = grants
        .iter()
        .flat_map(|grant| match (grant, &caps.http) {
            (Grant::OutboundHttp, Some(http)) => Permission::OutboundHttp(http.allowed_hosts().to_vec()).labels(),
            _ => vec![grant.label().to_owned()],
        })
        .collect();
    ModuleSummary {
        id: manifest.id.clone(),
        name: manifest.name.clone(),
        version: manifest.version.clone(),
        kind: manifest.kind,
        description: manifest.description.clone(),
        config_schema: serde_json::from_str(&manifest.config_schema).unwrap_or_default(),
        permissions,
        wit_version: version,
    }
}

/// Calls the component's `module-info.manifest` with every non-WASI import stubbed by a trap: reading the
/// manifest must not need any host import.
pub(crate) async fn read_manifest(
    engine: &Engine,
    wasi: &Linker<StoreState>,
    component: &Component,
    memory_limit: usize,
) -> anyhow::Result<Manifest> {
    let mut linker = wasi.clone();
    stub_imports_but_wasi(&mut linker, engine, component)?;
    let caps = Arc::new(Capabilities::none("(manifest)"));
    let mut store = Store::new(
        engine,
        StoreState::new(caps, String::new(), GuestClock::new(MANIFEST_BUDGET, Duration::ZERO), memory_limit),
    );
    configure_store(&mut store);
    let instance = linker
        .instantiate_async(&mut store, component)
        .await
        .map_err(anyhow::Error::from)
        .context("cannot instantiate")?;
    // The manifest's type differs between versions (0.2.0 has more permissions); try the newest first.
    for version in [WitVersion::V0_3, WitVersion::V0_2, WitVersion::V0_1] {
        let Some(interface) = instance.get_export_index(&mut store, None, version.module_info()) else { continue };
        let func = instance
            .get_export_index(&mut store, Some(&interface), "manifest")
            .context("module-info has no `manifest` function")?;
        return match version {
            WitVersion::V0_3 => call_manifest::<v0_3::types::Manifest>(&mut store, &instance, &func).await,
            WitVersion::V0_2 => call_manifest::<v0_2::types::Manifest>(&mut store, &instance, &func).await,
            WitVersion::V0_1 => call_manifest::<v0_1::types::Manifest>(&mut store, &instance, &func).await,
        };
    }
    anyhow::bail!(
        "component exports none of {}, {} and {}",
        v0_3::names::MODULE_INFO,
        v0_2::names::MODULE_INFO,
        v0_1::names::MODULE_INFO
    )
}

/// Stubs every import but WASI's with a trap. Not `define_unknown_imports_as_traps`: it matches instance names
/// exactly and would shadow the WASI this linker provides at another 0.2.x patch (componentize-py's runtime
/// imports `wasi:cli/environment@0.2.9` and calls it on its first export call; wasmtime provides 0.2.12).
fn stub_imports_but_wasi(
    linker: &mut Linker<StoreState>,
    engine: &Engine,
    component: &Component,
) -> anyhow::Result<()> {
    use wasmtime::component::types::ComponentItem;
    for (name, import) in component.component_type().imports(engine) {
        let ComponentItem::ComponentInstance(instance) = import.ty else { continue };
        if name.starts_with("wasi:") {
            continue;
        }
        let mut stubs = linker.instance(name)?;
        for (export, item) in instance.exports(engine) {
            let qualified = format!("{name}#{export}");
            match item.ty {
                ComponentItem::ComponentFunc(_) => stubs.func_new(export, move |_, _, _, _| {
                    wasmtime::bail!("`{qualified}` may not be called while reading the manifest")
                })?,
                ComponentItem::Resource(_) => {
                    stubs.resource(export, wasmtime::component::ResourceType::host::<()>(), |_, _| Ok(()))?
                }
                _ => {}
            }
        }
    }
    Ok(())
}

async fn call_manifest<M>(
    store: &mut Store<StoreState>,
    instance: &wasmtime::component::Instance,
    func: &wasmtime::component::ComponentExportIndex,
) -> anyhow::Result<Manifest>
where
    M: wasmtime::component::ComponentType + wasmtime::component::Lift + Send + Sync + 'static,
    Manifest: From<M>,
{
    let manifest = instance
        .get_typed_func::<(), (M,)>(&mut *store, func)
        .map_err(anyhow::Error::from)
        .context("module-info.manifest has the wrong type")?;
    let (manifest,) = manifest
        .call_async(&mut *store, ())
        .await
        .map_err(anyhow::Error::from)
        .context("module-info.manifest failed")?;
    Ok(manifest.into())
}
