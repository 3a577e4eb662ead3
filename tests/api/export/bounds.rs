//! The bounds on running exports: a user runs `export.max_running_per_user` at once, of forms and items
//! together (one more is 429 RATE_LIMITED with `Retry-After`), a server `export.max_running` (one more is 503
//! SERVICE_UNAVAILABLE with `Retry-After`), and an export whose client went away, or stopped reading for
//! longer than the write timeout, frees its place.
//!
//! An export runs until its body is written: the server writes a page only when the client has taken
//! the last. So an export is held open by a client that sends its request and never reads (as the
//! live-update bounds do), over rows big enough (ten instances of about 480 kB, one per page) that the
//! body cannot fit in the buffers between the two.

use std::time::{Duration, Instant};

use reqwest::{Response, StatusCode};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use trellis_tests::{TestApp, TestUser, assert_error, spawn_app_with};

use super::{FORMS_EXPORT, export_forms, export_items, exported};
use crate::support::forms::{answers_by_key, config_with, created_config, created_form, field, sample_config};
use crate::support::workflow::{created_workflow, sample_workflow, wf};

const METRICS_TOKEN: &str = "metrics-token-for-the-export-tests";

/// `trellis_exports_running` as `/metrics` reports it.
async fn exports_running(app: &TestApp) -> u64 {
    let metrics = app.request(reqwest::Method::GET, "/metrics").bearer_auth(METRICS_TOKEN).send().await.unwrap();
    let text = metrics.text().await.unwrap();
    let line = text.lines().find(|line| line.starts_with("trellis_exports_running ")).expect("the metric");
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

/// How long a freed place may take to be seen free.
const WAIT: Duration = Duration::from_secs(5);
const ROWS: usize = 10;
const FIELDS: usize = 8;
const ANSWER_CHARS: usize = 60_000;

/// Gives `user` [`ROWS`] instances of about 480 kB each.
async fn big_instances(app: &TestApp, user: &TestUser) {
    let fields: Vec<Value> = (0..FIELDS).map(|n| field(&format!("t{n}"), "textarea")).collect();
    let config = created_config(app, &user.token, config_with(fields)).await;
    for row in 0..ROWS {
        let answers: Vec<(String, Value)> = (0..FIELDS)
            .map(|n| {
                let letter = char::from(b'a' + ((row + n) % 26) as u8);
                (format!("t{n}"), json!(letter.to_string().repeat(ANSWER_CHARS)))
            })
            .collect();
        let answers: Vec<(&str, Value)> = answers.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
        created_form(app, &user.token, &answers_by_key(&config, &answers)).await;
    }
}

/// An export of `user`'s instances by a client that reads the status line and headers and then
/// nothing more. Its socket has a small receive buffer and announces a small segment size, so the
/// kernel takes little of the body for it. Asserts the export was accepted (200).
async fn held_export(app: &TestApp, user: &TestUser) -> tokio::net::TcpStream {
    let address: std::net::SocketAddr = app.address.trim_start_matches("http://").parse().expect("an address");
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).expect("a socket");
    socket.set_recv_buffer_size(2_048).expect("a small receive buffer");
    socket.set_tcp_mss(536).expect("a small segment size");
    socket.connect(&address.into()).expect("connected");
    socket.set_nonblocking(true).expect("non-blocking");
    let mut stream = tokio::net::TcpStream::from_std(socket.into()).expect("a tokio socket");
    let request = format!(
        "GET {FORMS_EXPORT} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\nX-License-Key: {}\r\n\
         Authorization: Bearer {}\r\n\r\n",
        app.license_key, user.token
    );
    stream.write_all(request.as_bytes()).await.expect("request sent");
    let mut head = Vec::new();
    let mut buffer = [0u8; 512];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let read = tokio::time::timeout(WAIT, stream.read(&mut buffer)).await.expect("an answer in time");
        let read = read.expect("the answer is read");
        assert!(read > 0, "the server closed the connection: {}", String::from_utf8_lossy(&head));
        head.extend_from_slice(&buffer[..read]);
    }
    let head = String::from_utf8_lossy(&head);
    assert!(head.starts_with("HTTP/1.1 200"), "the held export was accepted: {head}");
    stream
}

/// Asserts a refusal with `status` and `code` carrying `Retry-After` in whole seconds.
async fn assert_refused(response: Response, status: StatusCode, code: &str) {
    let retry_after = response.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_owned);
    assert_error(response, status, code).await;
    let seconds: u64 = retry_after.as_deref().and_then(|v| v.parse().ok()).unwrap_or_else(|| {
        panic!("a refused export carries Retry-After in seconds, not {retry_after:?}");
    });
    assert!(seconds >= 1, "Retry-After: {seconds}");
}

/// Asks for an export of `user`'s until one is accepted, each refusal `status`; fails after [`WAIT`].
async fn accepted_within_wait(app: &TestApp, user: &TestUser, status: StatusCode, code: &str) -> Response {
    let deadline = Instant::now() + WAIT;
    loop {
        let response = export_forms(app, &user.token, &[]).await;
        if response.status() == StatusCode::OK {
            return response;
        }
        assert_refused(response, status, code).await;
        assert!(Instant::now() < deadline, "the place of the export that went away was never freed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_third_export_of_one_user_is_429_and_a_client_that_went_away_frees_its_place() {
    // Arrange: one row per page; two exports per user, three per server.
    let app = spawn_app_with(|config| {
        config.export.page_rows = 1;
        config.export.max_running = 3;
        config.export.max_running_per_user = 2;
    })
    .await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    created_config(&app, &ann.token, sample_config()).await;
    created_workflow(&app, &ann.token, sample_workflow()).await;
    big_instances(&app, &ann).await;
    let first = held_export(&app, &ann).await;
    let second = held_export(&app, &ann).await;
    // Act
    let third = export_forms(&app, &ann.token, &[]).await;
    let items =
        export_items(&app, &ann.token, &[("workflowConfigurationId", wf::ID), ("workflowViewId", wf::INTAKE_VIEW)])
            .await;
    let bobs = export_forms(&app, &bob.token, &[]).await;
    // Assert: ann is refused, an export of items too; bob is not ann.
    assert_refused(third, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    assert_refused(items, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    assert_eq!(exported(bobs).await.text, "");

    // Act: one of ann's clients goes away.
    drop(first);
    // Assert: its place is free again, and the new export is whole.
    let again = accepted_within_wait(&app, &ann, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    assert_eq!(exported(again).await.lines().len(), ROWS);
    drop(second);
}

#[tokio::test]
async fn an_export_past_the_servers_bound_is_503_until_one_ends() {
    // Arrange: one row per page; one export per server.
    let app = spawn_app_with(|config| {
        config.export.page_rows = 1;
        config.export.max_running = 1;
        config.metrics.token = Some(METRICS_TOKEN.into());
    })
    .await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    big_instances(&app, &ann).await;
    let held = held_export(&app, &ann).await;
    // Act
    let bobs = export_forms(&app, &bob.token, &[]).await;
    let anns = export_forms(&app, &ann.token, &[]).await;
    // Assert
    assert_refused(bobs, StatusCode::SERVICE_UNAVAILABLE, "SERVICE_UNAVAILABLE").await;
    assert_refused(anns, StatusCode::SERVICE_UNAVAILABLE, "SERVICE_UNAVAILABLE").await;
    assert_eq!(exports_running(&app).await, 1);

    // Act: the held export's client goes away.
    drop(held);
    // Assert
    let again = accepted_within_wait(&app, &bob, StatusCode::SERVICE_UNAVAILABLE, "SERVICE_UNAVAILABLE").await;
    assert_eq!(exported(again).await.text, "");
    assert_eq!(exports_running(&app).await, 0);
}

#[tokio::test]
async fn an_export_whose_client_stopped_reading_frees_its_place_after_the_write_timeout() {
    // Arrange: one export per user; a write that waits a second gives up.
    let app = spawn_app_with(|config| {
        config.export.page_rows = 1;
        config.export.max_running_per_user = 1;
        config.http.write_timeout_seconds = 1;
    })
    .await;
    let ann = app.sign_up("ann").await;
    big_instances(&app, &ann).await;
    let stalled = held_export(&app, &ann).await;
    // Act
    let second = export_forms(&app, &ann.token, &[]).await;
    // Assert: refused while the stalled export runs, and accepted once its write timed out, its client
    // still connected.
    assert_refused(second, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    let again = accepted_within_wait(&app, &ann, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    assert_eq!(exported(again).await.lines().len(), ROWS);
    drop(stalled);
}
