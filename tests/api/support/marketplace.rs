//! Listing spaces in the marketplace, registering with them and reading the trending list, for the
//! marketplace tests.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};
use trellis::config::Config;
use trellis_modules::EnabledModule;
use trellis_tests::{TestApp, TestUser, body};

use crate::support::spaces::{created_space, id};

pub fn settings_path(space_id: &str) -> String {
    format!("/v0/spaces/{space_id}/settings/marketplace")
}

pub fn pending_path(space_id: &str) -> String {
    format!("/v0/spaces/{space_id}/users/pending")
}

pub fn registration_path(space_id: &str) -> String {
    format!("/v0/marketplace/listings/{space_id}/registration")
}

pub fn decision_path(space_id: &str) -> String {
    format!("/v0/admin/marketplace/listings/{space_id}/decision")
}

pub async fn put_settings(app: &TestApp, token: &str, space_id: &str, settings: &Value) -> Response {
    app.authed(Method::PUT, &settings_path(space_id), token).json(settings).send().await.expect("request sent")
}

/// PUTs settings, asserting 200; answers the settings.
pub async fn saved(app: &TestApp, owner: &TestUser, space_id: &str, settings: Value) -> Value {
    let response = put_settings(app, &owner.token, space_id, &settings).await;
    let status = response.status();
    let answer = body(response).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    answer
}

pub async fn decide(app: &TestApp, operator: &TestUser, space_id: &str, decision: Value) -> Response {
    app.authed(Method::POST, &decision_path(space_id), &operator.token).json(&decision).send().await.expect("sent")
}

/// Creates a space, submits its listing with `membership` and has `operator` approve it; answers the
/// space id.
pub async fn listed_space(
    app: &TestApp,
    owner: &TestUser,
    operator: &TestUser,
    name: &str,
    membership: &str,
) -> String {
    let space_id = id(&created_space(app, owner, name).await);
    let settings = json!({"title": format!("The {name}"), "summary": format!("All about {name}"),
        "categories": ["hobby"], "membership": membership, "submit": true});
    assert_eq!(saved(app, owner, &space_id, settings).await["state"], "SUBMITTED");
    let approved = decide(app, operator, &space_id, json!({"approved": "YES"})).await;
    assert_eq!(approved.status(), StatusCode::OK, "{}", approved.text().await.unwrap());
    space_id
}

pub async fn register(app: &TestApp, user: &TestUser, space_id: &str, registration: Value) -> Response {
    app.authed(Method::POST, &registration_path(space_id), &user.token).json(&registration).send().await.expect("sent")
}

/// Registers, asserting `status`; answers `{registrationId, state}`.
pub async fn registered(app: &TestApp, user: &TestUser, space_id: &str, note: Value, status: StatusCode) -> Value {
    let response = register(app, user, space_id, note).await;
    let actual = response.status();
    let answer = body(response).await;
    assert_eq!(actual, status, "{answer}");
    answer
}

/// The trending list as a client without a session reads it.
pub async fn trending(app: &TestApp) -> Response {
    app.request(Method::GET, "/v0/marketplace/trending").send().await.expect("request sent")
}

/// Polls the trending list until `done` holds for it; answers it. Rankings run in the background.
pub async fn trending_until(app: &TestApp, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut last = Value::Null;
    while Instant::now() < deadline {
        let response = trending(app).await;
        assert_eq!(response.status(), StatusCode::OK);
        last = body(response).await;
        if done(&last) {
            return last;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the trending list never became what the test waits for; last: {last}");
}

/// The space ids of a trending page, in rank order.
pub fn ranked(page: &Value) -> Vec<String> {
    page["items"].as_array().unwrap().iter().map(|l| l["spaceId"].as_str().unwrap().to_owned()).collect()
}

/// The trending entry of a space.
pub fn entry<'a>(page: &'a Value, space_id: &str) -> Option<&'a Value> {
    page["items"].as_array().unwrap().iter().find(|l| l["spaceId"] == space_id)
}

/// Ranks with the test rule `rule-probe` (quietest first; traps or spins as `rule_config` says).
pub fn rank_with_probe(config: &mut Config, rule_config: Value) {
    let path = PathBuf::from(trellis_plugins_build::DIR).join("trellis_rule_probe.wasm");
    config.modules.runtime.enable.push(EnabledModule::file(path, vec![], vec![]));
    config.marketplace.rule_module = Some("rule-probe".into());
    config.marketplace.rule_config = rule_config.as_object().cloned().unwrap_or_default();
}

/// The subjects of the messages `user` received from `system`, newest first.
pub async fn system_subjects(app: &TestApp, user: &TestUser) -> Vec<String> {
    let response = app.get_authed("/v0/messages/threads", &user.token).await;
    assert_eq!(response.status(), StatusCode::OK);
    let threads = body(response).await;
    threads["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["participant"]["handle"] == "system")
        .map(|t| t["subject"].as_str().unwrap_or_default().to_owned())
        .collect()
}
