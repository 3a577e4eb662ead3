//! What a client library relies on at the wire: a refused large body closes the connection openly,
//! 401 names its challenge, paging problems are told apart (a mistyped limit, a foreign cursor),
//! every documented 429 carries `Retry-After`, and every time has the same precision.

use std::io::{Read, Write};
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::Value;
use trellis_tests::{assert_error, body, spawn_app, spawn_app_with};

use crate::support::forms::{created_config, expected, problems, sample_config, sample_config_without_id};

#[tokio::test]
async fn a_413_on_a_kept_alive_connection_says_connection_close_before_closing_it() {
    // Arrange
    let app = spawn_app_with(|config| config.http.json_body_limit = 1024).await;
    let host = app.address.trim_start_matches("http://").to_owned();
    let login = format!(r#"{{"login":"{}","password":"wrong password 1"}}"#, "x".repeat(2000));
    let request = format!(
        "POST /v0/auth/login HTTP/1.1\r\nHost: {host}\r\nX-License-Key: {}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{login}",
        app.license_key,
        login.len()
    );
    // Act: HTTP/1.1 keeps the connection unless told otherwise; read until the server closes it.
    let answer = tokio::task::spawn_blocking(move || {
        let mut stream = std::net::TcpStream::connect(host).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = Vec::new();
        let closed = stream.read_to_end(&mut answer).is_ok();
        (String::from_utf8_lossy(&answer).into_owned(), closed)
    })
    .await
    .unwrap();
    // Assert
    let (answer, closed) = answer;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    let head = answer.split("\r\n\r\n").next().unwrap().to_ascii_lowercase();
    assert!(head.contains("\r\nconnection: close"), "{head}");
    assert!(closed, "the server closed the connection it said it would close");
    let next = app.request(Method::GET, "/v0/openapi.json").send().await.unwrap();
    assert_eq!(next.status(), StatusCode::OK, "a pooled client goes on");
}

#[tokio::test]
async fn a_401_names_what_it_wants_in_www_authenticate() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let no_session = app.request(Method::GET, "/v0/users/me").send().await.unwrap();
    let no_license = app.client.get(app.url("/v0/users/me")).send().await.unwrap();
    // Assert
    let challenge = |response: &reqwest::Response| {
        response.headers().get("www-authenticate").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default()
    };
    assert!(challenge(&no_session).starts_with("Bearer "), "{}", challenge(&no_session));
    assert!(challenge(&no_license).starts_with("X-License-Key "), "{}", challenge(&no_license));
    assert_error(no_session, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    assert_error(no_license, StatusCode::UNAUTHORIZED, "LICENSE_REQUIRED").await;
}

#[tokio::test]
async fn a_limit_that_is_no_number_is_a_type_problem_and_one_out_of_range_is_out_of_range() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let mistyped = app.get_authed("/v0/forms/configurations?limit=abc", &ann.token).await;
    let too_big = app.get_authed("/v0/forms/configurations?limit=201", &ann.token).await;
    // Assert
    let error = assert_error(mistyped, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("query.limit", "INVALID_TYPE")]));
    let error = assert_error(too_big, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("query.limit", "OUT_OF_RANGE")]));
}

#[tokio::test]
async fn a_cursor_pages_only_the_list_and_the_user_it_was_given_to() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    for _ in 0..2 {
        created_config(&app, &ann.token, sample_config_without_id()).await;
    }
    let first = body(app.get_authed("/v0/forms/configurations?limit=1", &ann.token).await).await;
    let cursor = first["nextCursor"].as_str().expect("a second page").to_owned();
    // Act
    let own = app.get_authed(&format!("/v0/forms/configurations?limit=1&cursor={cursor}"), &ann.token).await;
    let other_user = app.get_authed(&format!("/v0/forms/configurations?limit=1&cursor={cursor}"), &bob.token).await;
    let other_route = app.get_authed(&format!("/v0/workflows/configurations?cursor={cursor}"), &ann.token).await;
    // Assert
    assert_eq!(own.status(), StatusCode::OK);
    for refused in [other_user, other_route] {
        let error = assert_error(refused, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
        assert_eq!(problems(&error), expected(&[("query.cursor", "INVALID_CURSOR")]));
    }
}

#[tokio::test]
async fn every_documented_429_and_503_carries_retry_after() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let document = body(app.request(Method::GET, "/v0/openapi.json").send().await.unwrap()).await;
    // Assert
    let mut checked = 0;
    for (path, item) in document["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            for status in ["429", "503"] {
                let Some(response) = operation["responses"].get(status) else { continue };
                let response = match response["$ref"].as_str() {
                    Some(target) => document.pointer(&target[1..]).unwrap(),
                    None => response,
                };
                assert!(response["headers"]["Retry-After"].is_object(), "{method} {path} {status}");
                checked += 1;
            }
        }
    }
    assert!(checked > 13, "{checked}");
}

#[tokio::test]
async fn times_are_answered_in_utc_with_three_fractional_digits_wherever_they_come_from() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act: one answer made from the clock, one read back from the store.
    let created = created_config(&app, &ann.token, sample_config()).await;
    let path = format!("/v0/forms/configurations/{}", created["id"].as_str().unwrap());
    let read = body(app.get_authed(&path, &ann.token).await).await;
    // Assert
    let millis = |value: &Value| {
        let text = value.as_str().unwrap().to_owned();
        let fraction = text.strip_suffix('Z').and_then(|t| t.rsplit_once('.')).map(|(_, f)| f.len());
        assert_eq!(fraction, Some(3), "{text}");
        text
    };
    assert_eq!(millis(&created["createdAt"]), millis(&read["createdAt"]));
    assert_eq!(millis(&created["updatedAt"]), millis(&read["updatedAt"]));
}
