//! What a replay costs (Security III, finding 3): other people's events cost a reconnecting client
//! nothing, so a replay reaches the user's own events however many foreign ones came between (the
//! bound on what a replay reads counts only events the user might hear); and replays are paced per
//! user (`rate_limits.live_replays_per_user`, 429 with `Retry-After`).

use reqwest::StatusCode;
use serde_json::json;
use trellis_tests::spawn_app_with;

use crate::support::channels::open_store;
use crate::support::live::{Live, events_request, heard_one_and_left, probe, users};
use crate::support::messages::sent;

#[tokio::test]
async fn a_replay_reaches_the_users_own_events_past_any_number_of_other_peoples() {
    // Arrange: at most 2 events are replayed, so a replay reads at most 500 it might send. bob heard
    // one message and went away; then cat got 300 notices (600 events bob may not hear), then bob one
    // more message.
    let app = spawn_app_with(|config| config.live.replay_max_events = 2).await;
    let [ann, bob, cat] = users(&app, ["ann", "bob", "cat"]).await;
    let last_seen = heard_one_and_left(&app, &ann, &bob).await;
    let store = open_store(&app).await;
    let platform = trellis::services::messages::Messages::new(store.clone());
    for n in 0..300 {
        platform.notify(&cat.user_id, "Notice", &format!("notice {n}")).await.expect("a notice");
    }
    store.close().await;
    let (_, missed) = sent(&app, &ann, "bob", "missed", "missed").await;
    // Act
    let mut again = Live::resume(&app, &bob, &last_seen).await;
    // Assert: bob's own two events, not a reset.
    let (created, unread) = again.message_and_unread().await;
    assert_eq!(created["messageId"], missed.as_str(), "{created}");
    assert_eq!(unread, json!({"unread": 2}));
    probe(&app, &mut again, &ann, &bob).await;
}

#[tokio::test]
async fn replays_are_paced_per_user_and_a_stream_without_one_is_not() {
    // Arrange: two replays a minute per user.
    let app = spawn_app_with(|config| config.rate_limits.live_replays_per_user = 2).await;
    let [ann, bob] = users(&app, ["ann", "bob"]).await;
    let last_seen = heard_one_and_left(&app, &ann, &bob).await;
    for _ in 0..2 {
        drop(Live::resume(&app, &bob, &last_seen).await);
    }
    // Act
    let third = events_request(&app, &bob.token).header("Last-Event-ID", &last_seen).send().await.unwrap();
    // Assert: 429 with Retry-After; ann's replays and bob's plain streams are untouched.
    assert_eq!(third.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(third.headers().contains_key("retry-after"), "{:?}", third.headers());
    let error: serde_json::Value = third.json().await.unwrap();
    assert_eq!(error["error"]["code"], "RATE_LIMITED", "{error}");
    drop(Live::resume(&app, &ann, &last_seen).await);
    let mut plain = Live::open(&app, &bob).await;
    probe(&app, &mut plain, &ann, &bob).await;
}
