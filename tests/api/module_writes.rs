//! Issue 32: a module call's key-value writes commit together when it answers, and not at all when it is
//! cut off. The hostile test module's `/vote` moves a user's vote with compare-and-swap and then two
//! counters; with `spin=1` it then loops until its deadline (502), so its writes must vanish.

use std::collections::BTreeMap;

use reqwest::StatusCode;
use serde_json::json;
use trellis_tests::{assert_error, spawn_app_with};

use crate::support::modules::{connect, enable_hostile};
use crate::support::spaces::{created_space, id};

#[tokio::test]
async fn concurrent_re_votes_end_with_exact_totals_though_half_are_cut_off_by_their_deadline() {
    // Arrange: twenty voters, each voting five times at once; every other call loops after its writes.
    let app = spawn_app_with(|config| {
        enable_hostile(config);
        config.modules.runtime.request_deadline_ms = 20;
        config.modules.runtime.max_calls_per_space = 1_000;
        config.modules.runtime.max_calls_per_module = 1_000;
        config.modules.runtime.space_guest_ms_per_second = 1_000_000;
        config.modules.runtime.space_guest_burst_ms = 1_000_000;
    })
    .await;
    let ann = app.sign_up("ann").await;
    let space_id = id(&created_space(&app, &ann, "poll").await);
    connect(&app, &ann, &space_id, json!([{"moduleId": "hostile", "config": {}}])).await;
    let url = |query: &str| app.url(&format!("/v0/spaces/{space_id}/modules/hostile/vote?{query}"));

    // Act
    let calls: Vec<_> = (0..100)
        .map(|i| {
            let (user, option, spin) = (i % 20, ["a", "b", "c"][(i * 7 / 20) % 3], i % 2);
            let request = app
                .client
                .get(url(&format!("user=u{user}&option={option}&spin={spin}")))
                .header("X-License-Key", &app.license_key)
                .bearer_auth(&ann.token);
            tokio::spawn(async move { (spin == 1, request.send().await.expect("request sent")) })
        })
        .collect();
    let mut answered = 0;
    for call in calls {
        let (spun, response) = call.await.unwrap();
        match (spun, response.status()) {
            (true, _) => {
                assert_error(response, StatusCode::BAD_GATEWAY, "MODULE_FAILED").await;
            }
            (false, StatusCode::OK) => answered += 1,
            // Five runs in a row found the vote moved by the same voter's other calls: nothing kept.
            (false, _) => {
                assert_error(response, StatusCode::CONFLICT, "CONFLICT").await;
            }
        }
    }

    // Assert: each counter is exactly the number of voters whose vote names it.
    assert!(answered > 0, "no call kept its writes");
    let poll = app.get_authed(&format!("/v0/spaces/{space_id}/modules/hostile/poll"), &ann.token).await;
    let poll: serde_json::Value = poll.json().await.unwrap();
    let mut expected: BTreeMap<String, i64> = BTreeMap::new();
    for option in poll["votes"].as_object().unwrap().values() {
        *expected.entry(option.as_str().unwrap().to_owned()).or_default() += 1;
    }
    let counts: BTreeMap<String, i64> = poll["counts"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(option, count)| (option.clone(), count.as_str().unwrap().parse().unwrap()))
        .filter(|(_, count)| *count != 0)
        .collect();
    assert_eq!(counts, expected, "{poll}");
}
