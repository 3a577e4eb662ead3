//! Cross-cutting rules of `conventions.md`: request ids, the error envelope for edge failures
//! (unknown routes, content types, malformed and oversized bodies), probes and the OpenAPI document.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{assert_error, body, detail_paths, spawn_app, spawn_app_with};

/// Every route this foundation serves under /v0, as (method, path).
const V0_ROUTES: [(&str, &str); 14] = [
    ("post", "/v0/auth/sign-up/start"),
    ("post", "/v0/auth/sign-up/verify-pin"),
    ("post", "/v0/auth/sign-up/complete"),
    ("post", "/v0/auth/login"),
    ("get", "/v0/auth/session"),
    ("post", "/v0/auth/logout"),
    ("post", "/v0/auth/password-reset/start"),
    ("post", "/v0/auth/password-reset/verify-pin"),
    ("post", "/v0/auth/password-reset/resend-pin"),
    ("post", "/v0/auth/password-reset/complete"),
    ("get", "/v0/users/me"),
    ("patch", "/v0/users/me"),
    ("get", "/v0/users/search"),
    ("get", "/v0/openapi.json"),
];

#[tokio::test]
async fn a_sent_request_id_is_echoed_on_success_and_on_error() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let ok = app.request(Method::GET, "/v0/openapi.json").header("X-Request-Id", "req-ok-1").send().await.unwrap();
    let failed = app.request(Method::GET, "/v0/users/me").header("X-Request-Id", "req-err-2").send().await.unwrap();
    // Assert
    assert_eq!(ok.headers()["x-request-id"], "req-ok-1");
    assert_eq!(failed.headers()["x-request-id"], "req-err-2");
    let error = assert_error(failed, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    assert_eq!(error["requestId"], "req-err-2");
}

#[tokio::test]
async fn a_request_id_is_generated_when_none_is_sent() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let first = app.request(Method::GET, "/v0/openapi.json").send().await.unwrap();
    let second = app.client.get(app.url("/v0/users/me")).send().await.unwrap();
    // Assert
    let first_id = first.headers()["x-request-id"].to_str().unwrap().to_owned();
    let second_id = second.headers()["x-request-id"].to_str().unwrap().to_owned();
    assert!(uuid::Uuid::parse_str(&first_id).is_ok(), "{first_id}");
    assert_ne!(first_id, second_id);
    let error = assert_error(second, StatusCode::UNAUTHORIZED, "LICENSE_REQUIRED").await;
    assert_eq!(error["requestId"], second_id.as_str());
}

#[tokio::test]
async fn error_bodies_carry_the_contract_numeric_codes() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let unauthenticated = app.request(Method::GET, "/v0/users/me").send().await.unwrap();
    let license_required = app.client.get(app.url("/v0/users/me")).send().await.unwrap();
    let license_invalid =
        app.client.get(app.url("/v0/users/me")).header("X-License-Key", "trk_x").send().await.unwrap();
    let not_found = app.request(Method::GET, "/v0/no-such-route").send().await.unwrap();
    let validation = app.post_json("/v0/auth/login", json!({})).await;
    // Assert
    for (response, status, code, numeric) in [
        (unauthenticated, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED", 801),
        (license_required, StatusCode::UNAUTHORIZED, "LICENSE_REQUIRED", 807),
        (license_invalid, StatusCode::FORBIDDEN, "LICENSE_INVALID", 808),
        (not_found, StatusCode::NOT_FOUND, "NOT_FOUND", 804),
        (validation, StatusCode::BAD_REQUEST, "VALIDATION_FAILED", 800),
    ] {
        let error = assert_error(response, status, code).await;
        assert_eq!(error["numeric"], numeric, "{code}");
    }
}

#[tokio::test]
async fn an_unknown_route_is_404_not_found_with_the_envelope() {
    // Arrange
    let app = spawn_app().await;
    // `/` points to the docs (see `operations`).
    for path in ["/v0/no-such-route", "/v0/users/me/extra", "/no-such-route", "/docs/no-such-asset"] {
        // Act
        let response = app.request(Method::GET, path).header("X-Request-Id", "req-404").send().await.unwrap();
        // Assert
        let error = assert_error(response, StatusCode::NOT_FOUND, "NOT_FOUND").await;
        assert_eq!(error["requestId"], "req-404", "{path}");
    }
}

#[tokio::test]
async fn a_known_path_with_a_wrong_method_is_405_method_not_allowed_with_allow() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let response = app.request(Method::DELETE, "/v0/users/me").send().await.unwrap();
    // Assert
    let allow = response.headers().get("allow").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
    let allowed: Vec<&str> = allow.split(',').map(str::trim).collect();
    assert!(allowed.contains(&"GET") && allowed.contains(&"PATCH") && !allowed.contains(&"DELETE"), "{allow}");
    let error = assert_error(response, StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED").await;
    assert_eq!(error["numeric"], 819);
}

#[tokio::test]
async fn a_body_that_is_not_json_by_content_type_is_415_unsupported_media_type() {
    // Arrange
    let app = spawn_app().await;
    let login = r#"{"login": "ann", "password": "x"}"#;
    let requests = [
        app.request(Method::POST, "/v0/auth/login").header("Content-Type", "text/plain").body(login),
        app.request(Method::POST, "/v0/auth/login")
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body("login=ann"),
        app.request(Method::POST, "/v0/auth/login").body(login),
    ];
    for request in requests {
        // Act
        let response = request.send().await.unwrap();
        // Assert
        assert_error(response, StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE").await;
    }
}

#[tokio::test]
async fn json_with_a_charset_parameter_is_accepted() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let response = app
        .request(Method::POST, "/v0/auth/login")
        .header("Content-Type", "application/json; charset=utf-8")
        .body(r#"{"login": "nobody", "password": "wrong password 1"}"#)
        .send()
        .await
        .unwrap();
    // Assert
    assert_error(response, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
}

#[tokio::test]
async fn malformed_json_is_400_validation_failed_with_details() {
    // Arrange
    let app = spawn_app().await;
    for malformed in [r#"{"login": "ann", "#, "not json", r#"{"login": "ann"} trailing"#, ""] {
        // Act
        let response = app
            .request(Method::POST, "/v0/auth/login")
            .header("Content-Type", "application/json")
            .body(malformed)
            .send()
            .await
            .unwrap();
        // Assert
        let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
        assert_eq!(detail_paths(&error).len(), 1, "{malformed:?}");
    }
}

#[tokio::test]
async fn a_field_of_the_wrong_type_is_400_with_its_path() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let response = app
        .post_json(
            "/v0/auth/sign-up/start",
            json!({"email": ["ann@example.org"], "handle": "ann", "fullName": "A", "displayName": "A"}),
        )
        .await;
    // Assert
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(detail_paths(&error), ["/email"]);
}

#[tokio::test]
async fn a_body_over_the_deployment_limit_is_413_and_one_within_it_is_read() {
    // Arrange
    let app = spawn_app_with(|config| config.http.json_body_limit = 2048).await;
    let sized = |bytes: usize| {
        let padding = "x".repeat(bytes - r#"{"login":"","password":"wrong password 1"}"#.len());
        let body = format!(r#"{{"login":"{padding}","password":"wrong password 1"}}"#);
        assert_eq!(body.len(), bytes);
        app.request(Method::POST, "/v0/auth/login").header("Content-Type", "application/json").body(body)
    };
    // Act
    let within = sized(2048).send().await.unwrap();
    let over = sized(2049).send().await.unwrap();
    // Assert
    assert_error(within, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    assert_error(over, StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE").await;
}

#[tokio::test]
async fn a_chunked_body_over_the_deployment_limit_is_413() {
    // Arrange
    let app = spawn_app_with(|config| config.http.json_body_limit = 1024).await;
    let host = app.address.trim_start_matches("http://").to_owned();
    let chunk = format!(r#"{{"login":"{}","password":"wrong password 1"}}"#, "x".repeat(2000));
    let request = format!(
        "POST /v0/auth/login HTTP/1.1\r\nHost: {host}\r\nX-License-Key: {}\r\nContent-Type: application/json\r\n\
         Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n{:x}\r\n{chunk}\r\n0\r\n\r\n",
        app.license_key,
        chunk.len()
    );
    // Act
    let answer = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(host).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    })
    .await
    .unwrap();
    // Assert
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains(r#""code":"PAYLOAD_TOO_LARGE""#), "{answer}");
}

#[tokio::test]
async fn healthz_answers_ok_without_a_license_key() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let response = app.client.get(app.url("/healthz")).send().await.unwrap();
    // Assert
    assert_eq!(response.status(), StatusCode::OK);
    assert!(response.headers().contains_key("x-request-id"));
    assert_eq!(body(response).await, json!({"status": "ok"}));
}

#[tokio::test]
async fn readyz_answers_ready_while_the_database_answers() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let response = app.client.get(app.url("/readyz")).send().await.unwrap();
    // Assert
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(body(response).await, json!({"status": "ready"}));
}

#[tokio::test]
async fn concurrent_readyz_calls_share_one_check_a_second() {
    // Arrange
    let token = "metrics-token-for-the-tests";
    let app = spawn_app_with(|config| config.metrics.token = Some(token.into())).await;
    // Act: 64 anonymous probes at once.
    let started = std::time::Instant::now();
    let probes = (0..64).map(|_| app.client.get(app.url("/readyz")).send());
    let answers = futures::future::join_all(probes).await;
    let took = started.elapsed();
    let metrics = app.request(Method::GET, "/metrics").bearer_auth(token).send().await.unwrap();
    // Assert: a check starts at most a second after the last one ended, however long the probes took.
    for answer in answers {
        assert_eq!(answer.unwrap().status(), StatusCode::OK);
    }
    let text = metrics.text().await.unwrap();
    let line = text.lines().find(|line| line.starts_with("trellis_readiness_checks_total ")).expect("the metric");
    let checks: u64 = line.rsplit(' ').next().unwrap().parse().unwrap();
    assert!((1..=1 + took.as_secs()).contains(&checks), "{checks} checks for 64 probes in {took:?}");
}

#[tokio::test]
async fn the_openapi_document_lists_every_v0_route() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let response = app.request(Method::GET, "/v0/openapi.json").send().await.unwrap();
    // Assert
    assert_eq!(response.status(), StatusCode::OK);
    let document = body(response).await;
    assert!(document["openapi"].as_str().is_some_and(|v| v.starts_with("3.")));
    for (method, path) in V0_ROUTES {
        assert!(document["paths"][path][method].is_object(), "{method} {path} is not documented");
    }
    for path in ["/healthz", "/readyz"] {
        assert!(document["paths"][path]["get"].is_object(), "{path} is not documented");
    }
}

#[tokio::test]
async fn every_route_the_openapi_document_names_exists() {
    // Arrange
    let app = spawn_app().await;
    let document = body(app.request(Method::GET, "/v0/openapi.json").send().await.unwrap()).await;
    let paths = document["paths"].as_object().unwrap().clone();
    for (path, operations) in paths {
        let concrete = fill_path_parameters(&path);
        for method in operations.as_object().unwrap().keys().filter(|m| is_http_method(m)) {
            // Act
            let method = Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            let response = app.request(method.clone(), &concrete).send().await.unwrap();
            // Assert
            let status = response.status();
            let answer: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap_or(Value::Null);
            let unrouted = status == StatusCode::NOT_FOUND && answer["error"]["message"] == "no such route";
            assert!(!unrouted, "{method} {path} is documented but not served");
        }
    }
}

fn is_http_method(name: &str) -> bool {
    matches!(name, "get" | "put" | "post" | "delete" | "patch" | "head" | "options")
}

/// Replaces each `{name}` segment with a fresh UUID.
fn fill_path_parameters(path: &str) -> String {
    path.split('/')
        .map(|segment| {
            if segment.starts_with('{') && segment.ends_with('}') {
                uuid::Uuid::new_v4().to_string()
            } else {
                segment.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[tokio::test]
async fn the_api_description_is_public() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let anonymous = app.client.get(app.url("/v0/openapi.json")).send().await.unwrap();
    let unlicensed_route = app.client.get(app.url("/v0/users/me")).send().await.unwrap();
    // Assert
    assert_eq!(anonymous.status(), StatusCode::OK);
    assert!(body(anonymous).await["paths"]["/v0/users/me"].is_object());
    assert_error(unlicensed_route, StatusCode::UNAUTHORIZED, "LICENSE_REQUIRED").await;
}
