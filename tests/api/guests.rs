//! Guest conformance: every implementation of the word-count example (the Rust one at WIT 0.2.0, the
//! checked-in 0.1.0 component, and the other languages' ports) passes the same black-box tests, written
//! once here and instantiated per guest with one line of [`guest_conformance!`]. What only WIT 0.2.0
//! offers (comment events) is tested on 0.2.0 guests only; what only today's SDKs offer (error answers
//! with details, an uncaught exception's place in the log) on the guests built from source.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis::config::Config;
use trellis_tests::{TestApp, TestUser, assert_error, body, spawn_app_with};

use crate::support::forms::{
    created_config, created_form, form_field_words, get_ok, patch_form, sample, sample_config,
};
use crate::support::logs::{capture_guest_output, guest_output};
use crate::support::modules::{
    connect, enable_word_count, enable_word_count_js, enable_word_count_legacy, enable_word_count_py, module_call,
    poll_until, tagged_payload, wait_until,
};
use crate::support::spaces::{created_space, id};

/// One implementation of the word-count example.
#[derive(Clone, Copy)]
pub struct Guest {
    pub id: &'static str,
    pub enable: fn(&mut Config),
    /// `0.1.0`, `0.2.0` or `0.3.0`.
    pub wit: &'static str,
}

impl Guest {
    /// Whether it targets 0.2.0 or later (comment events, key-value atomics).
    fn is_v0_2(self) -> bool {
        self.wit != "0.1.0"
    }
}

/// The same conformance tests for one guest: `guest_conformance!(mod_name, "module-id", enable_fn, "0.2.0")`,
/// and with `, source: "file"` (the file whose lines an uncaught exception's log names) the error tests.
macro_rules! guest_conformance {
    ($name:ident, $module_id:literal, $enable:path, $wit:literal $(, source: $source:literal)?) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            const GUEST: super::Guest = super::Guest { id: $module_id, enable: $enable, wit: $wit };

            #[tokio::test]
            async fn routes_answer_stats_config_and_a_json_404() {
                super::routes_answer_stats_config_and_a_json_404(GUEST).await
            }

            #[tokio::test]
            async fn form_events_count_words_minus_ignored_fields_and_an_update_replaces_the_count() {
                super::form_events_count_words_minus_ignored_fields_and_an_update_replaces_the_count(GUEST).await
            }

            #[tokio::test]
            async fn an_update_with_fewer_words_lowers_the_total() {
                super::an_update_with_fewer_words_lowers_the_total(GUEST).await
            }

            #[tokio::test]
            async fn concurrent_updates_of_one_item_leave_the_exact_total() {
                super::concurrent_updates_of_one_item_leave_the_exact_total(GUEST).await
            }

            #[tokio::test]
            async fn comment_events_are_counted_by_0_2_guests_and_skipped_by_0_1() {
                super::comment_events_are_counted_by_0_2_guests_and_skipped_by_0_1(GUEST).await
            }

            #[tokio::test]
            async fn spin_fail_and_print_are_contained() {
                super::spin_fail_and_print_are_contained(GUEST).await
            }

            #[tokio::test]
            async fn the_catalogue_shows_the_wit_version() {
                super::the_catalogue_shows_the_wit_version(GUEST).await
            }
            $(
                #[tokio::test]
                async fn a_client_mistake_answers_400_with_the_module_s_message_and_details() {
                    super::a_client_mistake_answers_400_with_the_module_s_message_and_details(GUEST).await
                }

                #[tokio::test]
                async fn an_uncaught_exception_is_logged_with_its_file_and_line() {
                    super::an_uncaught_exception_is_logged_with_its_file_and_line(GUEST, $source).await
                }
            )?
        }
    };
}

guest_conformance!(rust_v0_3, "word-count", enable_word_count, "0.3.0", source: "src/lib.rs");
guest_conformance!(legacy_v0_1, "word-count-legacy", enable_word_count_legacy, "0.1.0");
guest_conformance!(javascript, "word-count-js", enable_word_count_js, "0.2.0", source: "module.js");
guest_conformance!(python, "word-count-py", enable_word_count_py, "0.2.0", source: "word_count.py");

/// A server with the guest enabled, its owner, and a space connected to the guest with `config`.
async fn guest_space(guest: Guest, config: Value) -> (TestApp, TestUser, String) {
    let app = spawn_app_with(guest.enable).await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let space_id = id(&created_space(&app, &ann, "words").await);
    connect(&app, &ann, &space_id, json!([{"moduleId": guest.id, "config": config}])).await;
    (app, ann, space_id)
}

fn stats_path(guest: Guest, space_id: &str) -> String {
    format!("/v0/spaces/{space_id}/modules/{}/stats", guest.id)
}

fn zero_stats(guest: Guest) -> Value {
    if guest.is_v0_2() { json!({"items": 0, "words": 0, "comments": 0}) } else { json!({"items": 0, "words": 0}) }
}

pub async fn routes_answer_stats_config_and_a_json_404(guest: Guest) {
    // Arrange
    let config = json!({"ignoreFields": ["a", "b"]});
    let (app, ann, space_id) = guest_space(guest, config.clone()).await;
    let route = |path: &str| format!("/{}{path}", guest.id);

    // Act
    let stats = get_ok(&app, &ann.token, &stats_path(guest, &space_id)).await;
    let seen = get_ok(&app, &ann.token, &format!("/v0/spaces/{space_id}/modules/{}/config", guest.id)).await;
    let unknown = module_call(&app, &ann.token, Method::GET, &space_id, &route("/nope")).await;

    // Assert
    assert_eq!(stats, zero_stats(guest));
    assert_eq!(seen, config);
    // The guest answers 404 `{"error": "not found"}`; the host answers it in the API's error shape.
    assert_error(unknown, StatusCode::NOT_FOUND, "NOT_FOUND").await;
}

pub async fn form_events_count_words_minus_ignored_fields_and_an_update_replaces_the_count(guest: Guest) {
    // Arrange
    let (app, ann, space_id) = guest_space(guest, json!({"ignoreFields": [sample::FULL_NAME]})).await;
    let stats = stats_path(guest, &space_id);

    // Act
    let created = created_form(&app, &ann.token, &tagged_payload(&space_id, "")).await;
    let first_words = form_field_words(&created["fields"], &[sample::FULL_NAME]);
    let first = wait_until(&app, &ann.token, &stats, |b| b["items"] == 1 && b["words"] == first_words).await;
    let again = get_ok(&app, &ann.token, &stats).await;
    let form_id = created["formId"].as_str().unwrap();
    let patch = json!({"payload": {"fields": {sample::CITY: "Bern Zürich Genf Basel Chur"}}});
    let response = patch_form(&app, &ann.token, form_id, &patch).await;
    assert_eq!(response.status(), StatusCode::OK);
    let patched = body(response).await;
    let second_words = form_field_words(&patched["fields"], &[sample::FULL_NAME]);
    let second = wait_until(&app, &ann.token, &stats, |b| b["words"] == second_words).await;

    // Assert
    assert_ne!(first_words, second_words, "the update must change the count");
    assert_eq!(first["items"], 1);
    assert_eq!(again, first, "the state survives across calls");
    assert_eq!(second["items"], 1, "an update replaces the item's count: {second}");
}

/// A negative difference reaches the key-value store as a negative 64-bit integer (a JavaScript guest once
/// aborted on one: componentize-js lowers an `s64` import argument only from its unsigned bit pattern).
pub async fn an_update_with_fewer_words_lowers_the_total(guest: Guest) {
    // Arrange
    let (app, ann, space_id) = guest_space(guest, json!({})).await;
    let stats = stats_path(guest, &space_id);
    let created = created_form(&app, &ann.token, &tagged_payload(&space_id, "")).await;
    let first_words = form_field_words(&created["fields"], &[]);
    wait_until(&app, &ann.token, &stats, |b| b["items"] == 1 && b["words"] == first_words).await;
    let form_id = created["formId"].as_str().unwrap();

    // Act: the full name loses a word.
    let response =
        patch_form(&app, &ann.token, form_id, &json!({"payload": {"fields": {sample::FULL_NAME: "Ada"}}})).await;
    assert_eq!(response.status(), StatusCode::OK);
    let fewer = form_field_words(&body(response).await["fields"], &[]);

    // Assert
    assert_eq!(fewer, first_words - 1);
    let after = stats_when(&app, &ann.token, &stats, form_id, |b| b["words"] == fewer).await;
    assert_eq!(after["items"], 1, "{after}");
}

/// Every guest, the 0.1.0 one included: its read-then-write of the totals has no atomic update to lean
/// on, so this holds for it only because the host hands a space's events to its modules one at a time,
/// in the order they were queued (a lost update here means that order broke).
pub async fn concurrent_updates_of_one_item_leave_the_exact_total(guest: Guest) {
    // Arrange
    let (app, ann, space_id) = guest_space(guest, json!({})).await;
    let created = created_form(&app, &ann.token, &tagged_payload(&space_id, "")).await;
    let form_id = created["formId"].as_str().unwrap().to_owned();

    // Act: 50 updates at once, each giving the city another number of words.
    let updates: Vec<_> = (1..=50)
        .map(|n| {
            let city = vec!["town"; 1 + n % 7].join(" ");
            let request = app
                .client
                .patch(app.url(&format!("/v0/forms/{form_id}")))
                .header("X-License-Key", &app.license_key)
                .bearer_auth(&ann.token)
                .json(&json!({"payload": {"fields": {sample::CITY: city}}}));
            tokio::spawn(async move { request.send().await.expect("request sent").status() })
        })
        .collect();
    let mut applied = 0;
    for update in updates {
        // An update racing another on the same instance may be refused (409); the rest apply.
        match update.await.unwrap() {
            StatusCode::OK => applied += 1,
            status => assert_eq!(status, StatusCode::CONFLICT),
        }
    }
    assert!(applied >= 1);
    let last = get_ok(&app, &ann.token, &format!("/v0/forms/{form_id}")).await;
    let words = form_field_words(&last["fields"], &[]);

    // Assert: once every event is in, the total is the last version's count, and one item. A stats call
    // reads its counters one at a time, so one that ran beside the deliveries may mix a count from
    // before them with one from after: read again once the total is in.
    let path = stats_path(guest, &space_id);
    stats_when(&app, &ann.token, &path, &form_id, |b| b["words"] == words).await;
    let stats = get_ok(&app, &ann.token, &path).await;
    assert_eq!((&stats["items"], &stats["words"]), (&json!(1), &json!(words)), "{stats}");
}

/// The module's stats once `done` holds for them; when they never do, the panic names the deliveries about
/// `item_id` that failed, to explain a count that went wrong.
async fn stats_when(app: &TestApp, token: &str, path: &str, item_id: &str, done: impl Fn(&Value) -> bool) -> Value {
    match poll_until(app, token, path, done).await {
        Ok(stats) => stats,
        Err(last) => panic!(
            "{path} never reached the expected state; last answer {last}; failed deliveries: {:?}",
            failed_deliveries(app, item_id).await
        ),
    }
}

/// The errors of the deliveries about `item_id` that failed.
async fn failed_deliveries(app: &TestApp, item_id: &str) -> Vec<String> {
    let store = trellis::store::Store::connect(&app.config.database_url(), 1).await.unwrap();
    let deliveries = store.module_deliveries.module_deliveries(item_id).await.unwrap();
    store.close().await;
    deliveries
        .into_iter()
        .filter(|d| d.state != "DELIVERED")
        .map(|d| format!("{}: {:?}", d.event_kind, d.error))
        .collect()
}

pub async fn comment_events_are_counted_by_0_2_guests_and_skipped_by_0_1(guest: Guest) {
    // Arrange
    let (app, ann, space_id) = guest_space(guest, json!({})).await;
    let comments = format!("/v0/spaces/{space_id}/comments");

    // Act
    for n in 0..3 {
        let response =
            app.authed(Method::POST, &comments, &ann.token).json(&json!({"body": format!("hi {n}")})).send().await;
        assert_eq!(response.unwrap().status(), StatusCode::CREATED);
    }
    created_form(&app, &ann.token, &tagged_payload(&space_id, "")).await;

    // Assert: the form event comes after the comments, so once it is counted they were handled.
    let stats = wait_until(&app, &ann.token, &stats_path(guest, &space_id), |b| b["items"] == 1).await;
    if guest.is_v0_2() {
        let stats = wait_until(&app, &ann.token, &stats_path(guest, &space_id), |b| b["comments"] == 3).await;
        assert_eq!(stats["comments"], 3);
    } else {
        assert_eq!(stats.get("comments"), None, "{stats}");
    }
}

pub async fn spin_fail_and_print_are_contained(guest: Guest) {
    // Arrange
    let (app, ann, space_id) = guest_space(guest, json!({})).await;
    let route = |path: &str| format!("/{}{path}", guest.id);

    // Act
    let started = Instant::now();
    let spin = module_call(&app, &ann.token, Method::POST, &space_id, &route("/spin")).await;
    let spin_took = started.elapsed();
    let fail = module_call(&app, &ann.token, Method::POST, &space_id, &route("/fail")).await;
    let print = module_call(&app, &ann.token, Method::POST, &space_id, &route("/print")).await;
    let after = get_ok(&app, &ann.token, &stats_path(guest, &space_id)).await;

    // Assert: the harness's request budget is 2 s.
    assert_error(spin, StatusCode::BAD_GATEWAY, "MODULE_FAILED").await;
    assert!(spin_took < Duration::from_secs(10), "the loop ran {spin_took:?}");
    assert_error(fail, StatusCode::BAD_GATEWAY, "MODULE_FAILED").await;
    assert_eq!(print.status(), StatusCode::OK);
    assert_eq!(body(print).await, json!({}));
    assert_eq!(after, zero_stats(guest));
}

pub async fn the_catalogue_shows_the_wit_version(guest: Guest) {
    let (app, ann, _) = guest_space(guest, json!({})).await;

    let catalogue = get_ok(&app, &ann.token, "/v0/modules").await;

    let listed = catalogue["items"].as_array().unwrap().iter().find(|m| m["id"] == guest.id).expect("listed");
    assert_eq!(listed["witVersion"], guest.wit, "{listed}");
}

/// What the SDKs' error helpers write (Rust `Response::bad_request`, JavaScript `badRequest`, Python
/// `bad_request`) reaches the client as the contract's envelope with the module's message and details.
pub async fn a_client_mistake_answers_400_with_the_module_s_message_and_details(guest: Guest) {
    // Arrange
    let (app, ann, space_id) = guest_space(guest, json!({})).await;
    let path = format!("/v0/spaces/{space_id}/modules/{}/count", guest.id);
    let count = |body: Value| app.authed(Method::POST, &path, &ann.token).json(&body).send();

    // Act
    let counted = count(json!({"text": "one two three"})).await.expect("request sent");
    let refused = count(json!({"words": 3})).await.expect("request sent");

    // Assert
    assert_eq!(counted.status(), StatusCode::OK);
    assert_eq!(body(counted).await, json!({"words": 3}));
    let error = assert_error(refused, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(error["message"], "text must be a string", "{error}");
    assert_eq!(error["details"], json!([{"path": "/text", "code": "REQUIRED", "message": "must be a string"}]));
}

/// An uncaught exception (a Rust panic, a JavaScript TypeError, a Python KeyError) is a 502 to the
/// client, and the host's log of the guest's stderr names the file and line it was raised at.
pub async fn an_uncaught_exception_is_logged_with_its_file_and_line(guest: Guest, source: &str) {
    // Arrange
    capture_guest_output();
    let (app, ann, space_id) = guest_space(guest, json!({})).await;

    // Act
    let crash = module_call(&app, &ann.token, Method::POST, &space_id, &format!("/{}/crash", guest.id)).await;

    // Assert
    assert_error(crash, StatusCode::BAD_GATEWAY, "MODULE_FAILED").await;
    let stderr: Vec<String> = guest_output(guest.id, &space_id)
        .into_iter()
        .filter(|line| line.stream == "stderr")
        .map(|line| line.message)
        .collect();
    let placed = |line: &String| {
        line.split(source)
            .skip(1)
            .any(|after| after.strip_prefix(':').is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit())))
    };
    assert!(stderr.iter().any(placed), "no stderr line names {source}:LINE: {stderr:#?}");
}
