//! `GET /v0/admin/modules/metrics`: the operator reads each module's calls, failures by kind, durations and
//! memory high-water; anybody else is refused.

use reqwest::{Method, StatusCode};
use serde_json::json;
use trellis_tests::{assert_error, spawn_app_with};

use crate::support::modules::{connect, enable_hostile};
use crate::support::spaces::{created_space, id};

const METRICS: &str = "/v0/admin/modules/metrics";

#[tokio::test]
async fn the_operator_reads_calls_and_failures_per_module() {
    // Arrange
    let app = spawn_app_with(enable_hostile).await;
    let ann = app.sign_up("ann").await;
    let space_id = id(&created_space(&app, &ann, "metrics").await);
    connect(&app, &ann, &space_id, json!([{"moduleId": "hostile", "config": {"onEvent": "ok"}}])).await;
    let base = format!("/v0/spaces/{space_id}/modules/hostile");
    for path in ["/ok", "/ok", "/trap"] {
        app.authed(Method::GET, &format!("{base}{path}"), &ann.token).send().await.unwrap();
    }
    let operator = app.grant_operator(&ann).await;
    // Act
    let response = app.authed(Method::GET, METRICS, &operator.token).send().await.unwrap();
    // Assert
    assert_eq!(response.status(), StatusCode::OK);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["nextCursor"], serde_json::Value::Null);
    let hostile = body["items"].as_array().unwrap().iter().find(|m| m["moduleId"] == "hostile").expect("listed");
    assert_eq!(hostile["calls"], 3, "{hostile}");
    assert_eq!(hostile["failures"]["trap"], 1, "{hostile}");
    assert_eq!(hostile["failures"]["deadline"], 0, "{hostile}");
    assert!(hostile["p50Micros"].as_u64().is_some_and(|p| p > 0), "{hostile}");
    assert!(hostile["p99Micros"].as_u64() >= hostile["p50Micros"].as_u64(), "{hostile}");
    assert!(hostile["memoryHighWaterBytes"].as_u64().is_some_and(|b| b >= 65_536), "{hostile}");
}

#[tokio::test]
async fn module_metrics_are_for_the_operator_only() {
    // Arrange
    let app = spawn_app_with(enable_hostile).await;
    let bob = app.sign_up("bob").await;
    // Act
    let member = app.authed(Method::GET, METRICS, &bob.token).send().await.unwrap();
    let anonymous = app.request(Method::GET, METRICS).send().await.unwrap();
    // Assert
    assert_error(member, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    assert_error(anonymous, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
}
