//! Issue 28: an operator takes a listed space off the marketplace, and the command line takes the
//! operator role back, at once, from sessions the server has cached.

use reqwest::{Method, StatusCode};
use serde_json::json;
use trellis_tests::{TestApp, TestUser, assert_error, body, spawn_app};

use crate::support::marketplace::{decide, listed_space, register, settings_path, system_subjects};

/// `trellis admin revoke-operator HANDLE`, the command's own code against this server's database.
async fn revoke_operator(app: &TestApp, user: &TestUser) {
    use clap::Parser;
    let cli = trellis::cli::Cli::try_parse_from(["trellis", "admin", "revoke-operator", &user.handle]).unwrap();
    trellis::cli::run_admin(cli.command, app.config.clone()).await.expect("revoke-operator succeeds");
}

#[tokio::test]
async fn an_operator_takes_an_approved_listing_down_and_the_space_is_no_longer_listed() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let olga = app.grant_operator(&app.sign_up("olga").await).await;
    let space_id = listed_space(&app, &ann, &olga, "garden", "OPEN").await;
    let listing_path = format!("/v0/marketplace/listings/{space_id}");
    assert_eq!(app.request(Method::GET, &listing_path).send().await.unwrap().status(), StatusCode::OK);
    // An approved listing cannot be approved again.
    let again = decide(&app, &olga, &space_id, json!({"approved": "YES"})).await;
    assert_error(again, StatusCode::CONFLICT, "INVALID_TRANSITION").await;
    // Act
    let taken = decide(&app, &olga, &space_id, json!({"approved": "NO", "reason": "sells counterfeit seeds"})).await;
    // Assert: REJECTED with the reason, not listed, gone from the public view and from registration,
    // and the owner told why.
    let status = taken.status();
    let taken = body(taken).await;
    assert_eq!(status, StatusCode::OK, "{taken}");
    assert_eq!(
        (taken["state"].as_str(), taken["reason"].as_str()),
        (Some("REJECTED"), Some("sells counterfeit seeds"))
    );
    let settings = body(app.get_authed(&settings_path(&space_id), &ann.token).await).await;
    assert_eq!(
        (settings["state"].as_str(), settings["listed"].as_bool()),
        (Some("REJECTED"), Some(false)),
        "{settings}"
    );
    assert_eq!(app.request(Method::GET, &listing_path).send().await.unwrap().status(), StatusCode::NOT_FOUND);
    assert_eq!(register(&app, &bob, &space_id, json!({})).await.status(), StatusCode::NOT_FOUND);
    assert!(system_subjects(&app, &ann).await.iter().any(|s| s.contains("was taken down")));
    // A space that is not listed cannot be taken down again.
    let twice = decide(&app, &olga, &space_id, json!({"approved": "NO", "reason": "again"})).await;
    assert_error(twice, StatusCode::CONFLICT, "INVALID_TRANSITION").await;
    app.stop().await;
}

#[tokio::test]
async fn a_revoked_operator_is_refused_at_once_with_the_session_they_hold() {
    // Arrange: olga's session is cached by the server with the role (the queue answered).
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let olga = app.grant_operator(&app.sign_up("olga").await).await;
    let space_id = listed_space(&app, &ann, &olga, "garden", "OPEN").await;
    let queue = "/v0/admin/marketplace/listings?states=APPROVED";
    assert_eq!(app.get_authed(queue, &olga.token).await.status(), StatusCode::OK);
    // Act
    revoke_operator(&app, &olga).await;
    // Assert: every operator route refuses the same token, with no wait for the session cache.
    assert_error(app.get_authed(queue, &olga.token).await, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    let decision = decide(&app, &olga, &space_id, json!({"approved": "NO", "reason": "revenge"})).await;
    assert_error(decision, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    assert_error(app.get_authed("/v0/admin/modules/metrics", &olga.token).await, StatusCode::FORBIDDEN, "FORBIDDEN")
        .await;
    assert_eq!(
        app.request(Method::GET, &format!("/v0/marketplace/listings/{space_id}")).send().await.unwrap().status(),
        StatusCode::OK
    );
    app.stop().await;
}
