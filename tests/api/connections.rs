//! Slow and greedy clients (issue 11, finding 6): header, body and idle timeouts, connection caps,
//! and a shutdown that ends within its grace period. Raw TCP, so a test can stop half-way.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use trellis_tests::{TestApp, spawn_app_with};

/// Long enough that a loaded two-core machine still meets it, short next to "never".
const PATIENCE: Duration = Duration::from_secs(8);

async fn connect(app: &TestApp) -> TcpStream {
    TcpStream::connect(app.address.trim_start_matches("http://")).await.expect("connecting")
}

/// Reads until the server closes the connection (or `PATIENCE` passes); answers what arrived and
/// whether it closed.
async fn read_until_closed(stream: &mut TcpStream) -> (String, bool) {
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    let deadline = Instant::now() + PATIENCE;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut buffer)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return (String::from_utf8_lossy(&received).into_owned(), true),
            Ok(Ok(n)) => received.extend_from_slice(&buffer[..n]),
            Err(_) => return (String::from_utf8_lossy(&received).into_owned(), false),
        }
    }
}

#[tokio::test]
async fn a_half_sent_header_is_cut_off() {
    // Arrange
    let app = spawn_app_with(|config| config.http.header_timeout_seconds = 1).await;
    let mut stream = connect(&app).await;
    // Act
    stream.write_all(b"GET /v0/users/me HTTP/1.1\r\nhost: localhost\r\nx-slow: ").await.unwrap();
    let started = Instant::now();
    let (_, closed) = read_until_closed(&mut stream).await;
    // Assert
    assert!(closed, "the connection is still open after {:?}", started.elapsed());
    app.stop().await;
}

#[tokio::test]
async fn an_idle_kept_alive_connection_is_closed() {
    // Arrange
    let app = spawn_app_with(|config| config.http.header_timeout_seconds = 1).await;
    let mut stream = connect(&app).await;
    stream.write_all(b"GET /healthz HTTP/1.1\r\nhost: localhost\r\n\r\n").await.unwrap();
    // Act: the answer arrives, then nothing more is sent.
    let (received, closed) = read_until_closed(&mut stream).await;
    // Assert
    assert!(received.starts_with("HTTP/1.1 200"), "{received}");
    assert!(closed, "an idle connection stays open");
    app.stop().await;
}

#[tokio::test]
async fn a_stalled_body_fails_its_request() {
    // Arrange
    let app = spawn_app_with(|config| config.http.body_idle_timeout_seconds = 1).await;
    let mut stream = connect(&app).await;
    // Act: 100 bytes announced, 10 sent.
    stream
        .write_all(b"POST /v0/auth/login HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{\"login\":")
        .await
        .unwrap();
    let (received, closed) = read_until_closed(&mut stream).await;
    // Assert: an error answer or a closed connection, well before the client would finish.
    assert!(closed || received.starts_with("HTTP/1.1 4"), "no answer to a stalled body: {received:?}");
    app.stop().await;
}

#[tokio::test]
async fn connections_over_the_per_address_cap_are_refused_with_the_envelope() {
    // Arrange: two connections hold both places of 127.0.0.1.
    let app = spawn_app_with(|config| config.http.max_connections_per_address = 2).await;
    let mut held = vec![connect(&app).await, connect(&app).await];
    for stream in &mut held {
        stream.write_all(b"GET /healthz HTTP/1.1\r\nhost: localhost\r\n\r\n").await.unwrap();
        let mut buffer = [0u8; 1024];
        let n = stream.read(&mut buffer).await.unwrap();
        assert!(String::from_utf8_lossy(&buffer[..n]).starts_with("HTTP/1.1 200"));
    }
    // Act
    let mut third = connect(&app).await;
    let (refusal, closed) = read_until_closed(&mut third).await;
    drop(held);
    // Assert
    assert!(closed, "the refused connection is closed");
    let (head, body) = refusal.split_once("\r\n\r\n").expect("a whole answer");
    assert!(head.starts_with("HTTP/1.1 429"), "{head}");
    assert!(head.to_ascii_lowercase().contains("retry-after: 1"), "{head}");
    let request_id = head
        .lines()
        .find_map(|line| line.to_ascii_lowercase().strip_prefix("x-request-id: ").map(str::to_owned))
        .expect("a request id header");
    let value: serde_json::Value = serde_json::from_str(body).expect("a JSON body");
    trellis_tests::assert_error_envelope(&value, Some(&request_id), "RATE_LIMITED");
    // Places free up when connections end.
    let mut served = None;
    for _ in 0..50 {
        match app.client.get(app.url("/healthz")).send().await {
            Ok(response) if response.status() == StatusCode::OK => {
                served = Some(response.status());
                break;
            }
            _ => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    assert_eq!(served, Some(StatusCode::OK));
    app.stop().await;
}

#[tokio::test]
async fn connections_over_the_server_cap_are_refused() {
    // Arrange
    let app = spawn_app_with(|config| config.http.max_connections = 1).await;
    let mut held = connect(&app).await;
    held.write_all(b"GET /healthz HTTP/1.1\r\nhost: localhost\r\n\r\n").await.unwrap();
    let mut buffer = [0u8; 1024];
    let n = held.read(&mut buffer).await.unwrap();
    assert!(String::from_utf8_lossy(&buffer[..n]).starts_with("HTTP/1.1 200"));
    // Act
    let mut second = connect(&app).await;
    let (refusal, closed) = read_until_closed(&mut second).await;
    // Assert
    assert!(closed && refusal.starts_with("HTTP/1.1 429"), "{refusal:?}");
    drop(held);
    app.stop().await;
}

#[tokio::test]
async fn shutdown_ends_within_its_grace_period_despite_a_stuck_request() {
    // Arrange: a request whose body never arrives, and no body timeout to end it first.
    let app = spawn_app_with(|config| {
        config.http.shutdown_grace_seconds = 1;
        config.http.body_idle_timeout_seconds = 3600;
    })
    .await;
    let mut stuck = connect(&app).await;
    stuck
        .write_all(b"POST /v0/auth/login HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    // Act
    let started = Instant::now();
    let stopped = tokio::time::timeout(PATIENCE, app.stop()).await;
    // Assert
    assert!(stopped.is_ok(), "shutdown still waiting after {:?}", started.elapsed());
    let (_, closed) = read_until_closed(&mut stuck).await;
    assert!(closed, "the cut request's connection is still open");
}
