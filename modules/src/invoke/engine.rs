//! The one wasmtime `Engine`: component model, epoch interruption with a 1 ms ticker, and the pooling
//! allocator tuned as measured on this machine kind (see `shared/notes/wasmtime-invocation.md`).

use std::time::Duration;

use wasmtime::{Config, Enabled, Engine, InstanceAllocationStrategy, OptLevel, PoolingAllocationConfig};

use crate::config::ModulesConfig;

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

/// An engine without the pool, for one-off work such as `inspect` and `check`.
pub(crate) fn on_demand() -> anyhow::Result<Engine> {
    Engine::new(&base_config()).map_err(anyhow::Error::from)
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
