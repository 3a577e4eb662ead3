//! A call's key-value writes commit together, when it ends well, and not at all otherwise: the hostile
//! module's `/vote` moves a vote with compare-and-swap and two counters, and with `spin=1` is then stopped by
//! its deadline.

use std::collections::BTreeMap;
use std::sync::Arc;

use trellis_modules::{EnabledModule, KeyValueBackend, KvScope, MemoryKv, ModuleFailure, ModuleHost, ModulesConfig};

use crate::support::{HOSTILE_WASM, all_grants, bundled, cache_dir, get, invocation, plugin};

const SPACE: &str = "space-kv-commit";

fn hostile_over(kv: Arc<MemoryKv>) -> (ModuleHost, String) {
    let settings = ModulesConfig {
        enable: vec![EnabledModule::file(plugin(HOSTILE_WASM), all_grants(), Vec::new())],
        cache_dir: Some(cache_dir()),
        request_deadline_ms: 20,
        max_calls_per_module: 1_000,
        max_calls_per_space: 1_000,
        space_guest_ms_per_second: 1_000_000,
        space_guest_burst_ms: 1_000_000,
        ..ModulesConfig::default()
    };
    let host = ModuleHost::new(settings, bundled(), kv).expect("modules load");
    let id = host.catalogue().remove(0).id;
    (host, id)
}

fn vote(user: &str, option: &str, spin: bool) -> trellis_modules::ModuleRequest {
    let query = format!("user={user}&option={option}&spin={}", u8::from(spin));
    trellis_modules::ModuleRequest { query, ..get("/vote") }
}

/// Every key of the module in the space, with its value as text.
async fn stored(kv: &MemoryKv, module_id: &str) -> BTreeMap<String, String> {
    let scope = KvScope { space_id: SPACE.into(), module_id: module_id.into() };
    let mut all = BTreeMap::new();
    for key in kv.list_keys(&scope, "", None, 1_000).await.unwrap() {
        let value = kv.get(&scope, &key).await.unwrap().unwrap();
        all.insert(key, String::from_utf8(value).unwrap());
    }
    all
}

#[tokio::test]
async fn a_call_stopped_by_its_deadline_leaves_none_of_its_writes() {
    let kv = Arc::new(MemoryKv::new());
    let (host, id) = hostile_over(kv.clone());

    let failure = host.handle_request(&id, invocation(SPACE), vote("ann", "a", true)).await.unwrap_err();
    let answer = host.handle_request(&id, invocation(SPACE), vote("bob", "b", false)).await.unwrap();

    assert_eq!(failure, ModuleFailure::Deadline);
    assert_eq!(answer.status, 200);
    let expected = [("count/b", "1"), ("vote/bob", "b")].map(|(k, v)| (k.to_owned(), v.to_owned()));
    assert_eq!(stored(&kv, &id).await, BTreeMap::from(expected));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_re_votes_end_with_exact_totals_though_half_are_stopped_midway() {
    // Arrange
    let kv = Arc::new(MemoryKv::new());
    let (host, id) = hostile_over(kv.clone());

    // Act: 20 users vote 5 times each, all at once; every other call loops after its writes.
    let calls: Vec<_> = (0..100)
        .map(|i| {
            let (host, id) = (host.clone(), id.clone());
            let (user, option, spin) = (format!("u{}", i % 20), ["a", "b", "c"][(i * 7 / 20) % 3], i % 2 == 1);
            tokio::spawn(
                async move { (spin, host.handle_request(&id, invocation(SPACE), vote(&user, option, spin)).await) },
            )
        })
        .collect();
    let mut kept = 0;
    for call in calls {
        match call.await.unwrap() {
            (true, outcome) => assert!(outcome.is_err(), "a looping call answered"),
            (false, Ok(answer)) => kept += u32::from(answer.status == 200),
            (false, Err(failure)) => assert!(matches!(failure, ModuleFailure::Conflict { .. }), "{failure:?}"),
        }
    }

    // Assert: each counter is exactly the number of users whose vote names it.
    let all = stored(&kv, &id).await;
    let mut expected: BTreeMap<String, i64> = BTreeMap::new();
    for (key, option) in &all {
        if key.starts_with("vote/") {
            *expected.entry(format!("count/{option}")).or_default() += 1;
        }
    }
    let counts: BTreeMap<String, i64> = all
        .iter()
        .filter(|(key, value)| key.starts_with("count/") && value.as_str() != "0")
        .map(|(key, value)| (key.clone(), value.parse().unwrap()))
        .collect();
    assert!(kept > 0, "no call kept its writes");
    assert_eq!(counts, expected, "{all:?}");
}
