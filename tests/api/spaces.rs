//! Spaces (`/v0/spaces`): creation, the member list, general settings, who may see and change
//! them, and form instances associated with a space.

use reqwest::{Method, StatusCode};
use serde_json::json;
use trellis_tests::{assert_error, body, spawn_app};

use crate::support::forms::{
    created_config, created_form, expected, get_ok, item_ids, list_ids, next_millisecond, post_form, problems,
    sample_config, sample_payload,
};
use crate::support::spaces::{add_member, created_space, id, patch_general, post_space};

#[tokio::test]
async fn create_space_answers_201_and_makes_the_creator_its_owner() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let response =
        post_space(&app, &ann.token, &json!({"name": "garden-club", "displayName": "Garden club", "summary": "Roses"}))
            .await;
    // Assert
    assert_eq!(response.status(), StatusCode::CREATED);
    let view = body(response).await;
    let space_id = id(&view);
    assert!(uuid::Uuid::parse_str(&space_id).is_ok_and(|u| u.get_version_num() == 4), "{view}");
    assert_eq!(view["name"], "garden-club");
    assert_eq!(view["displayName"], "Garden club");
    assert_eq!(view["summary"], "Roses");
    assert_eq!(view["role"], "owner");
    assert!(view["createdAt"].as_str().is_some_and(|t| t.ends_with('Z')), "{view}");
    let general = get_ok(&app, &ann.token, &format!("/v0/spaces/{space_id}/settings/general")).await;
    assert_eq!(general, view);
}

#[tokio::test]
async fn create_space_lists_every_problem_with_its_pointer() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bad =
        json!({"name": "Not A Slug", "displayName": "", "summary": "x".repeat(1001), "spaceId": "x", "colour": 1});
    // Act
    let response = post_space(&app, &ann.token, &bad).await;
    // Assert
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(
        problems(&error),
        expected(&[
            ("/colour", "UNKNOWN_FIELD"),
            ("/displayName", "REQUIRED"),
            ("/name", "INVALID_NAME"),
            ("/spaceId", "READ_ONLY"),
            ("/summary", "TOO_LONG"),
        ])
    );
    let missing = post_space(&app, &ann.token, &json!({"summary": 3})).await;
    let error = assert_error(missing, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(
        problems(&error),
        expected(&[("/displayName", "REQUIRED"), ("/name", "REQUIRED"), ("/summary", "INVALID_TYPE")])
    );
    assert_eq!(get_ok(&app, &ann.token, "/v0/spaces").await["items"], json!([]), "nothing was stored");
}

#[tokio::test]
async fn names_are_unique_on_create_and_on_rename() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    created_space(&app, &ann, "taken").await;
    let other = created_space(&app, &bob, "free").await;
    // Act
    let duplicate = post_space(&app, &bob.token, &json!({"name": "taken", "displayName": "Mine"})).await;
    let rename = patch_general(&app, &bob.token, &id(&other), &json!({"name": "taken"})).await;
    // Assert
    assert_error(duplicate, StatusCode::CONFLICT, "CONFLICT").await;
    assert_error(rename, StatusCode::CONFLICT, "CONFLICT").await;
    let kept = get_ok(&app, &bob.token, &format!("/v0/spaces/{}/settings/general", id(&other))).await;
    assert_eq!(kept["name"], "free", "the refused rename kept the name");
    assert_eq!(list_ids(&app, &bob.token, "/v0/spaces", "spaceId").await, [id(&other)], "no second space");
}

#[tokio::test]
async fn the_list_shows_the_callers_spaces_newest_first_in_pages() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let mut ids = Vec::new();
    for name in ["one", "two", "three"] {
        ids.push(id(&created_space(&app, &ann, name).await));
        next_millisecond().await;
    }
    let bobs = created_space(&app, &bob, "bobs").await;
    add_member(&app, &id(&bobs), &ann).await;
    // Act
    let first = get_ok(&app, &ann.token, "/v0/spaces?limit=3").await;
    let cursor = first["nextCursor"].as_str().unwrap().to_owned();
    let second = get_ok(&app, &ann.token, &format!("/v0/spaces?limit=3&cursor={cursor}")).await;
    // Assert
    assert_eq!(item_ids(&first, "spaceId"), [id(&bobs), ids[2].clone(), ids[1].clone()]);
    assert_eq!(first["items"][0]["role"], "member");
    assert_eq!(first["items"][1]["role"], "owner");
    assert_eq!(item_ids(&second, "spaceId"), [ids[0].clone()]);
    assert_eq!(second["nextCursor"], json!(null));
    assert_eq!(list_ids(&app, &bob.token, "/v0/spaces", "spaceId").await, [id(&bobs)]);
    let bad = app.get_authed("/v0/spaces?limit=0&cursor=zz", &ann.token).await;
    let error = assert_error(bad, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("query.cursor", "INVALID_CURSOR"), ("query.limit", "OUT_OF_RANGE")]));
}

#[tokio::test]
async fn the_owner_changes_the_general_settings_and_members_read_them() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let space = created_space(&app, &ann, "garden").await;
    let space_id = id(&space);
    add_member(&app, &space_id, &bob).await;
    let path = format!("/v0/spaces/{space_id}/settings/general");
    // Act
    let changed =
        patch_general(&app, &ann.token, &space_id, &json!({"displayName": "The garden", "summary": "Weeds"})).await;
    // Assert
    assert_eq!(changed.status(), StatusCode::OK);
    let changed = body(changed).await;
    assert_eq!(changed["name"], "garden", "unsent settings stay");
    assert_eq!(changed["displayName"], "The garden");
    assert_eq!(changed["summary"], "Weeds");
    let seen = get_ok(&app, &bob.token, &path).await;
    assert_eq!(seen["displayName"], "The garden");
    assert_eq!(seen["role"], "member");
    let renamed = patch_general(&app, &ann.token, &space_id, &json!({"name": "garden-2", "summary": null})).await;
    assert_eq!(renamed.status(), StatusCode::OK);
    let renamed = body(renamed).await;
    assert_eq!((renamed["name"].clone(), renamed["summary"].clone()), (json!("garden-2"), json!("")));
}

#[tokio::test]
async fn a_member_may_not_change_settings_and_a_stranger_sees_no_space() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let space_id = id(&created_space(&app, &ann, "garden").await);
    add_member(&app, &space_id, &bob).await;
    let path = format!("/v0/spaces/{space_id}/settings/general");
    let change = json!({"displayName": "Mine now"});
    // Act
    let by_member = patch_general(&app, &bob.token, &space_id, &change).await;
    let stranger_read = app.get_authed(&path, &cat.token).await;
    let stranger_patch = patch_general(&app, &cat.token, &space_id, &change).await;
    let unknown = app.get_authed(&format!("/v0/spaces/{}/settings/general", uuid::Uuid::new_v4()), &ann.token).await;
    let not_an_id = app.get_authed("/v0/spaces/garden/settings/general", &ann.token).await;
    let anonymous = app.request(Method::GET, &path).send().await.unwrap();
    // Assert
    assert_error(by_member, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    assert_error(stranger_read, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(stranger_patch, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(unknown, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(not_an_id, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(anonymous, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    assert_eq!(get_ok(&app, &ann.token, &path).await["displayName"], "Space garden", "nothing changed");
    assert_eq!(list_ids(&app, &cat.token, "/v0/spaces", "spaceId").await, Vec::<String>::new());
}

#[tokio::test]
async fn a_settings_patch_lists_every_problem() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let space_id = id(&created_space(&app, &ann, "garden").await);
    // Act
    let response = patch_general(
        &app,
        &ann.token,
        &space_id,
        &json!({"name": "ab", "displayName": "x".repeat(101), "role": "member", "createdAt": "now"}),
    )
    .await;
    // Assert
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(
        problems(&error),
        expected(&[
            ("/createdAt", "READ_ONLY"),
            ("/displayName", "TOO_LONG"),
            ("/name", "INVALID_NAME"),
            ("/role", "READ_ONLY")
        ])
    );
}

/// The sample instance body associated with `space_id`.
fn payload_in_space(space_id: &str) -> serde_json::Value {
    let mut wrapper = sample_payload();
    wrapper["payload"]["integrations"] = json!({"spaceId": space_id});
    wrapper
}

#[tokio::test]
async fn members_associate_form_instances_with_their_spaces_and_filter_by_them() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    created_config(&app, &ann.token, sample_config()).await;
    let owned = id(&created_space(&app, &ann, "anns").await);
    let joined = id(&created_space(&app, &bob, "bobs").await);
    add_member(&app, &joined, &ann).await;
    // Act
    let in_owned = created_form(&app, &ann.token, &payload_in_space(&owned)).await;
    let in_joined = created_form(&app, &ann.token, &payload_in_space(&joined)).await;
    let outside = created_form(&app, &ann.token, &sample_payload()).await;
    // Assert
    assert_eq!(in_owned["integrations"]["spaceId"], owned.as_str());
    assert_eq!(in_joined["integrations"]["spaceId"], joined.as_str());
    let filtered = list_ids(&app, &ann.token, &format!("/v0/forms?spaceId={owned}"), "formId").await;
    assert_eq!(filtered, [in_owned["formId"].as_str().unwrap()]);
    let listed = get_ok(&app, &ann.token, &format!("/v0/forms?spaceId={joined}")).await;
    assert_eq!(item_ids(&listed, "formId"), [in_joined["formId"].as_str().unwrap()]);
    assert_eq!(listed["items"][0]["spaceId"], joined.as_str());
    assert_eq!(list_ids(&app, &ann.token, "/v0/forms", "formId").await.len(), 3);
    assert!(outside["integrations"].get("spaceId").is_none());
}

#[tokio::test]
async fn a_space_the_caller_is_not_a_member_of_is_refused_as_unknown() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    created_config(&app, &ann.token, sample_config()).await;
    let foreign = id(&created_space(&app, &bob, "bobs").await);
    let form = created_form(&app, &ann.token, &sample_payload()).await;
    let form_id = form["formId"].as_str().unwrap();
    // Act
    let on_create = post_form(&app, &ann.token, &payload_in_space(&foreign)).await;
    let on_patch = app
        .authed(Method::PATCH, &format!("/v0/forms/{form_id}"), &ann.token)
        .json(&json!({"payload": {"integrations": {"spaceId": uuid::Uuid::new_v4()}}}))
        .send()
        .await
        .unwrap();
    // Assert
    for response in [on_create, on_patch] {
        let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
        assert_eq!(problems(&error), expected(&[("/payload/integrations/spaceId", "UNKNOWN_SPACE")]));
    }
    assert_eq!(list_ids(&app, &ann.token, "/v0/forms", "formId").await, [form_id]);
}

#[tokio::test]
async fn a_user_owns_at_most_a_thousand_spaces() {
    // Arrange: 1,000 spaces, twenty requests at a time.
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    for chunk in (0..1000).collect::<Vec<_>>().chunks(20) {
        let bodies: Vec<_> = chunk.iter().map(|n| json!({"name": format!("space-{n}"), "displayName": "S"})).collect();
        let created = futures::future::join_all(bodies.iter().map(|b| post_space(&app, &ann.token, b))).await;
        assert!(created.iter().all(|r| r.status() == StatusCode::CREATED));
    }
    // Act
    let refused = post_space(&app, &ann.token, &json!({"name": "one-more", "displayName": "S"})).await;
    let others = post_space(&app, &bob.token, &json!({"name": "bobs", "displayName": "S"})).await;
    // Assert: refused with nothing written; another user is not affected.
    assert_error(refused, StatusCode::CONFLICT, "CONFLICT").await;
    assert_eq!(others.status(), StatusCode::CREATED);
    let taken = post_space(&app, &bob.token, &json!({"name": "one-more", "displayName": "S"})).await;
    assert_eq!(taken.status(), StatusCode::CREATED, "the refused name was not taken");
    app.stop().await;
}
