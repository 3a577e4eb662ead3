//! The bounds of the streams: five per user (the sixth is 429 with `Retry-After`), `live.max_streams`
//! per server (one more is 503 with `Retry-After`), a client that does not read is dropped once
//! `live.stream_buffer` events wait for it while one that reads gets everything, keep-alive comments on
//! an idle stream, and the metrics of all this.

use std::time::{Duration, Instant};

use futures::StreamExt;
use reqwest::{Response, StatusCode};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;
use trellis_tests::{TestApp, TestUser, assert_error, spawn_app_with};

use crate::support::live::{
    Live, Next, WAIT, events_request, metric_until, metrics, probe, sample, ticket, ticket_request, ticket_text, users,
    with_metrics,
};
use crate::support::messages::sent;

const STREAMS: &str = "trellis_live_streams";
const SENT: &str = "trellis_live_events_sent_total";
const SLOW_DROPPED: &str = "trellis_live_slow_clients_dropped_total";

/// Asserts a refusal with `status` and `code` that carries `Retry-After` in whole seconds.
async fn assert_refused(response: Response, status: StatusCode, code: &str) {
    let retry_after = response.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_owned);
    assert_error(response, status, code).await;
    let seconds: u64 = retry_after.as_deref().and_then(|v| v.parse().ok()).unwrap_or_else(|| {
        panic!("a refused stream carries Retry-After in seconds, not {retry_after:?}");
    });
    assert!(seconds >= 1, "Retry-After: {seconds}");
}

async fn send(request: reqwest::RequestBuilder) -> Response {
    tokio::time::timeout(WAIT, request.send()).await.expect("an answer in time").expect("request sent")
}

#[tokio::test]
async fn a_sixth_stream_of_one_user_is_429_and_a_closed_stream_frees_its_place() {
    // Arrange: keep-alives every second, so the server soon notices a stream that went away.
    let app = spawn_app_with(|config| config.live.keep_alive_seconds = 1).await;
    let [ann, bob, cat] = users(&app, ["ann", "bob", "cat"]).await;
    let mut streams = Vec::new();
    for n in 0..5 {
        streams.push(Live::open_request(&format!("bob {n}"), events_request(&app, &bob.token)).await);
    }
    let spare_ticket = ticket_text(&ticket(&app, &bob.token).await);
    // Act
    let sixth = send(events_request(&app, &bob.token)).await;
    let by_ticket = send(ticket_request(&app, &spare_ticket)).await;
    let mut anns = Live::open(&app, &ann).await;
    // Assert: bob is refused however he asks; ann is not bob.
    assert_refused(sixth, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    assert_refused(by_ticket, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    probe(&app, &mut anns, &cat, &ann).await;

    // Act: one of bob's streams goes away.
    drop(streams.pop());
    // Assert: its place is free again once the server noticed.
    let deadline = Instant::now() + WAIT;
    let reopened = loop {
        match Live::connect("bob again", events_request(&app, &bob.token)).await {
            Ok(live) => break live,
            Err(refusal) => assert_refused(refusal, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await,
        }
        assert!(Instant::now() < deadline, "the closed stream's place was never freed");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    streams.push(reopened);
    // Each of bob's five streams hears his next message first.
    let (_, message_id) = sent(&app, &cat, "bob", "five times", "heard on each stream").await;
    for stream in &mut streams {
        let (created, _) = stream.message_and_unread().await;
        assert_eq!(created["messageId"], message_id.as_str(), "{created}");
    }
}

#[tokio::test]
async fn a_stream_past_the_servers_bound_is_503() {
    // Arrange: this server holds two streams at most.
    let app = spawn_app_with(|config| config.live.max_streams = 2).await;
    let [ann, bob, cat] = users(&app, ["ann", "bob", "cat"]).await;
    let mut anns = Live::open(&app, &ann).await;
    let _bobs = Live::open(&app, &bob).await;
    // Act
    let third = send(events_request(&app, &cat.token)).await;
    // Assert
    assert_refused(third, StatusCode::SERVICE_UNAVAILABLE, "SERVICE_UNAVAILABLE").await;
    probe(&app, &mut anns, &cat, &ann).await;
}

/// The SSE client hides comments, so this one test reads the stream's bytes to see them (it parses
/// no events).
#[tokio::test]
async fn an_idle_stream_gets_a_keep_alive_comment_every_keep_alive_interval() {
    // Arrange
    let app = spawn_app_with(|config| config.live.keep_alive_seconds = 1).await;
    let bob = app.sign_up("bob").await;
    let response = send(events_request(&app, &bob.token).header("Accept", "text/event-stream")).await;
    assert_eq!(response.status(), StatusCode::OK);
    let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default();
    assert!(content_type.starts_with("text/event-stream"), "{content_type}");
    // Act: listen for 5 s.
    let mut bytes = response.bytes_stream();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    let mut text = String::new();
    while let Ok(Some(chunk)) = tokio::time::timeout_at(deadline, bytes.next()).await {
        text.push_str(&String::from_utf8_lossy(&chunk.expect("the stream goes on")));
    }
    // Assert: comments only, at least one a second after the first.
    let comments = text.lines().filter(|line| line.starts_with(':')).count();
    assert!(comments >= 2, "{comments} comments in 5 s: {text:?}");
    assert!(!text.lines().any(|line| line.starts_with("data")), "an idle stream sends no events: {text:?}");
}

#[tokio::test]
async fn the_metrics_count_open_streams_and_events_sent() {
    // Arrange
    let app = spawn_app_with(|config| {
        with_metrics(config);
        config.live.keep_alive_seconds = 1;
    })
    .await;
    let [ann, bob] = users(&app, ["ann", "bob"]).await;
    let text = metrics(&app).await;
    assert!(text.contains(&format!("# TYPE {STREAMS} gauge")), "{text}");
    assert_eq!(sample(&text, STREAMS), Some(0.0), "this server holds no stream yet: {text}");
    // The counter may first show once something was sent (by any server of this test process).
    let sent_before = sample(&text, SENT).unwrap_or(0.0);
    // Act
    let mut first = Live::open(&app, &bob).await;
    let second = Live::open(&app, &bob).await;
    let _anns = Live::open(&app, &ann).await;
    metric_until(&app, STREAMS, |open| open == 3.0).await;
    for n in 0..3 {
        sent(&app, &ann, "bob", "count me", &format!("{n}")).await;
    }
    first.take(6).await;
    // Assert: each event counts once per stream it was written to (the process's counter, which the
    // other tests' servers add to as well).
    metric_until(&app, SENT, |n| n >= sent_before + 12.0).await;
    assert!(metrics(&app).await.contains(&format!("# TYPE {SENT} counter")));
    drop(second);
    drop(first);
    metric_until(&app, STREAMS, |open| open == 1.0).await;
}

/// A client that sends its request and then never reads (`Connection: close`, so the end of the
/// stream closes the connection). Its socket announces a small segment size, which keeps the server's
/// send buffer small (on loopback the kernel would otherwise take a few MB before the server's writes
/// wait), and has a small receive buffer.
async fn not_reading(app: &TestApp, user: &TestUser) -> tokio::net::TcpStream {
    let address: std::net::SocketAddr = app.address.trim_start_matches("http://").parse().expect("an address");
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).expect("a socket");
    socket.set_recv_buffer_size(2_048).expect("a small receive buffer");
    socket.set_tcp_mss(536).expect("a small segment size");
    socket.connect(&address.into()).expect("connected");
    socket.set_nonblocking(true).expect("non-blocking");
    let mut stream = tokio::net::TcpStream::from_std(socket.into()).expect("a tokio socket");
    let request = format!(
        "GET /v0/events HTTP/1.1\r\nHost: {address}\r\nAccept: text/event-stream\r\nConnection: close\r\nX-License-Key: {}\r\n\
         Authorization: Bearer {}\r\n\r\n",
        app.license_key, user.token
    );
    stream.write_all(request.as_bytes()).await.expect("request sent");
    stream
}

#[tokio::test]
async fn a_client_that_does_not_read_is_dropped_and_one_that_reads_gets_everything() {
    // Arrange: 64 events wait for a stream at most; ann may send as many messages as it takes to fill
    // the buffers of the connection and then the server's.
    let app = spawn_app_with(|config| {
        with_metrics(config);
        config.live.stream_buffer = 64;
        config.plans.entry("default".into()).or_default().insert("messaging.perDay".into(), 1_000_000);
    })
    .await;
    let [ann, bob, cat] = users(&app, ["ann", "bob", "cat"]).await;
    // bob reads one stream all along (in a task of its own) and never reads another.
    let mut reading = Live::open(&app, &bob).await;
    let (heard, mut hearing) = mpsc::unbounded_channel();
    let reader = tokio::spawn(async move {
        loop {
            let next = reading.poll(Duration::from_secs(120)).await;
            let ended = !matches!(next, Next::Event(_));
            if heard.send(next).is_err() || ended {
                return;
            }
        }
    });
    let mut stalled = not_reading(&app, &bob).await;
    metric_until(&app, STREAMS, |open| open == 2.0).await;
    let dropped_before = sample(&metrics(&app).await, SLOW_DROPPED).unwrap_or(0.0);
    // Act: messages to bob until the server gives up on the stalled stream.
    let mut messages = 0;
    while sample(&metrics(&app).await, SLOW_DROPPED).is_none_or(|n| n < dropped_before + 1.0) {
        assert!(messages < 5_000, "{messages} messages later the stalled stream was still kept");
        futures::stream::iter(0..50)
            .map(|n| sent(&app, &ann, "bob", "flood", if n % 2 == 0 { "even" } else { "odd" }))
            .buffer_unordered(4)
            .collect::<Vec<_>>()
            .await;
        messages += 50;
    }
    // Assert: the server closed the stalled connection...
    let mut sink = vec![0u8; 1 << 16];
    let closed =
        tokio::time::timeout(WAIT, async { while stalled.read(&mut sink).await.is_ok_and(|read| read > 0) {} }).await;
    assert!(closed.is_ok(), "the server did not close the stalled connection");
    metric_until(&app, STREAMS, |open| open == 1.0).await;
    // ...and the reading stream got every message, then a later one.
    let (probe_thread, probe_id) = sent(&app, &cat, "bob", "after the flood", "still there?").await;
    let mut created = 0;
    loop {
        match tokio::time::timeout(WAIT, hearing.recv()).await {
            Ok(Some(Next::Event(event))) if event.name == "message.created" => {
                if event.data["messageId"] == probe_id.as_str() {
                    assert_eq!(event.data["threadId"], probe_thread.as_str());
                    break;
                }
                created += 1;
            }
            Ok(Some(Next::Event(event))) => assert_eq!(event.name, "unread.changed", "{event:?}"),
            other => panic!("the reading stream stopped after {created} of {messages} messages: {other:?}"),
        }
    }
    assert_eq!(created, messages, "the reading stream heard every message");
    reader.abort();
    assert!(metrics(&app).await.contains(&format!("# TYPE {SLOW_DROPPED} counter")));
}
