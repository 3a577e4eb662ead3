//! The listing preparation and the operator's decisions.

use reqwest::{Method, StatusCode};
use serde_json::json;
use trellis_tests::{assert_error, body, detail_paths, spawn_app};

use crate::support::marketplace::{decide, listed_space, put_settings, saved, settings_path, system_subjects};
use crate::support::spaces::{add_member, created_space, id};

#[tokio::test]
async fn a_listing_goes_from_draft_through_rejection_to_listed() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let olga = app.sign_up("olga").await;
    let space_id = id(&created_space(&app, &ann, "garden").await);
    let listing_path = format!("/v0/marketplace/listings/{space_id}");

    // A fresh space answers a DRAFT prefilled from the space.
    let fresh = body(app.get_authed(&settings_path(&space_id), &ann.token).await).await;
    assert_eq!(fresh["state"], "DRAFT");
    assert_eq!(fresh["title"], "Space garden");
    assert_eq!(fresh["membership"], "APPROVAL");
    assert_eq!(fresh["listed"], false);

    // Saved without submitting: still DRAFT, not listed.
    let draft =
        saved(&app, &ann, &space_id, json!({"title": "Garden", "summary": "Roses", "categories": ["Plants"]})).await;
    assert_eq!((draft["state"].as_str(), draft["title"].as_str()), (Some("DRAFT"), Some("Garden")));
    assert_error(app.request(Method::GET, &listing_path).send().await.unwrap(), StatusCode::NOT_FOUND, "NOT_FOUND")
        .await;

    // Submitted: the operator's queue holds it; anybody else is refused.
    assert_eq!(saved(&app, &ann, &space_id, json!({"submit": true})).await["state"], "SUBMITTED");
    let queue_path = "/v0/admin/marketplace/listings?states=SUBMITTED";
    assert_error(app.get_authed(queue_path, &olga.token).await, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    assert_error(
        app.request(Method::GET, queue_path).send().await.unwrap(),
        StatusCode::UNAUTHORIZED,
        "UNAUTHENTICATED",
    )
    .await;
    assert_error(decide(&app, &olga, &space_id, json!({"approved": "YES"})).await, StatusCode::FORBIDDEN, "FORBIDDEN")
        .await;
    let olga = app.grant_operator(&olga).await;
    let queue = body(app.get_authed(queue_path, &olga.token).await).await;
    assert_eq!(queue["items"].as_array().unwrap().len(), 1, "{queue}");
    assert_eq!(queue["items"][0]["spaceId"], space_id.as_str());
    assert_eq!(queue["items"][0]["ownerHandle"], "ann");
    assert_eq!(queue["items"][0]["title"], "Garden");

    // A rejection must give a reason; then the owner is told.
    let no_reason = assert_error(
        decide(&app, &olga, &space_id, json!({"approved": "NO"})).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert_eq!(detail_paths(&no_reason), ["/reason"]);
    let rejected =
        decide(&app, &olga, &space_id, json!({"approved": "NO", "reason": "Say more about the roses"})).await;
    assert_eq!(rejected.status(), StatusCode::OK);
    let rejected = body(rejected).await;
    assert_eq!((rejected["state"].as_str(), rejected["listed"].as_bool()), (Some("REJECTED"), Some(false)));
    let settings = body(app.get_authed(&settings_path(&space_id), &ann.token).await).await;
    assert_eq!(settings["reason"], "Say more about the roses");
    assert_eq!(system_subjects(&app, &ann).await, ["Your marketplace listing \"Garden\" was not approved"]);
    assert_error(
        decide(&app, &olga, &space_id, json!({"approved": "YES"})).await,
        StatusCode::CONFLICT,
        "INVALID_TRANSITION",
    )
    .await;

    // Resubmitted and approved: listed, for anybody with a license.
    saved(&app, &ann, &space_id, json!({"summary": "Roses and tulips", "submit": true})).await;
    let approved = body(decide(&app, &olga, &space_id, json!({"approved": "YES"})).await).await;
    assert_eq!((approved["state"].as_str(), approved["listed"].as_bool()), (Some("APPROVED"), Some(true)));
    let listing = app.request(Method::GET, &listing_path).send().await.unwrap();
    assert_eq!(listing.status(), StatusCode::OK);
    let listing = body(listing).await;
    assert_eq!(listing["title"], "Garden");
    assert_eq!(listing["summary"], "Roses and tulips");
    assert_eq!(listing["categories"], json!(["Plants"]));
    assert_eq!(listing["members"], 1);
    assert_eq!(system_subjects(&app, &ann).await[0], "Your marketplace listing \"Garden\" is approved");
    // Nothing private in the public listing.
    let text = listing.to_string();
    assert!(!text.contains("@example.org") && !text.contains(&ann.user_id) && !text.contains("ann"), "{text}");
    app.stop().await;
}

#[tokio::test]
async fn a_changed_text_goes_back_through_approval_while_the_approved_text_stays_listed() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let olga = app.grant_operator(&app.sign_up("olga").await).await;
    let space_id = listed_space(&app, &ann, &olga, "garden", "APPROVAL").await;
    let listing_path = format!("/v0/marketplace/listings/{space_id}");
    // Act: the membership policy alone changes at once, without approval.
    let open = saved(&app, &ann, &space_id, json!({"membership": "OPEN"})).await;
    assert_eq!(open["state"], "APPROVED");
    assert_eq!(body(app.request(Method::GET, &listing_path).send().await.unwrap()).await["membership"], "OPEN");
    // A new title needs approval again: DRAFT, and the approved one stays listed.
    let changed = saved(&app, &ann, &space_id, json!({"title": "Rose garden"})).await;
    assert_eq!((changed["state"].as_str(), changed["listed"].as_bool()), (Some("DRAFT"), Some(true)));
    assert_eq!(body(app.request(Method::GET, &listing_path).send().await.unwrap()).await["title"], "The garden");
    saved(&app, &ann, &space_id, json!({"submit": true})).await;
    // A rejection of the change keeps the listing as approved before.
    decide(&app, &olga, &space_id, json!({"approved": "NO", "reason": "no"})).await;
    assert_eq!(body(app.request(Method::GET, &listing_path).send().await.unwrap()).await["title"], "The garden");
    saved(&app, &ann, &space_id, json!({"submit": true})).await;
    decide(&app, &olga, &space_id, json!({"approved": "YES"})).await;
    // Assert
    assert_eq!(body(app.request(Method::GET, &listing_path).send().await.unwrap()).await["title"], "Rose garden");
    app.stop().await;
}

#[tokio::test]
async fn every_settings_problem_is_listed_and_nothing_is_saved() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let space_id = id(&created_space(&app, &ann, "garden").await);
    let bad = json!({"title": "x".repeat(101), "categories": ["a", "A"], "membership": "SOMETIMES",
        "rules": {"approveHandles": "bob"}, "state": "APPROVED", "colour": 1});
    // Act
    let error = assert_error(
        put_settings(&app, &ann.token, &space_id, &bad).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    // Assert
    let mut paths = detail_paths(&error);
    paths.sort();
    assert_eq!(
        paths,
        ["/categories/1", "/colour", "/membership", "/rules/approveHandles", "/state", "/title"],
        "{error}"
    );
    // The rules are checked against the rule module's schema.
    let rules = assert_error(
        put_settings(&app, &ann.token, &space_id, &json!({"rules": {"approveHandles": "bob", "other": 1}})).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert!(detail_paths(&rules).iter().all(|p| p.starts_with("/rules")), "{rules}");
    // A submission needs a title and a summary.
    let empty = assert_error(
        put_settings(&app, &ann.token, &space_id, &json!({"title": "", "summary": "", "submit": true})).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert_eq!(detail_paths(&empty), ["/title", "/summary"]);
    let unchanged = body(app.get_authed(&settings_path(&space_id), &ann.token).await).await;
    assert_eq!((unchanged["state"].as_str(), unchanged["title"].as_str()), (Some("DRAFT"), Some("Space garden")));
    assert!(unchanged["updatedAt"].is_null(), "{unchanged}");
    app.stop().await;
}

#[tokio::test]
async fn only_the_owner_reads_and_changes_the_settings() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let eve = app.sign_up("eve").await;
    let space_id = id(&created_space(&app, &ann, "garden").await);
    add_member(&app, &space_id, &bob).await;
    let change = json!({"title": "Mine now"});
    // Act + Assert: a member is refused, a stranger does not see the space.
    assert_error(app.get_authed(&settings_path(&space_id), &bob.token).await, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    assert_error(put_settings(&app, &bob.token, &space_id, &change).await, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    assert_error(app.get_authed(&settings_path(&space_id), &eve.token).await, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(put_settings(&app, &eve.token, &space_id, &change).await, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    // The same for the registrations awaiting the owner.
    let pending = crate::support::marketplace::pending_path(&space_id);
    assert_error(app.get_authed(&pending, &bob.token).await, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    assert_error(app.get_authed(&pending, &eve.token).await, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    let decision = json!({"registrationId": uuid::Uuid::new_v4(), "approved": "YES"});
    let by_eve = app.authed(Method::POST, &pending, &eve.token).json(&decision).send().await.unwrap();
    assert_error(by_eve, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    let unknown = uuid::Uuid::new_v4();
    assert_error(
        app.get_authed(&settings_path(&unknown.to_string()), &ann.token).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    assert_eq!(body(app.get_authed(&settings_path(&space_id), &ann.token).await).await["title"], "Space garden");
    // Deciding a space without a listing, or an unknown one, is 404 even for the operator.
    let olga = app.grant_operator(&app.sign_up("olga").await).await;
    assert_error(decide(&app, &olga, &space_id, json!({"approved": "YES"})).await, StatusCode::NOT_FOUND, "NOT_FOUND")
        .await;
    assert_error(decide(&app, &olga, "nope", json!({"approved": "YES"})).await, StatusCode::NOT_FOUND, "NOT_FOUND")
        .await;
    app.stop().await;
}

#[tokio::test]
async fn the_operators_queue_filters_by_state_and_pages() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let olga = app.grant_operator(&app.sign_up("olga").await).await;
    let mut submitted = Vec::new();
    for name in ["one", "two", "three"] {
        let space_id = id(&created_space(&app, &ann, name).await);
        saved(&app, &ann, &space_id, json!({"title": name, "summary": "s", "submit": true})).await;
        submitted.push(space_id);
    }
    let draft = id(&created_space(&app, &ann, "draft").await);
    saved(&app, &ann, &draft, json!({"title": "draft"})).await;
    // Act
    let first =
        body(app.get_authed("/v0/admin/marketplace/listings?states=SUBMITTED&limit=2", &olga.token).await).await;
    let cursor = first["nextCursor"].as_str().expect("a second page").to_owned();
    let second = body(
        app.get_authed(
            &format!("/v0/admin/marketplace/listings?states=SUBMITTED&limit=2&cursor={cursor}"),
            &olga.token,
        )
        .await,
    )
    .await;
    let all = body(app.get_authed("/v0/admin/marketplace/listings", &olga.token).await).await;
    // Assert: newest change first, only SUBMITTED ones in the queue.
    let ids = |page: &serde_json::Value| -> Vec<String> {
        page["items"].as_array().unwrap().iter().map(|l| l["spaceId"].as_str().unwrap().to_owned()).collect()
    };
    let mut queue = ids(&first);
    queue.extend(ids(&second));
    submitted.reverse();
    assert_eq!(queue, submitted);
    assert!(second["nextCursor"].is_null());
    assert_eq!(all["items"].as_array().unwrap().len(), 4);
    let bad = assert_error(
        app.get_authed("/v0/admin/marketplace/listings?states=LIVE", &olga.token).await,
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    assert_eq!(detail_paths(&bad), ["query.states"]);
    app.stop().await;
}

#[tokio::test]
async fn the_openapi_document_describes_every_marketplace_route() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let document = body(app.request(Method::GET, "/v0/openapi.json").send().await.unwrap()).await;
    // Assert
    for (method, path) in [
        ("get", "/v0/spaces/{spaceId}/settings/marketplace"),
        ("put", "/v0/spaces/{spaceId}/settings/marketplace"),
        ("get", "/v0/spaces/{spaceId}/users/pending"),
        ("post", "/v0/spaces/{spaceId}/users/pending"),
        ("get", "/v0/marketplace/trending"),
        ("get", "/v0/marketplace/listings/{spaceId}"),
        ("post", "/v0/marketplace/listings/{spaceId}/registration"),
        ("get", "/v0/admin/marketplace/listings"),
        ("post", "/v0/admin/marketplace/listings/{spaceId}/decision"),
    ] {
        let operation = &document["paths"][path][method];
        assert!(operation.is_object(), "{method} {path} is not documented");
        assert!(
            operation["responses"]["200"].is_object() || operation["responses"]["201"].is_object(),
            "{method} {path}"
        );
    }
    app.stop().await;
}
