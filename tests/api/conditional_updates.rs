//! `If-Match` on the updates of the own profile, a space's connected modules, a channel's connected
//! spaces and a workflow's grants (conventions section 1): each read answers a strong `ETag`, an update
//! sent with a stale or weak one is 412 and stores nothing, and of concurrent updates sending the same
//! current tag one applies.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{TestApp, TestUser, assert_error, body, spawn_app};

use crate::conditional_requests::{applied_or_412, etag, update};
use crate::support::channels::created_channel;
use crate::support::forms::{created_config, sample_config};
use crate::support::spaces::{created_space, id};
use crate::support::workflow::{created_workflow, sample_workflow, wf};

/// One update route: where it reads, how it is sent, and two bodies that each change it.
struct Target {
    method: Method,
    path: String,
    first: Value,
    second: Value,
}

/// The four routes, on resources `ann` owns (the channel's set holds one of her spaces).
async fn targets(app: &TestApp, ann: &TestUser) -> Vec<Target> {
    let space = id(&created_space(app, ann, "garden").await);
    let other = id(&created_space(app, ann, "orchard").await);
    let channel = crate::support::channels::id(&created_channel(app, ann, "growers").await);
    created_config(app, &ann.token, sample_config()).await;
    created_workflow(app, &ann.token, sample_workflow()).await;
    app.sign_up("bob").await;
    vec![
        Target {
            method: Method::PATCH,
            path: "/v0/users/me".into(),
            first: json!({"displayName": "Ann B"}),
            second: json!({"fullName": "Ann Other"}),
        },
        Target {
            method: Method::PUT,
            path: format!("/v0/spaces/{space}/modules"),
            first: json!({"modules": []}),
            second: json!({"modules": []}),
        },
        Target {
            method: Method::PUT,
            path: format!("/v0/channels/{channel}/spaces"),
            first: json!({"spaceIds": [space]}),
            second: json!({"spaceIds": [other, space]}),
        },
        Target {
            method: Method::PUT,
            path: format!("/v0/workflows/configurations/{}/permissions", wf::ID),
            first: json!({"grants": [{"handle": "bob", "slots": [2]}]}),
            second: json!({"grants": []}),
        },
    ]
}

#[tokio::test]
async fn profile_module_space_and_grant_updates_refuse_a_stale_or_weak_if_match_and_store_nothing() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    for target in targets(&app, &ann).await {
        let path = &target.path;
        let read = app.get_authed(path, &ann.token).await;
        assert_eq!(read.status(), StatusCode::OK, "{path}");
        let first = etag(&read);
        let unchanged = app.authed(Method::GET, path, &ann.token).header("If-None-Match", &first).send().await.unwrap();
        // Act
        let applied = update(&app, target.method.clone(), path, &ann.token, &first, &target.first).await;
        let applied_status = applied.status();
        let second = etag(&applied);
        let applied_body = body(applied).await;
        let stale = update(&app, target.method.clone(), path, &ann.token, &first, &target.second).await;
        let weak = update(&app, target.method.clone(), path, &ann.token, &format!("W/{second}"), &target.second).await;
        let after_refusals = app.get_authed(path, &ann.token).await;
        let any = update(&app, target.method.clone(), path, &ann.token, "*", &target.second).await;
        // Assert
        assert_eq!(unchanged.status(), StatusCode::NOT_MODIFIED, "{path}");
        assert_eq!(applied_status, StatusCode::OK, "{path}: {applied_body}");
        assert_ne!(first, second, "{path}: a change moves the tag on");
        assert_error(stale, StatusCode::PRECONDITION_FAILED, "PRECONDITION_FAILED").await;
        assert_error(weak, StatusCode::PRECONDITION_FAILED, "PRECONDITION_FAILED").await;
        assert_eq!(etag(&after_refusals), second, "{path}: the read answers the tag the update answered");
        assert_eq!(body(after_refusals).await, applied_body, "{path}: the refused updates stored nothing");
        assert_eq!(any.status(), StatusCode::OK, "{path}: `*` matches any state");
    }
}

#[tokio::test]
async fn of_concurrent_updates_sending_the_same_current_if_match_one_applies_and_the_rest_are_412() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    for target in targets(&app, &ann).await {
        let tag = etag(&app.get_authed(&target.path, &ann.token).await);
        // Act
        let tasks: Vec<_> = (0..8)
            .map(|i| {
                let change = if i % 2 == 0 { &target.first } else { &target.second };
                let request =
                    app.authed(target.method.clone(), &target.path, &ann.token).header("If-Match", &tag).json(change);
                tokio::spawn(async move { request.send().await.expect("request sent") })
            })
            .collect();
        let applied = applied_or_412(tasks).await;
        // Assert
        assert_eq!(applied, 1, "{}", target.path);
    }
}

#[tokio::test]
async fn concurrent_replacements_without_if_match_all_apply_and_leave_one_whole_set() {
    // Arrange: two replacements of one set must not interleave their deletes and inserts.
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    for target in targets(&app, &ann).await.into_iter().skip(1) {
        // Act
        let tasks: Vec<_> = (0..12)
            .map(|i| {
                let change = if i % 2 == 0 { &target.first } else { &target.second };
                let request = app.authed(target.method.clone(), &target.path, &ann.token).json(change);
                tokio::spawn(async move { request.send().await.expect("request sent") })
            })
            .collect();
        let mut answers = Vec::new();
        for task in tasks {
            let response = task.await.unwrap();
            assert_eq!(response.status(), StatusCode::OK, "{}", target.path);
            answers.push(body(response).await);
        }
        // Assert
        let stored = body(app.get_authed(&target.path, &ann.token).await).await;
        assert!(answers.contains(&stored), "{}: {stored} is one of the sets sent", target.path);
    }
}

#[tokio::test]
async fn a_new_avatar_or_a_renamed_space_moves_the_tag_of_what_shows_it() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let space = id(&created_space(&app, &ann, "garden").await);
    let channel = crate::support::channels::id(&created_channel(&app, &ann, "growers").await);
    let spaces_path = format!("/v0/channels/{channel}/spaces");
    let connected = update(&app, Method::PUT, &spaces_path, &ann.token, "*", &json!({"spaceIds": [space]})).await;
    let set_tag = etag(&connected);
    let profile_tag = etag(&app.get_authed("/v0/users/me", &ann.token).await);
    // Act
    let renamed = app
        .authed(Method::PATCH, &format!("/v0/spaces/{space}/settings/general"), &ann.token)
        .json(&json!({"displayName": "The Garden"}))
        .send()
        .await
        .unwrap();
    assert_eq!(renamed.status(), StatusCode::OK);
    let png = crate::support::media::png(500);
    let part = reqwest::multipart::Part::bytes(png).file_name("me.png").mime_str("image/png").unwrap();
    let form = reqwest::multipart::Form::new().part("file", part);
    let avatar = app.authed(Method::POST, "/v0/media/users/me/avatar", &ann.token).multipart(form).send().await;
    assert_eq!(avatar.unwrap().status(), StatusCode::CREATED);
    let set_read = app.authed(Method::GET, &spaces_path, &ann.token).header("If-None-Match", &set_tag).send().await;
    let stale_set = update(&app, Method::PUT, &spaces_path, &ann.token, &set_tag, &json!({"spaceIds": []})).await;
    let stale_profile =
        update(&app, Method::PATCH, "/v0/users/me", &ann.token, &profile_tag, &json!({"displayName": "A"})).await;
    // Assert
    let set_read = set_read.unwrap();
    assert_eq!(set_read.status(), StatusCode::OK, "the rename shows in the set, so its tag moved on");
    assert_ne!(etag(&set_read), set_tag);
    assert_eq!(body(set_read).await["items"][0]["displayName"], "The Garden");
    assert_error(stale_set, StatusCode::PRECONDITION_FAILED, "PRECONDITION_FAILED").await;
    assert_error(stale_profile, StatusCode::PRECONDITION_FAILED, "PRECONDITION_FAILED").await;
}

#[tokio::test]
async fn a_page_of_the_connected_spaces_that_is_not_the_whole_set_has_a_tag_of_its_own() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let first = id(&created_space(&app, &ann, "garden").await);
    let second = id(&created_space(&app, &ann, "orchard").await);
    let channel = crate::support::channels::id(&created_channel(&app, &ann, "growers").await);
    let path = format!("/v0/channels/{channel}/spaces");
    let set_tag = etag(&update(&app, Method::PUT, &path, &ann.token, "*", &json!({"spaceIds": [first, second]})).await);
    // Act
    let whole = app.get_authed(&path, &ann.token).await;
    let page = app.get_authed(&format!("{path}?limit=1"), &ann.token).await;
    let page_tag = etag(&page);
    let cursor = body(page).await["nextCursor"].as_str().expect("a second page").to_owned();
    let rest = app.get_authed(&format!("{path}?limit=1&cursor={cursor}"), &ann.token).await;
    // Assert
    assert_eq!(etag(&whole), set_tag);
    assert_ne!(page_tag, set_tag);
    assert_ne!(etag(&rest), page_tag);
    let refused = update(&app, Method::PUT, &path, &ann.token, &page_tag, &json!({"spaceIds": []})).await;
    assert_error(refused, StatusCode::PRECONDITION_FAILED, "PRECONDITION_FAILED").await;
}
