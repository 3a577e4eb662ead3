//! A stream ends within 5 s of the end of what let it open: a logout of its session (a stream opened
//! with a ticket too) or the revocation of its license key. Streams of other sessions go on. Every
//! stream ends after its longest life (`live.max_stream_seconds`), and the client resumes it.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use trellis_tests::{TestApp, TestUser, assert_error, spawn_app};

use crate::support::live::{
    Live, WAIT, events_request, probe, stream_client, ticket, ticket_request, ticket_text, users,
};

/// The bound of the contract: logout or revocation ends the stream within 5 s.
const WITHIN: Duration = Duration::from_secs(5);

async fn logged_out(app: &TestApp, user: &TestUser) {
    let response = app.authed(Method::POST, "/v0/auth/logout", &user.token).send().await.expect("request sent");
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
}

/// Logs `user` in again: a second session.
async fn second_session(app: &TestApp, user: &TestUser) -> TestUser {
    let login =
        app.post_json("/v0/auth/login", serde_json::json!({"login": user.handle, "password": user.password})).await;
    assert_eq!(login.status(), StatusCode::OK);
    let token = trellis_tests::body(login).await["sessionToken"].as_str().unwrap().to_owned();
    TestUser { token, ..user.clone() }
}

#[tokio::test]
async fn a_logout_ends_the_stream_of_that_session_within_5_seconds() {
    // Arrange: bob has a stream on each of two sessions.
    let app = spawn_app().await;
    let [ann, bob] = users(&app, ["ann", "bob"]).await;
    let other = second_session(&app, &bob).await;
    let mut ended = Live::open(&app, &bob).await;
    let mut going_on = Live::open(&app, &other).await;
    // Act
    logged_out(&app, &bob).await;
    // Assert
    ended.ended_within(WITHIN).await;
    let again = tokio::time::timeout(WAIT, events_request(&app, &bob.token).send()).await.unwrap().unwrap();
    assert_error(again, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    probe(&app, &mut going_on, &ann, &other).await;
}

#[tokio::test]
async fn a_logout_ends_a_stream_opened_with_a_ticket_of_that_session() {
    // Arrange
    let app = spawn_app().await;
    let bob = app.sign_up("bob").await;
    let text = ticket_text(&ticket(&app, &bob.token).await);
    let mut stream = Live::open_request("bob by ticket", ticket_request(&app, &text)).await;
    // Act
    logged_out(&app, &bob).await;
    // Assert
    stream.ended_within(WITHIN).await;
}

#[tokio::test]
async fn revoking_the_license_key_ends_the_streams_opened_with_it_within_5_seconds() {
    // Arrange: bob's stream uses a second key; ann's the deployment's own.
    let app = spawn_app().await;
    let [ann, bob, cat] = users(&app, ["ann", "bob", "cat"]).await;
    let key = app.issue_license("default").await;
    let request = stream_client().get(app.url("/v0/events")).header("X-License-Key", &key).bearer_auth(&bob.token);
    let mut revoked = Live::open_request("bob on the second key", request).await;
    let mut anns = Live::open(&app, &ann).await;
    // Act
    app.revoke_license(&key).await;
    // Assert
    revoked.ended_within(WITHIN).await;
    let request = stream_client().get(app.url("/v0/events")).header("X-License-Key", &key).bearer_auth(&bob.token);
    let again = tokio::time::timeout(WAIT, request.send()).await.unwrap().unwrap();
    assert_error(again, StatusCode::FORBIDDEN, "LICENSE_INVALID").await;
    probe(&app, &mut anns, &cat, &ann).await;
}

#[tokio::test]
async fn a_stream_ends_after_its_longest_life_and_a_resumed_one_misses_nothing() {
    // Arrange: streams live at most a second here (an hour by default); checks run every 100 ms.
    let app = trellis_tests::spawn_app_with(|config| {
        config.live.max_stream_seconds = 1;
        config.live.recheck_ms = 100;
    })
    .await;
    let [ann, bob] = users(&app, ["ann", "bob"]).await;
    let mut first = Live::open(&app, &bob).await;
    probe(&app, &mut first, &ann, &bob).await;
    let last_id = first.last_id();

    // Act: the stream ends on its own, however busy; a message arrives before bob reconnects.
    let took = first.ended_within(Duration::from_secs(5)).await;
    let (_, missed) =
        crate::support::messages::sent(&app, &ann, &bob.handle, "while away", "Sent between two streams").await;
    let mut resumed = Live::resume(&app, &bob, &last_id).await;

    // Assert: the end came after about a second, and the resumed stream replays what came between.
    assert!(took <= Duration::from_secs(3), "the stream ended after {took:?}");
    let (created, _) = resumed.message_and_unread().await;
    assert_eq!(created["messageId"], missed.as_str(), "{created}");
}
