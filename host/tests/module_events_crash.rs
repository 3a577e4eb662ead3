//! The real `trellis` binary killed (SIGKILL) with space events still queued for modules: after a
//! restart each event is delivered, once, in the order it happened within its space, and one that
//! the dead server was delivering at the kill is taken again when its lease runs out, ahead of
//! the events queued behind it. On SQLite, or PostgreSQL with `TEST_DATABASE=postgres`.

use crate::support::database;
use crate::support::server;

use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use sqlx::Row;
use time::OffsetDateTime;
use trellis::store::Store;

use database::TestDatabase;
use server::{Server, data_dir, json_ok, sign_up};

/// Events per space.
const EVENTS: usize = 12;

struct Api<'a> {
    client: &'a Client,
    base: String,
    key: &'a str,
    session: &'a str,
}

impl Api<'_> {
    async fn send(&self, method: reqwest::Method, path: &str, body: Value, status: StatusCode) -> Value {
        let request = self.client.request(method, format!("{}{path}", self.base));
        let response =
            request.header("X-License-Key", self.key).bearer_auth(self.session).json(&body).send().await.unwrap();
        json_ok(response, status).await
    }

    /// A configuration with one text field, open to space associations; answers its id.
    async fn configuration(&self) -> String {
        let config = json!({
            "version": "1.0.0",
            "controls": {"enableLogging": false},
            "metadata": {"captureTimestamp": false, "captureTags": true, "captureSummary": false, "captureLocation": false},
            "integrations": {"allowSpaceAssociations": true, "allowWorkflowStarts": false},
            "translations": {
                "defaultLanguage": "en",
                "en": {"details": {"title": "Events"}, "pages": {"p1": {"title": "Page", "fields": {"t": {"label": "Text"}}}}},
            },
            "pages": [{
                "id": uuid::Uuid::new_v4().to_string(), "key": "p1", "order": 1, "title": "$.pages.p1.title",
                "fields": [{
                    "id": uuid::Uuid::new_v4().to_string(), "key": "t", "order": 1, "type": "text", "value": "",
                    "label": "$.pages.p1.fields.t.label", "visible": true, "editable": true, "required": false,
                }],
            }],
        });
        let created = self.send(
            reqwest::Method::POST,
            "/v0/forms/configurations",
            json!({"config": config}),
            StatusCode::CREATED,
        );
        created.await["id"].as_str().unwrap().to_owned()
    }

    /// A space with the bundled Tags module connected; answers its id.
    async fn space_with_tags(&self, name: &str) -> String {
        let body = json!({"name": name, "displayName": name});
        let space = self.send(reqwest::Method::POST, "/v0/spaces", body, StatusCode::CREATED).await;
        let space_id = space["spaceId"].as_str().unwrap().to_owned();
        let modules = json!({"modules": [{"moduleId": "tags", "config": {}}]});
        self.send(reqwest::Method::PUT, &format!("/v0/spaces/{space_id}/modules"), modules, StatusCode::OK).await;
        space_id
    }

    /// A form instance in the space (a form-instance-created event); answers its id.
    async fn instance(&self, configuration_id: &str, space_id: &str) -> String {
        let body = json!({"payload": {
            "configurationId": configuration_id,
            "fields": {},
            "metadata": {"tags": "crash"},
            "integrations": {"spaceId": space_id},
        }});
        let form = self.send(reqwest::Method::POST, "/v0/forms", body, StatusCode::CREATED).await;
        form["formId"].as_str().unwrap().to_owned()
    }
}

/// The items of a space's deliveries in the order they were recorded, with their states (and
/// errors).
async fn deliveries(url: &str, space_id: &str) -> Vec<(String, String)> {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(url).await.unwrap();
    let rows = sqlx::query(
        "select item_id, state, error from module_delivery where space_id = $1 order by created_at, delivery_id",
    )
    .bind(space_id.to_owned())
    .fetch_all(&pool)
    .await
    .unwrap();
    pool.close().await;
    rows.iter()
        .map(|row| {
            let error: Option<String> = row.get("error");
            (
                row.get("item_id"),
                format!("{}{}", row.get::<String, _>("state"), error.map(|e| format!(": {e}")).unwrap_or_default()),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_queued_at_a_kill_are_delivered_after_the_restart_in_order_per_space() {
    // Arrange: a server whose event workers are off, so every event stays queued.
    let db = TestDatabase::new().await;
    let dir = db.dir.path().to_owned();
    let url_env = ("TRELLIS_DATABASE__URL", db.url.as_str());
    // Module budgets are wall-clock; a loaded test machine can miss the production 200 ms.
    let deadline_env = ("TRELLIS_MODULES__EVENT_DEADLINE_MS", "5000");
    let client = Client::builder().timeout(Duration::from_secs(60)).build().unwrap();
    let mut first = Server::start(&dir, "first.log", &[url_env, deadline_env, ("TRELLIS_JOBS__EVENT_WORKERS", "0")]);
    first.ready(&client).await;
    let key = std::fs::read_to_string(data_dir(&dir).join("license.key")).unwrap().trim().to_owned();
    let session = sign_up(&client, &first.base, &key, &dir).await;
    let api = Api { client: &client, base: first.base.clone(), key: &key, session: &session };
    let configuration_id = api.configuration().await;
    let spaces = [api.space_with_tags("one").await, api.space_with_tags("two").await];
    let mut created: [Vec<String>; 2] = Default::default();
    for n in 0..EVENTS * 2 {
        created[n % 2].push(api.instance(&configuration_id, &spaces[n % 2]).await);
    }
    // Act: kill; then, as if the dead server had been delivering space one's first event, that
    // job is RUNNING under another worker with a lease that runs out in two seconds.
    first.kill();
    let store = Store::connect(&db.url, 1).await.unwrap();
    let queued: i64 = store.jobs.depth().await.unwrap().iter().filter(|d| d.state == "QUEUED").map(|d| d.count).sum();
    let now = OffsetDateTime::now_utc();
    let running = store.jobs.claim(&["module-event"], "killed", now + Duration::from_secs(2), now).await.unwrap();
    let running = running.expect("a queued event");
    store.close().await;
    let started = Instant::now();
    let mut second = Server::start(&dir, "second.log", &[url_env, deadline_env]);
    second.ready(&client).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut delivered = [Vec::new(), Vec::new()];
    while Instant::now() < deadline {
        delivered = [deliveries(&db.url, &spaces[0]).await, deliveries(&db.url, &spaces[1]).await];
        if delivered.iter().all(|d| d.len() >= EVENTS) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let took = started.elapsed();
    // Assert
    assert_eq!(queued, (EVENTS * 2) as i64, "every event was queued at the kill");
    assert!(running.payload.contains(&spaces[0]) && running.payload.contains(&created[0][0]), "{running:?}");
    for (space, (delivered, created)) in delivered.iter().zip(&created).enumerate() {
        let items: Vec<&str> = delivered.iter().map(|(item, _)| item.as_str()).collect();
        assert_eq!(items, created.iter().map(String::as_str).collect::<Vec<_>>(), "space {space}: once each, in order");
        assert!(delivered.iter().all(|(_, state)| state == "DELIVERED"), "space {space}: {delivered:?}");
    }
    assert!(took >= Duration::from_millis(1_500), "the event the killed server held waited for its lease ({took:?})");
    let store = Store::connect(&db.url, 1).await.unwrap();
    let depth = store.jobs.depth().await.unwrap();
    let job = store.jobs.job(running.job_id).await.unwrap().unwrap();
    store.close().await;
    assert!(depth.iter().all(|d| d.state == "SUCCEEDED"), "{depth:?}");
    assert_eq!((job.state.as_str(), job.attempts), ("SUCCEEDED", 2));
    drop(second);
    db.remove().await;
}
