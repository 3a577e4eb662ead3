//! Comments on spaces (conventions 12, 13): who may comment and read, the answer's shape, every
//! problem of a bad body, and paging newest first.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{TestApp, assert_error, body, spawn_app};

use crate::support::forms::{expected, next_millisecond, problems};
use crate::support::spaces::{add_member, created_space, id};

fn comments_path(space_id: &str) -> String {
    format!("/v0/spaces/{space_id}/comments")
}

async fn post_comment(app: &TestApp, token: &str, space_id: &str, body: &Value) -> reqwest::Response {
    app.authed(Method::POST, &comments_path(space_id), token).json(body).send().await.expect("request sent")
}

async fn listed(app: &TestApp, token: &str, path: &str) -> Value {
    let response = app.get_authed(path, token).await;
    assert_eq!(response.status(), StatusCode::OK);
    body(response).await
}

fn bodies(page: &Value) -> Vec<String> {
    page["items"].as_array().unwrap().iter().map(|c| c["body"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn owner_and_members_comment_and_read_newest_first() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let space_id = id(&created_space(&app, &ann, "garden").await);
    add_member(&app, &space_id, &bob).await;
    // Act
    let first = post_comment(&app, &ann.token, &space_id, &json!({"body": "  Welcome!  "})).await;
    next_millisecond().await;
    let second = post_comment(&app, &bob.token, &space_id, &json!({"body": "Thanks\nann"})).await;
    // Assert
    assert_eq!(first.status(), StatusCode::CREATED);
    let first = body(first).await;
    assert!(uuid::Uuid::parse_str(first["commentId"].as_str().unwrap()).is_ok_and(|u| u.get_version_num() == 4));
    assert_eq!(first["body"], "Welcome!");
    assert_eq!(
        first["author"],
        json!({"userId": ann.user_id, "handle": "ann", "displayName": "ann", "avatar": null}),
        "{first}"
    );
    assert!(first["createdAt"].as_str().is_some_and(|t| t.ends_with('Z')));
    let second = body(second).await;
    let page = listed(&app, &bob.token, &comments_path(&space_id)).await;
    assert_eq!(page["items"], json!([second, first]));
    assert_eq!(page["nextCursor"], Value::Null);
}

#[tokio::test]
async fn a_bad_comment_lists_every_problem_and_stores_nothing() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let space_id = id(&created_space(&app, &ann, "garden").await);
    // Act
    let blank = post_comment(&app, &ann.token, &space_id, &json!({"body": " \n\t "})).await;
    let long = post_comment(&app, &ann.token, &space_id, &json!({"body": "x".repeat(4001), "author": "me"})).await;
    let wrong = post_comment(&app, &ann.token, &space_id, &json!({"text": "hi"})).await;
    let bell = post_comment(&app, &ann.token, &space_id, &json!({"body": "ding\u{7}"})).await;
    let not_json = app.authed(Method::POST, &comments_path(&space_id), &ann.token).body("hi").send().await.unwrap();
    // Assert
    let error = assert_error(blank, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("/body", "BLANK")]));
    let error = assert_error(long, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("/author", "READ_ONLY"), ("/body", "TOO_LONG")]));
    let error = assert_error(wrong, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("/body", "REQUIRED"), ("/text", "UNKNOWN_FIELD")]));
    let error = assert_error(bell, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("/body", "INVALID_CHARACTERS")]));
    assert_error(not_json, StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE").await;
    assert_eq!(listed(&app, &ann.token, &comments_path(&space_id)).await["items"], json!([]));
    let longest = post_comment(&app, &ann.token, &space_id, &json!({"body": "é".repeat(4000)})).await;
    assert_eq!(longest.status(), StatusCode::CREATED, "4000 characters fit");
}

#[tokio::test]
async fn strangers_neither_read_nor_comment() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let dan = app.sign_up("dan").await;
    let space_id = id(&created_space(&app, &ann, "garden").await);
    post_comment(&app, &ann.token, &space_id, &json!({"body": "private"})).await;
    // Act
    let read = app.get_authed(&comments_path(&space_id), &dan.token).await;
    let write = post_comment(&app, &dan.token, &space_id, &json!({"body": "let me in"})).await;
    let bad_id = app.get_authed(&comments_path("not-a-space"), &dan.token).await;
    let anonymous = app.request(Method::GET, &comments_path(&space_id)).send().await.unwrap();
    // Assert
    assert_error(read, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(write, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(bad_id, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(anonymous, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    assert_eq!(bodies(&listed(&app, &ann.token, &comments_path(&space_id)).await), ["private"]);
}

#[tokio::test]
async fn comments_page_by_cursor_and_each_space_has_its_own() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let garden = id(&created_space(&app, &ann, "garden").await);
    let kitchen = id(&created_space(&app, &ann, "kitchen").await);
    for n in 1..=5 {
        post_comment(&app, &ann.token, &garden, &json!({"body": format!("garden {n}")})).await;
        next_millisecond().await;
    }
    post_comment(&app, &ann.token, &kitchen, &json!({"body": "kitchen"})).await;
    // Act
    let mut seen = Vec::new();
    let mut path = format!("{}?limit=2", comments_path(&garden));
    loop {
        let page = listed(&app, &ann.token, &path).await;
        assert!(page["items"].as_array().unwrap().len() <= 2);
        seen.extend(bodies(&page));
        match page["nextCursor"].as_str() {
            Some(cursor) => path = format!("{}?limit=2&cursor={cursor}", comments_path(&garden)),
            None => break,
        }
    }
    let bad = app.get_authed(&format!("{}?limit=201&cursor=%21", comments_path(&garden)), &ann.token).await;
    // Assert
    assert_eq!(seen, ["garden 5", "garden 4", "garden 3", "garden 2", "garden 1"]);
    assert_eq!(bodies(&listed(&app, &ann.token, &comments_path(&kitchen)).await), ["kitchen"]);
    let error = assert_error(bad, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("query.cursor", "INVALID_CURSOR"), ("query.limit", "OUT_OF_RANGE")]));
}

#[tokio::test]
async fn a_users_comments_are_paced_and_a_refused_one_is_not_stored() {
    // Arrange
    let app = trellis_tests::spawn_app_with(|config| config.rate_limits.comments_per_user = 3).await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let space_id = id(&created_space(&app, &ann, "garden").await);
    add_member(&app, &space_id, &bob).await;
    for n in 0..3 {
        let response = post_comment(&app, &ann.token, &space_id, &json!({"body": format!("ann {n}")})).await;
        assert_eq!(response.status(), StatusCode::CREATED);
    }
    // Act
    let fourth = post_comment(&app, &ann.token, &space_id, &json!({"body": "one too many"})).await;
    let bobs = post_comment(&app, &bob.token, &space_id, &json!({"body": "bob is not ann"})).await;
    // Assert
    assert!(fourth.headers().get("retry-after").is_some(), "429 carries Retry-After");
    assert_error(fourth, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    assert_eq!(bobs.status(), StatusCode::CREATED, "the limit is per user");
    let all = listed(&app, &ann.token, &comments_path(&space_id)).await;
    assert!(!bodies(&all).contains(&"one too many".to_owned()));
    assert_eq!(bodies(&all).len(), 4);
}
