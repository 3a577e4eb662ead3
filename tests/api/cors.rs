//! Cross-origin access for browser apps (conventions section 1): off by default; origins listed in
//! `http.cors_origins` get preflights answered without a license or session, and may read the
//! headers a client needs. (A test in a real browser belongs with the TypeScript client.)

use reqwest::{Method, Response, StatusCode};
use trellis_tests::{TestApp, spawn_app, spawn_app_with};

const APP: &str = "http://app.example.test:5173";

async fn cors_app() -> TestApp {
    spawn_app_with(|config| config.http.cors_origins = vec![APP.into(), "https://other.example.test".into()]).await
}

/// A browser's preflight for a signed-in `GET /v0/spaces`: no license, no session.
async fn preflight(app: &TestApp, origin: &str) -> Response {
    app.client
        .request(Method::OPTIONS, app.url("/v0/spaces"))
        .header("Origin", origin)
        .header("Access-Control-Request-Method", "GET")
        .header("Access-Control-Request-Headers", "authorization, x-license-key, if-none-match")
        .send()
        .await
        .expect("request sent")
}

fn header(response: &Response, name: &str) -> String {
    response.headers().get(name).map(|v| v.to_str().unwrap().to_ascii_lowercase()).unwrap_or_default()
}

#[tokio::test]
async fn a_preflight_from_a_listed_origin_is_answered_without_a_license_or_session() {
    // Arrange
    let app = cors_app().await;
    // Act
    let response = preflight(&app, APP).await;
    // Assert
    assert!(matches!(response.status(), StatusCode::OK | StatusCode::NO_CONTENT), "{}", response.status());
    assert_eq!(header(&response, "access-control-allow-origin"), APP);
    assert!(header(&response, "access-control-allow-methods").contains("get"));
    let allowed = header(&response, "access-control-allow-headers");
    for name in ["authorization", "x-license-key", "if-none-match", "if-match", "content-type"] {
        assert!(allowed.contains(name), "{name} in {allowed}");
    }
}

#[tokio::test]
async fn answers_to_a_listed_origin_expose_the_headers_a_client_reads() {
    // Arrange
    let app = cors_app().await;
    // Act
    let ok = app.request(Method::GET, "/v0/openapi.json").header("Origin", APP).send().await.unwrap();
    let refused = app.request(Method::GET, "/v0/spaces").header("Origin", APP).send().await.unwrap();
    // Assert
    assert_eq!(ok.status(), StatusCode::OK);
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED, "CORS lets the request through; the session check stays");
    for response in [&ok, &refused] {
        assert_eq!(header(response, "access-control-allow-origin"), APP);
        let exposed = header(response, "access-control-expose-headers");
        for name in ["etag", "location", "retry-after", "x-request-id"] {
            assert!(exposed.contains(name), "{name} in {exposed}");
        }
    }
}

#[tokio::test]
async fn an_origin_not_listed_gets_no_access_control_allow_origin() {
    // Arrange
    let listed = cors_app().await;
    let unlisted = spawn_app().await;
    // Act
    let stranger = preflight(&listed, "http://evil.example.test").await;
    let stranger_get =
        listed.request(Method::GET, "/v0/openapi.json").header("Origin", "http://evil.example.test").send().await;
    let by_default = preflight(&unlisted, APP).await;
    // Assert
    assert!(stranger.headers().get("access-control-allow-origin").is_none());
    assert!(stranger_get.unwrap().headers().get("access-control-allow-origin").is_none());
    assert!(by_default.headers().get("access-control-allow-origin").is_none(), "CORS is off by default");
}

/// `OPTIONS /v0/media/uploads` as a tus client sends it: with the license key, maybe an `Origin`,
/// never `Access-Control-Request-Method`.
async fn tus_options(app: &TestApp, origin: Option<&str>) -> Response {
    let mut request = app.client.request(Method::OPTIONS, app.url("/v0/media/uploads"));
    request = request.header("X-License-Key", &app.license_key).header("Tus-Resumable", "1.0.0");
    if let Some(origin) = origin {
        request = request.header("Origin", origin);
    }
    request.send().await.expect("request sent")
}

#[tokio::test]
async fn an_options_that_is_no_preflight_reaches_its_route_and_answers_what_tus_requires() {
    // Arrange
    let app = cors_app().await;
    // Act
    let without_origin = tus_options(&app, None).await;
    let from_listed = tus_options(&app, Some(APP)).await;
    let from_stranger = tus_options(&app, Some("http://evil.example.test")).await;
    // Assert
    for response in [&without_origin, &from_listed, &from_stranger] {
        assert_eq!(response.status(), StatusCode::NO_CONTENT);
        assert_eq!(header(response, "tus-version"), "1.0.0");
        assert!(header(response, "tus-extension").contains("creation"));
        assert!(!header(response, "tus-max-size").is_empty());
        assert!(header(response, "access-control-allow-methods").is_empty(), "no preflight answer");
    }
    assert!(header(&without_origin, "access-control-allow-origin").is_empty());
    assert_eq!(header(&from_listed, "access-control-allow-origin"), APP);
    assert!(header(&from_listed, "access-control-expose-headers").contains("tus-version"));
    assert!(header(&from_stranger, "access-control-allow-origin").is_empty());
}

#[tokio::test]
async fn a_preflight_of_a_resumed_stream_allows_last_event_id() {
    // Arrange
    let app = cors_app().await;
    // Act
    let response = app
        .client
        .request(Method::OPTIONS, app.url("/v0/events"))
        .header("Origin", APP)
        .header("Access-Control-Request-Method", "GET")
        .header("Access-Control-Request-Headers", "authorization, x-license-key, last-event-id")
        .send()
        .await
        .expect("request sent");
    // Assert
    assert!(matches!(response.status(), StatusCode::OK | StatusCode::NO_CONTENT), "{}", response.status());
    assert_eq!(header(&response, "access-control-allow-origin"), APP);
    assert!(header(&response, "access-control-allow-headers").contains("last-event-id"));
}
