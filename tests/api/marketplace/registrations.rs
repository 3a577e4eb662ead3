//! Registrations in each membership mode, the owner's decisions, the owner's rules run by the rule
//! module, and the bounds.

use reqwest::{Method, StatusCode};
use serde_json::json;
use trellis_tests::{assert_error, body, detail_paths, spawn_app, spawn_app_with};

use crate::support::marketplace::{listed_space, pending_path, register, registered, saved, system_subjects};
use crate::support::spaces::{created_space, id};

#[tokio::test]
async fn an_open_space_lets_a_user_in_at_once() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let olga = app.grant_operator(&app.sign_up("olga").await).await;
    let space_id = listed_space(&app, &ann, &olga, "garden", "OPEN").await;
    let space_path = format!("/v0/spaces/{space_id}/settings/general");
    assert_error(app.get_authed(&space_path, &bob.token).await, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    // Act
    let first = registered(&app, &bob, &space_id, json!({}), StatusCode::CREATED).await;
    let again = registered(&app, &bob, &space_id, json!({"note": "me again"}), StatusCode::OK).await;
    let owner = registered(&app, &ann, &space_id, json!({}), StatusCode::OK).await;
    // Assert
    assert_eq!(first["state"], "APPROVED");
    assert_eq!(again, first);
    assert_eq!(owner, json!({"registrationId": null, "state": "APPROVED"}));
    assert_eq!(app.get_authed(&space_path, &bob.token).await.status(), StatusCode::OK);
    let comment = app
        .authed(Method::POST, &format!("/v0/spaces/{space_id}/comments"), &bob.token)
        .json(&json!({"body": "hello"}))
        .send()
        .await
        .unwrap();
    assert_eq!(comment.status(), StatusCode::CREATED, "a member comments");
    assert_eq!(system_subjects(&app, &bob).await, ["You are now a member of \"The garden\""]);
    app.stop().await;
}

#[tokio::test]
async fn an_approval_space_lists_registrations_for_its_owner_who_decides() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let olga = app.grant_operator(&app.sign_up("olga").await).await;
    let space_id = listed_space(&app, &ann, &olga, "garden", "APPROVAL").await;
    // Act
    let bobs = registered(&app, &bob, &space_id, json!({"note": "I grow roses"}), StatusCode::CREATED).await;
    let bobs_again = registered(&app, &bob, &space_id, json!({}), StatusCode::OK).await;
    let cats = registered(&app, &cat, &space_id, json!({}), StatusCode::CREATED).await;
    // Assert: pending, listed for the owner only, newest first.
    assert_eq!(bobs["state"], "PENDING");
    assert_eq!(bobs_again, bobs);
    let pending = body(app.get_authed(&pending_path(&space_id), &ann.token).await).await;
    let items = pending["items"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{pending}");
    assert_eq!(items[0]["registrationId"], cats["registrationId"]);
    assert_eq!(items[1]["handle"], "bob");
    assert_eq!(items[1]["note"], "I grow roses");
    assert_eq!(items[1]["userId"], bob.user_id.as_str());
    assert!(!pending.to_string().contains("@example.org"), "no e-mail addresses: {pending}");
    assert_error(app.get_authed(&pending_path(&space_id), &bob.token).await, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    let space_path = format!("/v0/spaces/{space_id}/settings/general");
    assert_error(app.get_authed(&space_path, &bob.token).await, StatusCode::NOT_FOUND, "NOT_FOUND").await;

    // The owner decides: YES makes a member, NO declines; each is told.
    let decide = |token: String, body: serde_json::Value| {
        let app = &app;
        let path = pending_path(&space_id);
        async move { app.authed(Method::POST, &path, &token).json(&body).send().await.unwrap() }
    };
    let yes = decide(ann.token.clone(), json!({"registrationId": bobs["registrationId"], "approved": "YES"})).await;
    assert_eq!(yes.status(), StatusCode::OK);
    assert_eq!(body(yes).await["state"], "APPROVED");
    assert_eq!(app.get_authed(&space_path, &bob.token).await.status(), StatusCode::OK);
    // A member is no owner: deciding is refused.
    let by_member =
        decide(bob.token.clone(), json!({"registrationId": cats["registrationId"], "approved": "YES"})).await;
    assert_error(by_member, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    let no = decide(ann.token.clone(), json!({"registrationId": cats["registrationId"], "approved": "NO"})).await;
    assert_eq!(body(no).await["state"], "REJECTED");
    let twice = decide(ann.token.clone(), json!({"registrationId": cats["registrationId"], "approved": "YES"})).await;
    assert_error(twice, StatusCode::CONFLICT, "INVALID_TRANSITION").await;
    let unknown = decide(ann.token.clone(), json!({"registrationId": uuid::Uuid::new_v4(), "approved": "YES"})).await;
    assert_error(unknown, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    let bad = assert_error(
        decide(ann.token.clone(), json!({"approved": "PERHAPS"})).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    let mut paths = detail_paths(&bad);
    paths.sort();
    assert_eq!(paths, ["/approved", "/registrationId"]);
    assert_error(app.get_authed(&space_path, &cat.token).await, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_eq!(system_subjects(&app, &bob).await, ["You are now a member of \"The garden\""]);
    assert_eq!(system_subjects(&app, &cat).await, ["Your registration with \"The garden\" was declined"]);
    assert!(
        body(app.get_authed(&pending_path(&space_id), &ann.token).await).await["items"].as_array().unwrap().is_empty()
    );
    // A declined user may register again.
    assert_eq!(registered(&app, &cat, &space_id, json!({}), StatusCode::CREATED).await["state"], "PENDING");
    app.stop().await;
}

#[tokio::test]
async fn a_closed_space_unlisted_space_or_bad_body_is_refused() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let olga = app.grant_operator(&app.sign_up("olga").await).await;
    let closed = listed_space(&app, &ann, &olga, "closed", "CLOSED").await;
    let unlisted = id(&created_space(&app, &ann, "private").await);
    saved(&app, &ann, &unlisted, json!({"title": "t", "summary": "s", "membership": "OPEN", "submit": true})).await;
    let open = listed_space(&app, &ann, &olga, "open", "OPEN").await;
    // Act + Assert
    assert_error(register(&app, &bob, &closed, json!({})).await, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    assert_error(register(&app, &bob, &unlisted, json!({})).await, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(register(&app, &bob, "not-a-space", json!({})).await, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    let bad = assert_error(
        register(&app, &bob, &open, json!({"note": "x".repeat(1001), "colour": "red"})).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    let mut paths = detail_paths(&bad);
    paths.sort();
    assert_eq!(paths, ["/colour", "/note"]);
    let anonymous = app
        .request(Method::POST, &format!("/v0/marketplace/listings/{open}/registration"))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_error(anonymous, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    // None of these made bob a member anywhere.
    let spaces = body(app.get_authed("/v0/spaces", &bob.token).await).await;
    assert!(spaces["items"].as_array().unwrap().is_empty(), "{spaces}");
    app.stop().await;
}

#[tokio::test]
async fn the_owners_rules_let_users_in_or_suggest_a_rejection_but_the_owner_decides() {
    // Arrange: the bundled rule module runs the owner's rules.
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let dan = app.sign_up("dan").await;
    let olga = app.grant_operator(&app.sign_up("olga").await).await;
    let space_id = listed_space(&app, &ann, &olga, "garden", "APPROVAL").await;
    let rules =
        saved(&app, &ann, &space_id, json!({"rules": {"approveHandles": ["bob"], "rejectHandles": ["cat"]}})).await;
    assert_eq!(rules["rules"]["approveHandles"], json!(["bob"]));
    assert_eq!(rules["state"], "APPROVED", "rules apply without approval");
    // Act
    let bobs = registered(&app, &bob, &space_id, json!({}), StatusCode::CREATED).await;
    let cats = registered(&app, &cat, &space_id, json!({}), StatusCode::CREATED).await;
    let dans = registered(&app, &dan, &space_id, json!({}), StatusCode::CREATED).await;
    // Assert
    assert_eq!(bobs["state"], "APPROVED");
    assert_eq!((cats["state"].as_str(), dans["state"].as_str()), (Some("PENDING"), Some("PENDING")));
    let pending = body(app.get_authed(&pending_path(&space_id), &ann.token).await).await;
    let suggestion = |handle: &str| {
        pending["items"].as_array().unwrap().iter().find(|r| r["handle"] == handle).unwrap()["suggestion"].clone()
    };
    assert_eq!(suggestion("cat"), "REJECT");
    assert!(suggestion("dan").is_null());
    // The owner may still let cat in.
    let yes = app
        .authed(Method::POST, &pending_path(&space_id), &ann.token)
        .json(&json!({"registrationId": cats["registrationId"], "approved": "YES"}))
        .send()
        .await
        .unwrap();
    assert_eq!(body(yes).await["state"], "APPROVED");
    app.stop().await;
}

#[tokio::test]
async fn a_replaced_rule_module_decides_registrations() {
    // Arrange: the test rule approves the handles its deployment configuration names, rejects others.
    let app = spawn_app_with(|config| {
        crate::support::marketplace::rank_with_probe(config, json!({}));
    })
    .await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let olga = app.grant_operator(&app.sign_up("olga").await).await;
    let space_id = listed_space(&app, &ann, &olga, "garden", "APPROVAL").await;
    saved(&app, &ann, &space_id, json!({"rules": {"approveHandles": ["bob"]}})).await;
    // Act
    let bobs = registered(&app, &bob, &space_id, json!({}), StatusCode::CREATED).await;
    // Assert
    assert_eq!(bobs["state"], "APPROVED");
    app.stop().await;
}

#[tokio::test]
async fn pending_registrations_are_bounded_per_space_and_per_user() {
    // Arrange
    let app = spawn_app_with(|config| {
        config.marketplace.max_pending_registrations_per_space = 2;
        config.marketplace.max_pending_registrations_per_user = 1;
    })
    .await;
    let ann = app.sign_up("ann").await;
    let olga = app.grant_operator(&app.sign_up("olga").await).await;
    let garden = listed_space(&app, &ann, &olga, "garden", "APPROVAL").await;
    let pond = listed_space(&app, &ann, &olga, "pond", "APPROVAL").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let dan = app.sign_up("dan").await;
    // Act + Assert
    registered(&app, &bob, &garden, json!({}), StatusCode::CREATED).await;
    assert_error(register(&app, &bob, &pond, json!({})).await, StatusCode::CONFLICT, "CONFLICT").await;
    registered(&app, &cat, &garden, json!({}), StatusCode::CREATED).await;
    assert_error(register(&app, &dan, &garden, json!({})).await, StatusCode::CONFLICT, "CONFLICT").await;
    // Pending ones still answer themselves.
    registered(&app, &bob, &garden, json!({}), StatusCode::OK).await;
    app.stop().await;
}
