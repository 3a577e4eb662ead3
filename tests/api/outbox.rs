//! The transactional outbox: a change's module event is written in the change's own transaction,
//! so a client that hangs up at any point of its request cannot make the server commit the change
//! and lose its event, and a change that did not commit announces nothing. The marketplace's notices
//! from `system` are written the same way.

use std::time::{Duration, Instant};

use futures::StreamExt;
use reqwest::Method;
use serde_json::{Value, json};
use sqlx::Row;
use trellis_tests::{TestApp, spawn_app, spawn_app_with};

use crate::support::forms::{created_config, sample_config};
use crate::support::marketplace::{decision_path, saved};
use crate::support::modules::{connect, enable_word_count, tagged_payload};
use crate::support::spaces::{created_space, id};

/// Requests of each kind (creates, then updates), and how many run at once.
const REQUESTS: usize = 120;
const CONCURRENCY: usize = 16;
/// Listings the operator decides in the notices test.
const LISTINGS: usize = 40;

#[tokio::test]
async fn requests_cut_off_at_random_points_deliver_one_event_per_committed_change_and_none_for_the_rest() {
    // Arrange: a space whose module takes form events.
    let app = spawn_app_with(enable_word_count).await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let space_id = id(&created_space(&app, &ann, "outbox").await);
    connect(&app, &ann, &space_id, json!([{"moduleId": "word-count", "config": {}}])).await;
    let mut random = Random::seeded();

    // Act: creates and then updates of those instances, each cut off by the client after a random
    // delay (most land before, during or after the commit; some complete). Rounds of creates go on
    // until some create committed after its client hung up (the case under test), at most five.
    let payload = tagged_payload(&space_id, "");
    let (mut answered, mut sent) = (0, 0);
    let mut committed = Vec::new();
    for _ in 0..5 {
        let creates = (0..REQUESTS).map(|_| {
            let request = app.authed(Method::POST, "/v0/forms", &ann.token).json(&payload);
            cut_off(request, random.delay())
        });
        let created: Vec<Option<Value>> = futures::stream::iter(creates).buffer_unordered(CONCURRENCY).collect().await;
        answered += created.iter().flatten().count();
        sent += REQUESTS;
        // A request the client left may still be running on the server.
        tokio::time::sleep(Duration::from_millis(200)).await;
        committed = committed_instances(&app, &space_id).await;
        if committed.len() > answered && answered < sent {
            break;
        }
    }
    let ids: Vec<String> = committed.iter().map(|(form_id, _)| form_id.clone()).collect();
    assert!(!ids.is_empty(), "no create committed");
    let updates = (0..REQUESTS).map(|n| {
        let form_id = &ids[n % ids.len()];
        let request = app
            .authed(Method::PATCH, &format!("/v0/forms/{form_id}"), &ann.token)
            .json(&json!({"payload": {"metadata": {"tags": format!("t{n}")}}}));
        cut_off(request, random.delay())
    });
    let _: Vec<Option<Value>> = futures::stream::iter(updates).buffer_unordered(CONCURRENCY).collect().await;

    // Assert: once the queue is empty, each committed instance has one delivered creation and one
    // delivered update per committed update (its revision counts them), and nothing else was delivered.
    wait_for_empty_queue(&app).await;
    committed = committed_instances(&app, &space_id).await;
    let deliveries = deliveries(&app, &space_id).await;
    assert!(answered < sent, "every create answered: no request was cut off, so nothing was tested");
    assert!(committed.len() > answered, "no create committed after its client hung up, so nothing was tested");
    for (form_id, revision) in &committed {
        let created = count(&deliveries, form_id, "form-instance-created");
        let updated = count(&deliveries, form_id, "form-instance-updated");
        assert_eq!((created, updated), (1, revision - 1), "instance {form_id} at revision {revision}");
    }
    let delivered: usize = deliveries.iter().map(|(_, _, n)| n).sum();
    let changes: usize = committed.iter().map(|(_, revision)| *revision as usize).sum();
    assert_eq!(delivered, changes, "events were delivered for changes that did not commit");
    app.stop().await;
}

#[tokio::test]
async fn listing_decisions_cut_off_at_random_points_tell_the_owner_once_per_committed_decision() {
    // Arrange: an owner with submitted listings, and an operator.
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let olga = app.grant_operator(&app.sign_up("olga").await).await;
    let mut spaces = Vec::new();
    for n in 0..LISTINGS {
        let space_id = id(&created_space(&app, &ann, &format!("garden-{n}")).await);
        let settings = json!({"title": format!("Garden {n}"), "summary": "Roses", "categories": ["hobby"],
            "membership": "OPEN", "submit": true});
        assert_eq!(saved(&app, &ann, &space_id, settings).await["state"], "SUBMITTED");
        spaces.push(space_id);
    }
    let mut random = Random::seeded();

    // Act: the operator decides every listing, each request cut off by the client at random.
    let decisions = spaces.iter().enumerate().map(|(n, space_id)| {
        let decision =
            if n % 2 == 0 { json!({"approved": "YES"}) } else { json!({"approved": "NO", "reason": "thin"}) };
        let request = app.authed(Method::POST, &decision_path(space_id), &olga.token).json(&decision);
        cut_off(request, random.delay())
    });
    let answered: Vec<Option<Value>> = futures::stream::iter(decisions).buffer_unordered(CONCURRENCY).collect().await;
    // A request the client left may still be running on the server.
    tokio::time::sleep(Duration::from_secs(1)).await;

    // Assert: every decided listing told its owner once, no undecided one told anything.
    let pool = pool(&app).await;
    let decided: Vec<String> = sqlx::query("select title from listing where state in ('APPROVED', 'REJECTED')")
        .fetch_all(&pool)
        .await
        .unwrap()
        .iter()
        .map(|row| row.get("title"))
        .collect();
    let notices: Vec<String> = sqlx::query("select subject from message where sender_id is null and recipient_id = $1")
        .bind(ann.user_id.clone())
        .fetch_all(&pool)
        .await
        .unwrap()
        .iter()
        .map(|row| row.get("subject"))
        .collect();
    pool.close().await;
    assert!(answered.iter().flatten().count() < LISTINGS, "every decision answered: nothing was cut off");
    for title in &decided {
        let told = notices.iter().filter(|subject| subject.contains(&format!("\"{title}\""))).count();
        assert_eq!(told, 1, "listing {title} was decided and its owner told {told} times");
    }
    assert_eq!(notices.len(), decided.len(), "notices for decisions that did not commit: {notices:?}");
    app.stop().await;
}

/// Sends `request`, hanging up after `delay`; answers the body of a request that completed.
async fn cut_off(request: reqwest::RequestBuilder, delay: Duration) -> Option<Value> {
    let response = request.timeout(delay).send().await.ok()?;
    response.json().await.ok()
}

/// `(form_id, revision)` of every instance committed in the space.
async fn committed_instances(app: &TestApp, space_id: &str) -> Vec<(String, i64)> {
    let pool = pool(app).await;
    let rows = sqlx::query("select form_id, revision from form_instance where space_id = $1")
        .bind(space_id.to_owned())
        .fetch_all(&pool)
        .await
        .unwrap();
    pool.close().await;
    rows.iter().map(|row| (row.get("form_id"), row.get("revision"))).collect()
}

/// `(item_id, event_kind, deliveries)` of the space's module deliveries.
async fn deliveries(app: &TestApp, space_id: &str) -> Vec<(String, String, usize)> {
    let pool = pool(app).await;
    let rows = sqlx::query(
        "select item_id, event_kind, count(*) as n from module_delivery where space_id = $1 \
         group by item_id, event_kind",
    )
    .bind(space_id.to_owned())
    .fetch_all(&pool)
    .await
    .unwrap();
    pool.close().await;
    rows.iter().map(|row| (row.get("item_id"), row.get("event_kind"), row.get::<i64, _>("n") as usize)).collect()
}

fn count(deliveries: &[(String, String, usize)], item_id: &str, kind: &str) -> i64 {
    deliveries.iter().filter(|(item, k, _)| item == item_id && k == kind).map(|(_, _, n)| *n as i64).sum()
}

async fn wait_for_empty_queue(app: &TestApp) {
    let pool = pool(app).await;
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let row = sqlx::query("select count(*) as n from job where state in ('QUEUED', 'RUNNING')")
            .fetch_one(&pool)
            .await
            .unwrap();
        if row.get::<i64, _>("n") == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "the job queue did not empty within two minutes");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    pool.close().await;
}

async fn pool(app: &TestApp) -> sqlx::AnyPool {
    sqlx::any::install_default_drivers();
    sqlx::pool::PoolOptions::new().max_connections(1).connect(&app.config.database_url()).await.unwrap()
}

/// Delays drawn from a small generator seeded by a random UUID (printed, so a failure can be replayed).
struct Random(u64);

impl Random {
    fn seeded() -> Self {
        let seed = (uuid::Uuid::new_v4().as_u128() as u64) | 1;
        eprintln!("outbox test seed: {seed}");
        Self(seed)
    }

    /// 0 to 40 ms: a create or an update takes a few milliseconds here, so the cut falls before,
    /// inside and after the commit.
    fn delay(&mut self) -> Duration {
        // xorshift64
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        Duration::from_micros(self.0 % 40_000)
    }
}
