//! Two servers on one PostgreSQL database, as behind a load balancer: an event made on one reaches
//! streams held on either, a client reconnecting to the other server gets what it missed, a ticket
//! from one opens a stream on the other, and a logout on one ends a stream on the other. PostgreSQL
//! only (SQLite is one server's database).

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::json;
use trellis_tests::{TestApp, note_skip, spawn_app, spawn_app_beside};

use crate::support::live::{Live, probe, ticket, ticket_request, ticket_text, users};
use crate::support::messages::sent;
use crate::support::spaces::{add_member, created_space, id};

/// Servers A and B on one database, or `None` on SQLite.
async fn two_servers(test: &str) -> Option<(TestApp, TestApp)> {
    if std::env::var("TEST_DATABASE").map_or(true, |db| db != "postgres") {
        note_skip(test, "several servers share a PostgreSQL database (TEST_DATABASE=postgres)");
        return None;
    }
    let a = spawn_app().await;
    let b = spawn_app_beside(&a, |_| {}).await;
    Some((a, b))
}

#[tokio::test]
async fn an_event_made_on_one_server_reaches_the_streams_held_on_every_server() {
    let Some((a, b)) = two_servers("an_event_made_on_one_server_reaches_the_streams_held_on_every_server").await else {
        return;
    };
    // Arrange: bob holds a stream on each server; ann owns a space bob is a member of.
    let [ann, bob, cat] = users(&a, ["ann", "bob", "cat"]).await;
    let space_id = id(&created_space(&a, &ann, "shared").await);
    add_member(&a, &space_id, &bob).await;
    let mut on_a = Live::open(&a, &bob).await;
    let mut on_b = Live::open(&b, &bob).await;
    // Act: a message made on A, a comment made on B.
    let (thread_id, message_id) = sent(&a, &ann, "bob", "Across", "Made on A").await;
    let comment = b
        .authed(Method::POST, &format!("/v0/spaces/{space_id}/comments"), &ann.token)
        .json(&json!({"body": "Made on B"}))
        .send()
        .await
        .unwrap();
    assert_eq!(comment.status(), StatusCode::CREATED);
    let comment_id = comment.json::<serde_json::Value>().await.unwrap()["commentId"].clone();
    // Assert: both streams hear both, as the same events.
    let mut heard = Vec::new();
    for stream in [&mut on_a, &mut on_b] {
        let (created, _) = stream.message_and_unread().await;
        assert_eq!(created, json!({"threadId": thread_id, "messageId": message_id, "unread": 1}));
        let commented = stream.next().await;
        assert_eq!(commented.name, "comment.created");
        assert_eq!(commented.data, json!({"scope": "space", "scopeId": space_id, "commentId": comment_id}));
        heard.push(commented.id);
    }
    assert_eq!(heard[0], heard[1], "an event has one id whichever server sends it");
    // Nothing came twice: the next thing both streams hear is a later message (made on B).
    let (_, later) = sent(&b, &cat, "bob", "Later", "Made on B").await;
    for stream in [&mut on_a, &mut on_b] {
        let (created, _) = stream.message_and_unread().await;
        assert_eq!(created["messageId"], later.as_str(), "{created}");
    }
    // B first: A's stop drops the shared database.
    b.stop().await;
    a.stop().await;
}

#[tokio::test]
async fn a_client_reconnecting_to_another_server_gets_what_it_missed() {
    let Some((a, b)) = two_servers("a_client_reconnecting_to_another_server_gets_what_it_missed").await else {
        return;
    };
    // Arrange: bob heard one message on A and went away; two more were sent on A.
    let [ann, bob] = users(&a, ["ann", "bob"]).await;
    let mut on_a = Live::open(&a, &bob).await;
    sent(&a, &ann, "bob", "one", "1").await;
    on_a.take(2).await;
    let last_seen = on_a.last_id();
    drop(on_a);
    let (_, second) = sent(&a, &ann, "bob", "two", "2").await;
    let (_, third) = sent(&a, &ann, "bob", "three", "3").await;
    // Act
    let mut on_b = Live::resume(&b, &bob, &last_seen).await;
    // Assert
    let (created, unread) = on_b.message_and_unread().await;
    assert_eq!((&created["messageId"], unread), (&json!(second), json!({"unread": 2})), "{created}");
    let (created, unread) = on_b.message_and_unread().await;
    assert_eq!((&created["messageId"], unread), (&json!(third), json!({"unread": 3})), "{created}");
    probe(&a, &mut on_b, &ann, &bob).await;
    b.stop().await;
    a.stop().await;
}

#[tokio::test]
async fn a_ticket_from_one_server_opens_a_stream_on_the_other_once() {
    let Some((a, b)) = two_servers("a_ticket_from_one_server_opens_a_stream_on_the_other_once").await else {
        return;
    };
    // Arrange
    let [ann, bob] = users(&a, ["ann", "bob"]).await;
    let text = ticket_text(&ticket(&a, &bob.token).await);
    // Act
    let mut on_b = Live::open_request("bob on B by a ticket of A", ticket_request(&b, &text)).await;
    let again = ticket_request(&a, &text).send().await.unwrap();
    // Assert
    trellis_tests::assert_error(again, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    probe(&a, &mut on_b, &ann, &bob).await;
    b.stop().await;
    a.stop().await;
}

#[tokio::test]
async fn a_logout_on_one_server_ends_the_stream_held_on_the_other_within_5_seconds() {
    let Some((a, b)) = two_servers("a_logout_on_one_server_ends_the_stream_held_on_the_other_within_5_seconds").await
    else {
        return;
    };
    // Arrange
    let bob = a.sign_up("bob").await;
    let mut on_b = Live::open(&b, &bob).await;
    // Act
    let logout = a.authed(Method::POST, "/v0/auth/logout", &bob.token).send().await.unwrap();
    assert_eq!(logout.status(), StatusCode::NO_CONTENT);
    // Assert
    on_b.ended_within(Duration::from_secs(5)).await;
    b.stop().await;
    a.stop().await;
}
