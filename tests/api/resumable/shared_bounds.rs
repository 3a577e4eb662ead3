//! Unused uploads are bounded beyond each user (Security III, finding 7): the uploads made with one
//! license key add up to at most `media.max_open_upload_bytes_per_license` (429 RATE_LIMITED, the
//! key's users together), and every unused upload on the server to `media.max_open_upload_bytes`
//! (503 SERVICE_UNAVAILABLE with `Retry-After`). Creations at once never pass a bound together.

use futures::future::join_all;
use reqwest::{Method, StatusCode};
use trellis_tests::{TestApp, spawn_app_with};

use super::{TUS_VERSION, UPLOADS, terminate};

/// Creates an upload of `length` bytes as `token` with the license key `key`; answers the status
/// and the upload's id when it was created.
async fn create_with(app: &TestApp, key: &str, token: &str, length: usize) -> (StatusCode, Option<String>) {
    let response = app
        .client
        .request(Method::POST, app.url(UPLOADS))
        .header("X-License-Key", key)
        .bearer_auth(token)
        .header("Tus-Resumable", TUS_VERSION)
        .header("Upload-Length", length.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status();
    if status != StatusCode::CREATED {
        assert!(response.headers().contains_key("retry-after"), "{status} carries Retry-After");
    }
    let answer: serde_json::Value = response.json().await.unwrap();
    if status.is_client_error() || status.is_server_error() {
        let expected = if status == StatusCode::TOO_MANY_REQUESTS { "RATE_LIMITED" } else { "SERVICE_UNAVAILABLE" };
        assert_eq!(answer["error"]["code"], expected, "{answer}");
    }
    (status, answer["uploadId"].as_str().map(str::to_owned))
}

#[tokio::test]
async fn the_uploads_of_one_license_key_and_of_the_server_are_bounded_too() {
    // Arrange: 1,000 bytes per key, 1,500 on the server; users may hold far more each.
    let app = spawn_app_with(|config| {
        config.media.max_open_upload_bytes_per_license = 1_000;
        config.media.max_open_upload_bytes = 1_500;
    })
    .await;
    let other_key = app.issue_license("default").await;
    let (ann, bob) = (app.sign_up("ann").await, app.sign_up("bob").await);
    let key = app.license_key.clone();
    // Act + Assert: ann and bob share the first key's room.
    let (status, first) = create_with(&app, &key, &ann.token, 600).await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(create_with(&app, &key, &bob.token, 401).await.0, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(create_with(&app, &key, &bob.token, 400).await.0, StatusCode::CREATED);
    // Another key has its own room, up to what the server holds in all.
    assert_eq!(create_with(&app, &other_key, &bob.token, 501).await.0, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(create_with(&app, &other_key, &bob.token, 500).await.0, StatusCode::CREATED);
    assert_eq!(create_with(&app, &other_key, &ann.token, 1).await.0, StatusCode::SERVICE_UNAVAILABLE);
    // Ending an upload gives its room back to its key and to the server.
    assert_eq!(terminate(&app, &ann.token, &first.unwrap()).await.status, StatusCode::NO_CONTENT);
    assert_eq!(create_with(&app, &other_key, &ann.token, 500).await.0, StatusCode::CREATED);
    assert_eq!(create_with(&app, &key, &ann.token, 101).await.0, StatusCode::SERVICE_UNAVAILABLE);
    app.stop().await;
}

#[tokio::test]
async fn creations_at_once_never_pass_the_servers_bound_together() {
    // Arrange: room for ten 10-byte uploads on the server; four users each ask for five at once.
    let app = spawn_app_with(|config| config.media.max_open_upload_bytes = 100).await;
    let mut users = Vec::new();
    for name in ["ann", "bob", "cat", "dan"] {
        users.push(app.sign_up(name).await);
    }
    let key = app.license_key.clone();
    // Act
    let creations = users.iter().flat_map(|user| (0..5).map(|_| create_with(&app, &key, &user.token, 10)));
    let answers = join_all(creations).await;
    // Assert: exactly ten got room, the rest a 503.
    let created = answers.iter().filter(|(status, _)| *status == StatusCode::CREATED).count();
    let refused = answers.iter().filter(|(status, _)| *status == StatusCode::SERVICE_UNAVAILABLE).count();
    assert_eq!((created, refused), (10, 10), "{answers:?}");
    app.stop().await;
}
