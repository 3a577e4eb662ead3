//! Channel comments (conventions 12): members comment and read through the one comment
//! implementation; nobody else sees a channel's comments, and a channel's comments are its own.

use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{TestApp, assert_error, body, spawn_app};

use crate::support::channels::{created_channel, id, invite_id, join, remove, send};
use crate::support::forms::{expected, get_ok, next_millisecond, problems};
use crate::support::spaces::{self, created_space};

fn comments_path(channel_id: &str) -> String {
    format!("/v0/channels/{channel_id}/comments")
}

async fn post_comment(app: &TestApp, token: &str, channel_id: &str, text: &str) -> Response {
    send(app, Method::POST, &comments_path(channel_id), token, &json!({"body": text})).await
}

fn bodies(page: &Value) -> Vec<String> {
    page["items"].as_array().unwrap().iter().map(|c| c["body"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn members_comment_and_read_newest_first_in_pages() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let channel_id = id(&created_channel(&app, &ann, "talk").await);
    join(&app, &ann, &channel_id, &bob).await;
    // Act
    let first = post_comment(&app, &ann.token, &channel_id, "  Welcome!  ").await;
    next_millisecond().await;
    let second = post_comment(&app, &bob.token, &channel_id, "Thanks\nann").await;
    next_millisecond().await;
    let third = post_comment(&app, &bob.token, &channel_id, "Third").await;
    // Assert
    assert_eq!(first.status(), StatusCode::CREATED);
    let first = body(first).await;
    assert!(uuid::Uuid::parse_str(first["commentId"].as_str().unwrap()).is_ok_and(|u| u.get_version_num() == 4));
    assert_eq!(first["body"], "Welcome!");
    assert_eq!(first["author"], json!({"userId": ann.user_id, "handle": "ann", "displayName": "ann", "avatar": null}));
    assert!(first["createdAt"].as_str().is_some_and(|t| t.ends_with('Z')), "{first}");
    assert_eq!(second.status(), StatusCode::CREATED);
    assert_eq!(third.status(), StatusCode::CREATED);
    let page = get_ok(&app, &ann.token, &format!("{}?limit=2", comments_path(&channel_id))).await;
    assert_eq!(bodies(&page), ["Third", "Thanks\nann"]);
    let cursor = page["nextCursor"].as_str().unwrap();
    let rest = get_ok(&app, &ann.token, &format!("{}?limit=2&cursor={cursor}", comments_path(&channel_id))).await;
    assert_eq!(rest["items"], json!([first]));
    assert_eq!(rest["nextCursor"], Value::Null);
    // A cursor pages for the user it was given to (conventions section 3, docs/contract.md).
    let borrowed = app.get_authed(&format!("{}?limit=2&cursor={cursor}", comments_path(&channel_id)), &bob.token).await;
    assert_eq!(borrowed.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn a_bad_comment_lists_every_problem_and_stores_nothing() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let channel_id = id(&created_channel(&app, &ann, "talk").await);
    let bad = json!({"body": "x".repeat(4001), "commentId": "x", "mood": "happy"});
    // Act
    let response = send(&app, Method::POST, &comments_path(&channel_id), &ann.token, &bad).await;
    let blank = post_comment(&app, &ann.token, &channel_id, "   ").await;
    // Assert
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(
        problems(&error),
        expected(&[("/body", "TOO_LONG"), ("/commentId", "READ_ONLY"), ("/mood", "UNKNOWN_FIELD")])
    );
    let error = assert_error(blank, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("/body", "BLANK")]));
    assert_eq!(get_ok(&app, &ann.token, &comments_path(&channel_id)).await["items"], json!([]));
}

#[tokio::test]
async fn strangers_invitees_and_former_members_neither_read_nor_comment() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let eve = app.sign_up("eve").await;
    let channel_id = id(&created_channel(&app, &ann, "talk").await);
    join(&app, &ann, &channel_id, &bob).await;
    invite_id(&app, &ann, &channel_id, &cat).await;
    post_comment(&app, &bob.token, &channel_id, "Before leaving").await;
    remove(&app, &bob.token, &channel_id, &bob.user_id).await;
    // Act
    let mut answers = Vec::new();
    for user in [&bob, &cat, &eve] {
        answers.push(app.get_authed(&comments_path(&channel_id), &user.token).await);
        answers.push(post_comment(&app, &user.token, &channel_id, "Let me in").await);
    }
    answers.push(app.get_authed(&comments_path(&uuid::Uuid::new_v4().to_string()), &ann.token).await);
    answers.push(app.get_authed(&comments_path("talk"), &ann.token).await);
    // Assert
    for answer in answers {
        assert_error(answer, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    }
    let page = get_ok(&app, &ann.token, &comments_path(&channel_id)).await;
    assert_eq!(bodies(&page), ["Before leaving"], "a former member's comments stay");
}

#[tokio::test]
async fn a_channels_comments_are_its_own() {
    // Arrange: a space and a channel of ann's, and a second channel.
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let talk = id(&created_channel(&app, &ann, "talk").await);
    let other = id(&created_channel(&app, &ann, "other").await);
    let space_id = spaces::id(&created_space(&app, &ann, "garden").await);
    // Act
    post_comment(&app, &ann.token, &talk, "In the channel").await;
    let in_space = send(
        &app,
        Method::POST,
        &format!("/v0/spaces/{space_id}/comments"),
        &ann.token,
        &json!({"body": "In the space"}),
    )
    .await;
    // Assert
    assert_eq!(in_space.status(), StatusCode::CREATED);
    assert_eq!(bodies(&get_ok(&app, &ann.token, &comments_path(&talk)).await), ["In the channel"]);
    assert_eq!(get_ok(&app, &ann.token, &comments_path(&other)).await["items"], json!([]));
    let space_page = get_ok(&app, &ann.token, &format!("/v0/spaces/{space_id}/comments")).await;
    assert_eq!(bodies(&space_page), ["In the space"]);
}
