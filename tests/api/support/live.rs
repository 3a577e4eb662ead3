//! Reading live-update streams (`GET /v0/events`, conventions section 14) with a maintained
//! Server-Sent Events client (`reqwest-eventsource`), for the live-event tests: opening a stream with
//! headers or a ticket, taking its events one by one, probing that nothing else arrived, and reading
//! the live metrics.

use std::time::{Duration, Instant};

use futures::StreamExt;
use reqwest::{Method, RequestBuilder, StatusCode};
use reqwest_eventsource::{Event, EventSource, retry::Never};
use serde_json::Value;
use trellis::config::Config;
use trellis_tests::{TestApp, TestUser, body};

use crate::support::messages::sent;

pub const EVENTS: &str = "/v0/events";
pub const TICKET: &str = "/v0/events/ticket";

/// How long a test waits for one event, or for a refusal, on a loaded machine.
pub const WAIT: Duration = Duration::from_secs(15);

/// The bearer token of `/metrics` in these tests.
pub const METRICS_TOKEN: &str = "metrics-token-for-the-live-tests";

/// Serves `/metrics` to [`METRICS_TOKEN`].
pub fn with_metrics(config: &mut Config) {
    config.metrics.token = Some(METRICS_TOKEN.into());
}

/// A client without the harness's 30-second total timeout, which would cut a stream; one per stream,
/// so each stream is a connection of its own.
pub fn stream_client() -> reqwest::Client {
    reqwest::Client::builder().connect_timeout(Duration::from_secs(10)).build().expect("a client")
}

/// `GET /v0/events` with the license key and `token`.
pub fn events_request(app: &TestApp, token: &str) -> RequestBuilder {
    stream_client().get(app.url(EVENTS)).header("X-License-Key", &app.license_key).bearer_auth(token)
}

/// `GET /v0/events?ticket=...` with no other credentials.
pub fn ticket_request(app: &TestApp, ticket: &str) -> RequestBuilder {
    stream_client().get(app.url(EVENTS)).query(&[("ticket", ticket)])
}

/// `POST /v0/events/ticket` as `token`, asserting 201; answers `{ticket, expiresAt}`.
pub async fn ticket(app: &TestApp, token: &str) -> Value {
    let response = app.authed(Method::POST, TICKET, token).send().await.expect("request sent");
    let status = response.status();
    let answer = body(response).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    answer
}

/// The text of a ticket answer.
pub fn ticket_text(answer: &Value) -> String {
    answer["ticket"].as_str().unwrap_or_else(|| panic!("no ticket in {answer}")).to_owned()
}

/// Signs up each handle, in order.
pub async fn users<const N: usize>(app: &TestApp, handles: [&str; N]) -> [TestUser; N] {
    let mut users = Vec::with_capacity(N);
    for handle in handles {
        users.push(app.sign_up(handle).await);
    }
    users.try_into().unwrap_or_else(|_| unreachable!("one user per handle"))
}

/// One event of a stream.
#[derive(Clone, Debug)]
pub struct Received {
    pub id: String,
    pub name: String,
    pub data: Value,
}

/// What a stream did next.
#[derive(Debug)]
pub enum Next {
    Event(Received),
    /// The server ended the stream (or the connection); the error the client saw.
    Ended(String),
    /// Nothing within the time asked for.
    Quiet,
}

/// An open stream, its automatic reconnection off, so a test sees one connection's behaviour.
pub struct Live {
    source: EventSource,
    label: String,
    last_id: Option<u64>,
    /// Every event received, in order.
    heard: Vec<Received>,
}

impl Live {
    /// Opens `user`'s stream with the usual headers.
    pub async fn open(app: &TestApp, user: &TestUser) -> Live {
        Live::open_request(&user.handle, events_request(app, &user.token)).await
    }

    /// Opens `user`'s stream sending `Last-Event-ID: last_event_id`.
    pub async fn resume(app: &TestApp, user: &TestUser, last_event_id: &str) -> Live {
        let request = events_request(app, &user.token).header("Last-Event-ID", last_event_id);
        Live::open_request(&format!("{} after {last_event_id:.40}", user.handle), request).await
    }

    /// Opens a stream with `request`, asserting it answers 200 `text/event-stream` (the client checks
    /// both); `label` names the stream in failures.
    pub async fn open_request(label: &str, request: RequestBuilder) -> Live {
        match Live::connect(label, request).await {
            Ok(live) => live,
            Err(response) => {
                let status = response.status();
                let text = response.text().await.unwrap_or_default();
                panic!("{label}: the stream answered {status}: {text}")
            }
        }
    }

    /// Opens a stream with `request`: `Err` with the answer when the server refused it with a status
    /// other than 200.
    pub async fn connect(label: &str, request: RequestBuilder) -> Result<Live, reqwest::Response> {
        let mut source = EventSource::new(request).expect("a request that can be cloned");
        source.set_retry_policy(Box::new(Never));
        match tokio::time::timeout(WAIT, source.next()).await {
            Ok(Some(Ok(Event::Open))) => Ok(Live { source, label: label.to_owned(), last_id: None, heard: Vec::new() }),
            Ok(Some(Err(reqwest_eventsource::Error::InvalidStatusCode(_, response)))) => Err(response),
            Ok(other) => panic!("{label}: the stream did not open: {other:?}"),
            Err(_) => panic!("{label}: the stream did not answer within {WAIT:?}"),
        }
    }

    /// The next event, the end of the stream, or `Quiet` after `within`. Asserts every event is
    /// well formed: a name, one line of JSON data, and (but for a `reset` without one) a decimal id
    /// greater than the previous one of this stream.
    pub async fn poll(&mut self, within: Duration) -> Next {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let next = match tokio::time::timeout_at(deadline, self.source.next()).await {
                Err(_) => return Next::Quiet,
                Ok(next) => next,
            };
            match next {
                Some(Ok(Event::Open)) => continue,
                Some(Ok(Event::Message(message))) => {
                    let label = &self.label;
                    // The client names an event without `event:` "message".
                    assert_ne!(message.event, "message", "{label}: every event is named: {message:?}");
                    assert!(!message.data.contains('\n'), "{label}: data is one line: {message:?}");
                    let data: Value = serde_json::from_str(&message.data)
                        .unwrap_or_else(|_| panic!("{label}: data is not JSON: {message:?}"));
                    // A reset may come without an id (the client's is then still empty); with one, it
                    // counts as every other id: later events have greater ones.
                    let reset_without_id = message.event == "reset" && message.id.is_empty();
                    if !reset_without_id {
                        let id: u64 = message
                            .id
                            .parse()
                            .unwrap_or_else(|_| panic!("{label}: the id is no decimal integer: {message:?}"));
                        if let Some(last) = self.last_id {
                            assert!(id > last, "{label}: ids increase, but {id} came after {last}: {message:?}");
                        }
                        self.last_id = Some(id);
                    }
                    let received = Received { id: message.id, name: message.event, data };
                    self.heard.push(received.clone());
                    return Next::Event(received);
                }
                Some(Err(error)) => {
                    self.source.close();
                    return Next::Ended(error.to_string());
                }
                None => return Next::Ended("closed".into()),
            }
        }
    }

    /// The next event, which must come within [`WAIT`].
    pub async fn next(&mut self) -> Received {
        match self.poll(WAIT).await {
            Next::Event(event) => event,
            Next::Ended(why) => panic!("{}: the stream ended ({why}) where an event was expected", self.label),
            Next::Quiet => panic!("{}: no event within {WAIT:?}", self.label),
        }
    }

    /// The next `count` events.
    pub async fn take(&mut self, count: usize) -> Vec<Received> {
        let mut events = Vec::with_capacity(count);
        for _ in 0..count {
            events.push(self.next().await);
        }
        events
    }

    /// The data of the next event, asserting it is called `name`.
    pub async fn expect(&mut self, name: &str) -> Value {
        let event = self.next().await;
        assert_eq!(event.name, name, "{}: the next event: {event:?}", self.label);
        event.data
    }

    /// The next two events, a `message.created` and an `unread.changed` in either order (the order
    /// of the two is left open): answers their data, in that order.
    pub async fn message_and_unread(&mut self) -> (Value, Value) {
        let pair = self.take(2).await;
        let of = |name: &str| pair.iter().find(|e| e.name == name).map(|e| e.data.clone());
        match (of("message.created"), of("unread.changed")) {
            (Some(created), Some(unread)) => (created, unread),
            _ => panic!("{}: expected message.created and unread.changed, got {pair:?}", self.label),
        }
    }

    /// How long the server took to end the stream, asserting it did within `within` and sent no
    /// event before.
    pub async fn ended_within(&mut self, within: Duration) -> Duration {
        let started = Instant::now();
        match self.poll(within).await {
            Next::Ended(_) => started.elapsed(),
            other => panic!("{}: expected the stream to end within {within:?}, got {other:?}", self.label),
        }
    }

    /// The id of the last event this stream received.
    pub fn last_id(&self) -> String {
        self.last_id.map(|id| id.to_string()).unwrap_or_else(|| panic!("{}: no event yet", self.label))
    }
}

/// `to` opens a stream, hears one message from `from` (its two events) and goes away: answers the
/// id of the last event heard, for a reconnection to name.
pub async fn heard_one_and_left(app: &TestApp, from: &TestUser, to: &TestUser) -> String {
    let mut stream = Live::open(app, to).await;
    sent(app, from, &to.handle, "seen", "seen").await;
    stream.take(2).await;
    stream.last_id()
}

/// The id of the newest event on the server, as a `reset` carries it (`user` reconnects naming no
/// kept event): a place to resume from that is before whatever the test does next.
pub async fn newest_event_id(app: &TestApp, user: &TestUser) -> String {
    let mut stream = Live::resume(app, user, "none").await;
    let reset = stream.next().await;
    assert_eq!(reset.name, "reset", "{reset:?}");
    assert!(!reset.id.is_empty(), "no event on the server yet: make one to resume after");
    reset.id
}

/// Asserts that a reconnection replays to each user exactly what their stream, open all along,
/// heard: each user resumes after event `after` (see [`newest_event_id`]), gets the events their
/// stream heard after it (same ids, names and data), and then only live events. The replay
/// decides every audience as the live stream does. Each stream must have read everything sent to
/// it (a probe last, say); `probers` holds two users who send the probes (never to themselves).
pub async fn assert_replays_agree(app: &TestApp, after: &str, streams: &[(&Live, &TestUser)], probers: [&TestUser; 2]) {
    let id = |event: &Received| event.id.parse::<u64>().expect("a decimal id");
    let after_id: u64 = after.parse().expect("a decimal id");
    for (live, user) in streams {
        let expected: Vec<_> = live.heard.iter().filter(|event| id(event) > after_id).collect();
        assert!(!expected.is_empty() || live.heard.is_empty(), "{}: heard nothing after {after}", user.handle);
        let mut again = Live::resume(app, user, after).await;
        let replayed = again.take(expected.len()).await;
        let seen = |events: Vec<&Received>| -> Vec<(String, String, Value)> {
            events.into_iter().map(|e| (e.id.clone(), e.name.clone(), e.data.clone())).collect()
        };
        assert_eq!(seen(replayed.iter().collect()), seen(expected), "{}: the replay after {after}", user.handle);
        let prober = if probers[0].handle == user.handle { probers[1] } else { probers[0] };
        probe(app, &mut again, prober, user).await;
    }
}

/// Sends a message from `from` to `to`, whose stream is `live`, and asserts the next events on
/// `live` are that message's `message.created` and `unread.changed`: nothing the test made before
/// reached `to` (events of one user are sent in order). Answers the message id.
pub async fn probe(app: &TestApp, live: &mut Live, from: &TestUser, to: &TestUser) -> String {
    let (thread_id, message_id) = sent(app, from, &to.handle, "probe", "Did anything reach you before this?").await;
    let (created, unread) = live.message_and_unread().await;
    assert_eq!(
        created["messageId"],
        message_id.as_str(),
        "{}: the first thing heard is the probe: {created}",
        to.handle
    );
    assert_eq!(created["threadId"], thread_id.as_str(), "{created}");
    assert_eq!(created["unread"], unread["unread"], "{created} {unread}");
    message_id
}

/// `/metrics` as Prometheus text.
pub async fn metrics(app: &TestApp) -> String {
    let response = app.request(Method::GET, "/metrics").bearer_auth(METRICS_TOKEN).send().await.expect("sent");
    assert_eq!(response.status(), StatusCode::OK);
    response.text().await.expect("the metrics")
}

/// The value of the sample `name` (no labels), if published.
pub fn sample(text: &str, name: &str) -> Option<f64> {
    text.lines().find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}

/// The metrics once sample `name` satisfies `done`; waits as long as a loaded machine may need.
pub async fn metric_until(app: &TestApp, name: &str, done: impl Fn(f64) -> bool) -> f64 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let text = metrics(app).await;
        if let Some(value) = sample(&text, name).filter(|v| done(*v)) {
            return value;
        }
        assert!(Instant::now() < deadline, "{name} never became what the test waits for: {text}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
