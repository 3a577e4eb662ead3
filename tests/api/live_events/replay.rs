//! Replay: a stream opened with `Last-Event-ID` first gets the events its user missed, in order and
//! each once, when they are within the replay window (`live.replay_seconds`, `live.replay_max_events`);
//! otherwise `event: reset` (`data: {}`) first. A `Last-Event-ID` that names no kept event, malformed
//! ones included, is too old: a reset, never an error.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::json;
use trellis_tests::{spawn_app, spawn_app_with};

use crate::support::live::{Live, Received, heard_one_and_left, probe, users};
use crate::support::messages::{notify, sent};
use crate::support::spaces::{add_member, created_space, id};

/// What the test compares of an event: its id, name and data.
fn seen(events: &[Received]) -> Vec<(String, String, serde_json::Value)> {
    events.iter().map(|e| (e.id.clone(), e.name.clone(), e.data.clone())).collect()
}

#[tokio::test]
async fn a_reconnecting_client_gets_what_it_missed_in_order_and_each_once() {
    // Arrange: bob heard ann's first message, then went away.
    let app = spawn_app().await;
    let [ann, bob] = users(&app, ["ann", "bob"]).await;
    let mut bobs = Live::open(&app, &bob).await;
    sent(&app, &ann, "bob", "one", "1").await;
    let first_pair = bobs.take(2).await;
    let last_seen = bobs.last_id();
    drop(bobs);
    let (_, second) = sent(&app, &ann, "bob", "two", "2").await;
    let (_, third) = sent(&app, &ann, "bob", "three", "3").await;
    // Act
    let mut again = Live::resume(&app, &bob, &last_seen).await;
    let missed = again.take(4).await;
    // Assert: both messages and their counts, in order, every id after the last one seen.
    let last: u64 = last_seen.parse().unwrap();
    assert!(missed.iter().all(|e| e.id.parse::<u64>().unwrap() > last), "{missed:?}");
    let created: Vec<_> = missed.iter().filter(|e| e.name == "message.created").map(|e| &e.data).collect();
    assert_eq!(created.len(), 2, "{missed:?}");
    assert_eq!((&created[0]["messageId"], &created[0]["unread"]), (&json!(second), &json!(2)), "{missed:?}");
    assert_eq!((&created[1]["messageId"], &created[1]["unread"]), (&json!(third), &json!(3)), "{missed:?}");
    let counts: Vec<_> = missed.iter().filter(|e| e.name == "unread.changed").map(|e| e.data.clone()).collect();
    assert_eq!(counts, [json!({"unread": 2}), json!({"unread": 3})], "{missed:?}");
    // ...and then the live events follow, nothing replayed twice.
    probe(&app, &mut again, &ann, &bob).await;

    // Act: a reconnection naming the first event of the first stream gets everything after it again.
    let mut from_start = Live::resume(&app, &bob, &first_pair[0].id).await;
    let replayed = from_start.take(7).await;
    // Assert
    assert_eq!(seen(&replayed[..1]), seen(&first_pair[1..]));
    assert_eq!(seen(&replayed[1..5]), seen(&missed));
    assert_eq!(replayed[6].id, again.last_id(), "{replayed:?}");
}

#[tokio::test]
async fn events_committed_at_once_come_each_once_in_increasing_ids_and_a_resume_after_any_gets_the_rest() {
    // Arrange: bob listens to a space where ann posts 40 comments at once (on PostgreSQL their
    // transactions commit together, and each event gets its id after its commit).
    const COMMENTS: usize = 40;
    let app = spawn_app().await;
    let [ann, bob] = users(&app, ["ann", "bob"]).await;
    let space_id = id(&created_space(&app, &ann, "busy").await);
    add_member(&app, &space_id, &bob).await;
    let mut bobs = Live::open(&app, &bob).await;
    // Act
    let posts = (0..COMMENTS).map(|n| {
        app.authed(Method::POST, &format!("/v0/spaces/{space_id}/comments"), &ann.token)
            .json(&json!({"body": format!("comment {n}")}))
            .send()
    });
    let mut posted = Vec::new();
    for answer in futures::future::join_all(posts).await {
        let answer = answer.unwrap();
        assert_eq!(answer.status(), StatusCode::CREATED);
        posted.push(answer.json::<serde_json::Value>().await.unwrap()["commentId"].as_str().unwrap().to_owned());
    }
    // Assert: every comment heard once, ids increasing.
    let heard = bobs.take(COMMENTS).await;
    let ids: Vec<i64> = heard.iter().map(|e| e.id.parse().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "ids increase: {ids:?}");
    let mut heard_comments: Vec<String> =
        heard.iter().map(|e| e.data["commentId"].as_str().unwrap().to_owned()).collect();
    heard_comments.sort();
    posted.sort();
    assert_eq!(heard_comments, posted);
    // Assert: resuming after any of them replays exactly the ones after it.
    for after in [0, COMMENTS / 2] {
        let mut again = Live::resume(&app, &bob, &heard[after].id).await;
        let replayed = again.take(COMMENTS - 1 - after).await;
        assert_eq!(seen(&replayed), seen(&heard[after + 1..]), "resumed after event {after}");
    }
    // After the last one, nothing but what comes next.
    let mut again = Live::resume(&app, &bob, &heard[COMMENTS - 1].id).await;
    probe(&app, &mut again, &ann, &bob).await;
}

#[tokio::test]
async fn a_client_further_back_than_the_replay_bound_gets_a_reset_first() {
    // Arrange: at most 3 events are replayed; bob misses 5 messages (10 events).
    let app = spawn_app_with(|config| config.live.replay_max_events = 3).await;
    let [ann, bob] = users(&app, ["ann", "bob"]).await;
    let last_seen = heard_one_and_left(&app, &ann, &bob).await;
    for n in 0..5 {
        sent(&app, &ann, "bob", "missed", &format!("missed {n}")).await;
    }
    // Act
    let mut again = Live::resume(&app, &bob, &last_seen).await;
    // Assert: a reset, then only live events.
    assert_eq!(again.expect("reset").await, json!({}));
    probe(&app, &mut again, &ann, &bob).await;

    // Arrange: within the bound, replay works: bob misses one message (2 events).
    let last_seen = again.last_id();
    drop(again);
    let (_, missed) = sent(&app, &ann, "bob", "one more", "one more").await;
    // Act
    let mut within = Live::resume(&app, &bob, &last_seen).await;
    // Assert
    let (created, unread) = within.message_and_unread().await;
    assert_eq!(created["messageId"], missed.as_str(), "{created}");
    assert_eq!(unread, json!({"unread": 8}));
}

#[tokio::test]
async fn a_reset_stands_for_every_event_before_it() {
    // Arrange: at most 3 events are replayed. bob heard one message and went away; then the platform
    // (another process: this server's dispatcher sends its events on its next round, within a second)
    // sent him 5 notices.
    let app = spawn_app_with(|config| config.live.replay_max_events = 3).await;
    let [ann, bob] = users(&app, ["ann", "bob"]).await;
    let last_seen = heard_one_and_left(&app, &ann, &bob).await;
    for n in 0..5 {
        notify(&app, &bob.user_id, "Notice", &format!("notice {n}")).await.expect("a notice");
    }
    // Act
    let mut again = Live::resume(&app, &bob, &last_seen).await;
    // Assert: after the reset come only events made after it, not the notices it stands for.
    assert_eq!(again.expect("reset").await, json!({}));
    probe(&app, &mut again, &ann, &bob).await;
}

#[tokio::test]
async fn a_client_away_longer_than_the_replay_window_gets_a_reset_first() {
    // Arrange: events are replayed for one second.
    let app = spawn_app_with(|config| config.live.replay_seconds = 1).await;
    let [ann, bob] = users(&app, ["ann", "bob"]).await;
    let last_seen = heard_one_and_left(&app, &ann, &bob).await;
    sent(&app, &ann, "bob", "missed", "missed").await;
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    // Act
    let mut again = Live::resume(&app, &bob, &last_seen).await;
    // Assert
    assert_eq!(again.expect("reset").await, json!({}));
    probe(&app, &mut again, &ann, &bob).await;
}

#[tokio::test]
async fn a_last_event_id_that_names_no_kept_event_gets_a_reset_never_an_error() {
    // Arrange: bob has one event on record.
    let app = spawn_app().await;
    let [ann, bob] = users(&app, ["ann", "bob"]).await;
    let mut bobs = Live::open(&app, &bob).await;
    sent(&app, &ann, "bob", "seen", "seen").await;
    bobs.take(2).await;
    let beyond = (bobs.last_id().parse::<u64>().unwrap() + 1_000_000).to_string();
    drop(bobs);
    let long = "9".repeat(400);
    let malformed = ["abc", "-1", "1.5", "0x10", "0", long.as_str(), beyond.as_str(), "18446744073709551616"];
    for last_event_id in malformed {
        // Act
        let mut again = Live::resume(&app, &bob, last_event_id).await;
        // Assert
        assert_eq!(again.expect("reset").await, json!({}), "Last-Event-ID: {last_event_id}");
    }
    // The stream goes on after a reset.
    let mut again = Live::resume(&app, &bob, "abc").await;
    assert_eq!(again.expect("reset").await, json!({}));
    probe(&app, &mut again, &ann, &bob).await;
}
