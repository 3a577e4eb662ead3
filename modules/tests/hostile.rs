//! The hostile module's attacks are each contained, and the next invocation right after succeeds.

use std::time::{Duration, Instant};

use trellis_modules::{EventKind, Invocation, ModuleEvent, ModuleFailure, ModuleHost};

use crate::support::{REQUEST_BUDGET, get, invocation, shared};

const SPACE: &str = "space-hostile";

/// `/ok` still answers, which is the point of containment.
async fn assert_still_serving(host: &ModuleHost, id: &str) {
    let answer = host.handle_request(id, invocation(SPACE), get("/ok")).await.expect("the next request succeeds");
    assert_eq!(answer.status, 200);
}

async fn failure_of(path: &str) -> (ModuleFailure, Duration) {
    let shared = shared();
    let started = Instant::now();
    let failure = shared.host.handle_request(&shared.hostile_id, invocation(SPACE), get(path)).await.unwrap_err();
    let took = started.elapsed();
    assert_still_serving(&shared.host, &shared.hostile_id).await;
    (failure, took)
}

fn json(body: &str) -> serde_json::Value {
    serde_json::from_str(body).expect("the module answers JSON")
}

#[tokio::test]
async fn endless_loop_ends_at_the_request_deadline() {
    // Arrange
    let shared = shared();
    let before = shared.host.failure_counts()[&shared.hostile_id].deadline;

    // Act
    let (failure, took) = failure_of("/loop").await;

    // Assert: 1 ms ticks; a generous upper bound for a loaded 2-core machine.
    assert_eq!(failure, ModuleFailure::Deadline);
    assert!(took >= REQUEST_BUDGET, "ended early: {took:?}");
    assert!(took < REQUEST_BUDGET + Duration::from_millis(1000), "ended late: {took:?}");
    assert!(shared.host.failure_counts()[&shared.hostile_id].deadline > before);
}

#[tokio::test]
async fn endless_allocation_hits_the_memory_cap() {
    let (failure, _) = failure_of("/alloc").await;

    assert_eq!(failure, ModuleFailure::MemoryCap);
}

#[tokio::test]
async fn trap_is_reported_as_a_trap() {
    let (failure, _) = failure_of("/trap").await;

    assert!(matches!(failure, ModuleFailure::Trap(_)), "{failure:?}");
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
    let shared = shared();
    let before = shared.host.failure_counts()[&shared.hostile_id];

    let _ = failure_of("/trap").await;
    let _ = failure_of("/malformed").await;

    let after = shared.host.failure_counts()[&shared.hostile_id];
    assert!(after.trap > before.trap);
    assert!(after.invalid_answer > before.invalid_answer);
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
