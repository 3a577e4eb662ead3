//! The reusable daily quota check (`quotas::take` / `refund`) against the real store of
//! the test database. No route uses quotas yet, so these tests call the service directly.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::response::IntoResponse;
use reqwest::StatusCode;
use time::OffsetDateTime;
use trellis::config::Config;
use trellis::domain::entitlement::{Entitlement, Plan, QuotaSubject, utc_day};
use trellis::error::{Error, ErrorCode};
use trellis::http::error::ErrorBody;
use trellis::infra::quotas;
use trellis::services::licenses::{Caller, Licenses};
use trellis::store::{QuotaTake, Store};
use trellis_tests::{TestApp, spawn_app, spawn_app_with};

const UPLOADS: Entitlement = Entitlement::FormUploads;

async fn store_of(app: &TestApp) -> Store {
    Store::connect(&app.config.database_url(), 4).await.unwrap()
}

/// A caller counted as license `id`, on a plan allowing `uploads` form uploads a day.
fn caller(id: &str, uploads: u64) -> Caller {
    let plan = Plan::new("test", |e| if e == UPLOADS { uploads } else { e.default_quota() });
    Caller::new(QuotaSubject::license(id), plan)
}

async fn used_today(store: &Store, caller: &Caller, entitlement: Entitlement) -> i64 {
    store.quotas.quota_used(&caller.subject, entitlement, utc_day(OffsetDateTime::now_utc())).await.unwrap()
}

fn with_plan(config: &mut Config, name: &str, quotas: &[(&str, u64)]) {
    let plan: BTreeMap<String, u64> = quotas.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect();
    config.plans.insert(name.to_owned(), plan);
}

#[tokio::test]
async fn takes_within_the_quota_succeed_and_count_on_the_current_utc_day() {
    // Arrange
    let app = spawn_app().await;
    let store = store_of(&app).await;
    let ann = caller("ann", 3);
    // Act
    let first = quotas::take(&store, &ann, UPLOADS, 1).await;
    let second = quotas::take(&store, &ann, UPLOADS, 2).await;
    // Assert
    assert!(first.is_ok() && second.is_ok());
    assert_eq!(used_today(&store, &ann, UPLOADS).await, 3);
    store.close().await;
}

#[tokio::test]
async fn a_take_beyond_the_quota_is_entitlement_exceeded_and_takes_nothing() {
    // Arrange
    let app = spawn_app().await;
    let store = store_of(&app).await;
    let ann = caller("ann", 3);
    quotas::take(&store, &ann, UPLOADS, 2).await.unwrap();
    // Act
    let result = quotas::take(&store, &ann, UPLOADS, 2).await;
    // Assert
    assert!(matches!(result, Err(Error::EntitlementExceeded(UPLOADS))), "{result:?}");
    assert_eq!(used_today(&store, &ann, UPLOADS).await, 2);
    assert!(quotas::take(&store, &ann, UPLOADS, 1).await.is_ok(), "the last unit is still there");
    store.close().await;
}

#[tokio::test]
async fn an_amount_larger_than_the_whole_quota_is_refused_without_taking_anything() {
    // Arrange
    let app = spawn_app().await;
    let store = store_of(&app).await;
    let ann = caller("ann", 3);
    // Act
    let result = quotas::take(&store, &ann, UPLOADS, 4).await;
    // Assert
    assert!(matches!(result, Err(Error::EntitlementExceeded(UPLOADS))));
    assert_eq!(used_today(&store, &ann, UPLOADS).await, 0);
    store.close().await;
}

#[tokio::test]
async fn the_exceeded_error_is_403_entitlement_limit_exceeded_naming_the_entitlement() {
    // Arrange
    let app = spawn_app().await;
    let store = store_of(&app).await;
    let ann = caller("ann", 0);
    // Act
    let error = quotas::take(&store, &ann, UPLOADS, 1).await.unwrap_err();
    // Assert
    assert_eq!(error.code(), ErrorCode::EntitlementLimitExceeded);
    let response = error.into_response();
    assert_eq!(response.status().as_u16(), StatusCode::FORBIDDEN.as_u16());
    let body = serde_json::to_value(response.extensions().get::<ErrorBody>().unwrap()).unwrap();
    assert_eq!(body["code"], "ENTITLEMENT_LIMIT_EXCEEDED");
    assert_eq!(body["numeric"], 803);
    assert_eq!(body["details"][0]["path"], "forms.attachments.uploadPerDay");
    store.close().await;
}

#[tokio::test]
async fn a_refund_gives_units_back_for_a_later_take() {
    // Arrange
    let app = spawn_app().await;
    let store = store_of(&app).await;
    let ann = caller("ann", 2);
    quotas::take(&store, &ann, UPLOADS, 2).await.unwrap();
    assert!(quotas::take(&store, &ann, UPLOADS, 1).await.is_err());
    // Act
    quotas::refund(&store, &ann, UPLOADS, 1).await.unwrap();
    // Assert
    assert_eq!(used_today(&store, &ann, UPLOADS).await, 1);
    assert!(quotas::take(&store, &ann, UPLOADS, 1).await.is_ok());
    assert!(quotas::take(&store, &ann, UPLOADS, 1).await.is_err());
    store.close().await;
}

#[tokio::test]
async fn a_refund_never_takes_usage_below_zero() {
    // Arrange
    let app = spawn_app().await;
    let store = store_of(&app).await;
    let ann = caller("ann", 2);
    let bob = caller("bob", 2);
    quotas::take(&store, &ann, UPLOADS, 1).await.unwrap();
    // Act
    quotas::refund(&store, &ann, UPLOADS, 5).await.unwrap();
    quotas::refund(&store, &bob, UPLOADS, 5).await.unwrap();
    // Assert
    assert_eq!(used_today(&store, &ann, UPLOADS).await, 0);
    assert_eq!(used_today(&store, &bob, UPLOADS).await, 0);
    assert!(quotas::take(&store, &ann, UPLOADS, 2).await.is_ok());
    assert!(quotas::take(&store, &ann, UPLOADS, 1).await.is_err(), "no credit beyond the quota");
    store.close().await;
}

#[tokio::test]
async fn quotas_are_counted_per_subject() {
    // Arrange
    let app = spawn_app().await;
    let store = store_of(&app).await;
    let ann = caller("ann", 2);
    let bob = caller("bob", 2);
    quotas::take(&store, &ann, UPLOADS, 2).await.unwrap();
    // Act
    let result = quotas::take(&store, &bob, UPLOADS, 2).await;
    // Assert
    assert!(result.is_ok());
    assert!(quotas::take(&store, &ann, UPLOADS, 1).await.is_err());
    store.close().await;
}

#[tokio::test]
async fn quotas_are_counted_per_entitlement() {
    // Arrange
    let app = spawn_app().await;
    let store = store_of(&app).await;
    let plan = Plan::new("tiny", |_| 1);
    let ann = Caller::new(QuotaSubject::license("ann"), plan);
    quotas::take(&store, &ann, Entitlement::FormUploads, 1).await.unwrap();
    // Act
    let assets = quotas::take(&store, &ann, Entitlement::PublishedAssets, 1).await;
    let messages = quotas::take(&store, &ann, Entitlement::Messages, 1).await;
    // Assert
    assert!(assets.is_ok() && messages.is_ok());
    assert!(matches!(
        quotas::take(&store, &ann, Entitlement::Messages, 1).await,
        Err(Error::EntitlementExceeded(Entitlement::Messages))
    ));
    store.close().await;
}

/// One take of `amount` uploads within 2 on `day`; answers whether it was taken.
async fn take_uploads(store: &Store, subject: &QuotaSubject, day: i64, amount: i64) -> bool {
    let take = QuotaTake { subject: subject.clone(), entitlement: UPLOADS, amount, limit: 2 };
    store.quotas.consume_quotas(vec![take], day).await.unwrap().is_none()
}

#[tokio::test]
async fn a_new_utc_day_starts_a_fresh_count() {
    // Arrange
    let app = spawn_app().await;
    let store = store_of(&app).await;
    let subject = QuotaSubject::license("ann");
    let today = utc_day(OffsetDateTime::now_utc());
    assert!(take_uploads(&store, &subject, today, 2).await);
    assert!(!take_uploads(&store, &subject, today, 1).await);
    // Act
    let tomorrow = take_uploads(&store, &subject, today + 1, 2).await;
    // Assert
    assert!(tomorrow);
    assert_eq!(store.quotas.quota_used(&subject, UPLOADS, today).await.unwrap(), 2);
    assert_eq!(store.quotas.quota_used(&subject, UPLOADS, today + 1).await.unwrap(), 2);
    assert_eq!(store.quotas.quota_used(&subject, UPLOADS, today - 1).await.unwrap(), 0);
    store.close().await;
}

#[tokio::test]
async fn several_takes_are_all_taken_or_none() {
    // Arrange: ann's uploads have room, the key's upload bytes have none left for 10 more.
    let app = spawn_app().await;
    let store = store_of(&app).await;
    let (ann, key) = (QuotaSubject::license("ann"), QuotaSubject::license("key"));
    let today = utc_day(OffsetDateTime::now_utc());
    let bytes = Entitlement::FormUploadBytes;
    let take = |subject: &QuotaSubject, entitlement, amount, limit| QuotaTake {
        subject: subject.clone(),
        entitlement,
        amount,
        limit,
    };
    assert_eq!(store.quotas.consume_quotas(vec![take(&key, bytes, 95, 100)], today).await.unwrap(), None);
    // Act
    let refused = store
        .quotas
        .consume_quotas(vec![take(&ann, UPLOADS, 1, 5), take(&key, UPLOADS, 1, 5), take(&key, bytes, 10, 100)], today)
        .await
        .unwrap();
    let taken =
        store.quotas.consume_quotas(vec![take(&ann, UPLOADS, 1, 5), take(&key, bytes, 5, 100)], today).await.unwrap();
    // Assert: the refusal names the entitlement past its limit and gave back what the takes before it took.
    assert_eq!(refused, Some(bytes));
    assert_eq!(taken, None);
    assert_eq!(store.quotas.quota_used(&ann, UPLOADS, today).await.unwrap(), 1);
    assert_eq!(store.quotas.quota_used(&key, UPLOADS, today).await.unwrap(), 0);
    assert_eq!(store.quotas.quota_used(&key, bytes, today).await.unwrap(), 100);
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_takes_never_overdraw_the_quota() {
    // Arrange
    let app = spawn_app().await;
    let store = store_of(&app).await;
    let ann = caller("ann", 10);
    let mut takes = tokio::task::JoinSet::new();
    // Act
    for _ in 0..40 {
        let (store, ann) = (store.clone(), ann.clone());
        takes.spawn(async move { quotas::take(&store, &ann, UPLOADS, 1).await });
    }
    let results = takes.join_all().await;
    // Assert
    let granted = results.iter().filter(|r| r.is_ok()).count();
    assert!(results.iter().all(|r| matches!(r, Ok(()) | Err(Error::EntitlementExceeded(UPLOADS)))), "{results:?}");
    assert_eq!(granted, 10);
    assert_eq!(used_today(&store, &ann, UPLOADS).await, 10);
    store.close().await;
}

#[tokio::test]
async fn the_first_key_is_on_the_default_plan_with_the_documented_quotas() {
    // Arrange
    let app = spawn_app().await;
    let store = store_of(&app).await;
    let licenses = Licenses::new(store.clone(), Arc::new(app.config.clone()));
    // Act
    let caller = licenses.authorize_key(&app.license_key).await.unwrap();
    // Assert
    assert_eq!(caller.plan.name(), "default");
    assert_eq!(caller.plan.quota(Entitlement::FormUploads), 10_000);
    assert_eq!(caller.plan.quota(Entitlement::PublishedAssets), 1_000);
    assert_eq!(caller.plan.quota(Entitlement::Messages), 1_000);
    store.close().await;
}

#[tokio::test]
async fn each_license_key_is_held_to_the_quotas_of_its_own_plan() {
    // Arrange
    let app = spawn_app_with(|c| with_plan(c, "small", &[("forms.attachments.uploadPerDay", 2)])).await;
    let store = store_of(&app).await;
    let licenses = Licenses::new(store.clone(), Arc::new(app.config.clone()));
    let small = licenses.authorize_key(&app.issue_license("small").await).await.unwrap();
    let default = licenses.authorize_key(&app.license_key).await.unwrap();
    // Act
    quotas::take(&store, &small, UPLOADS, 2).await.unwrap();
    let small_more = quotas::take(&store, &small, UPLOADS, 1).await;
    let default_more = quotas::take(&store, &default, UPLOADS, 3).await;
    // Assert
    assert!(matches!(small_more, Err(Error::EntitlementExceeded(UPLOADS))));
    assert!(default_more.is_ok());
    assert_eq!(small.plan.quota(Entitlement::Messages), 1_000, "unnamed quotas come from the default plan");
    store.close().await;
}

#[tokio::test]
async fn gateway_subscribers_are_counted_per_user_on_the_plan_their_subscription_names() {
    // Arrange
    let app = spawn_app_with(|c| {
        c.gateway.proxy_secret = Some("s3cret".into());
        with_plan(c, "pro", &[("forms.attachments.uploadPerDay", 1)]);
    })
    .await;
    let store = store_of(&app).await;
    let licenses = Licenses::new(store.clone(), Arc::new(app.config.clone()));
    let first = licenses.authorize_gateway("s3cret", Some("user-1"), Some("PRO")).unwrap();
    let second = licenses.authorize_gateway("s3cret", Some("user-2"), Some("pro")).unwrap();
    let unknown_plan = licenses.authorize_gateway("s3cret", Some("user-3"), Some("platinum")).unwrap();
    quotas::take(&store, &first, UPLOADS, 1).await.unwrap();
    // Act
    let first_more = quotas::take(&store, &first, UPLOADS, 1).await;
    let second_take = quotas::take(&store, &second, UPLOADS, 1).await;
    // Assert
    assert!(matches!(first_more, Err(Error::EntitlementExceeded(UPLOADS))));
    assert!(second_take.is_ok());
    assert_eq!(unknown_plan.plan.name(), "default");
    store.close().await;
}

/// Issue 11, finding 9: each user creates at most `forms.configurations.createPerDay` form
/// configurations a day, whatever key they use; a refused document costs nothing.
#[tokio::test]
async fn form_configurations_per_user_and_day_are_capped() {
    // Arrange
    let app = spawn_app_with(|config| with_plan(config, "default", &[("forms.configurations.createPerDay", 2)])).await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let create = |token: &str, body: serde_json::Value| {
        app.authed(reqwest::Method::POST, "/v0/forms/configurations", token).json(&body).send()
    };
    let config = || {
        let mut config = crate::support::forms::sample_config();
        config["id"] = serde_json::json!(uuid::Uuid::new_v4().to_string());
        serde_json::json!({"config": config})
    };
    let invalid = create(&ann.token, serde_json::json!({"config": {}})).await.unwrap();
    assert_eq!(invalid.status(), StatusCode::BAD_REQUEST);
    for _ in 0..2 {
        assert_eq!(create(&ann.token, config()).await.unwrap().status(), StatusCode::CREATED);
    }
    // Act
    let third = create(&ann.token, config()).await.unwrap();
    let other_user = create(&bob.token, config()).await.unwrap();
    // Assert
    let error = trellis_tests::assert_error(third, StatusCode::FORBIDDEN, "ENTITLEMENT_LIMIT_EXCEEDED").await;
    assert_eq!(error["details"][0]["path"], "forms.configurations.createPerDay");
    assert_eq!(other_user.status(), StatusCode::CREATED);
    app.stop().await;
}
