//! Tickets for clients that cannot send headers (a browser's `EventSource`): `POST /v0/events/ticket`
//! answers 201 `{ticket, expiresAt}`, and `GET /v0/events?ticket=...` with no other credentials opens
//! the stream once. A used, expired, unknown, malformed or foreign ticket is 401; so is a stream or a
//! ticket asked for without credentials.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use trellis_tests::{assert_error, spawn_app, spawn_app_with};

use crate::support::live::{
    EVENTS, Live, TICKET, WAIT, events_request, probe, stream_client, ticket, ticket_request, ticket_text, users,
};

/// Sends `request`, which the server must refuse (the stream does not open).
async fn refused(request: reqwest::RequestBuilder) -> reqwest::Response {
    tokio::time::timeout(WAIT, request.send()).await.expect("an answer in time").expect("request sent")
}

#[tokio::test]
async fn a_ticket_opens_the_stream_of_its_user_once() {
    // Arrange
    let app = spawn_app().await;
    let [ann, bob] = users(&app, ["ann", "bob"]).await;
    let before = OffsetDateTime::now_utc();
    // Act
    let answer = ticket(&app, &bob.token).await;
    let text = ticket_text(&answer);
    let mut stream = Live::open_request("bob by ticket", ticket_request(&app, &text)).await;
    let again = refused(ticket_request(&app, &text)).await;
    // Assert
    let keys: Vec<&String> = answer.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["expiresAt", "ticket"], "{answer}");
    assert!(!text.is_empty());
    let expires = OffsetDateTime::parse(answer["expiresAt"].as_str().expect("an expiresAt"), &Rfc3339).unwrap();
    let lifetime = expires - before;
    assert!(lifetime > time::Duration::seconds(55) && lifetime < time::Duration::seconds(70), "{answer}");
    assert!(answer["expiresAt"].as_str().unwrap().ends_with('Z'), "{answer}");
    assert_error(again, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    // The stream is bob's.
    probe(&app, &mut stream, &ann, &bob).await;
}

#[tokio::test]
async fn an_unknown_malformed_or_foreign_ticket_is_401() {
    // Arrange: a ticket of another deployment.
    let app = spawn_app().await;
    let other = spawn_app().await;
    let bob = app.sign_up("bob").await;
    let stranger = other.sign_up("bob").await;
    let foreign = ticket_text(&ticket(&other, &stranger.token).await);
    let mine = ticket_text(&ticket(&app, &bob.token).await);
    let long = "t".repeat(2_000);
    let last = if mine.ends_with('x') { 'y' } else { 'x' };
    let altered = format!("{}{last}", &mine[..mine.len() - 1]);
    for bad in [foreign.as_str(), "not-a-ticket", "%00", long.as_str(), &uuid::Uuid::new_v4().to_string(), &altered] {
        // Act
        let response = refused(ticket_request(&app, bad)).await;
        // Assert
        assert_error(response, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    }
    // The good ticket was not spent by the bad ones.
    Live::open_request("bob by ticket", ticket_request(&app, &mine)).await;
    other.stop().await;
}

#[tokio::test]
async fn an_expired_ticket_is_401() {
    // Arrange: tickets live one second.
    let app = spawn_app_with(|config| config.live.ticket_seconds = 1).await;
    let bob = app.sign_up("bob").await;
    let answer = ticket(&app, &bob.token).await;
    tokio::time::sleep(Duration::from_millis(2_000)).await;
    // Act
    let response = refused(ticket_request(&app, &ticket_text(&answer))).await;
    // Assert
    assert_error(response, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
}

#[tokio::test]
async fn a_stream_or_a_ticket_without_credentials_is_refused() {
    // Arrange
    let app = spawn_app().await;
    let bob = app.sign_up("bob").await;
    let url = app.url(EVENTS);
    // Act
    let nothing = refused(stream_client().get(&url)).await;
    let key_only = refused(stream_client().get(&url).header("X-License-Key", &app.license_key)).await;
    let bad_session = refused(events_request(&app, "not-a-session")).await;
    let bad_key =
        refused(stream_client().get(&url).header("X-License-Key", "no-such-key").bearer_auth(&bob.token)).await;
    let ticket_nothing = refused(stream_client().post(app.url(TICKET))).await;
    let ticket_key_only = refused(app.request(Method::POST, TICKET)).await;
    // Assert: as every /v0 route (conventions sections 1 and 2).
    assert_error(nothing, StatusCode::UNAUTHORIZED, "LICENSE_REQUIRED").await;
    assert_error(key_only, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    assert_error(bad_session, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    assert_error(bad_key, StatusCode::FORBIDDEN, "LICENSE_INVALID").await;
    assert_error(ticket_nothing, StatusCode::UNAUTHORIZED, "LICENSE_REQUIRED").await;
    assert_error(ticket_key_only, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
}

#[tokio::test]
async fn an_address_that_keeps_presenting_refused_tickets_is_429_for_a_while() {
    // Arrange: three refused tickets a minute per address.
    let app = spawn_app_with(|config| config.rate_limits.live_ticket_failures_per_address = 3).await;
    let [ann, bob] = users(&app, ["ann", "bob"]).await;
    let good = ticket_text(&ticket(&app, &bob.token).await);
    // Act: four guesses, then the good ticket.
    for guess in 0..4 {
        let answer = refused(ticket_request(&app, &format!("evt_{guess:0>43}"))).await;
        assert_eq!(answer.status(), StatusCode::UNAUTHORIZED, "guess {guess}");
    }
    let after = refused(ticket_request(&app, &good)).await;
    // Assert: refused before any lookup; a stream opened with the session is untouched.
    assert_eq!(after.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(after.headers().contains_key("retry-after"));
    assert_error(after, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    let mut stream = Live::open(&app, &bob).await;
    probe(&app, &mut stream, &ann, &bob).await;
}
