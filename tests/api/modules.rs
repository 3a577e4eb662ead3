//! Modules (`/v0/modules`, `/v0/spaces/{spaceId}/modules`): the catalogue, connecting modules to a
//! space with validated configurations, and the Tags module tagging the space's form instances and
//! answering its routes only while connected.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{assert_error, body, spawn_app, spawn_app_with};

use crate::support::forms::{created_config, created_form, expected, get_ok, patched_form, problems, sample_config};
use crate::support::modules::{
    connect, counts_path, enable_word_count, module_call, put_modules, tagged_payload, wait_until,
};
use crate::support::spaces::{add_member, created_space, id};

#[tokio::test]
async fn the_catalogue_lists_the_enabled_modules_with_their_schemas() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let catalogue = get_ok(&app, &ann.token, "/v0/modules").await;
    // Assert
    let modules = catalogue["items"].as_array().unwrap();
    assert_eq!(modules.len(), 3, "{catalogue}");
    assert_eq!(catalogue["nextCursor"], Value::Null, "{catalogue}");
    let tags = &modules[0];
    assert_eq!((tags["id"].as_str(), tags["kind"].as_str()), (Some("tags"), Some("space")));
    assert_eq!(tags["name"], "Tags");
    assert!(tags["version"].as_str().is_some_and(|v| v.split('.').count() == 3), "{tags}");
    assert_eq!(tags["configSchema"]["type"], "object");
    assert!(tags["permissions"].as_array().unwrap().contains(&json!("key-value")), "{tags}");
    // The bundled marketplace rule, with the schema of the owners' registration rules.
    let rule = &modules[1];
    assert_eq!((rule["id"].as_str(), rule["kind"].as_str()), (Some("marketplace-default"), Some("marketplace-rule")));
    assert!(rule["configSchema"]["properties"]["approveHandles"].is_object(), "{rule}");
    // The bundled analysis step, asking for the inference capabilities.
    let step = &modules[2];
    assert_eq!((step["id"].as_str(), step["kind"].as_str()), (Some("analysis-default"), Some("analysis-step")));
    for capability in ["media-decode", "vision", "speech"] {
        assert!(step["permissions"].as_array().unwrap().contains(&json!(capability)), "{step}");
    }
    let anonymous = app.request(Method::GET, "/v0/modules").send().await.unwrap();
    assert_error(anonymous, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
}

#[tokio::test]
async fn the_catalogue_pages_like_every_list_route() {
    // Arrange
    let app = spawn_app_with(enable_word_count).await;
    let ann = app.sign_up("ann").await;
    // Act
    let first = get_ok(&app, &ann.token, "/v0/modules?limit=1").await;
    let cursor = first["nextCursor"].as_str().expect("a second page").to_owned();
    let second = get_ok(&app, &ann.token, &format!("/v0/modules?limit=2&cursor={cursor}")).await;
    let bad_limit = app.authed(Method::GET, "/v0/modules?limit=0", &ann.token).send().await.unwrap();
    // Assert
    assert_eq!(first["items"][0]["id"], "tags", "{first}");
    assert_eq!(second["items"][0]["id"], "marketplace-default", "{second}");
    assert_eq!(second["items"][1]["id"], "analysis-default", "{second}");
    assert_eq!(second["items"].as_array().unwrap().len(), 2);
    let cursor = second["nextCursor"].as_str().expect("a third page").to_owned();
    let third = get_ok(&app, &ann.token, &format!("/v0/modules?limit=2&cursor={cursor}")).await;
    assert_eq!(third["items"][0]["id"], "word-count", "{third}");
    assert_eq!(third["nextCursor"], Value::Null);
    let refused = assert_error(bad_limit, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&refused), expected(&[("query.limit", "OUT_OF_RANGE")]));
}

#[tokio::test]
async fn tags_connected_to_a_space_tags_its_instances_on_create_and_on_update() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    created_config(&app, &ann.token, sample_config()).await;
    let space_id = id(&created_space(&app, &ann, "garden").await);
    add_member(&app, &space_id, &bob).await;
    let connected = connect(&app, &ann, &space_id, json!([{"moduleId": "tags", "config": {"maxPerItem": 5}}])).await;
    assert_eq!(connected, json!({"modules": [{"moduleId": "tags", "config": {"maxPerItem": 5}}]}));
    // Act
    let form = created_form(&app, &ann.token, &tagged_payload(&space_id, "Red, blue ,red")).await;
    let form_id = form["formId"].as_str().unwrap();
    // Assert
    let counts = wait_until(&app, &bob.token, &counts_path(&space_id), |b| b["counts"] != json!({})).await;
    assert_eq!(counts, json!({"counts": {"blue": 1, "red": 1}}));
    // Act
    patched_form(&app, &ann.token, form_id, &json!({"payload": {"metadata": {"tags": "Green"}}})).await;
    // Assert
    let counts = wait_until(&app, &bob.token, &counts_path(&space_id), |b| b["counts"].get("green").is_some()).await;
    assert_eq!(counts, json!({"counts": {"green": 1}}));
    let base = format!("/v0/spaces/{space_id}/modules/tags");
    let items = get_ok(&app, &bob.token, &format!("{base}/tags/green/items")).await;
    assert_eq!(items, json!({"items": [form_id], "nextCursor": null}));
    let item = get_ok(&app, &ann.token, &format!("{base}/items/{form_id}/tags")).await;
    assert_eq!(item, json!({"itemId": form_id, "tags": ["green"]}));
    assert_eq!(get_ok(&app, &bob.token, &format!("/v0/spaces/{space_id}/modules")).await, connected);
}

#[tokio::test]
async fn members_add_and_remove_tags_through_the_module_routes() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let space_id = id(&created_space(&app, &ann, "garden").await);
    add_member(&app, &space_id, &bob).await;
    connect(&app, &ann, &space_id, json!([{"moduleId": "tags", "config": {"vocabulary": ["ok", "fine"]}}])).await;
    let item_path = format!("/v0/spaces/{space_id}/modules/tags/items/item-1/tags");
    // Act
    let added =
        app.authed(Method::POST, &item_path, &bob.token).json(&json!({"tags": ["OK", "Fine"]})).send().await.unwrap();
    let refused =
        app.authed(Method::POST, &item_path, &bob.token).json(&json!({"tags": ["bad", " "]})).send().await.unwrap();
    let removed = module_call(&app, &bob.token, Method::DELETE, &space_id, "/tags/items/item-1/tags/fine").await;
    // Assert
    assert_eq!(added.status(), StatusCode::OK);
    assert_eq!(body(added).await, json!({"itemId": "item-1", "tags": ["ok", "fine"]}));
    let error = assert_error(refused, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(error["numeric"], 800);
    assert_eq!(problems(&error), expected(&[("/tags/0", "NOT_IN_VOCABULARY"), ("/tags/1", "EMPTY_TAG")]));
    assert_eq!(body(removed).await, json!({"itemId": "item-1", "tags": ["ok"]}));
    assert_eq!(get_ok(&app, &ann.token, &counts_path(&space_id)).await, json!({"counts": {"ok": 1}}));
    let unknown = module_call(&app, &bob.token, Method::GET, &space_id, "/tags/nowhere").await;
    assert_error(unknown, StatusCode::NOT_FOUND, "NOT_FOUND").await;
}

#[tokio::test]
async fn module_routes_are_for_members_of_spaces_the_module_is_connected_to() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let cat = app.sign_up("cat").await;
    let connected = id(&created_space(&app, &ann, "connected").await);
    let bare = id(&created_space(&app, &ann, "bare").await);
    connect(&app, &ann, &connected, json!([{"moduleId": "tags"}])).await;
    // Act
    let stranger = app.get_authed(&counts_path(&connected), &cat.token).await;
    let not_connected = app.get_authed(&counts_path(&bare), &ann.token).await;
    let not_enabled = module_call(&app, &ann.token, Method::GET, &connected, "/word-count/stats").await;
    let anonymous = app.request(Method::GET, &counts_path(&connected)).send().await.unwrap();
    let too_large = app
        .authed(Method::POST, &format!("/v0/spaces/{connected}/modules/tags/items/i/tags"), &ann.token)
        .body(vec![b' '; 1024 * 1024 + 1])
        .send()
        .await
        .unwrap();
    // Assert
    assert_error(stranger, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(not_connected, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(not_enabled, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(anonymous, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    assert_error(too_large, StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE").await;
    let stranger_list = app.get_authed(&format!("/v0/spaces/{connected}/modules"), &cat.token).await;
    assert_error(stranger_list, StatusCode::NOT_FOUND, "NOT_FOUND").await;
}

#[tokio::test]
async fn a_disconnected_module_receives_no_events_and_its_routes_answer_404() {
    // Arrange: word-count stays connected throughout, so once it has seen an event the space's
    // queue has handled that event for every module.
    let app = spawn_app_with(enable_word_count).await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let space_id = id(&created_space(&app, &ann, "garden").await);
    let both = json!([{"moduleId": "tags"}, {"moduleId": "word-count"}]);
    connect(&app, &ann, &space_id, both.clone()).await;
    created_form(&app, &ann.token, &tagged_payload(&space_id, "before")).await;
    wait_until(&app, &ann.token, &counts_path(&space_id), |b| b["counts"] == json!({"before": 1})).await;
    // Act
    connect(&app, &ann, &space_id, json!([{"moduleId": "word-count"}])).await;
    let disconnected = app.get_authed(&counts_path(&space_id), &ann.token).await;
    created_form(&app, &ann.token, &tagged_payload(&space_id, "after")).await;
    let stats = format!("/v0/spaces/{space_id}/modules/word-count/stats");
    wait_until(&app, &ann.token, &stats, |b| b["items"] == 2).await;
    connect(&app, &ann, &space_id, both).await;
    // Assert
    assert_error(disconnected, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    let counts = get_ok(&app, &ann.token, &counts_path(&space_id)).await;
    assert_eq!(counts, json!({"counts": {"before": 1}}), "the event of the disconnected time never arrived");
    connect(&app, &ann, &space_id, json!([])).await;
    assert_eq!(get_ok(&app, &ann.token, &format!("/v0/spaces/{space_id}/modules")).await, json!({"modules": []}));
}

#[tokio::test]
async fn configuration_problems_are_listed_with_their_paths() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let space_id = id(&created_space(&app, &ann, "garden").await);
    let modules = json!([
        {"moduleId": "tags", "config": {"maxPerItem": 0, "normalise": {"case": "upper", "maxLength": "x"}, "colour": 1}},
        {"moduleId": "nope"},
        {"moduleId": "tags"},
        {"config": {}},
        {"moduleId": "tags", "settings": {}},
    ]);
    // Act
    let response = put_modules(&app, &ann.token, &space_id, modules).await;
    // Assert
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(
        problems(&error),
        expected(&[
            ("/modules/0/config", "INVALID_CONFIG"),
            ("/modules/0/config/maxPerItem", "INVALID_CONFIG"),
            ("/modules/0/config/normalise/case", "INVALID_CONFIG"),
            ("/modules/0/config/normalise/maxLength", "INVALID_CONFIG"),
            ("/modules/1/moduleId", "UNKNOWN_MODULE"),
            ("/modules/2/moduleId", "DUPLICATE_MODULE"),
            ("/modules/3/moduleId", "REQUIRED"),
            ("/modules/4/moduleId", "DUPLICATE_MODULE"),
            ("/modules/4/settings", "UNKNOWN_FIELD"),
        ])
    );
    let not_a_list = app
        .authed(Method::PUT, &format!("/v0/spaces/{space_id}/modules"), &ann.token)
        .json(&json!({"modules": {}, "extra": true}))
        .send()
        .await
        .unwrap();
    let error = assert_error(not_a_list, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("/extra", "UNKNOWN_FIELD"), ("/modules", "INVALID_TYPE")]));
    assert_eq!(get_ok(&app, &ann.token, &format!("/v0/spaces/{space_id}/modules")).await, json!({"modules": []}));
}

#[tokio::test]
async fn only_the_owner_changes_the_connected_modules() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let space_id = id(&created_space(&app, &ann, "garden").await);
    add_member(&app, &space_id, &bob).await;
    let tags = json!([{"moduleId": "tags"}]);
    // Act
    let by_member = put_modules(&app, &bob.token, &space_id, tags.clone()).await;
    let by_stranger = put_modules(&app, &cat.token, &space_id, tags).await;
    // Assert
    assert_error(by_member, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    assert_error(by_stranger, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_eq!(get_ok(&app, &bob.token, &format!("/v0/spaces/{space_id}/modules")).await, json!({"modules": []}));
}

#[tokio::test]
async fn the_openapi_document_lists_the_space_and_module_routes() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let document = body(app.request(Method::GET, "/v0/openapi.json").send().await.unwrap()).await;
    // Assert
    for (method, path) in [
        ("post", "/v0/spaces"),
        ("get", "/v0/spaces"),
        ("get", "/v0/spaces/{spaceId}/settings/general"),
        ("patch", "/v0/spaces/{spaceId}/settings/general"),
        ("get", "/v0/modules"),
        ("get", "/v0/spaces/{spaceId}/modules"),
        ("put", "/v0/spaces/{spaceId}/modules"),
        ("get", "/v0/spaces/{spaceId}/modules/{moduleId}/{path}"),
    ] {
        assert!(document["paths"][path][method].is_object(), "{method} {path} is not documented");
    }
}

/// Issue 11, finding 9: what a module keeps in a space is bounded; past the quota its writes are
/// refused to the module (which reports them), and other spaces keep their own quota.
#[tokio::test]
async fn a_module_keeps_at_most_its_quota_in_a_space() {
    // Arrange: ten keys per (space, module); tagging an item takes two, the counts one more.
    let app = spawn_app_with(|config| config.modules.runtime.kv_max_keys_per_space = 10).await;
    let ann = app.sign_up("ann").await;
    let full = id(&created_space(&app, &ann, "full").await);
    let other = id(&created_space(&app, &ann, "other").await);
    for space in [&full, &other] {
        connect(&app, &ann, space, json!([{"moduleId": "tags"}])).await;
    }
    let tag = |space: &str, item: String| {
        let path = format!("/v0/spaces/{space}/modules/tags/items/{item}/tags");
        app.authed(Method::POST, &path, &ann.token).json(&json!({"tags": ["t"]})).send()
    };
    let mut statuses = Vec::new();
    // Act
    for i in 0..8 {
        statuses.push(tag(&full, format!("item-{i}")).await.unwrap().status());
    }
    let elsewhere = tag(&other, "item-0".into()).await.unwrap();
    // Assert
    let stored = statuses.iter().filter(|s| **s == StatusCode::OK).count();
    assert!((3..=5).contains(&stored), "{statuses:?}");
    assert!(statuses[stored..].iter().all(|s| *s == StatusCode::BAD_REQUEST), "{statuses:?}");
    assert_eq!(elsewhere.status(), StatusCode::OK);
    app.stop().await;
}
