//! The license gate in front of every /v0 route: `X-License-Key`, revocation, and gateway mode.

use std::sync::Arc;

use reqwest::{Method, StatusCode};
use serde_json::json;
use trellis::config::Config;
use trellis::services::licenses::Licenses;
use trellis::store::Store;
use trellis_tests::{TestApp, assert_error, body, spawn_app, spawn_app_with};

const SECRET: &str = "gateway-secret-1";

/// Runs `f` on a license service over the app's database with `config`, as the command line does.
async fn with_licenses<T>(app: &TestApp, config: Config, f: impl AsyncFnOnce(&Licenses) -> T) -> T {
    let store = Store::connect(&app.config.database_url(), 1).await.unwrap();
    let licenses = Licenses::new(store.clone(), Arc::new(config));
    let result = f(&licenses).await;
    store.close().await;
    result
}

async fn revoke(app: &TestApp, key: &str) {
    with_licenses(app, app.config.clone(), async |licenses| licenses.revoke(key).await.unwrap()).await;
}

/// A route that needs a license and, past it, a session: with a good key and no session it answers
/// 401 UNAUTHENTICATED, so that answer shows the license check passed. (The API description,
/// `/v0/openapi.json`, is public and checks no license.)
const PROBE: &str = "/v0/auth/session";

async fn assert_license_passed(response: reqwest::Response) {
    assert_error(response, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
}

fn gateway_app(config: &mut Config) {
    config.gateway.proxy_secret = Some(SECRET.to_owned());
}

#[tokio::test]
async fn a_request_without_a_license_key_is_401_license_required() {
    // Arrange
    let app = spawn_app().await;
    for path in ["/v0/forms", "/v0/users/me", "/v0/auth/session"] {
        // Act
        let response = app.client.get(app.url(path)).send().await.unwrap();
        // Assert
        assert_error(response, StatusCode::UNAUTHORIZED, "LICENSE_REQUIRED").await;
    }
}

#[tokio::test]
async fn a_blank_license_key_is_401_license_required() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let response = app.client.get(app.url(PROBE)).header("X-License-Key", "  ").send().await.unwrap();
    // Assert
    assert_error(response, StatusCode::UNAUTHORIZED, "LICENSE_REQUIRED").await;
}

#[tokio::test]
async fn an_unknown_license_key_is_403_license_invalid() {
    // Arrange
    let app = spawn_app().await;
    let forged = format!("{}x", &app.license_key[..app.license_key.len() - 1]);
    for key in [forged.as_str(), "trk_unknown", "not-a-key"] {
        // Act
        let response = app.client.get(app.url(PROBE)).header("X-License-Key", key).send().await.unwrap();
        // Assert
        assert_error(response, StatusCode::FORBIDDEN, "LICENSE_INVALID").await;
    }
}

#[tokio::test]
async fn a_newly_issued_key_is_accepted() {
    // Arrange
    let app = spawn_app().await;
    let key = app.issue_license("default").await;
    // Act
    let response = app.client.get(app.url(PROBE)).header("X-License-Key", &key).send().await.unwrap();
    // Assert
    assert_license_passed(response).await;
}

#[tokio::test]
async fn a_revoked_key_is_403_license_invalid_while_other_keys_keep_working() {
    // Arrange
    let app = spawn_app().await;
    let key = app.issue_license("default").await;
    let request = || app.client.get(app.url(PROBE)).header("X-License-Key", &key);
    assert_license_passed(request().send().await.unwrap()).await;
    revoke(&app, &key).await;
    // Act
    let response = request().send().await.unwrap();
    // Assert
    assert_error(response, StatusCode::FORBIDDEN, "LICENSE_INVALID").await;
    assert_license_passed(app.request(Method::GET, PROBE).send().await.unwrap()).await;
}

#[tokio::test]
async fn a_key_on_a_plan_the_deployment_lacks_is_403_license_invalid() {
    // Arrange
    let app = spawn_app().await;
    let mut with_gold = app.config.clone();
    with_gold.plans.insert("gold".into(), Default::default());
    let (key, _) = with_licenses(&app, with_gold, async |licenses| licenses.issue("gold").await.unwrap()).await;
    // Act
    let response = app.client.get(app.url(PROBE)).header("X-License-Key", &key).send().await.unwrap();
    // Assert
    assert_error(response, StatusCode::FORBIDDEN, "LICENSE_INVALID").await;
}

#[tokio::test]
async fn the_license_error_wins_when_license_and_session_are_both_missing() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let missing = app.client.get(app.url("/v0/users/me")).send().await.unwrap();
    let unknown = app.client.get(app.url("/v0/users/me")).header("X-License-Key", "trk_unknown").send().await.unwrap();
    // Assert
    assert_error(missing, StatusCode::UNAUTHORIZED, "LICENSE_REQUIRED").await;
    assert_error(unknown, StatusCode::FORBIDDEN, "LICENSE_INVALID").await;
}

#[tokio::test]
async fn a_session_does_not_replace_the_license_key() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let response = app.client.get(app.url("/v0/users/me")).bearer_auth(&ann.token).send().await.unwrap();
    // Assert
    assert_error(response, StatusCode::UNAUTHORIZED, "LICENSE_REQUIRED").await;
}

#[tokio::test]
async fn auth_routes_need_the_license_key_too() {
    // Arrange
    let app = spawn_app().await;
    let routes = [
        "/v0/auth/sign-up/start",
        "/v0/auth/sign-up/verify-pin",
        "/v0/auth/sign-up/complete",
        "/v0/auth/login",
        "/v0/auth/logout",
        "/v0/auth/password-reset/start",
        "/v0/auth/password-reset/verify-pin",
        "/v0/auth/password-reset/resend-pin",
        "/v0/auth/password-reset/complete",
    ];
    for path in routes {
        // Act
        let response = app.client.post(app.url(path)).json(&json!({})).send().await.unwrap();
        // Assert
        assert_error(response, StatusCode::UNAUTHORIZED, "LICENSE_REQUIRED").await;
    }
}

#[tokio::test]
async fn password_reset_needs_the_license_key_but_no_session() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let without_license = app
        .client
        .post(app.url("/v0/auth/password-reset/start"))
        .json(&json!({"email": ann.email}))
        .send()
        .await
        .unwrap();
    assert_error(without_license, StatusCode::UNAUTHORIZED, "LICENSE_REQUIRED").await;
    // Act
    let response = app.post_json("/v0/auth/password-reset/start", json!({"email": ann.email})).await;
    // Assert
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert!(body(response).await["resetToken"].is_string());
}

#[tokio::test]
async fn the_first_start_writes_an_owner_only_key_file_and_a_restart_keeps_it() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().to_path_buf();
    let first = spawn_app_with(|c| c.data_dir = data_dir.clone()).await;
    let (key, database_url) = (first.license_key.clone(), first.config.database.url.clone());
    first.stop_keeping_database().await;
    // Act
    let second = spawn_app_with(|c| {
        c.data_dir = data_dir.clone();
        c.database.url = database_url;
    })
    .await;
    // Assert
    assert!(key.starts_with("trk_"));
    assert_eq!(second.license_key, key, "no second key is issued");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(data_dir.join("license.key")).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    assert_license_passed(second.request(Method::GET, PROBE).send().await.unwrap()).await;
    second.stop().await;
}

#[tokio::test]
async fn with_the_right_gateway_secret_no_license_key_is_needed() {
    // Arrange
    let app = spawn_app_with(gateway_app).await;
    // Act
    let response = app
        .client
        .post(app.url("/v0/auth/sign-up/start"))
        .header("X-RapidAPI-Proxy-Secret", SECRET)
        .header("X-RapidAPI-User", "subscriber-1")
        .header("X-RapidAPI-Subscription", "BASIC")
        .json(&json!({"email": "ann@example.org", "handle": "ann", "fullName": "Ann", "displayName": "Ann"}))
        .send()
        .await
        .unwrap();
    // Assert
    assert_eq!(response.status(), StatusCode::ACCEPTED);
}

#[tokio::test]
async fn a_wrong_gateway_secret_is_403_license_invalid() {
    // Arrange
    let app = spawn_app_with(gateway_app).await;
    for secret in ["gateway-secret-2", ""] {
        // Act
        let response = app
            .client
            .get(app.url(PROBE))
            .header("X-RapidAPI-Proxy-Secret", secret)
            .header("X-RapidAPI-User", "subscriber-1")
            .send()
            .await
            .unwrap();
        // Assert
        assert_error(response, StatusCode::FORBIDDEN, "LICENSE_INVALID").await;
    }
}

#[tokio::test]
async fn in_gateway_mode_a_license_key_without_the_secret_still_works() {
    // Arrange
    let app = spawn_app_with(gateway_app).await;
    // Act
    let response = app.request(Method::GET, PROBE).send().await.unwrap();
    // Assert
    assert_license_passed(response).await;
}

#[tokio::test]
async fn the_gateway_secret_header_name_follows_the_configuration() {
    // Arrange
    let app = spawn_app_with(|c| {
        gateway_app(c);
        c.gateway.secret_header = "X-Gateway-Secret".into();
        c.gateway.user_header = "X-Gateway-User".into();
    })
    .await;
    // Act
    let response = app
        .client
        .get(app.url(PROBE))
        .header("X-Gateway-Secret", SECRET)
        .header("X-Gateway-User", "subscriber-1")
        .send()
        .await
        .unwrap();
    // Assert
    assert_license_passed(response).await;
}

#[tokio::test]
async fn with_gateway_mode_off_the_secret_header_is_ignored() {
    // Arrange
    let app = spawn_app().await;
    let with_secret = |request: reqwest::RequestBuilder| {
        request.header("X-RapidAPI-Proxy-Secret", SECRET).header("X-RapidAPI-User", "subscriber-1")
    };
    // Act
    let without_key = with_secret(app.client.get(app.url(PROBE))).send().await.unwrap();
    let with_key = with_secret(app.request(Method::GET, PROBE)).send().await.unwrap();
    // Assert
    assert_error(without_key, StatusCode::UNAUTHORIZED, "LICENSE_REQUIRED").await;
    assert_license_passed(with_key).await;
}
