//! What operators and first-time visitors read outside `/v0`: `/metrics` (Prometheus text, never
//! to anonymous clients), `/docs` (Swagger UI from assets in the binary) and `/`, which points there.

use std::collections::BTreeMap;

use reqwest::{Method, StatusCode, header};
use serde_json::json;
use trellis_tests::{TestApp, assert_error, spawn_app, spawn_app_with};

use crate::support::messages;
use crate::support::modules::connect;
use crate::support::spaces::{created_space, id};

const TOKEN: &str = "metrics-token-for-the-tests";

async fn scrape(app: &TestApp, token: Option<&str>) -> reqwest::Response {
    let mut request = app.request(Method::GET, "/metrics");
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.expect("request sent")
}

/// The value of the first sample line that starts with `prefix` (a name and labels).
fn sample(text: &str, prefix: &str) -> Option<f64> {
    text.lines().find(|line| line.starts_with(prefix)).and_then(|line| line.rsplit(' ').next()?.parse().ok())
}

/// The counter of space-event jobs that ran to success.
const EVENT_JOBS_SUCCEEDED: &str = r#"trellis_jobs_finished_total{kind="module-event",outcome="succeeded"}"#;

/// The metrics once `done` holds for them; waits as long as a loaded machine may need.
async fn scrape_until(app: &TestApp, done: impl Fn(&str) -> bool) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let text = scrape(app, Some(TOKEN)).await.text().await.unwrap();
        if done(&text) {
            return text;
        }
        assert!(std::time::Instant::now() < deadline, "the metrics never showed what the test waits for: {text}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn metrics_need_the_configured_token_and_are_absent_without_one() {
    // Arrange
    let without = spawn_app().await;
    let with = spawn_app_with(|config| config.metrics.token = Some(TOKEN.into())).await;
    // Act
    let not_configured = scrape(&without, Some(TOKEN)).await;
    let anonymous = scrape(&with, None).await;
    let wrong = scrape(&with, Some("metrics-token-for-the-testz")).await;
    let operator = scrape(&with, Some(TOKEN)).await;
    // Assert
    assert_error(not_configured, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(anonymous, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    assert_error(wrong, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    assert_eq!(operator.status(), StatusCode::OK);
    assert_eq!(operator.headers()[header::CONTENT_TYPE], "text/plain; version=0.0.4");
    without.stop().await;
    with.stop().await;
}

#[tokio::test]
async fn metrics_count_requests_by_route_template_and_what_was_refused() {
    // Arrange: a plan without messages, one login a minute, a space with the Tags module.
    let app = spawn_app_with(|config| {
        config.metrics.token = Some(TOKEN.into());
        config.rate_limits.login_per_address = 1;
        config.plans.insert("default".into(), BTreeMap::from([("messaging.perDay".to_owned(), 0)]));
    })
    .await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let space_id = id(&created_space(&app, &ann, "metered").await);
    connect(&app, &ann, &space_id, json!([{"moduleId": "tags", "config": {}}])).await;
    // Act
    for _ in 0..2 {
        app.authed(Method::GET, &format!("/v0/spaces/{space_id}/settings/general"), &ann.token).send().await.unwrap();
    }
    app.authed(Method::GET, &format!("/v0/spaces/{space_id}/modules/tags/items/item-1/tags"), &ann.token)
        .send()
        .await
        .unwrap();
    app.request(Method::GET, "/v0/no/such/route").send().await.unwrap();
    let mut limited = 0;
    for _ in 0..3 {
        let login = app.post_json("/v0/auth/login", json!({"login": "ann", "password": "wrong password"})).await;
        limited += usize::from(login.status() == StatusCode::TOO_MANY_REQUESTS);
    }
    let message = messages::send(&app, &ann.token, &json!({"to": bob.handle, "subject": "hi", "body": "hello"})).await;
    // A comment queues a space event for Tags: one background job of this server.
    let finished_before = sample(&scrape(&app, Some(TOKEN)).await.text().await.unwrap(), EVENT_JOBS_SUCCEEDED);
    let comments = format!("/v0/spaces/{space_id}/comments");
    let comment = app.authed(Method::POST, &comments, &ann.token).json(&json!({"body": "hi"})).send().await.unwrap();
    assert_eq!(comment.status(), StatusCode::CREATED);
    let text = scrape(&app, Some(TOKEN)).await.text().await.unwrap();
    // Assert: the template, never the space's id, labels the request.
    assert!(limited > 0, "the login limit was never reached");
    assert_error(message, StatusCode::FORBIDDEN, "ENTITLEMENT_LIMIT_EXCEEDED").await;
    let route = r#"trellis_http_request_duration_seconds_count{method="GET",route="/v0/spaces/{space_id}/settings/general",status="200"}"#;
    assert!(sample(&text, route).is_some_and(|n| n >= 2.0), "{text}");
    assert!(!text.contains(&space_id), "a raw path leaked into a label");
    assert!(
        sample(&text, r#"trellis_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}"#)
            .is_some()
    );
    assert!(sample(&text, r#"trellis_http_request_duration_seconds_bucket{method="GET",route="/v0/spaces/{space_id}/settings/general",status="200",le="+Inf"}"#).is_some(), "{text}");
    assert!(
        sample(&text, r#"trellis_rate_limit_refusals_total{limit="login_per_address"}"#).is_some_and(|n| n >= 1.0),
        "{text}"
    );
    assert!(
        sample(&text, r#"trellis_quota_refusals_total{entitlement="messaging.perDay"}"#).is_some_and(|n| n >= 1.0),
        "{text}"
    );
    assert!(
        sample(&text, r#"trellis_module_calls_total{module="tags",outcome="ok"}"#).is_some_and(|n| n >= 1.0),
        "{text}"
    );
    assert!(
        sample(&text, r#"trellis_module_call_duration_seconds_count{module="tags"}"#).is_some_and(|n| n >= 1.0),
        "{text}"
    );
    assert!(sample(&text, r#"trellis_db_pool_max_connections{pool="reader"}"#).is_some_and(|n| n >= 1.0), "{text}");
    assert!(sample(&text, r#"trellis_db_pool_connections{pool="reader",state="idle"}"#).is_some(), "{text}");
    assert_eq!(sample(&text, "trellis_jobs_readable"), Some(1.0), "{text}");
    // The event's job ran: this server's job table says so, and the count of finished runs (kept by the
    // process, so other tests' servers add to it too) grew by it.
    let text = scrape_until(&app, |text| {
        sample(text, r#"trellis_jobs{kind="module-event",state="SUCCEEDED"}"#).is_some_and(|n| n >= 1.0)
    })
    .await;
    assert!(text.contains("# TYPE trellis_jobs_finished_total counter"), "{text}");
    let finished = sample(&text, EVENT_JOBS_SUCCEEDED).unwrap_or_else(|| panic!("no finished event jobs: {text}"));
    assert!(finished >= finished_before.unwrap_or(0.0) + 1.0, "{finished_before:?} then {finished}");
    app.stop().await;
}

#[tokio::test]
async fn metrics_can_be_served_on_their_own_address() {
    // Arrange: a free loopback port for the metrics listener.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let address = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let app = spawn_app_with(|config| config.metrics.listen = Some(address)).await;
    let client = reqwest::Client::new();
    // Act: the listener opens as the server starts, a moment after `spawn_app` returns.
    let mut own = client.get(format!("http://{address}/metrics")).send().await;
    for _ in 0..100 {
        if own.is_ok() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        own = client.get(format!("http://{address}/metrics")).send().await;
    }
    let own = own.expect("the metrics listener answers");
    let elsewhere = client.get(format!("http://{address}/v0/users/me")).send().await.unwrap();
    let main = scrape(&app, None).await;
    // Assert: open on its own address, which serves nothing else; absent from the main one.
    assert_eq!(own.status(), StatusCode::OK);
    assert!(own.text().await.unwrap().contains("trellis_db_pool_connections"));
    assert_error(elsewhere, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(main, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    app.stop().await;
}

#[tokio::test]
async fn the_docs_render_the_api_description_without_a_license_or_the_internet() {
    // Arrange
    let app = spawn_app().await;
    let no_redirects = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    // Act
    let root = no_redirects.get(app.url("/")).send().await.unwrap();
    let page = app.request(Method::GET, "/docs/").send().await.unwrap();
    let initializer = app.request(Method::GET, "/docs/swagger-initializer.js").send().await.unwrap();
    let bundle = app.request(Method::GET, "/docs/swagger-ui-bundle.js").send().await.unwrap();
    let document = app.request(Method::GET, "/v0/openapi.json").send().await.unwrap();
    // Assert
    assert!(root.status().is_redirection(), "{}", root.status());
    assert_eq!(root.headers()[header::LOCATION], "/docs/");
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap();
    assert!(html.contains("swagger-ui"), "{html}");
    assert!(!html.contains("https://"), "the page must load nothing from the internet: {html}");
    let initializer = initializer.text().await.unwrap();
    assert!(initializer.contains("/v0/openapi.json"), "{initializer}");
    assert_eq!(bundle.status(), StatusCode::OK);
    assert!(bundle.bytes().await.unwrap().len() > 100_000, "the bundle is built in");
    assert_eq!(document.status(), StatusCode::OK);
    let document: serde_json::Value = document.json().await.unwrap();
    assert!(document["openapi"].as_str().is_some_and(|v| v.starts_with("3.")));
    app.stop().await;
}

/// Issue 28: the page that handles session tokens keeps none in the browser's storage, loads and
/// sends nothing beyond this server, and cannot be framed by another site.
#[tokio::test]
async fn the_docs_keep_no_token_load_only_from_this_server_and_cannot_be_framed() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let page = app.request(Method::GET, "/docs/").send().await.unwrap();
    let initializer = app.request(Method::GET, "/docs/swagger-initializer.js").send().await.unwrap();
    // Assert
    for response in [&page, &initializer] {
        let policy = response.headers()[header::CONTENT_SECURITY_POLICY].to_str().unwrap();
        for directive in ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"] {
            assert!(policy.split(';').any(|d| d.trim() == directive), "{directive} in {policy}");
        }
        assert_eq!(response.headers()[header::X_FRAME_OPTIONS], "DENY");
        assert_eq!(response.headers()[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    }
    let initializer = initializer.text().await.unwrap();
    assert!(initializer.contains("\"persistAuthorization\": false"), "{initializer}");
    app.stop().await;
}
