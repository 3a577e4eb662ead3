//! Modules cannot hurt the host: the hostile test module's endless loop, endless allocation, trap
//! and malformed answer each end only their own request (502 MODULE_FAILED) while other requests
//! keep succeeding; it finds no files, environment or sockets; a failing event handler is recorded
//! as a failed delivery. And a third-party module built only against the module SDK runs.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::json;
use trellis_tests::{TestApp, assert_error, spawn_app_with};

use crate::support::forms::{created_config, created_form, get_ok, sample_config};
use crate::support::modules::{connect, counts_path, enable_hostile, enable_word_count, tagged_payload, wait_until};
use crate::support::spaces::{created_space, id};

async fn hostile_space(app: &TestApp, owner: &trellis_tests::TestUser, on_event: &str) -> String {
    let space_id = id(&created_space(app, owner, "hostile").await);
    let modules = json!([{"moduleId": "hostile", "config": {"onEvent": on_event}}, {"moduleId": "tags"}]);
    connect(app, owner, &space_id, modules).await;
    space_id
}

/// Lets the tests read `/metrics`.
const METRICS_TOKEN: &str = "metrics-token-for-the-tests";

/// The budget of a module request in the containment test: wider than the harness's, so that the
/// ordinary calls sharing two loaded cores with the attacks keep room, while a guest that never
/// ends is still stopped well before the client gives up.
const REQUEST_BUDGET: Duration = Duration::from_secs(5);

#[tokio::test]
async fn each_misbehaviour_ends_only_its_own_request_while_others_succeed() {
    // Arrange
    let app = spawn_app_with(|config| {
        enable_hostile(config);
        config.modules.runtime.request_deadline_ms = REQUEST_BUDGET.as_millis() as u64;
    })
    .await;
    let ann = app.sign_up("ann").await;
    let space_id = hostile_space(&app, &ann, "ok").await;
    let url = |path: &str| app.url(&format!("/v0/spaces/{space_id}/modules{path}"));
    // Act: the four attacks at once, among a stream of ordinary requests to both modules.
    let mut calls = Vec::new();
    for round in 0..10 {
        let mut paths = vec!["/hostile/ok", "/tags/counts"];
        if round == 0 {
            paths.extend(["/hostile/loop", "/hostile/alloc", "/hostile/trap", "/hostile/malformed"]);
        }
        for path in paths {
            let request = app.client.get(url(path)).header("X-License-Key", &app.license_key).bearer_auth(&ann.token);
            calls.push(tokio::spawn(async move {
                let started = Instant::now();
                let response = request.send().await.expect("request sent");
                (path, response, started.elapsed())
            }));
        }
    }
    // Assert
    for call in calls {
        let (path, response, took) = call.await.unwrap();
        // An endless loop must end at its budget; the slack is for a loaded machine.
        assert!(took < REQUEST_BUDGET * 4, "{path} took {took:?}");
        match path {
            "/hostile/ok" | "/tags/counts" => {
                let status = response.status();
                assert_eq!(status, StatusCode::OK, "{path}: {}", response.text().await.unwrap());
            }
            _ => {
                let error = assert_error(response, StatusCode::BAD_GATEWAY, "MODULE_FAILED").await;
                assert_eq!(error["numeric"], 816, "{path}");
            }
        }
    }
    let after = app.get_authed(&url("/hostile/ok").replace(&app.address, ""), &ann.token).await;
    assert_eq!(after.status(), StatusCode::OK, "the host still serves the module after its failures");
}

#[tokio::test]
async fn each_failure_says_which_limit_was_hit_and_its_value() {
    // Arrange
    let app = spawn_app_with(|config| {
        enable_hostile(config);
        config.modules.runtime.request_deadline_ms = 300;
    })
    .await;
    let ann = app.sign_up("ann").await;
    let space_id = hostile_space(&app, &ann, "ok").await;
    let base = format!("/v0/spaces/{space_id}/modules/hostile");
    let message = |path: &'static str| {
        let request = app.authed(Method::GET, &format!("{base}{path}"), &ann.token);
        async move {
            let error = assert_error(request.send().await.unwrap(), StatusCode::BAD_GATEWAY, "MODULE_FAILED").await;
            error["message"].as_str().unwrap().to_owned()
        }
    };
    // Act
    let deadline = message("/loop").await;
    let memory = message("/alloc").await;
    let trap = message("/trap").await;
    // Assert
    assert_eq!(
        deadline,
        r#"module "hostile" ran past its deadline of 300 ms of its own time (modules.request_deadline_ms)"#
    );
    assert_eq!(memory, r#"module "hostile" hit its memory limit of 32 MiB (modules.memory_limit_bytes)"#);
    assert!(trap.starts_with(r#"module "hostile" trapped: panicked at "#), "{trap}");
    assert!(trap.ends_with(": trap requested"), "{trap}");
}

#[tokio::test]
async fn the_hostile_module_finds_no_files_environment_or_sockets() {
    // Arrange
    let app = spawn_app_with(enable_hostile).await;
    let ann = app.sign_up("ann").await;
    let space_id = hostile_space(&app, &ann, "ok").await;
    let base = format!("/v0/spaces/{space_id}/modules/hostile");
    // Act
    let files = get_ok(&app, &ann.token, &format!("{base}/files")).await;
    let env = get_ok(&app, &ann.token, &format!("{base}/env")).await;
    let sockets = get_ok(&app, &ann.token, &format!("{base}/socket")).await;
    // Assert
    assert_eq!(files, json!({"readDir": "denied", "readFile": "denied", "createFile": "denied"}));
    assert_eq!(env, json!({"vars": 0, "args": 0}));
    assert_eq!(sockets, json!({"tcpConnect": "denied", "udpBind": "denied"}));
}

#[tokio::test]
async fn a_failing_event_handler_is_recorded_and_other_modules_still_get_the_event() {
    // Arrange
    let app = spawn_app_with(enable_hostile).await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let space_id = hostile_space(&app, &ann, "trap").await;
    // Act
    let form = created_form(&app, &ann.token, &tagged_payload(&space_id, "kept")).await;
    // Assert
    wait_until(&app, &ann.token, &counts_path(&space_id), |b| b["counts"] == json!({"kept": 1})).await;
    // Tags' count is in before its delivery is recorded: wait for both records.
    let store = trellis::store::Store::connect(&app.config.database_url(), 1).await.unwrap();
    let give_up = Instant::now() + Duration::from_secs(30);
    let deliveries = loop {
        let deliveries = store.module_deliveries.module_deliveries(form["formId"].as_str().unwrap()).await.unwrap();
        if deliveries.len() >= 2 || Instant::now() > give_up {
            break deliveries;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    store.close().await;
    let outcomes: Vec<(&str, &str, &str)> =
        deliveries.iter().map(|d| (d.module_id.as_str(), d.event_kind.as_str(), d.state.as_str())).collect();
    assert_eq!(
        outcomes,
        [("hostile", "form-instance-created", "FAILED"), ("tags", "form-instance-created", "DELIVERED")]
    );
    assert!(deliveries[0].error.as_deref().is_some_and(|e| e.contains("trap")), "{:?}", deliveries[0]);
}

#[tokio::test]
async fn a_third_party_module_built_with_the_sdk_runs_in_the_host() {
    // Arrange
    let app = spawn_app_with(enable_word_count).await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let space_id = id(&created_space(&app, &ann, "words").await);
    connect(&app, &ann, &space_id, json!([{"moduleId": "word-count", "config": {"ignoreFields": []}}])).await;
    let catalogue = get_ok(&app, &ann.token, "/v0/modules").await;
    // Act
    created_form(&app, &ann.token, &tagged_payload(&space_id, "")).await;
    // Assert
    let ids: Vec<&str> = catalogue["items"].as_array().unwrap().iter().filter_map(|m| m["id"].as_str()).collect();
    assert_eq!(ids, ["tags", "marketplace-default", "analysis-default", "word-count"]);
    let stats = format!("/v0/spaces/{space_id}/modules/word-count/stats");
    let stats = wait_until(&app, &ann.token, &stats, |b| b["items"] == 1).await;
    assert!(stats["words"].as_u64().is_some_and(|w| w > 10), "{stats}");
    let unknown = app.authed(Method::GET, &format!("/v0/spaces/{space_id}/modules/word-count/nope"), &ann.token);
    assert_error(unknown.send().await.unwrap(), StatusCode::NOT_FOUND, "NOT_FOUND").await;
}

/// Issue 11, finding 5: calls beyond a space's bound are refused at once, and guest code runs on
/// threads of its own, so requests that need no module are served meanwhile.
#[tokio::test]
async fn calls_beyond_a_spaces_bound_are_refused_at_once_while_other_requests_are_served() {
    // Arrange: two calls per space at a time; each loop runs to its budget, long enough that the plain
    // request below is made and answered while both run, however loaded the machine.
    let loop_budget = Duration::from_secs(5);
    let app = spawn_app_with(|config| {
        enable_hostile(config);
        config.modules.runtime.request_deadline_ms = loop_budget.as_millis() as u64;
        config.modules.runtime.max_calls_per_space = 2;
    })
    .await;
    let ann = app.sign_up("ann").await;
    let space_id = hostile_space(&app, &ann, "ok").await;
    let loop_url = app.url(&format!("/v0/spaces/{space_id}/modules/hostile/loop"));
    // Act: six loops; the four refused come back at once, while two run.
    let loops: Vec<_> = (0..6)
        .map(|_| {
            let request = app.client.get(&loop_url).header("X-License-Key", &app.license_key).bearer_auth(&ann.token);
            tokio::spawn(async move { request.send().await.expect("request sent") })
        })
        .collect();
    let give_up = Instant::now() + loop_budget * 6;
    while loops.iter().filter(|call| call.is_finished()).count() < 4 {
        assert!(Instant::now() < give_up, "the calls beyond the bound were not refused");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let plain = app.get_authed("/v0/users/me", &ann.token).await;
    let running = loops.iter().filter(|call| !call.is_finished()).count();
    // Assert
    assert_eq!(plain.status(), StatusCode::OK);
    assert_eq!(running, 2, "a plain request waited until the guests' loops ended");
    let mut refused = 0;
    for call in loops {
        let response = call.await.unwrap();
        if response.status() == StatusCode::TOO_MANY_REQUESTS {
            assert!(response.headers().contains_key("retry-after"));
            let error = assert_error(response, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
            let message = error["message"].as_str().unwrap();
            assert!(
                message.contains("2 module calls for this space are running (modules.max_calls_per_space)"),
                "{message}"
            );
            refused += 1;
        } else {
            assert_error(response, StatusCode::BAD_GATEWAY, "MODULE_FAILED").await;
        }
    }
    assert_eq!(refused, 4, "two of 6 calls run at a time");
}

#[tokio::test]
async fn a_space_that_spent_its_guest_time_is_refused_until_it_earns_more() {
    // Arrange: 100 ms of guest time per second, at most 200 ms saved; one loop spends 500 ms.
    let app = spawn_app_with(|config| {
        enable_hostile(config);
        config.modules.runtime.request_deadline_ms = 500;
        config.modules.runtime.space_guest_ms_per_second = 100;
        config.modules.runtime.space_guest_burst_ms = 200;
    })
    .await;
    let ann = app.sign_up("ann").await;
    let busy = hostile_space(&app, &ann, "ok").await;
    let other = id(&created_space(&app, &ann, "calm").await);
    connect(&app, &ann, &other, json!([{"moduleId": "hostile", "config": {"onEvent": "ok"}}])).await;
    let path = |space: &str, route: &str| format!("/v0/spaces/{space}/modules/hostile{route}");
    let spent = app.get_authed(&path(&busy, "/loop"), &ann.token).await;
    assert_error(spent, StatusCode::BAD_GATEWAY, "MODULE_FAILED").await;
    // Act
    let again = app.get_authed(&path(&busy, "/ok"), &ann.token).await;
    let elsewhere = app.get_authed(&path(&other, "/ok"), &ann.token).await;
    // Assert
    let wait: u64 = again.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!(wait >= 2, "Retry-After {wait}");
    let error = assert_error(again, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    assert!(error["message"].as_str().unwrap().contains("(modules.space_guest_ms_per_second"), "{error}");
    assert_eq!(elsewhere.status(), StatusCode::OK);
}

/// Issue 11, finding 9: a space's event queue is bounded; a flood of events beyond it is dropped
/// (and logged), not kept in memory.
#[tokio::test]
async fn events_beyond_a_spaces_queue_are_dropped() {
    // Arrange: every event takes the hostile module 1 s, longer than the eight events take to make on a
    // loaded machine; the queue holds two.
    let app = spawn_app_with(|config| {
        enable_hostile(config);
        config.modules.runtime.event_deadline_ms = 1_000;
        config.modules.runtime.max_queued_events_per_space = 2;
        config.metrics.token = Some(METRICS_TOKEN.into());
    })
    .await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let space_id = hostile_space(&app, &ann, "loop").await;
    // Act: eight events in a row (not at once: PostgreSQL counts a space's unfinished events without
    // seeing those of transactions that have not committed yet).
    for _ in 0..8 {
        created_form(&app, &ann.token, &tagged_payload(&space_id, "flood")).await;
    }
    // Assert: the one being delivered and the two queued arrived; the rest were dropped. Once no event of
    // the space waits or runs, Tags has counted every one that was kept.
    let events = delivered_events(&app).await;
    let counts = get_ok(&app, &ann.token, &counts_path(&space_id)).await;
    let delivered = counts["counts"]["flood"].as_u64().unwrap_or(0);
    assert_eq!(delivered, events, "every event kept was delivered: {counts}");
    assert!((1..=4).contains(&delivered), "{delivered} of 8 events were delivered: {counts}");
}

/// Waits until the server has no space event queued or running; answers how many ran.
async fn delivered_events(app: &TestApp) -> u64 {
    let give_up = Instant::now() + Duration::from_secs(60);
    loop {
        let text = app.request(Method::GET, "/metrics").bearer_auth(METRICS_TOKEN).send().await.unwrap();
        let text = text.text().await.unwrap();
        let jobs = |state: &str| {
            let prefix = format!(r#"trellis_jobs{{kind="module-event",state="{state}"}} "#);
            text.lines()
                .find_map(|line| line.strip_prefix(prefix.as_str()))
                .map_or(0, |n| n.parse::<f64>().unwrap() as u64)
        };
        if jobs("QUEUED") + jobs("RUNNING") == 0 {
            assert_eq!(jobs("FAILED"), 0, "{text}");
            return jobs("SUCCEEDED");
        }
        assert!(Instant::now() < give_up, "the space's events were never all delivered: {text}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
