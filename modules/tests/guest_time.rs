//! The deadlines count the guest's own time: calls queued behind each other on the guest thread, or waiting
//! in a host call, are not cut off by time they did not use; the wall-clock bound and the queue bound end
//! what waits too long.

use std::time::{Duration, Instant};

use trellis_modules::{BusyBound, EnabledModule, ModuleFailure, ModuleHost, ModulesConfig};

use crate::support::{HOSTILE_WASM, all_grants, cache_dir, get, invocation, plugin, private_host};

const SPACE: &str = "space-guest-time";
const DEADLINE: Duration = Duration::from_millis(50);

/// The hostile module on a host of the test's own, with the default 50 ms deadline, one guest thread and no
/// admission bound in the way.
fn hostile(adjust: impl FnOnce(&mut ModulesConfig)) -> (ModuleHost, String) {
    let mut settings = ModulesConfig {
        enable: vec![EnabledModule::file(plugin(HOSTILE_WASM), all_grants(), Vec::new())],
        cache_dir: Some(cache_dir()),
        request_deadline_ms: DEADLINE.as_millis() as u64,
        guest_threads: 1,
        max_calls_per_module: 1_000,
        max_calls_per_space: 1_000,
        space_guest_ms_per_second: 1_000_000,
        space_guest_burst_ms: 1_000_000,
        ..ModulesConfig::default()
    };
    adjust(&mut settings);
    let host = private_host(settings);
    let id = host.catalogue().remove(0).id;
    (host, id)
}

fn with_query(path: &str, query: &str) -> trellis_modules::ModuleRequest {
    trellis_modules::ModuleRequest { query: query.into(), ..get(path) }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_queued_on_the_guest_thread_does_not_spend_its_deadlines_waiting() {
    // Arrange: busy work that takes about a millisecond alone (the quickest of five tries, so a
    // busy machine does not make it look slower than it is).
    let (host, id) = hostile(|_| {});
    let work = || with_query("/work", "n=1000000");
    let mut alone = Duration::MAX;
    for _ in 0..5 {
        let started = Instant::now();
        host.handle_request(&id, invocation(SPACE), work()).await.expect("one call alone");
        alone = alone.min(started.elapsed());
    }
    assert!(alone < DEADLINE / 5, "the busy work is too slow to test with: {alone:?}");

    // Act: 300 at once, so that the last of them waits far longer than the deadline for the one guest thread.
    let started = Instant::now();
    let calls: Vec<_> = (0..300)
        .map(|_| {
            let (host, id) = (host.clone(), id.clone());
            tokio::spawn(async move { host.handle_request(&id, invocation(SPACE), work()).await })
        })
        .collect();
    let mut outcomes = Vec::new();
    for call in calls {
        outcomes.push(call.await.unwrap());
    }
    let burst = started.elapsed();

    // Assert
    assert!(burst > DEADLINE * 2, "the burst did not queue ({burst:?}, one call alone {alone:?})");
    let failed: Vec<_> = outcomes.into_iter().filter_map(Result::err).collect();
    assert!(failed.is_empty(), "{} of 300 calls failed: {:?}", failed.len(), failed.first());
}

#[tokio::test]
async fn a_call_waiting_in_a_host_call_ends_at_its_wall_clock_bound() {
    let (host, id) = hostile(|settings| settings.max_call_wait_ms = 200);

    let started = Instant::now();
    let failure = host.handle_request(&id, invocation(SPACE), with_query("/sleep", "ms=10000")).await.unwrap_err();
    let took = started.elapsed();

    assert_eq!(failure, ModuleFailure::WallClock);
    assert!(took >= Duration::from_millis(250), "ended early: {took:?}");
    assert!(took < Duration::from_millis(2_000), "ended late: {took:?}");
    let message = host.describe_request_failure(&id, &failure);
    assert!(message.contains("modules.max_call_wait_ms"), "{message}");
}

#[tokio::test]
async fn a_waiting_call_is_not_cut_off_by_its_deadline() {
    let (host, id) = hostile(|_| {});

    let answer = host.handle_request(&id, invocation(SPACE), with_query("/sleep", "ms=300")).await;

    assert_eq!(answer.expect("300 ms asleep uses none of the 50 ms").status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_route_call_that_finds_no_free_instance_in_time_is_refused_as_busy() {
    // Arrange: one instance, held by a sleeping call.
    let (host, id) = hostile(|settings| {
        settings.max_instances = 1;
        settings.max_queue_wait_ms = 100;
    });
    let sleeper = {
        let (host, id) = (host.clone(), id.clone());
        tokio::spawn(async move { host.handle_request(&id, invocation(SPACE), with_query("/sleep", "ms=1000")).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;

    // Act
    let started = Instant::now();
    let refused = host.handle_request(&id, invocation(SPACE), get("/ok")).await.unwrap_err();
    let took = started.elapsed();

    // Assert
    assert!(matches!(refused, ModuleFailure::Busy { bound: BusyBound::Queue, .. }), "{refused:?}");
    assert!(took >= Duration::from_millis(100) && took < Duration::from_millis(800), "{took:?}");
    let message = host.describe_request_failure(&id, &refused);
    assert!(message.contains("modules.max_queue_wait_ms"), "{message}");
    assert_eq!(sleeper.await.unwrap().expect("the sleeper ends well").status, 200);
}
