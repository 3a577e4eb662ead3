//! `comment.created`: a space's comment reaches its members and the readers of a channel it is
//! connected to; a channel's comment reaches the channel's members. A stranger, an invitee who has not
//! accepted, and a member removed after opening the stream but before the comment hear nothing.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{TestApp, TestUser, body, spawn_app};

use crate::support::channels::{self, created_channel, invite_id, join, put_spaces, remove};
use crate::support::live::{Live, assert_replays_agree, newest_event_id, probe, users};
use crate::support::spaces::{add_member, created_space, id};

/// `author` comments `text` on `path` (`/v0/spaces/{id}/comments` or `/v0/channels/{id}/comments`),
/// asserting 201; answers the comment id.
async fn commented(app: &TestApp, author: &TestUser, path: &str, text: &str) -> String {
    let response = app.authed(Method::POST, path, &author.token).json(&json!({"body": text})).send().await.unwrap();
    let status = response.status();
    let answer = body(response).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    answer["commentId"].as_str().expect("a commentId").to_owned()
}

#[tokio::test]
async fn a_space_comment_reaches_members_and_channel_readers_but_not_a_removed_reader_or_a_stranger() {
    // Arrange: ann owns the space, bob is a member; cat and dan read it through ann's channel; eve is a
    // stranger.
    let app = spawn_app().await;
    let [ann, bob, cat, dan, eve] = users(&app, ["ann", "bob", "cat", "dan", "eve"]).await;
    let space_id = id(&created_space(&app, &ann, "garden").await);
    add_member(&app, &space_id, &bob).await;
    let channel_id = channels::id(&created_channel(&app, &ann, "friends").await);
    assert_eq!(put_spaces(&app, &ann.token, &channel_id, &json!([space_id])).await.status(), StatusCode::OK);
    join(&app, &ann, &channel_id, &cat).await;
    join(&app, &ann, &channel_id, &dan).await;
    let mut anns = Live::open(&app, &ann).await;
    let mut cats = Live::open(&app, &cat).await;
    let mut dans = Live::open(&app, &dan).await;
    let mut eves = Live::open(&app, &eve).await;
    // dan leaves the channel while his stream is open, before the comment.
    assert_eq!(remove(&app, &ann.token, &channel_id, &dan.user_id).await.status(), StatusCode::NO_CONTENT);
    let before = newest_event_id(&app, &eve).await;
    // Act
    let comment_id = commented(&app, &bob, &format!("/v0/spaces/{space_id}/comments"), "Roses first").await;
    // Assert
    let expected = json!({"scope": "space", "scopeId": space_id, "commentId": comment_id});
    assert_eq!(anns.expect("comment.created").await, expected);
    assert_eq!(cats.expect("comment.created").await, expected);
    probe(&app, &mut dans, &bob, &dan).await;
    probe(&app, &mut eves, &bob, &eve).await;
    // A reconnection replays to each what their stream heard.
    let streams = [(&anns, &ann), (&cats, &cat), (&dans, &dan), (&eves, &eve)];
    assert_replays_agree(&app, &before, &streams, [&bob, &ann]).await;
}

#[tokio::test]
async fn a_channel_comment_reaches_its_members_but_not_an_invitee_a_removed_member_or_a_stranger() {
    // Arrange: ann owns the channel, bob is a member, cat is invited and has not answered, dan is a
    // member until after his stream opened, eve is a stranger.
    let app = spawn_app().await;
    let [ann, bob, cat, dan, eve] = users(&app, ["ann", "bob", "cat", "dan", "eve"]).await;
    let channel_id = channels::id(&created_channel(&app, &ann, "talk").await);
    join(&app, &ann, &channel_id, &bob).await;
    join(&app, &ann, &channel_id, &dan).await;
    invite_id(&app, &ann, &channel_id, &cat).await;
    let mut anns = Live::open(&app, &ann).await;
    let mut cats = Live::open(&app, &cat).await;
    let mut dans = Live::open(&app, &dan).await;
    let mut eves = Live::open(&app, &eve).await;
    assert_eq!(remove(&app, &ann.token, &channel_id, &dan.user_id).await.status(), StatusCode::NO_CONTENT);
    let before = newest_event_id(&app, &eve).await;
    // Act
    let comment_id = commented(&app, &bob, &format!("/v0/channels/{channel_id}/comments"), "Hello all").await;
    // Assert
    let expected = json!({"scope": "channel", "scopeId": channel_id, "commentId": comment_id});
    assert_eq!(anns.expect("comment.created").await, expected);
    for (stream, user) in [(&mut cats, &cat), (&mut dans, &dan), (&mut eves, &eve)] {
        probe(&app, stream, &bob, user).await;
    }
    // A reconnection replays to each what their stream heard.
    let streams = [(&anns, &ann), (&cats, &cat), (&dans, &dan), (&eves, &eve)];
    assert_replays_agree(&app, &before, &streams, [&bob, &ann]).await;
}

#[tokio::test]
async fn a_comment_in_one_space_does_not_reach_the_members_of_another() {
    // Arrange: bob is a member of ann's kitchen only.
    let app = spawn_app().await;
    let [ann, bob, cat] = users(&app, ["ann", "bob", "cat"]).await;
    let garden = id(&created_space(&app, &ann, "garden").await);
    let kitchen = id(&created_space(&app, &ann, "kitchen").await);
    add_member(&app, &kitchen, &bob).await;
    let mut bobs = Live::open(&app, &bob).await;
    // Act
    commented(&app, &ann, &format!("/v0/spaces/{garden}/comments"), "Only for the garden").await;
    let in_kitchen = commented(&app, &ann, &format!("/v0/spaces/{kitchen}/comments"), "For the kitchen").await;
    // Assert
    let heard: Value = bobs.expect("comment.created").await;
    assert_eq!(heard, json!({"scope": "space", "scopeId": kitchen, "commentId": in_kitchen}));
    probe(&app, &mut bobs, &cat, &bob).await;
}
