//! Form configuration routes: validate versus create, ids, updates and their permissions,
//! archiving, visibility, the list and its filters, and the published JSON Schema.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{assert_error, body, spawn_app};

use crate::support::forms::{
    archive, create_config, created_config, created_wrapper, expected, get_config, get_ok, list_ids, new_id,
    next_millisecond, post_form, problems, put_config, sample, sample_config, sample_config_without_id, sample_payload,
    validate_config,
};

fn timestamp(value: &Value) -> time::OffsetDateTime {
    time::OffsetDateTime::parse(value.as_str().unwrap(), &time::format_description::well_known::Rfc3339).unwrap()
}

fn is_uuid_v4(text: &str) -> bool {
    uuid::Uuid::parse_str(text).is_ok_and(|id| id.get_version_num() == 4) && text.len() == 36
}

#[tokio::test]
async fn validate_answers_the_checked_document_and_stores_nothing() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let response = validate_config(&app, &ann.token, &json!({"config": sample_config()})).await;
    // Assert
    assert_eq!(response.status(), StatusCode::OK);
    let answer = body(response).await;
    assert_eq!(answer["valid"], true);
    assert_eq!(answer["id"], sample::CONFIG_ID);
    assert_eq!(answer["config"], sample_config());
    assert_error(get_config(&app, &ann.token, sample::CONFIG_ID).await, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    let list = get_ok(&app, &ann.token, "/v0/forms/configurations").await;
    assert_eq!(list["items"], json!([]));
    created_config(&app, &ann.token, sample_config()).await;
}

#[tokio::test]
async fn create_answers_201_with_the_stored_view_and_get_returns_the_same() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    // Act
    let response = create_config(&app, &ann.token, &json!({"config": sample_config()})).await;
    // Assert
    assert_eq!(response.status(), StatusCode::CREATED);
    let view = body(response).await;
    assert_eq!(view["id"], sample::CONFIG_ID);
    assert_eq!(view["state"], "ACTIVE");
    assert_eq!(view["config"], sample_config());
    assert_eq!(view["roles"], json!({"editors": []}));
    assert_eq!(view["ownerId"], ann.user_id.as_str());
    assert_eq!(view["revision"], 1);
    assert!(view["createdAt"].as_str().is_some_and(|at| at.ends_with('Z')), "{view}");
    assert_eq!(view["createdAt"], view["updatedAt"]);
    let path = format!("/v0/forms/configurations/{}", sample::CONFIG_ID);
    assert_eq!(get_ok(&app, &ann.token, &path).await, view);
    assert_eq!(get_ok(&app, &bob.token, &path).await, view, "ACTIVE configurations are readable by everyone");
}

#[tokio::test]
async fn without_any_id_the_server_assigns_a_uuid_v4_and_writes_it_into_the_document() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let validated = body(validate_config(&app, &ann.token, &json!({"config": sample_config_without_id()})).await).await;
    let view = created_config(&app, &ann.token, sample_config_without_id()).await;
    // Assert
    assert!(is_uuid_v4(validated["id"].as_str().unwrap()), "{}", validated["id"]);
    assert_eq!(validated["config"]["id"], validated["id"]);
    let id = view["id"].as_str().unwrap();
    assert!(is_uuid_v4(id), "{id}");
    assert_eq!(view["config"]["id"], id);
    assert_eq!(get_ok(&app, &ann.token, &format!("/v0/forms/configurations/{id}")).await["config"]["id"], id);
}

#[tokio::test]
async fn with_only_the_wrapper_id_that_id_is_used() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let id = new_id();
    // Act
    let view = created_wrapper(&app, &ann.token, json!({"id": id, "config": sample_config_without_id()})).await;
    // Assert
    assert_eq!(view["id"], id.as_str());
    assert_eq!(view["config"]["id"], id.as_str());
}

#[tokio::test]
async fn a_wrapper_id_that_disagrees_with_config_id_is_400_at_id_and_stores_nothing() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let wrapper = json!({"id": new_id(), "config": sample_config()});
    // Act
    let validated = validate_config(&app, &ann.token, &wrapper).await;
    let created = create_config(&app, &ann.token, &wrapper).await;
    // Assert
    for response in [validated, created] {
        let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
        assert_eq!(problems(&error), expected(&[("/id", "ID_MISMATCH")]));
    }
    assert_error(get_config(&app, &ann.token, sample::CONFIG_ID).await, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    let agreeing = json!({"id": sample::CONFIG_ID, "config": sample_config()});
    assert_eq!(created_wrapper(&app, &ann.token, agreeing).await["id"], sample::CONFIG_ID);
}

#[tokio::test]
async fn creating_a_configuration_with_a_taken_id_is_409_conflict() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    created_config(&app, &ann.token, sample_config()).await;
    // Act
    let again = create_config(&app, &ann.token, &json!({"config": sample_config()})).await;
    let by_other = create_config(&app, &bob.token, &json!({"id": sample::CONFIG_ID, "config": sample_config()})).await;
    // Assert
    assert_error(again, StatusCode::CONFLICT, "CONFLICT").await;
    assert_error(by_other, StatusCode::CONFLICT, "CONFLICT").await;
    let stored = get_ok(&app, &bob.token, &format!("/v0/forms/configurations/{}", sample::CONFIG_ID)).await;
    assert_eq!(stored["ownerId"], ann.user_id.as_str());
    assert_eq!(stored["revision"], 1);
}

#[tokio::test]
async fn configuration_routes_need_a_session() {
    // Arrange
    let app = spawn_app().await;
    let id = new_id();
    let requests = [
        app.request(Method::POST, "/v0/forms/configurations/validate").json(&json!({"config": sample_config()})),
        app.request(Method::POST, "/v0/forms/configurations").json(&json!({"config": sample_config()})),
        app.request(Method::PUT, &format!("/v0/forms/configurations/{id}")).json(&json!({"config": sample_config()})),
        app.request(Method::GET, &format!("/v0/forms/configurations/{id}")),
        app.request(Method::GET, "/v0/forms/configurations"),
    ];
    for request in requests {
        // Act
        let response = request.send().await.unwrap();
        // Assert
        assert_error(response, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    }
}

#[tokio::test]
async fn get_of_an_unknown_or_malformed_id_is_404() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    for id in [new_id(), "not-an-id".to_owned()] {
        // Act
        let response = get_config(&app, &ann.token, &id).await;
        // Assert
        assert_error(response, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    }
}

#[tokio::test]
async fn put_replaces_the_document_keeps_the_id_and_bumps_the_revision() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let created = created_config(&app, &ann.token, sample_config()).await;
    let mut changed = sample_config_without_id();
    changed["translations"]["en"]["details"]["title"] = json!("Membership application 2026");
    next_millisecond().await;
    // Act
    let response = put_config(&app, &ann.token, sample::CONFIG_ID, &json!({"config": changed})).await;
    // Assert
    assert_eq!(response.status(), StatusCode::OK);
    let view = body(response).await;
    assert_eq!(view["id"], sample::CONFIG_ID);
    assert_eq!(view["config"]["id"], sample::CONFIG_ID);
    assert_eq!(view["config"]["translations"]["en"]["details"]["title"], "Membership application 2026");
    assert_eq!(view["revision"], 2);
    assert_eq!(view["state"], "ACTIVE");
    assert_eq!(view["createdAt"], created["createdAt"]);
    assert!(timestamp(&view["updatedAt"]) > timestamp(&created["updatedAt"]), "{view}");
    assert_eq!(get_ok(&app, &ann.token, &format!("/v0/forms/configurations/{}", sample::CONFIG_ID)).await, view);
    let again = body(put_config(&app, &ann.token, sample::CONFIG_ID, &json!({"config": sample_config()})).await).await;
    assert_eq!(again["revision"], 3);
}

#[tokio::test]
async fn put_with_an_invalid_document_lists_its_problems_and_changes_nothing() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let mut broken = sample_config();
    broken["version"] = json!("3.0.0");
    broken["pages"][0]["fields"][0]["type"] = json!("number");
    // Act
    let response = put_config(&app, &ann.token, sample::CONFIG_ID, &json!({"config": broken})).await;
    // Assert
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(
        problems(&error),
        expected(&[("/config/pages/0/fields/0/type", "INVALID_VALUE"), ("/config/version", "UNSUPPORTED_VERSION")])
    );
    let stored = get_ok(&app, &ann.token, &format!("/v0/forms/configurations/{}", sample::CONFIG_ID)).await;
    assert_eq!(stored["revision"], 1);
}

#[tokio::test]
async fn put_with_an_id_other_than_the_path_is_400_at_that_id_beside_the_documents_problems() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let mut broken = sample_config_without_id();
    broken["version"] = json!("2.0.0");
    let mut other_inner = sample_config();
    other_inner["id"] = json!(new_id());
    // Act
    let wrapper_id = put_config(&app, &ann.token, sample::CONFIG_ID, &json!({"id": new_id(), "config": broken})).await;
    let inner_id = put_config(&app, &ann.token, sample::CONFIG_ID, &json!({"config": other_inner})).await;
    // Assert
    let error = assert_error(wrapper_id, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("/config/version", "UNSUPPORTED_VERSION"), ("/id", "ID_MISMATCH")]));
    let error = assert_error(inner_id, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("/config/id", "ID_MISMATCH")]));
    let stored = get_ok(&app, &ann.token, &format!("/v0/forms/configurations/{}", sample::CONFIG_ID)).await;
    assert_eq!(stored["revision"], 1);
}

#[tokio::test]
async fn put_of_an_unknown_configuration_is_404() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let response = put_config(&app, &ann.token, sample::CONFIG_ID, &json!({"config": sample_config()})).await;
    // Assert
    assert_error(response, StatusCode::NOT_FOUND, "NOT_FOUND").await;
}

#[tokio::test]
async fn put_by_a_user_who_is_neither_owner_nor_editor_is_403_forbidden() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    created_config(&app, &ann.token, sample_config()).await;
    // Act
    let response = put_config(&app, &bob.token, sample::CONFIG_ID, &json!({"config": sample_config()})).await;
    // Assert
    assert_error(response, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    let stored = get_ok(&app, &ann.token, &format!("/v0/forms/configurations/{}", sample::CONFIG_ID)).await;
    assert_eq!(stored["revision"], 1);
}

#[tokio::test]
async fn a_handle_named_in_roles_editors_may_update_and_the_roles_stay_when_not_sent() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let created =
        created_wrapper(&app, &ann.token, json!({"config": sample_config(), "roles": {"editors": ["bob"]}})).await;
    assert_eq!(created["roles"], json!({"editors": ["bob"]}));
    let mut changed = sample_config();
    changed["translations"]["en"]["details"]["title"] = json!("Edited by bob");
    // Act
    let by_editor = put_config(&app, &bob.token, sample::CONFIG_ID, &json!({"config": changed})).await;
    // Assert
    assert_eq!(by_editor.status(), StatusCode::OK);
    let view = body(by_editor).await;
    assert_eq!(view["revision"], 2);
    assert_eq!(view["ownerId"], ann.user_id.as_str());
    assert_eq!(view["roles"], json!({"editors": ["bob"]}));
    let by_other = put_config(&app, &cat.token, sample::CONFIG_ID, &json!({"config": sample_config()})).await;
    assert_error(by_other, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    // The owner hands the role to cat: bob may no longer update.
    let handed = put_config(
        &app,
        &ann.token,
        sample::CONFIG_ID,
        &json!({"config": sample_config(), "roles": {"editors": ["cat"]}}),
    )
    .await;
    assert_eq!(body(handed).await["roles"], json!({"editors": ["cat"]}));
    let by_former = put_config(&app, &bob.token, sample::CONFIG_ID, &json!({"config": sample_config()})).await;
    assert_error(by_former, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    let by_new = put_config(&app, &cat.token, sample::CONFIG_ID, &json!({"config": sample_config()})).await;
    assert_eq!(by_new.status(), StatusCode::OK);
    let view = body(by_new).await;
    assert_eq!(view["revision"], 4);
    assert_eq!(view["roles"], json!({"editors": ["cat"]}), "the roles stay when not sent");
}

#[tokio::test]
async fn an_editor_handle_of_no_user_is_400_at_its_path() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    app.sign_up("bob").await;
    let wrapper = json!({"config": sample_config(), "roles": {"editors": ["bob", "nobody_here", "Not A Handle"]}});
    // Act
    let created = create_config(&app, &ann.token, &wrapper).await;
    // Assert
    let error = assert_error(created, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    let paths: Vec<String> = problems(&error).into_iter().map(|(path, _)| path).collect();
    assert_eq!(paths, ["/roles/editors/1", "/roles/editors/2"]);
    assert_error(get_config(&app, &ann.token, sample::CONFIG_ID).await, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    created_config(&app, &ann.token, sample_config()).await;
    let put = put_config(
        &app,
        &ann.token,
        sample::CONFIG_ID,
        &json!({"config": sample_config(), "roles": {"editors": ["ghost"]}}),
    )
    .await;
    let error = assert_error(put, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("/roles/editors/0", "UNKNOWN_USER")]));
}

#[tokio::test]
async fn an_archived_configuration_accepts_no_new_instances_until_it_is_active_again() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let created = created_config(&app, &ann.token, sample_config()).await;
    // Act
    let archived = archive(&app, &ann.token, &created).await;
    let refused = post_form(&app, &ann.token, &sample_payload()).await;
    // Assert
    assert_eq!(archived["state"], "ARCHIVED");
    assert_eq!(archived["revision"], 2);
    assert_error(refused, StatusCode::CONFLICT, "CONFLICT").await;
    let reactivated =
        put_config(&app, &ann.token, sample::CONFIG_ID, &json!({"config": sample_config(), "state": "ACTIVE"})).await;
    assert_eq!(body(reactivated).await["state"], "ACTIVE");
    assert_eq!(post_form(&app, &ann.token, &sample_payload()).await.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn a_state_other_than_active_or_archived_is_400_at_state() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    // Act
    let response =
        put_config(&app, &ann.token, sample::CONFIG_ID, &json!({"config": sample_config(), "state": "DELETED"})).await;
    // Assert
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("/state", "INVALID_VALUE")]));
}

#[tokio::test]
async fn an_archived_configuration_is_visible_only_to_its_owner_and_editors() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let created =
        created_wrapper(&app, &ann.token, json!({"config": sample_config(), "roles": {"editors": ["bob"]}})).await;
    archive(&app, &ann.token, &created).await;
    let path = format!("/v0/forms/configurations/{}", sample::CONFIG_ID);
    // Act
    let by_stranger = app.get_authed(&path, &cat.token).await;
    // Assert
    assert_error(by_stranger, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_eq!(get_ok(&app, &ann.token, &path).await["state"], "ARCHIVED");
    assert_eq!(get_ok(&app, &bob.token, &path).await["state"], "ARCHIVED");
    let put_by_stranger = put_config(&app, &cat.token, sample::CONFIG_ID, &json!({"config": sample_config()})).await;
    assert_error(put_by_stranger, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    let form_by_stranger = post_form(&app, &cat.token, &sample_payload()).await;
    let error = assert_error(form_by_stranger, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error).into_iter().map(|(p, _)| p).collect::<Vec<_>>(), ["/payload/configurationId"]);
    let archived = "/v0/forms/configurations?states=ARCHIVED";
    assert_eq!(list_ids(&app, &ann.token, archived, "id").await, [sample::CONFIG_ID]);
    assert_eq!(list_ids(&app, &bob.token, archived, "id").await, [sample::CONFIG_ID]);
    assert!(list_ids(&app, &cat.token, archived, "id").await.is_empty());
    assert!(list_ids(&app, &cat.token, "/v0/forms/configurations", "id").await.is_empty());
}

#[tokio::test]
async fn an_archived_configuration_is_listed_only_for_an_editor_whose_handle_matches_exactly() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    app.sign_up("abc").await;
    let look_alike = app.sign_up("a_c").await;
    let created =
        created_wrapper(&app, &ann.token, json!({"config": sample_config(), "roles": {"editors": ["abc"]}})).await;
    archive(&app, &ann.token, &created).await;
    // Act
    let listed = list_ids(&app, &look_alike.token, "/v0/forms/configurations", "id").await;
    // Assert
    assert!(listed.is_empty(), "{listed:?}");
}

#[tokio::test]
async fn the_openapi_document_publishes_the_configuration_json_schema() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let response = app.request(Method::GET, "/v0/openapi.json").send().await.unwrap();
    // Assert
    assert_eq!(response.status(), StatusCode::OK);
    let document = body(response).await;
    let schema = &document["components"]["schemas"]["FormConfigurationDocument"];
    assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
    assert_eq!(schema["required"], json!(["version", "translations", "pages"]));
    // Its definitions are components of their own, which generators follow.
    assert_eq!(schema["properties"]["pages"]["items"]["$ref"], "#/components/schemas/FormConfigurationPage");
    assert_eq!(
        document["components"]["schemas"]["FormConfigurationField"]["properties"]["type"]["enum"],
        json!(["text", "textarea", "date", "dropdown", "file"])
    );
    for path in
        ["/v0/forms/configurations", "/v0/forms/configurations/validate", "/v0/forms/configurations/{configurationId}"]
    {
        assert!(document["paths"][path].is_object(), "{path} is documented");
    }
}
