//! `trellis module inspect FILE` and `trellis module check FILE`, as library functions.

use std::future::Future;
use std::path::Path;

use anyhow::Context as _;
use serde::Serialize;
use wasmtime::component::Component;

use crate::capabilities::Grant;
use crate::config::ModulesConfig;
use crate::invoke::engine;
use crate::load::function_cache;
use crate::load::manifest::{Manifest, ModuleKind};
use crate::load::wit_check::{ImportReport, world_of};
use crate::load::{Prepared, link_grants, read_manifest, wasi_linker};
use crate::wit::WitVersion;

/// Whether a component fits this host's WIT, and every reason it does not.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckReport {
    /// True when the host could load the module (given the permissions its manifest asks for).
    pub fits: bool,
    /// The WIT package (with its version) the component targets, or every package this host serves when
    /// that cannot be told.
    pub package: &'static str,
    /// The WIT version the component targets (`0.1.0`, `0.2.0`), from the hooks it exports.
    pub wit_version: Option<WitVersion>,
    /// The world the component implements, from its exports.
    pub world: Option<String>,
    /// The manifest, when it could be read.
    pub manifest: Option<Manifest>,
    /// The component's imports, sorted by what the host makes of them.
    pub imports: ImportReport,
    /// Host interfaces imported without asking for their permission.
    pub undeclared_imports: Vec<String>,
    /// Everything else that stops the module from loading: manifest problems, type mismatches.
    pub problems: Vec<String>,
}

/// Reads a component's manifest without running anything but `module-info.manifest`.
pub fn inspect(path: &Path) -> anyhow::Result<Manifest> {
    inspect_cached(path, None)
}

/// [`inspect`], compiling through the on-disk code cache at `cache_dir` (the one `modules.cache_dir` names),
/// so a server started on the same component next loads the code instead of compiling it again.
pub fn inspect_cached(path: &Path, cache_dir: Option<&Path>) -> anyhow::Result<Manifest> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    on_own_thread(async move {
        let engine = author_engine(cache_dir)?;
        engine::start_ticker(&engine)?;
        let component = compile(&engine, &bytes, path, cache_dir)?;
        read_manifest(&engine, &wasi_linker(&engine)?, &component, default_memory_limit()).await
    })
}

/// Checks a component against this host's WIT: its world, its imports, its manifest, and its types. `Err` only
/// when the file cannot be read or is not a WebAssembly component at all.
pub fn check(path: &Path) -> anyhow::Result<CheckReport> {
    check_cached(path, None)
}

/// [`check`] through the on-disk code cache at `cache_dir`, as [`inspect_cached`].
pub fn check_cached(path: &Path, cache_dir: Option<&Path>) -> anyhow::Result<CheckReport> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    on_own_thread(async move {
        let engine = author_engine(cache_dir)?;
        engine::start_ticker(&engine)?;
        let component = compile(&engine, &bytes, path, cache_dir)?;
        let mut report = CheckReport {
            fits: false,
            package: SERVED,
            wit_version: None,
            world: None,
            manifest: None,
            imports: ImportReport::default(),
            undeclared_imports: Vec::new(),
            problems: Vec::new(),
        };
        let world = world_of(&engine, &component).map_err(|problem| report.problems.push(problem)).ok();
        if let Some((kind, version)) = world {
            report.world = Some(kind.world().to_owned());
            report.wit_version = Some(version);
            report.package = version.package();
        }
        let kind = world.map(|(kind, _)| kind);
        let wasi = wasi_linker(&engine)?;
        match read_manifest(&engine, &wasi, &component, default_memory_limit()).await {
            Ok(manifest) => {
                report.problems.extend(manifest.problems());
                if let Some(kind) = kind.filter(|kind| *kind != manifest.kind) {
                    report.problems.push(format!(
                        "manifest says kind {} but the component implements world {}",
                        manifest.kind,
                        kind.world()
                    ));
                }
                report.manifest = Some(manifest);
            }
            Err(err) => report.problems.push(format!("cannot read the manifest: {err:#}")),
        }
        if let Some((kind, version)) = world {
            report.imports = ImportReport::of(&engine, &component, kind, version);
            if let Some(manifest) = &report.manifest {
                report.undeclared_imports = report.imports.undeclared(manifest);
            }
            if let Err(err) = type_check(&wasi, &component, kind, version) {
                report.problems.push(format!("does not fit world {}: {err:#}", kind.world()));
            }
        }
        // Every reason is a problem too, with its fix, so that a tool printing `problems` says it all.
        for import in &report.imports.unsupported {
            report.problems.push(format!(
                "imports {import}, which this host does not provide to a {} module: remove the import \
                 (in JavaScript and Python, from the world in wit/world.wit)",
                kind.map_or("space".to_owned(), |kind| kind.to_string())
            ));
        }
        for import in &report.undeclared_imports {
            let permission = report.imports.host.iter().find(|host| &host.interface == import).map(|h| h.permission);
            let permission = permission.unwrap_or("its");
            report.problems.push(format!(
                "imports {import} without asking for the {permission:?} permission: add it to the manifest \
                 (Rust: `.permission(Permission::...)`; JavaScript: `permissions: [{{ tag: '{permission}' }}, ...]`; \
                 Python: `permissions=[\"{permission}\", ...]`), or remove the import"
            ));
        }
        report.fits = report.problems.is_empty();
        Ok(report)
    })
}

/// Links every import the world allows and lets wasmtime check the component's types against the bindings.
fn type_check(
    wasi: &wasmtime::component::Linker<crate::invoke::state::StoreState>,
    component: &Component,
    kind: ModuleKind,
    version: WitVersion,
) -> anyhow::Result<()> {
    let mut linker = wasi.clone();
    link_grants(&mut linker, kind, version, &Grant::importable(kind, version))?;
    let pre = linker.instantiate_pre(component)?;
    Prepared::new(pre, kind, version).map(drop)
}

/// What `package` says before the component's version is known.
const SERVED: &str = "trellis:module@0.1.0 or trellis:module@0.2.0";

/// The on-demand engine; with a cache folder, one that also keeps compiled functions in `functions/` there,
/// so the next build of the same module compiles only what changed.
fn author_engine(cache_dir: Option<&Path>) -> anyhow::Result<wasmtime::Engine> {
    match cache_dir {
        Some(dir) => engine::on_demand_incremental(dir.join("functions")),
        None => engine::on_demand(),
    }
}

/// Compiles, through the whole-component cache when there is one (then keeping both caches under their bound).
fn compile(
    engine: &wasmtime::Engine,
    bytes: &[u8],
    path: &Path,
    cache_dir: Option<&Path>,
) -> anyhow::Result<Component> {
    match cache_dir {
        Some(dir) => {
            let compiled = crate::load::cache::load_component(engine, bytes, Some(dir));
            for folder in [dir.to_owned(), dir.join("functions")] {
                // A folder not made yet (nothing written) has nothing to prune.
                let _ = function_cache::prune(&folder, function_cache::MAX_BYTES);
            }
            compiled.map(|(component, _)| component).map_err(|err| {
                anyhow::anyhow!("{} is not a WebAssembly component this host can compile: {err:#}", path.display())
            })
        }
        None => Component::new(engine, bytes).map_err(|err| not_a_component(path, err)),
    }
}

fn not_a_component(path: &Path, err: wasmtime::Error) -> anyhow::Error {
    anyhow::anyhow!("{} is not a WebAssembly component this host can compile: {err:#}", path.display())
}

fn default_memory_limit() -> usize {
    usize::try_from(ModulesConfig::default().memory_limit_bytes).unwrap_or(usize::MAX)
}

/// Runs async wasmtime work to completion on a thread of its own, so callers need no runtime (and may be inside
/// one).
pub(crate) fn on_own_thread<T: Send>(work: impl Future<Output = anyhow::Result<T>> + Send) -> anyhow::Result<T> {
    std::thread::scope(|scope| {
        let worker = scope.spawn(|| tokio::runtime::Builder::new_current_thread().enable_all().build()?.block_on(work));
        worker.join().unwrap_or_else(|_| Err(anyhow::anyhow!("module work panicked")))
    })
}
