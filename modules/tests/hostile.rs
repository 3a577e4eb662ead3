//! The hostile module's attacks are each contained, and the next invocation right after succeeds.
//!
//! Tests run in parallel on the shared host, so a test that asserts on failure counters uses a host of its own:
//! there, every count is this test's doing.

use std::time::{Duration, Instant};

use trellis_modules::{
    EnabledModule, EventKind, FailureCounts, Invocation, ModuleEvent, ModuleFailure, ModuleHost, ModulesConfig,
};

use crate::support::{
    HOSTILE_WASM, REQUEST_BUDGET, all_grants, cache_dir, get, invocation, plugin, private_host, shared,
};

const SPACE: &str = "space-hostile";

/// `/ok` still answers, which is the point of containment.
async fn assert_still_serving(host: &ModuleHost, id: &str) {
    let answer = host.handle_request(id, invocation(SPACE), get("/ok")).await.expect("the next request succeeds");
    assert_eq!(answer.status, 200);
}

async fn failure_of(path: &str) -> (ModuleFailure, Duration) {
    let shared = shared();
    failure_on(&shared.host, &shared.hostile_id, path).await
}

async fn failure_on(host: &ModuleHost, id: &str, path: &str) -> (ModuleFailure, Duration) {
    let started = Instant::now();
    let failure = host.handle_request(id, invocation(SPACE), get(path)).await.unwrap_err();
    let took = started.elapsed();
    assert_still_serving(host, id).await;
    (failure, took)
}

/// The hostile module alone, on a host of the calling test's own, with the shared host's request budget.
fn private_hostile() -> (ModuleHost, String) {
    let settings = ModulesConfig {
        enable: vec![EnabledModule::file(plugin(HOSTILE_WASM), all_grants(), Vec::new())],
        cache_dir: Some(cache_dir()),
        request_deadline_ms: REQUEST_BUDGET.as_millis() as u64,
        ..ModulesConfig::default()
    };
    let host = private_host(settings);
    let id = host.catalogue().remove(0).id;
    (host, id)
}

fn json(body: &str) -> serde_json::Value {
    serde_json::from_str(body).expect("the module answers JSON")
}

#[tokio::test]
async fn endless_loop_ends_at_the_request_deadline() {
    // Arrange
    let (host, id) = private_hostile();

    // Act
    let (failure, took) = failure_on(&host, &id, "/loop").await;

    // Assert: 1 ms ticks; a generous upper bound for a loaded 2-core machine.
    assert_eq!(failure, ModuleFailure::Deadline);
    assert!(took >= REQUEST_BUDGET, "ended early: {took:?}");
    assert!(took < REQUEST_BUDGET + Duration::from_millis(1000), "ended late: {took:?}");
    assert_eq!(host.failure_counts()[&id], FailureCounts { deadline: 1, ..FailureCounts::default() });
}

#[tokio::test]
async fn endless_allocation_hits_the_memory_cap() {
    let (failure, _) = failure_of("/alloc").await;

    assert_eq!(failure, ModuleFailure::MemoryCap);
}

#[tokio::test]
async fn trap_is_reported_as_a_trap() {
    let (failure, _) = failure_of("/trap").await;

    // The guest's panic message (from its stderr) names the trap, not just "unreachable".
    let ModuleFailure::Trap(why) = failure else { panic!("{failure:?}") };
    assert!(why.starts_with("panicked at ") && why.ends_with(": trap requested"), "{why}");
}

#[tokio::test]
async fn malformed_answer_is_refused() {
    let (failure, _) = failure_of("/malformed").await;

    let ModuleFailure::InvalidAnswer(why) = failure else { panic!("{failure:?}") };
    assert!(why.contains("42"), "{why}");
}

#[tokio::test]
async fn files_cannot_be_opened() {
    let shared = shared();

    let answer = shared.host.handle_request(&shared.hostile_id, invocation(SPACE), get("/files")).await.unwrap();

    assert_eq!(answer.status, 200);
    let body = json(&answer.body_json_text);
    assert_eq!(body, serde_json::json!({"readDir": "denied", "readFile": "denied", "createFile": "denied"}));
}

#[tokio::test]
async fn environment_and_arguments_are_empty() {
    let shared = shared();

    let answer = shared.host.handle_request(&shared.hostile_id, invocation(SPACE), get("/env")).await.unwrap();

    assert_eq!(json(&answer.body_json_text), serde_json::json!({"vars": 0, "args": 0}));
}

#[tokio::test]
async fn sockets_cannot_be_opened() {
    let shared = shared();

    let answer = shared.host.handle_request(&shared.hostile_id, invocation(SPACE), get("/socket")).await.unwrap();

    assert_eq!(json(&answer.body_json_text), serde_json::json!({"tcpConnect": "denied", "udpBind": "denied"}));
}

#[tokio::test]
async fn failures_are_counted_per_kind() {
    let (host, id) = private_hostile();

    let _ = failure_on(&host, &id, "/trap").await;
    let _ = failure_on(&host, &id, "/malformed").await;

    let expected = FailureCounts { trap: 1, invalid_answer: 1, ..FailureCounts::default() };
    assert_eq!(host.failure_counts()[&id], expected, "one of each, and the successful requests count nothing");
}

#[tokio::test]
async fn event_error_is_the_module_s_error() {
    let shared = shared();
    let failing = Invocation { space_id: SPACE.into(), config_json: r#"{"onEvent":"fail"}"#.into() };

    let failure = shared.host.dispatch_event(&shared.hostile_id, failing, event()).await.unwrap_err();

    assert_eq!(failure, ModuleFailure::ModuleError("configured to fail".into()));
}

#[tokio::test]
async fn endless_event_ends_at_the_event_deadline() {
    // Arrange
    let shared = shared();
    let looping = Invocation { space_id: SPACE.into(), config_json: r#"{"onEvent":"loop"}"#.into() };
    let started = Instant::now();

    // Act
    let failure = shared.host.dispatch_event(&shared.hostile_id, looping, event()).await.unwrap_err();

    // Assert: the event budget (200 ms by default), not the request budget.
    assert_eq!(failure, ModuleFailure::Deadline);
    assert!(started.elapsed() >= Duration::from_millis(200), "{:?}", started.elapsed());
    shared.host.dispatch_event(&shared.hostile_id, invocation(SPACE), event()).await.expect("next event succeeds");
}

fn event() -> ModuleEvent {
    ModuleEvent { kind: EventKind::FormInstanceUpdated, item_id: "item-1".into(), item_json: None }
}
