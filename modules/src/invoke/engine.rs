//! The one wasmtime `Engine`: component model, epoch interruption with a 1 ms ticker, and the pooling
//! allocator tuned as measured on this machine kind (see `shared/notes/wasmtime-invocation.md`).

use std::time::Duration;

use wasmtime::{Config, Enabled, Engine, InstanceAllocationStrategy, OptLevel, PoolingAllocationConfig};

use crate::config::ModulesConfig;
use crate::load::function_cache::FunctionCache;

/// Period of the epoch ticker; deadlines are counted in these ticks.
pub const EPOCH_TICK: Duration = Duration::from_millis(1);

/// Core instances per component: a Rust component holds its main module plus a few adapter shims.
const CORE_INSTANCES_PER_COMPONENT: u32 = 4;
/// Tables per component, for the same reason.
const TABLES_PER_COMPONENT: u32 = 4;

/// The engine the host runs modules on, pooled and sized from the settings.
pub(crate) fn pooled(settings: &ModulesConfig) -> anyhow::Result<Engine> {
    let instances = settings.max_instances.max(1);
    let mut pool = PoolingAllocationConfig::default();
    pool.total_component_instances(instances)
        .total_core_instances(instances.saturating_mul(CORE_INSTANCES_PER_COMPONENT))
        .total_memories(instances)
        .total_tables(instances.saturating_mul(TABLES_PER_COMPONENT))
        // Every invocation runs on a fiber (async), whose stack comes from the pool too.
        .total_stacks(instances)
        .max_memory_size(memory_limit(settings)?)
        // Measured: resetting a slot with madvise costs TLB-shootdown IPIs that make 2 threads slower than 1
        // here; keeping the low 1 MiB resident and resetting it with PAGEMAP_SCAN gives ~3x lower p50 and
        // scaling to both cores. Without PAGEMAP_SCAN, keep-resident alone is worse (it memsets the stack).
        .linear_memory_keep_resident(1 << 20)
        .table_keep_resident(64 << 10)
        .pagemap_scan(Enabled::Auto);
    let mut config = base_config();
    config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    Engine::new(&config).map_err(anyhow::Error::from)
}

/// How many instance slots one instance of `component` takes from the pool: the pool reserves
/// [`CORE_INSTANCES_PER_COMPONENT`] core instances, one memory and [`TABLES_PER_COMPONENT`] tables per slot
/// (`modules.max_instances`), and a component built by componentize-js or componentize-py holds more than a
/// slot's share. Admission takes this many slots, so the pool itself is never what runs out.
pub(crate) fn slots_needed(component: &wasmtime::component::Component, bytes: &[u8]) -> u32 {
    let (memories, tables) =
        component.resources_required().map_or((1, 1), |required| (required.num_memories, required.num_tables));
    let per_slot =
        [core_instances(bytes).div_ceil(CORE_INSTANCES_PER_COMPONENT), memories, tables.div_ceil(TABLES_PER_COMPONENT)];
    per_slot.into_iter().max().unwrap_or(1).max(1)
}

/// Core modules a component instantiates, counted over the component and the components nested in it (an
/// upper bound: a nested component instantiated twice is counted once, which none of ours does).
fn core_instances(bytes: &[u8]) -> u32 {
    let mut count = 0u32;
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        if let Ok(wasmparser::Payload::InstanceSection(reader)) = payload {
            let instantiations = reader.into_iter().flatten();
            count += instantiations.filter(|i| matches!(i, wasmparser::Instance::Instantiate { .. })).count() as u32;
        }
    }
    count
}

/// An engine without the pool, for one-off work such as `inspect` and `check`.
pub(crate) fn on_demand() -> anyhow::Result<Engine> {
    Engine::new(&base_config()).map_err(anyhow::Error::from)
}

/// [`on_demand`], compiling only the functions `functions` (Cranelift's incremental cache) does not hold.
pub(crate) fn on_demand_incremental(functions: std::path::PathBuf) -> anyhow::Result<Engine> {
    let mut config = base_config();
    config.enable_incremental_compilation(std::sync::Arc::new(FunctionCache::new(functions)))?;
    Engine::new(&config).map_err(anyhow::Error::from)
}

fn base_config() -> Config {
    let mut config = Config::new();
    config.wasm_component_model(true).epoch_interruption(true).cranelift_opt_level(OptLevel::Speed);
    config
}

pub(crate) fn memory_limit(settings: &ModulesConfig) -> anyhow::Result<usize> {
    let limit = usize::try_from(settings.memory_limit_bytes)?;
    anyhow::ensure!(limit >= 64 << 10, "memory_limit_bytes must be at least one wasm page (65536)");
    anyhow::ensure!(limit <= 4 << 30, "memory_limit_bytes must be at most 4 GiB");
    Ok(limit)
}

/// Advances the engine's epoch every [`EPOCH_TICK`] until the engine is dropped.
pub(crate) fn start_ticker(engine: &Engine) -> anyhow::Result<()> {
    let weak = engine.weak();
    std::thread::Builder::new().name("trellis-epoch".into()).spawn(move || {
        loop {
            std::thread::sleep(EPOCH_TICK);
            match weak.upgrade() {
                Some(engine) => engine.increment_epoch(),
                None => break,
            }
        }
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::hash::{DefaultHasher, Hash, Hasher};

    use super::*;

    fn compile_settings(engine: &Engine) -> u64 {
        let mut hasher = DefaultHasher::new();
        engine.precompile_compatibility_hash().hash(&mut hasher);
        hasher.finish()
    }

    /// `module check` and `module dev` compile with the on-demand engine into the cache a server's pooled
    /// engine reads: that only pays if both compile alike.
    #[test]
    fn code_compiled_for_a_check_is_code_the_server_can_load() {
        let pooled = pooled(&ModulesConfig::default()).unwrap();
        assert_eq!(compile_settings(&on_demand().unwrap()), compile_settings(&pooled));
        let dir = tempfile::tempdir().unwrap();
        let incremental = on_demand_incremental(dir.path().to_owned()).unwrap();
        assert_eq!(compile_settings(&incremental), compile_settings(&pooled));
    }
}
