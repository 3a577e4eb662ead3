//! Connecting modules to spaces and calling their routes, for the module tests.

use std::path::PathBuf;
use std::time::Duration;

use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};
use trellis::config::Config;
use trellis_modules::{EnabledModule, Grant};
use trellis_tests::{TestApp, TestUser, body};

use crate::support::forms::sample_payload;

/// Enables the hostile test module (a file module granted key-value and logging) besides Tags.
pub fn enable_hostile(config: &mut Config) {
    let path = PathBuf::from(trellis_plugins_build::DIR).join("trellis_hostile.wasm");
    config.modules.runtime.enable.push(EnabledModule::file(path, vec![Grant::KeyValue, Grant::Logging], vec![]));
}

/// Enables the third-party example `word-count`, built only against the module SDK.
pub fn enable_word_count(config: &mut Config) {
    let path = PathBuf::from(trellis_plugins_build::DIR).join("word_count.wasm");
    let grants = vec![Grant::KeyValue, Grant::ItemRead, Grant::Logging];
    config.modules.runtime.enable.push(EnabledModule::file(path, grants, vec![]));
}

/// Enables the JavaScript port `word-count-js`, built by `scripts/build-guests` into `<repo>/target/guests`.
pub fn enable_word_count_js(config: &mut Config) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/guests/word_count_js.wasm");
    assert!(path.exists(), "{} is missing: run scripts/build-guests", path.display());
    let grants = vec![Grant::KeyValue, Grant::ItemRead, Grant::Logging];
    config.modules.runtime.enable.push(EnabledModule::file(path, grants, vec![]));
}

/// Enables the test analysis step `analysis-probe` (tags from words in the file name; fails, traps or
/// spins as its configuration says), which spaces may connect.
pub fn enable_analysis_probe(config: &mut Config) {
    let path = PathBuf::from(trellis_plugins_build::DIR).join("trellis_analysis_probe.wasm");
    let grants = vec![Grant::Logging, Grant::MediaDecode, Grant::Vision, Grant::Speech];
    config.modules.runtime.enable.push(EnabledModule::file(path, grants, vec![]));
}

pub async fn put_modules(app: &TestApp, token: &str, space_id: &str, modules: Value) -> Response {
    app.authed(Method::PUT, &format!("/v0/spaces/{space_id}/modules"), token)
        .json(&json!({"modules": modules}))
        .send()
        .await
        .expect("request sent")
}

/// Replaces the connected set, asserting 200; answers the body.
pub async fn connect(app: &TestApp, owner: &TestUser, space_id: &str, modules: Value) -> Value {
    let response = put_modules(app, &owner.token, space_id, modules).await;
    let status = response.status();
    let answer = body(response).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    answer
}

/// A request to a module route of a space: `path` is what follows `/modules/{moduleId}`.
pub async fn module_call(app: &TestApp, token: &str, method: Method, space_id: &str, path: &str) -> Response {
    app.authed(method, &format!("/v0/spaces/{space_id}/modules{path}"), token).send().await.expect("request sent")
}

/// Polls `GET path` (a module route) until `done` holds for its 200 body; answers that body. The
/// wait allows for a loaded machine and ends as soon as `done` holds.
pub async fn wait_until(app: &TestApp, token: &str, path: &str, done: impl Fn(&Value) -> bool) -> Value {
    match poll_until(app, token, path, done).await {
        Ok(answer) => answer,
        Err(last) => panic!("{path} never reached the expected state; last answer {last}"),
    }
}

/// Reads `path` until `done` holds for its answer, for up to 30 s: `Err` with the last answer when it never did.
pub async fn poll_until(app: &TestApp, token: &str, path: &str, done: impl Fn(&Value) -> bool) -> Result<Value, Value> {
    let mut last = Value::Null;
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::time::Instant::now() < deadline {
        let response = app.get_authed(path, token).await;
        if response.status() == StatusCode::OK {
            last = body(response).await;
            if done(&last) {
                return Ok(last);
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Err(last)
}

/// The sample instance body in `space_id`, tagged `tags` (comma-separated).
pub fn tagged_payload(space_id: &str, tags: &str) -> Value {
    let mut wrapper = sample_payload();
    wrapper["payload"]["metadata"]["tags"] = json!(tags);
    wrapper["payload"]["integrations"] = json!({"spaceId": space_id});
    wrapper
}

/// The Tags counts route of a space.
pub fn counts_path(space_id: &str) -> String {
    format!("/v0/spaces/{space_id}/modules/tags/counts")
}

/// Where `scripts/build-guests` puts the example modules written in other languages.
pub fn guest_path(file: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/guests").join(file);
    assert!(path.exists(), "{} is missing: run scripts/build-guests", path.display());
    path
}

/// Enables `word-count-py`, the word-count example in Python (componentize-py, `scripts/build-guests`).
pub fn enable_word_count_py(config: &mut Config) {
    let grants = vec![Grant::KeyValue, Grant::ItemRead, Grant::Logging];
    config.modules.runtime.enable.push(EnabledModule::file(guest_path("word_count_py.wasm"), grants, vec![]));
}

/// Enables `word-count-legacy`: the word-count example as SDK 0.1.0 built it (WIT 0.1.0), from the
/// component checked in under `plugins/legacy/`, never rebuilt.
pub fn enable_word_count_legacy(config: &mut Config) {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../plugins/legacy/word-count-0.1.0/word_count_legacy.wasm");
    let grants = vec![Grant::KeyValue, Grant::ItemRead, Grant::Logging];
    config.modules.runtime.enable.push(EnabledModule::file(path, grants, vec![]));
}

/// The grants every poll example asks for (the JavaScript and Python SDKs' worlds import all three).
fn poll_grants() -> Vec<Grant> {
    vec![Grant::KeyValue, Grant::ItemRead, Grant::Logging]
}

/// Enables `poll`, the poll example in Rust (plugins/examples/poll).
pub fn enable_poll(config: &mut Config) {
    let path = PathBuf::from(trellis_plugins_build::DIR).join("poll.wasm");
    config.modules.runtime.enable.push(EnabledModule::file(path, poll_grants(), vec![]));
}

/// Enables `poll-js`, the poll example in JavaScript (`scripts/build-guests`).
pub fn enable_poll_js(config: &mut Config) {
    config.modules.runtime.enable.push(EnabledModule::file(guest_path("poll_js.wasm"), poll_grants(), vec![]));
}

/// Enables `poll-py`, the poll example in Python (`scripts/build-guests`).
pub fn enable_poll_py(config: &mut Config) {
    config.modules.runtime.enable.push(EnabledModule::file(guest_path("poll_py.wasm"), poll_grants(), vec![]));
}
