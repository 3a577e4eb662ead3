//! Module invocation overhead and module-host start-up.
//!
//! `cargo bench -p trellis-modules --bench module_invoke` runs, in order:
//! - a per-invocation latency distribution (each invocation timed alone: p50, p99, p99.9) for Tags' `GET /counts`
//!   and the hostile module's trivial `GET /ok`, and the throughput
//!   of 1 and 2 concurrent callers, for Tags' `GET /counts` (new store, instantiate, call, drop; MemoryKv);
//! - criterion: the same invocation, and `ModuleHost::new` cold (compile every module into an empty cache) vs
//!   warm (load every module from the cache).
//!
//! `MODULE_BENCH_ONLY=percentiles` skips criterion; `MODULE_BENCH_ONLY=criterion` skips the first part.

use std::hint::black_box;
use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion};
use trellis_modules::{
    BundledModule, CallerRole, EnabledModule, EventKind, Grant, Invocation, MemoryKv, Method, ModuleEvent, ModuleHost,
    ModuleRequest, ModulesConfig,
};
use trellis_plugins_build::DIR as PLUGINS_DIR;

const SPACE: &str = "space-bench";

/// Tags runs bundled, as the server runs it: its bytes handed to the host under this id.
const TAGS_MODULE_ID: &str = "tags";

fn bundled() -> &'static [BundledModule] {
    static BUNDLED: OnceLock<Vec<BundledModule>> = OnceLock::new();
    BUNDLED.get_or_init(|| {
        let wasm = std::fs::read(Path::new(PLUGINS_DIR).join("trellis_tags.wasm")).expect("plugins/ built Tags");
        vec![BundledModule::new(TAGS_MODULE_ID, wasm)]
    })
}

fn counts_request() -> ModuleRequest {
    ModuleRequest {
        method: Method::Get,
        path: "/counts".into(),
        query: String::new(),
        body: Vec::new(),
        caller_user_id: "user-1".into(),
        caller_handle: "ada".into(),
        caller_role: CallerRole::Member,
    }
}

fn invocation() -> Invocation {
    Invocation { space_id: SPACE.into(), config_json: "{}".into() }
}

/// Tags alone, seeded with a few tagged items so `/counts` has something to count.
fn tags_host(runtime: &tokio::runtime::Runtime) -> ModuleHost {
    // The budget does not change the cost of an invocation; a long one keeps a thread stalled by the other
    // builds on this shared machine from turning into a failed sample.
    let hostile = EnabledModule::file(Path::new(PLUGINS_DIR).join("trellis_hostile.wasm"), Vec::new(), Vec::new());
    let settings = ModulesConfig {
        enable: vec![EnabledModule::bundled(TAGS_MODULE_ID), hostile],
        request_deadline_ms: 10_000,
        ..ModulesConfig::default()
    };
    let host = ModuleHost::new(settings, bundled(), Arc::new(MemoryKv::new())).expect("tags loads");
    runtime.block_on(async {
        for i in 0..5 {
            let item = serde_json::json!({
                "formId": "form-1", "configurationId": "cfg-1", "state": "draft",
                "payload": {"metadata": {"tags": ["alpha", "beta", format!("t{i}")]}}
            });
            let event = ModuleEvent {
                kind: EventKind::FormInstanceCreated,
                item_id: format!("item-{i}"),
                item_json: Some(item.to_string()),
            };
            host.dispatch_event(TAGS_MODULE_ID, invocation(), event).await.expect("event is accepted");
        }
        let answer = host.handle_request(TAGS_MODULE_ID, invocation(), counts_request()).await.expect("counts");
        assert_eq!(answer.status, 200, "{}", answer.body_json_text);
    });
    host
}

/// Every component in PLUGINS_DIR besides Tags, as file modules granted everything they may ask for.
fn all_modules(cache_dir: &Path) -> ModulesConfig {
    let grants = vec![Grant::KeyValue, Grant::Logging, Grant::ItemRead, Grant::AssetRead, Grant::OutboundHttp];
    let mut enable = vec![EnabledModule::bundled(TAGS_MODULE_ID)];
    for file in ["trellis_hostile.wasm", "word_count.wasm"] {
        enable.push(EnabledModule::file(Path::new(PLUGINS_DIR).join(file), grants.clone(), Vec::new()));
    }
    ModulesConfig { enable, cache_dir: Some(cache_dir.to_path_buf()), ..ModulesConfig::default() }
}

fn percentiles(runtime: &tokio::runtime::Runtime, host: &ModuleHost, module: &str, path: &str) {
    const WARMUP: usize = 10_000;
    const TIMED: usize = 100_000;
    let mut samples = Vec::with_capacity(TIMED);
    let request = ModuleRequest { path: path.into(), ..counts_request() };
    runtime.block_on(async {
        for _ in 0..WARMUP {
            black_box(host.handle_request(module, invocation(), request.clone()).await.unwrap());
        }
        for _ in 0..TIMED {
            let started = Instant::now();
            black_box(host.handle_request(module, invocation(), request.clone()).await.unwrap());
            samples.push(started.elapsed());
        }
    });
    samples.sort_unstable();
    let at = |q: f64| samples[((samples.len() as f64 * q) as usize).min(samples.len() - 1)];
    println!(
        "{module} GET {path}, one invocation each timed alone ({TIMED} after {WARMUP} warm-up): \
         p50 {:.1?}  p90 {:.1?}  p99 {:.1?}  p99.9 {:.1?}  max {:.1?}",
        at(0.50),
        at(0.90),
        at(0.99),
        at(0.999),
        samples[samples.len() - 1]
    );
}

fn throughput(host: &ModuleHost, callers: usize) {
    const RUN: Duration = Duration::from_secs(3);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(callers).enable_all().build().unwrap();
    let (total, failed): (u64, u64) = runtime.block_on(async {
        let tasks: Vec<_> = (0..callers)
            .map(|_| {
                let host = host.clone();
                tokio::spawn(async move {
                    let started = Instant::now();
                    let mut done = 0u64;
                    let mut failed = 0u64;
                    while started.elapsed() < RUN {
                        let call = Instant::now();
                        if let Err(failure) = host.handle_request(TAGS_MODULE_ID, invocation(), counts_request()).await
                        {
                            eprintln!("invocation failed after {:?}: {failure}", call.elapsed());
                            failed += 1;
                        }
                        done += 1;
                    }
                    (done, failed)
                })
            })
            .collect();
        let mut sum = (0, 0);
        for task in tasks {
            let (done, failed) = task.await.unwrap();
            sum = (sum.0 + done, sum.1 + failed);
        }
        sum
    });
    let rate = total as f64 / RUN.as_secs_f64();
    println!("tags GET /counts, {callers} concurrent caller(s): {rate:.0} invocations/s ({failed} failed)");
}

fn criterion_benches(c: &mut Criterion, runtime: &tokio::runtime::Runtime, host: &ModuleHost) {
    c.bench_function("tags GET /counts (new store + instantiate + call + drop)", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let started = Instant::now();
                for _ in 0..iters {
                    black_box(host.handle_request(TAGS_MODULE_ID, invocation(), counts_request()).await.unwrap());
                }
                started.elapsed()
            })
        })
    });

    let mut start = c.benchmark_group("module host start");
    start.sample_size(10).measurement_time(Duration::from_secs(20));
    start.bench_function("cold: compile every module", |b| {
        b.iter_batched(
            || tempfile::tempdir().unwrap(),
            |dir| {
                let host = ModuleHost::new(all_modules(dir.path()), bundled(), Arc::new(MemoryKv::new())).unwrap();
                black_box(host);
                dir
            },
            BatchSize::PerIteration,
        )
    });
    let warm = tempfile::tempdir().unwrap();
    ModuleHost::new(all_modules(warm.path()), bundled(), Arc::new(MemoryKv::new())).unwrap();
    start.bench_function("warm: load every module from the cache", |b| {
        b.iter(|| black_box(ModuleHost::new(all_modules(warm.path()), bundled(), Arc::new(MemoryKv::new())).unwrap()))
    });
    start.finish();
}

fn main() {
    let only = std::env::var("MODULE_BENCH_ONLY").unwrap_or_default();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let host = tags_host(&runtime);
    if only != "criterion" {
        percentiles(&runtime, &host, TAGS_MODULE_ID, "/counts");
        percentiles(&runtime, &host, "hostile", "/ok");
        throughput(&host, 1);
        throughput(&host, 2);
        let dir = tempfile::tempdir().unwrap();
        let cold = ModuleHost::new(all_modules(dir.path()), bundled(), Arc::new(MemoryKv::new())).unwrap();
        let warm = ModuleHost::new(all_modules(dir.path()), bundled(), Arc::new(MemoryKv::new())).unwrap();
        for (label, host) in [("first start", cold), ("second start", warm)] {
            let loads: Vec<String> = host
                .code_loads()
                .iter()
                .map(|(id, load)| format!("{id} {:?} {:.2?}", load.origin, load.duration))
                .collect();
            println!("{label}: {}", loads.join(", "));
        }
    }
    if only == "percentiles" {
        return;
    }
    let mut criterion = Criterion::default()
        .configure_from_args()
        .warm_up_time(Duration::from_secs(2))
        .measurement_time(Duration::from_secs(5));
    criterion_benches(&mut criterion, &runtime, &host);
    criterion.final_summary();
}
