//! A deployment whose `[modules] enable` holds a bad entry: the server starts without that module, logs
//! why, and shows the refusal to operators at `/v0/admin/modules/refused`.

use std::path::PathBuf;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis::config::Config;
use trellis_modules::{EnabledModule, Grant};
use trellis_tests::{TestApp, TestUser, assert_error, body, spawn_app_with};

use crate::support::forms::get_ok;
use crate::support::modules::{connect, module_call};
use crate::support::spaces::{created_space, id};

/// Word-count granted nothing it imports, and a file that does not exist, besides the bundled modules.
fn enable_two_bad_modules(config: &mut Config) {
    let word_count = PathBuf::from(trellis_plugins_build::DIR).join("word_count.wasm");
    config.modules.runtime.enable.push(EnabledModule::file(word_count, vec![], vec![]));
    config.modules.runtime.enable.push(EnabledModule::file(PathBuf::from("/nowhere/poll.wasm"), vec![], vec![]));
}

#[tokio::test]
async fn a_bad_module_entry_is_refused_while_the_rest_of_the_deployment_starts() {
    // Arrange
    let app = spawn_app_with(enable_two_bad_modules).await;
    let ann = app.sign_up("ann").await;
    let operator = app.grant_operator(&app.sign_up("olga").await).await;
    // Act
    let catalogue = get_ok(&app, &ann.token, "/v0/modules").await;
    let refused = get_ok(&app, &operator.token, "/v0/admin/modules/refused").await;
    let not_operator = app.get_authed("/v0/admin/modules/refused", &ann.token).await;
    // Assert
    let ids: Vec<&str> = catalogue["items"].as_array().unwrap().iter().filter_map(|m| m["id"].as_str()).collect();
    assert_eq!(ids, ["tags", "marketplace-default", "analysis-default"], "{catalogue}");
    let refused = refused["items"].as_array().unwrap().clone();
    assert_eq!(refused.len(), 2, "{refused:?}");
    assert!(refused[0]["entry"].as_str().unwrap().contains("word_count.wasm"), "{refused:?}");
    assert!(refused[0]["reason"].as_str().unwrap().contains("key-value"), "{refused:?}");
    assert_eq!(refused[1]["id"], Value::Null);
    assert!(refused[1]["reason"].as_str().unwrap().contains("cannot read /nowhere/poll.wasm"), "{refused:?}");
    assert_error(not_operator, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    // The modules that loaded work as usual.
    let space_id = id(&created_space(&app, &ann, "garden").await);
    connect(&app, &ann, &space_id, json!([{"moduleId": "tags"}])).await;
    let counts = module_call(&app, &ann.token, Method::GET, &space_id, "/tags/counts").await;
    assert_eq!(counts.status(), StatusCode::OK, "{}", body(counts).await);
}

#[tokio::test]
async fn a_deployment_without_bad_modules_refuses_none() {
    // Arrange
    let app = spawn_app_with(|config| {
        let word_count = PathBuf::from(trellis_plugins_build::DIR).join("word_count.wasm");
        let grants = vec![Grant::KeyValue, Grant::ItemRead, Grant::Logging];
        config.modules.runtime.enable.push(EnabledModule::file(word_count, grants, vec![]));
    })
    .await;
    let operator = app.grant_operator(&app.sign_up("olga").await).await;
    // Act
    let refused = get_ok(&app, &operator.token, "/v0/admin/modules/refused").await;
    // Assert
    assert_eq!(refused, json!({"items": [], "nextCursor": null}));
}

/// How many calls the operator sees `module_id` answer.
async fn calls_of(app: &TestApp, operator: &TestUser, module_id: &str) -> u64 {
    let metrics = get_ok(app, &operator.token, "/v0/admin/modules/metrics").await;
    let module = metrics["items"].as_array().unwrap().iter().find(|m| m["moduleId"] == module_id);
    module.and_then(|m| m["calls"].as_u64()).unwrap_or_else(|| panic!("no calls of {module_id}: {metrics}"))
}

#[tokio::test]
async fn a_module_route_without_a_trailing_slash_reaches_the_modules_root_route() {
    // Arrange
    let app = spawn_app_with(|_| {}).await;
    let ann = app.sign_up("ann").await;
    let operator = app.grant_operator(&app.sign_up("olga").await).await;
    let space_id = id(&created_space(&app, &ann, "garden").await);
    connect(&app, &ann, &space_id, json!([{"moduleId": "tags"}])).await;
    let calls_before = calls_of(&app, &operator, "tags").await;
    // Act
    let bare = module_call(&app, &ann.token, Method::GET, &space_id, "/tags").await;
    let slash = module_call(&app, &ann.token, Method::GET, &space_id, "/tags/").await;
    // Assert: both reached the module, which has no root route: each is the SDK's 404 (the host's own
    // 404 says "no such route"), and the module answered two calls more.
    for (path, answer) in [("/tags", bare), ("/tags/", slash)] {
        let error = assert_error(answer, StatusCode::NOT_FOUND, "NOT_FOUND").await;
        assert_eq!(error["message"], "no such route or resource", "{path}: {error}");
    }
    assert_eq!(calls_of(&app, &operator, "tags").await, calls_before + 2);
}
