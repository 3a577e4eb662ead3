//! Module invocation overhead and module-host start-up.
//!
//! `cargo bench -p trellis-modules --bench module_invoke` runs, in order:
//! - a per-invocation latency distribution (each invocation timed alone: p50, p99, p99.9) for Tags' `GET /counts`,
//!   the Rust word-count example's `GET /stats` and the hostile module's trivial `GET /ok`, and the throughput
//!   (with p50/p99) of 1 and 2 concurrent callers for Tags and word-count (new store, instantiate, call, drop;
//!   MemoryKv);
//! - per guest language (Rust 0.2.0, the frozen 0.1.0 build, JavaScript and Python, the last two from
//!   `scripts/build-guests`): component size, cold compile, warm load from the cache, the first invocation after
//!   the load, and the invocation distribution of word-count's `GET /stats`;
//! - criterion: the Tags invocation, and `ModuleHost::new` cold (compile every module into an empty cache) vs
//!   warm (load every module from the cache).
//!
//! `MODULE_BENCH_ONLY=percentiles` skips criterion; `MODULE_BENCH_ONLY=criterion` skips the rest;
//! `MODULE_BENCH_ONLY=guests` runs only the guest languages, `MODULE_BENCH_GUEST=JavaScript` (a label's start)
//! only those.

use std::hint::black_box;
use std::path::{Path, PathBuf};
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
/// The Rust word-count example, loaded as a file module.
fn word_count_wasm() -> PathBuf {
    Path::new(PLUGINS_DIR).join("word_count.wasm")
}

fn word_count_id() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| trellis_modules::inspect(&word_count_wasm()).expect("word-count manifest").id)
}

/// What the guests are granted: all that word-count uses.
fn guest_grants() -> Vec<Grant> {
    vec![Grant::KeyValue, Grant::Logging, Grant::ItemRead]
}

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

/// The default settings without the per-space guest-time budget, which a loop of back-to-back calls for one
/// space exhausts by design (it would measure the refusal, not the invocation).
fn unthrottled() -> ModulesConfig {
    ModulesConfig { space_guest_ms_per_second: 1_000_000, space_guest_burst_ms: 1_000_000, ..ModulesConfig::default() }
}

/// Tags, word-count and the hostile module; Tags seeded with a few tagged items so `/counts` has something to
/// count.
fn tags_host(runtime: &tokio::runtime::Runtime) -> ModuleHost {
    // The budget does not change the cost of an invocation; a long one keeps a thread stalled by the other
    // builds on this shared machine from turning into a failed sample.
    let hostile = EnabledModule::file(Path::new(PLUGINS_DIR).join("trellis_hostile.wasm"), Vec::new(), Vec::new());
    let word_count = EnabledModule::file(word_count_wasm(), guest_grants(), Vec::new());
    let settings = ModulesConfig {
        enable: vec![EnabledModule::bundled(TAGS_MODULE_ID), hostile, word_count],
        request_deadline_ms: 10_000,
        ..unthrottled()
    };
    let host = ModuleHost::new(settings, bundled(), Arc::new(MemoryKv::new())).expect("tags loads");
    assert!(host.refused().is_empty(), "{:?}", host.refused());
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

/// p50/p90/p99/p99.9/max of sorted samples, as printed by every part of this benchmark.
fn distribution(samples: &mut [Duration]) -> String {
    samples.sort_unstable();
    let at = |q: f64| samples[((samples.len() as f64 * q) as usize).min(samples.len() - 1)];
    format!(
        "p50 {:.1?}  p90 {:.1?}  p99 {:.1?}  p99.9 {:.1?}  max {:.1?}",
        at(0.50),
        at(0.90),
        at(0.99),
        at(0.999),
        samples[samples.len() - 1]
    )
}

/// Times `timed` invocations one by one after `warmup` untimed ones.
fn sample(
    runtime: &tokio::runtime::Runtime,
    host: &ModuleHost,
    module: &str,
    path: &str,
    warmup: usize,
    timed: usize,
) -> Vec<Duration> {
    let request = ModuleRequest { path: path.into(), ..counts_request() };
    runtime.block_on(async {
        for _ in 0..warmup {
            black_box(host.handle_request(module, invocation(), request.clone()).await.unwrap());
        }
        let mut samples = Vec::with_capacity(timed);
        for _ in 0..timed {
            let started = Instant::now();
            black_box(host.handle_request(module, invocation(), request.clone()).await.unwrap());
            samples.push(started.elapsed());
        }
        samples
    })
}

fn percentiles(runtime: &tokio::runtime::Runtime, host: &ModuleHost, module: &str, path: &str) {
    const WARMUP: usize = 10_000;
    const TIMED: usize = 100_000;
    let mut samples = sample(runtime, host, module, path, WARMUP, TIMED);
    println!(
        "{module} GET {path}, one invocation each timed alone ({TIMED} after {WARMUP} warm-up): {}",
        distribution(&mut samples)
    );
}

fn throughput(host: &ModuleHost, module: &'static str, path: &'static str, callers: usize) {
    const RUN: Duration = Duration::from_secs(3);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(callers).enable_all().build().unwrap();
    let request = ModuleRequest { path: path.into(), ..counts_request() };
    let (mut samples, failed): (Vec<Duration>, u64) = runtime.block_on(async {
        let tasks: Vec<_> = (0..callers)
            .map(|_| {
                let (host, request) = (host.clone(), request.clone());
                tokio::spawn(async move {
                    let started = Instant::now();
                    let mut samples = Vec::with_capacity(400_000);
                    let mut failed = 0u64;
                    while started.elapsed() < RUN {
                        let call = Instant::now();
                        if let Err(failure) = host.handle_request(module, invocation(), request.clone()).await {
                            eprintln!("invocation failed after {:?}: {failure}", call.elapsed());
                            failed += 1;
                        }
                        samples.push(call.elapsed());
                    }
                    (samples, failed)
                })
            })
            .collect();
        let mut all = (Vec::new(), 0);
        for task in tasks {
            let (samples, failed) = task.await.unwrap();
            all.0.extend(samples);
            all.1 += failed;
        }
        all
    });
    let rate = samples.len() as f64 / RUN.as_secs_f64();
    println!(
        "{module} GET {path}, {callers} concurrent caller(s): {rate:.0} invocations/s ({failed} failed); {}",
        distribution(&mut samples)
    );
}

/// The word-count example built for each guest language, where it exists.
fn guests() -> Vec<(&'static str, PathBuf)> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let built = repo.join("target/guests");
    vec![
        ("Rust, WIT 0.2.0", word_count_wasm()),
        ("Rust, WIT 0.1.0 (frozen)", repo.join("plugins/legacy/word-count-0.1.0/word_count_legacy.wasm")),
        ("JavaScript", built.join("word_count_js.wasm")),
        ("Python", built.join("word_count_py.wasm")),
    ]
}

fn guest_host(wasm: &Path, cache: &Path) -> ModuleHost {
    let entry = EnabledModule::file(wasm.to_path_buf(), guest_grants(), Vec::new());
    let settings = ModulesConfig {
        enable: vec![entry],
        cache_dir: Some(cache.to_path_buf()),
        request_deadline_ms: 10_000,
        ..unthrottled()
    };
    let host = ModuleHost::new(settings, &[], Arc::new(MemoryKv::new())).expect("the guest loads");
    assert!(host.refused().is_empty(), "{:?}", host.refused());
    host
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort_unstable();
    samples[samples.len() / 2]
}

/// Size, cold compile, warm load, first invocation and the invocation distribution per guest language.
fn guest_languages(runtime: &tokio::runtime::Runtime) {
    let only = std::env::var("MODULE_BENCH_GUEST").unwrap_or_default();
    for (label, wasm) in guests().into_iter().filter(|(label, _)| label.starts_with(only.as_str())) {
        let Ok(bytes) = std::fs::metadata(&wasm).map(|meta| meta.len()) else {
            println!("{label}: {} is missing (run scripts/build-guests)", wasm.display());
            continue;
        };
        let load_time = |host: &ModuleHost| host.code_loads().into_values().next().expect("one module").duration;
        let cold = median((0..3).map(|_| load_time(&guest_host(&wasm, tempfile::tempdir().unwrap().path()))).collect());
        let cache = tempfile::tempdir().unwrap();
        guest_host(&wasm, cache.path());
        let mut first = Vec::new();
        let mut warm = Vec::new();
        for _ in 0..5 {
            let host = guest_host(&wasm, cache.path());
            warm.push(load_time(&host));
            let id = host.catalogue()[0].id.clone();
            first.push(sample(runtime, &host, &id, "/stats", 0, 1)[0]);
        }
        let host = guest_host(&wasm, cache.path());
        let id = host.catalogue()[0].id.clone();
        // As many invocations as fit in about 3 s, at least 1,000.
        let probe = median(sample(runtime, &host, &id, "/stats", 100, 100));
        let timed = ((Duration::from_secs(3).as_nanos() / probe.as_nanos().max(1)) as usize).clamp(1_000, 100_000);
        let mut samples = sample(runtime, &host, &id, "/stats", timed / 10, timed);
        println!(
            "{label}: {bytes} B; cold compile {:.1?}, warm load {:.2?}, first invocation after load {:.1?} \
             (medians); GET /stats ({timed} timed): {}",
            cold,
            median(warm),
            median(first),
            distribution(&mut samples)
        );
    }
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
    if only == "guests" {
        guest_languages(&runtime);
        return;
    }
    let host = tags_host(&runtime);
    if only != "criterion" {
        percentiles(&runtime, &host, TAGS_MODULE_ID, "/counts");
        percentiles(&runtime, &host, word_count_id(), "/stats");
        percentiles(&runtime, &host, "hostile", "/ok");
        for callers in [1, 2] {
            throughput(&host, TAGS_MODULE_ID, "/counts", callers);
            throughput(&host, word_count_id(), "/stats", callers);
        }
        guest_languages(&runtime);
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
