//! PostgreSQL or the S3 store goes away and comes back (a relay in front of the real one is cut
//! and restored): meanwhile requests that need it answer 503 with `Retry-After` and `/readyz` says
//! which is away; afterwards the server recovers on its own, and nothing it acknowledged is lost.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::json;
use trellis_tests::{TestApp, assert_error, body, note_skip, s3_settings, spawn_app_on_s3, spawn_app_with};

use crate::support::media::{png, send};
use crate::support::outage::Relay;

/// `url` with its `host:port` replaced by `address`.
fn through(url: &str, address: std::net::SocketAddr) -> String {
    let (scheme, rest) = url.split_once("://").expect("a URL");
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let user = authority.rsplit_once('@').map(|(user, _)| format!("{user}@")).unwrap_or_default();
    format!("{scheme}://{user}{address}{}", &rest[authority_end..])
}

/// The `host:port` a URL names.
fn target(url: &str) -> std::net::SocketAddr {
    let rest = url.split_once("://").expect("a URL").1;
    let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
    let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    let host = if host.contains(':') { host.to_owned() } else { format!("{host}:5432") };
    std::net::ToSocketAddrs::to_socket_addrs(&host).expect("resolvable").next().expect("an address")
}

/// The answer of GET `path` once it is `status`; fails after `within`.
async fn answers(app: &TestApp, token: &str, path: &str, status: StatusCode, within: Duration) -> reqwest::Response {
    let deadline = Instant::now() + within;
    loop {
        let response = app.get_authed(path, token).await;
        if response.status() == status {
            return response;
        }
        assert!(Instant::now() < deadline, "GET {path} kept answering {}", response.status());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// `/readyz`: its status and, when not ready, the error code naming what is away.
async fn readiness(app: &TestApp) -> (StatusCode, Option<String>) {
    let response = app.request(Method::GET, "/readyz").send().await.unwrap();
    let status = response.status();
    let answer = body(response).await;
    (status, answer["error"]["code"].as_str().map(str::to_owned))
}

/// Whether `/readyz` answers 200 within `within` (it answers from a check up to a second old).
async fn ready_again(app: &TestApp, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    while readiness(app).await.0 != StatusCode::OK {
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    true
}

#[tokio::test]
async fn while_postgres_is_away_requests_answer_503_and_the_server_recovers_on_its_own() {
    if std::env::var("TEST_DATABASE").map_or(true, |db| db != "postgres") {
        note_skip("while_postgres_is_away_requests_answer_503_and_the_server_recovers_on_its_own", "PostgreSQL only");
        return;
    }
    // Arrange: the server reaches its (fresh) database through the relay; three spaces are acknowledged.
    let admin =
        std::env::var("TEST_POSTGRES_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
    let relay = Relay::start(target(&admin)).await;
    let app = spawn_app_with(|config| config.database.url = through(&config.database.url, relay.address)).await;
    let ann = app.sign_up("ann").await;
    for name in ["one", "two", "three"] {
        let created = app
            .authed(Method::POST, "/v0/spaces", &ann.token)
            .json(&json!({"name": name, "displayName": name}))
            .send()
            .await
            .unwrap();
        assert_eq!(created.status(), StatusCode::CREATED);
    }
    // Act: PostgreSQL goes away.
    relay.cut();
    let read = app.get_authed("/v0/spaces", &ann.token).await;
    let write = app
        .authed(Method::POST, "/v0/spaces", &ann.token)
        .json(&json!({"name": "four", "displayName": "four"}))
        .send()
        .await
        .unwrap();
    let (ready, why) = readiness(&app).await;
    // Assert: 503 with Retry-After, and the probe says why.
    for refused in [read, write] {
        assert!(refused.headers().get("retry-after").is_some(), "{:?}", refused.headers());
        assert_error(refused, StatusCode::SERVICE_UNAVAILABLE, "SERVICE_UNAVAILABLE").await;
    }
    assert_eq!((ready, why.as_deref()), (StatusCode::SERVICE_UNAVAILABLE, Some("SERVICE_UNAVAILABLE")));
    // Act: it comes back.
    relay.restore();
    let listed = body(answers(&app, &ann.token, "/v0/spaces", StatusCode::OK, Duration::from_secs(20)).await).await;
    // Assert: the three acknowledged spaces, not the refused one; ready again.
    let mut names: Vec<&str> =
        listed["items"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(names, ["one", "three", "two"]);
    assert!(ready_again(&app, Duration::from_secs(20)).await, "/readyz kept answering not ready");
    app.stop().await;
}

#[tokio::test]
async fn while_the_media_store_is_away_media_answers_503_and_the_bytes_are_there_after() {
    let Some(settings) = s3_settings("while_the_media_store_is_away_media_answers_503_and_the_bytes_are_there_after")
    else {
        return;
    };
    // Arrange: the server reaches the S3 server through the relay; an avatar is stored.
    let endpoint = settings.endpoint.clone();
    let relay = Relay::start(target(&endpoint)).await;
    let relayed = trellis::config::media::S3Config { endpoint: through(&endpoint, relay.address), ..settings };
    let app = spawn_app_on_s3(&relayed, |_| {}).await;
    let ann = app.sign_up("ann").await;
    let image = png(2_000);
    let upload = |bytes: Vec<u8>| {
        let part = reqwest::multipart::Part::bytes(bytes).file_name("me.png").mime_str("image/png").unwrap();
        app.authed(Method::POST, "/v0/media/users/me/avatar", &ann.token)
            .multipart(reqwest::multipart::Form::new().part("file", part))
    };
    let stored = send(&app, upload(image.clone()), false).await.expect(StatusCode::CREATED);
    let profile = body(app.get_authed("/v0/users/me", &ann.token).await).await;
    let avatar = &profile["avatar"];
    let path = format!(
        "/v0/media/users/{}/{}/avatar/{}",
        avatar["dbHash"].as_str().unwrap(),
        avatar["userId"].as_str().unwrap(),
        stored["picId"].as_str().unwrap()
    );
    // Act: the store goes away.
    relay.cut();
    let read = app.get_authed(&path, &ann.token).await;
    let write = upload(png(3_000)).send().await.unwrap();
    let (ready, why) = readiness(&app).await;
    // Assert
    for refused in [read, write] {
        assert!(refused.headers().get("retry-after").is_some(), "{:?}", refused.headers());
        assert_error(refused, StatusCode::SERVICE_UNAVAILABLE, "MEDIA_UNAVAILABLE").await;
    }
    assert_eq!((ready, why.as_deref()), (StatusCode::SERVICE_UNAVAILABLE, Some("MEDIA_UNAVAILABLE")));
    // Act: it comes back.
    relay.restore();
    let back = answers(&app, &ann.token, &path, StatusCode::OK, Duration::from_secs(20)).await;
    // Assert: the acknowledged bytes, whole; ready again.
    assert_eq!(back.bytes().await.unwrap().to_vec(), image);
    assert!(ready_again(&app, Duration::from_secs(20)).await, "/readyz kept answering not ready");
    app.stop().await;
}
