//! Issue 32's scenario, as a new author wrote it: the poll example in Rust, JavaScript and Python (each
//! scaffolded by `trellis module new`, built, and run by the host), twenty members of a space voting, then a
//! hundred re-votes at once. A vote moves the caller's vote by compare-and-swap and then two counters; the
//! host commits a call's writes together, so the totals stay exact, also when half the calls are stopped by
//! their deadline after writing (`?stall=1`). A call that uses a few per cent of its deadline is never
//! failed for the time it waited behind the others.
//!
//! The same poll kept as one shared JSON document (`/ballot`, changed with update-json): a hundred re-votes
//! race on one key, and every one answers 200 (the host replays a call that lost the race, the replays of
//! one space taking turns), with exact totals.

use std::collections::BTreeMap;

use futures::future::join_all;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis::config::Config;
use trellis_tests::{TestApp, TestUser, assert_error, body, spawn_app_with};

use crate::support::modules::{connect, enable_poll, enable_poll_js, enable_poll_py, module_call};
use crate::support::spaces::{add_member, created_space, id};

const OPTIONS: [&str; 3] = ["red", "green", "blue"];
const VOTERS: usize = 20;
const RE_VOTES: usize = 100;

/// One language's poll.
#[derive(Clone, Copy)]
pub struct Poll {
    pub id: &'static str,
    pub enable: fn(&mut Config),
}

macro_rules! poll_scenario {
    ($name:ident, $module_id:literal, $enable:path) => {
        mod $name {
            use super::*;

            const POLL: Poll = Poll { id: $module_id, enable: $enable };

            #[tokio::test]
            async fn twenty_voters_re_voting_at_once_end_with_exact_totals_and_no_call_fails_its_deadline() {
                super::re_votes_at_once(POLL, false).await
            }

            #[tokio::test]
            async fn calls_stopped_by_their_deadline_after_writing_leave_nothing_and_the_totals_exact() {
                super::re_votes_at_once(POLL, true).await
            }

            #[tokio::test]
            async fn a_hundred_re_votes_on_one_shared_document_all_land_with_exact_totals() {
                super::ballots_at_once(POLL).await
            }
        }
    };
}

poll_scenario!(rust, "poll", enable_poll);
poll_scenario!(javascript, "poll-js", enable_poll_js);
poll_scenario!(python, "poll-py", enable_poll_py);

async fn re_votes_at_once(poll: Poll, stall_half: bool) {
    // Arrange: the defaults, but for the admission bounds, which would refuse most of a burst of a hundred
    // at once (429, a refusal before any guest code runs, not what this test is about); the stalling
    // variant spends 50 ms of guest time per stalled call, beyond a space's default budget.
    let app = spawn_app_with(|config| {
        (poll.enable)(config);
        config.modules.runtime.max_calls_per_space = 1_000;
        config.modules.runtime.max_calls_per_module = 1_000;
        if stall_half {
            config.modules.runtime.space_guest_ms_per_second = 1_000_000;
            config.modules.runtime.space_guest_burst_ms = 1_000_000;
        }
    })
    .await;
    let (space_id, voters) = poll_space(&app, poll).await;
    let vote = |voter: &TestUser, option: &str, stall: bool| {
        let query = if stall { "?stall=1" } else { "" };
        app.authed(Method::POST, &format!("/v0/spaces/{space_id}/modules/{}/vote{query}", poll.id), &voter.token)
            .json(&json!({"option": option}))
            .send()
    };
    for response in join_all(voters.iter().map(|voter| vote(voter, OPTIONS[0], false))).await {
        let response = response.expect("request sent");
        assert_eq!(response.status(), StatusCode::OK, "{}", body(response).await);
    }
    if stall_half {
        // One stalled call alone: its vote does not stay.
        let stalled = vote(&voters[0], OPTIONS[2], true).await.expect("request sent");
        assert_error(stalled, StatusCode::BAD_GATEWAY, "MODULE_FAILED").await;
        assert_eq!(my_vote(&app, &voters[0], &space_id, poll).await, json!(OPTIONS[0]));
    }

    // Act: a hundred re-votes at once, five per voter, on changing options.
    let calls = (0..RE_VOTES).map(|i| {
        let stall = stall_half && i % 2 == 1;
        let option = OPTIONS[(i * 7 / VOTERS) % OPTIONS.len()];
        let sent = vote(&voters[i % VOTERS], option, stall);
        async move { (stall, sent.await.expect("request sent")) }
    });
    let mut statuses = BTreeMap::<(bool, u16), usize>::new();
    let mut failures = Vec::new();
    for (stall, response) in join_all(calls).await {
        let status = response.status();
        *statuses.entry((stall, status.as_u16())).or_default() += 1;
        let expected: &[StatusCode] = if stall {
            &[StatusCode::BAD_GATEWAY, StatusCode::TOO_MANY_REQUESTS]
        } else {
            &[StatusCode::OK, StatusCode::CONFLICT, StatusCode::TOO_MANY_REQUESTS]
        };
        if !expected.contains(&status) {
            failures.push(format!("{status} {}", body(response).await));
        }
    }

    // Assert: no call failed but the stalled ones, stopped by their deadline (a 429 is a refusal before any
    // guest code ran: the stalled calls hold their instances for their whole deadline, and one waiting longer
    // than `max_queue_wait_ms` for one is refused; 409 is a vote moved five times in a row by the same
    // voter's other calls); and each count is the number of voters whose vote names it.
    assert!(failures.is_empty(), "calls failed: {failures:?} ({statuses:?})");
    if stall_half {
        assert!(statuses.get(&(true, 502)).is_some_and(|n| *n > 0), "{statuses:?}");
    }
    assert!(statuses.get(&(false, 200)).is_some_and(|n| *n > 0), "{statuses:?}");
    let mut tally = BTreeMap::<String, i64>::new();
    for voter in &voters {
        let option = my_vote(&app, voter, &space_id, poll).await;
        *tally.entry(option.as_str().expect("every voter has a vote").to_owned()).or_default() += 1;
    }
    let results = module_call(&app, &voters[0].token, Method::GET, &space_id, &format!("/{}/results", poll.id)).await;
    assert_eq!(results.status(), StatusCode::OK);
    let results = body(results).await;
    let expected: serde_json::Map<String, Value> =
        OPTIONS.iter().map(|o| ((*o).to_owned(), json!(tally.get(*o).copied().unwrap_or(0)))).collect();
    assert_eq!(results, json!({"counts": expected, "voters": VOTERS}), "{statuses:?}");
}

async fn ballots_at_once(poll: Poll) {
    // Arrange: admission bounds raised as above, and the wait for an instance too (a Python instance takes
    // several slots of the pool, and a busy test machine runs them slowly): this test is about lost races, and
    // a 429 is a refusal before any guest code ran. The replay budget is the default.
    let app = spawn_app_with(|config| {
        (poll.enable)(config);
        config.modules.runtime.max_calls_per_space = 1_000;
        config.modules.runtime.max_calls_per_module = 1_000;
        config.modules.runtime.max_queue_wait_ms = 60_000;
    })
    .await;
    let (space_id, voters) = poll_space(&app, poll).await;
    let ballot = |voter: &TestUser, option: &str| {
        app.authed(Method::POST, &format!("/v0/spaces/{space_id}/modules/{}/ballot", poll.id), &voter.token)
            .json(&json!({"option": option}))
            .send()
    };
    for voter in &voters {
        let response = ballot(voter, OPTIONS[0]).await.expect("request sent");
        assert_eq!(response.status(), StatusCode::OK, "{}", body(response).await);
    }

    // Act: a hundred re-votes at once, five per voter; an even voter moves to the second option, an odd one
    // to the third.
    let calls = (0..RE_VOTES).map(|i| ballot(&voters[i % VOTERS], OPTIONS[1 + (i % VOTERS) % 2]));
    let mut failures = Vec::new();
    for response in join_all(calls).await {
        let response = response.expect("request sent");
        if response.status() != StatusCode::OK {
            let retry_after = response.headers().get("retry-after").cloned();
            failures.push(format!("{} (Retry-After {retry_after:?}) {}", response.status(), body(response).await));
        }
    }

    // Assert
    assert!(failures.is_empty(), "{} of {RE_VOTES} failed: {failures:?}", failures.len());
    let path = format!("/{}/ballot/results", poll.id);
    let results = module_call(&app, &voters[0].token, Method::GET, &space_id, &path).await;
    assert_eq!(results.status(), StatusCode::OK);
    let half = VOTERS as i64 / 2;
    let expected = json!({"counts": {OPTIONS[0]: 0, OPTIONS[1]: half, OPTIONS[2]: half}, "voters": VOTERS});
    assert_eq!(body(results).await, expected);
}

/// A space with the poll connected and its voters: the owner first, then members.
async fn poll_space(app: &TestApp, poll: Poll) -> (String, Vec<TestUser>) {
    let owner = app.sign_up("owner").await;
    let space_id = id(&created_space(app, &owner, "poll").await);
    connect(app, &owner, &space_id, json!([{"moduleId": poll.id, "config": {"options": OPTIONS}}])).await;
    let mut voters = vec![owner];
    for n in 1..VOTERS {
        let voter = app.sign_up(&format!("voter{n}")).await;
        add_member(app, &space_id, &voter).await;
        voters.push(voter);
    }
    (space_id, voters)
}

async fn my_vote(app: &TestApp, voter: &TestUser, space_id: &str, poll: Poll) -> Value {
    let response = module_call(app, &voter.token, Method::GET, space_id, &format!("/{}/vote", poll.id)).await;
    assert_eq!(response.status(), StatusCode::OK);
    body(response).await["option"].clone()
}
