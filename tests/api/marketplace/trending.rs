//! The trending ranking: computed in the background by the deployment's rule module, served from
//! memory; a replaced module ranks differently, and one that traps or runs too long leaves the last
//! good ranking in place.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis::config::Config;
use trellis::config::marketplace::MarketplaceConfig;
use trellis_tests::{TestApp, TestUser, assert_error, body, spawn_app, spawn_app_with};

use crate::support::forms::get_ok;
use crate::support::marketplace::{entry, listed_space, rank_with_probe, ranked, registered, trending, trending_until};

async fn comment(app: &TestApp, user: &TestUser, space_id: &str, text: &str) {
    let response = app
        .authed(Method::POST, &format!("/v0/spaces/{space_id}/comments"), &user.token)
        .json(&json!({"body": text}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
}

/// Two listed spaces: `busy` with two members and a comment, `quiet` with its owner alone.
async fn busy_and_quiet(app: &TestApp) -> (TestUser, String, String) {
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let olga = app.grant_operator(&app.sign_up("olga").await).await;
    let quiet = listed_space(app, &ann, &olga, "quiet", "OPEN").await;
    let busy = listed_space(app, &ann, &olga, "busy", "OPEN").await;
    registered(app, &bob, &busy, json!({}), StatusCode::CREATED).await;
    comment(app, &bob, &busy, "lively").await;
    (bob, busy, quiet)
}

#[tokio::test]
async fn the_default_rule_ranks_the_busier_listing_first_without_a_session() {
    // Arrange
    let app = spawn_app().await;
    let (_, busy, quiet) = busy_and_quiet(&app).await;
    // Act: both listed, the busy one's second member counted.
    let page = trending_until(&app, |page| {
        entry(page, &busy).is_some_and(|l| l["members"] == 2) && entry(page, &quiet).is_some()
    })
    .await;
    // Assert
    assert_eq!(ranked(&page), [busy.clone(), quiet.clone()]);
    assert_eq!((page["items"][0]["rank"].as_i64(), page["items"][1]["rank"].as_i64()), (Some(1), Some(2)));
    assert_eq!(page["items"][0]["title"], "The busy");
    let text = page.to_string();
    assert!(!text.contains("@example.org") && !text.contains("\"handle\"") && !text.contains("userId"), "{text}");
    // Paging and the ETag of the ranking.
    let first = app.request(Method::GET, "/v0/marketplace/trending?limit=1").send().await.unwrap();
    let etag = first.headers().get("etag").unwrap().to_str().unwrap().to_owned();
    assert!(first.headers().get("last-modified").is_some());
    let first = body(first).await;
    assert_eq!(ranked(&first), [busy]);
    let cursor = first["nextCursor"].as_str().unwrap();
    let second = body(
        app.request(Method::GET, &format!("/v0/marketplace/trending?limit=1&cursor={cursor}")).send().await.unwrap(),
    )
    .await;
    assert_eq!(ranked(&second), [quiet]);
    assert!(second["nextCursor"].is_null());
    let unchanged =
        app.request(Method::GET, "/v0/marketplace/trending").header("If-None-Match", &etag).send().await.unwrap();
    assert_eq!(unchanged.status(), StatusCode::NOT_MODIFIED);
    // A license is still needed.
    let unlicensed = app.client.get(app.url("/v0/marketplace/trending")).send().await.unwrap();
    assert_error(unlicensed, StatusCode::UNAUTHORIZED, "LICENSE_REQUIRED").await;
    assert_error(
        app.request(Method::GET, "/v0/marketplace/trending?limit=0").send().await.unwrap(),
        StatusCode::BAD_REQUEST,
        "VALIDATION_FAILED",
    )
    .await;
    app.stop().await;
}

#[tokio::test]
async fn a_ranking_run_again_over_unchanged_listings_keeps_its_etag_and_time() {
    // Arrange: a ranking every second.
    let app = spawn_app_with(|config| config.marketplace.ranking_interval_seconds = 1).await;
    let (_, busy, _) = busy_and_quiet(&app).await;
    trending_until(&app, |page| entry(page, &busy).is_some_and(|l| l["members"] == 2)).await;
    let first = app.request(Method::GET, "/v0/marketplace/trending").send().await.unwrap();
    let etag = first.headers()["etag"].to_str().unwrap().to_owned();
    let made = first.headers()["last-modified"].to_str().unwrap().to_owned();
    // Act: at least two more rankings of the same listings.
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    // Assert
    let again =
        app.request(Method::GET, "/v0/marketplace/trending").header("If-None-Match", &etag).send().await.unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    let page = app.request(Method::GET, "/v0/marketplace/trending").send().await.unwrap();
    assert_eq!(page.headers()["last-modified"].to_str().unwrap(), made);
    app.stop().await;
}

#[tokio::test]
async fn a_replaced_rule_module_ranks_differently() {
    // Arrange: the test rule ranks the quietest listing first.
    let app = spawn_app_with(|config| rank_with_probe(config, json!({}))).await;
    let (_, busy, quiet) = busy_and_quiet(&app).await;
    // Act
    let page = trending_until(&app, |page| {
        entry(page, &busy).is_some_and(|l| l["members"] == 2) && entry(page, &quiet).is_some()
    })
    .await;
    // Assert
    assert_eq!(ranked(&page), [quiet, busy]);
    app.stop().await;
}

/// How often the rule module failed in the way `kind` names (`trap`, `deadline`), as the operator reads it.
/// The trending page and its `ETag` once two reads 500 ms apart (25 times the test servers'
/// `ranking_settle_ms`) answer the same ranking.
async fn settled_trending(app: &TestApp) -> (Value, String) {
    let etag = |response: &reqwest::Response| response.headers().get("etag").unwrap().to_str().unwrap().to_owned();
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut before = etag(&trending(app).await);
    loop {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let response = trending(app).await;
        let now = etag(&response);
        if now == before {
            return (body(response).await, now);
        }
        assert!(Instant::now() < deadline, "the rankings never settled");
        before = now;
    }
}

async fn rule_failures(app: &TestApp, operator: &TestUser, kind: &str) -> u64 {
    let metrics = get_ok(app, &operator.token, "/v0/admin/modules/metrics").await;
    let probe = metrics["items"].as_array().unwrap().iter().find(|m| m["moduleId"] == "rule-probe");
    probe
        .and_then(|m| m["failures"][kind].as_u64())
        .unwrap_or_else(|| panic!("no {kind} failures of rule-probe: {metrics}"))
}

/// The rule module's budget per call in these tests: long enough for many trending requests to be made while
/// a module that never ends runs.
const RULE_DEADLINE: Duration = Duration::from_secs(6);

/// A rule module that fails once `busy` has two comments, in the way `failure` names (`trap`, or `deadline`
/// for one that runs until [`RULE_DEADLINE`]): the ranking made before stays, and trending requests made
/// while the failing ranking runs answer it without waiting for the module.
async fn the_last_good_ranking_stays(rule_config: Value, failure: &str) {
    // Arrange: a good ranking with both listings; busy has one comment.
    let app = spawn_app_with(|config| {
        rank_with_probe(config, rule_config);
        config.modules.runtime.marketplace_deadline_ms = RULE_DEADLINE.as_millis() as u64;
    })
    .await;
    let (bob, busy, quiet) = busy_and_quiet(&app).await;
    let operator = app.grant_operator(&app.sign_up("dora").await).await;
    trending_until(&app, |page| entry(page, &busy).is_some_and(|l| l["members"] == 2) && entry(page, &quiet).is_some())
        .await;
    // A ranking the set-up queued may finish after the one that first showed both listings (seen
    // on a loaded machine): the good ranking is the one the rankings settle on.
    let (good, good_etag) = settled_trending(&app).await;
    let failed_before = rule_failures(&app, &operator, failure).await;
    // Act: a second comment makes the module fail; a registration asks for a new ranking.
    comment(&app, &bob, &busy, "again").await;
    let cat = app.sign_up("cat").await;
    registered(&app, &cat, &quiet, json!({}), StatusCode::CREATED).await;
    // Assert: until the module's failure is counted, every answer is the good ranking.
    let give_up = Instant::now() + RULE_DEADLINE + Duration::from_secs(60);
    let mut slowest = Duration::ZERO;
    loop {
        let started = Instant::now();
        let now = trending(&app).await;
        slowest = slowest.max(started.elapsed());
        assert_eq!(now.status(), StatusCode::OK);
        assert_eq!(now.headers().get("etag").unwrap().to_str().unwrap(), good_etag);
        if rule_failures(&app, &operator, failure).await > failed_before {
            break;
        }
        assert!(Instant::now() < give_up, "no {failure} of the rule module was counted");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let now = trending(&app).await;
    assert_eq!(now.headers().get("etag").unwrap().to_str().unwrap(), good_etag);
    let now = body(now).await;
    assert_eq!(now, good);
    assert_eq!(entry(&now, &quiet).unwrap()["members"], 1, "quiet's new member is not counted");
    // A request that waited on the running module would have taken about its whole deadline.
    assert!(slowest < RULE_DEADLINE / 2, "a trending request took {slowest:?} while the module ran");
    app.stop().await;
}

#[tokio::test]
async fn a_rule_module_that_traps_leaves_the_last_good_ranking() {
    the_last_good_ranking_stays(json!({"trapAtComments": 2}), "trap").await;
}

#[tokio::test]
async fn a_rule_module_that_runs_too_long_leaves_the_last_good_ranking() {
    the_last_good_ranking_stays(json!({"spinAtComments": 2}), "deadline").await;
}

#[tokio::test]
async fn a_deployment_naming_a_rule_module_it_does_not_run_or_misconfiguring_it_does_not_start() {
    let temp = tempfile::tempdir().unwrap();
    let refusal = |data: &str, marketplace: MarketplaceConfig| {
        let config = Config { data_dir: temp.path().join(data), marketplace, ..Config::default() };
        async move {
            match trellis::prepare(config).await {
                Ok(_) => panic!("the server prepared with a rule module it cannot use"),
                Err(error) => format!("{error:#}"),
            }
        }
    };
    let unknown = MarketplaceConfig { rule_module: Some("nowhere".into()), ..MarketplaceConfig::default() };
    let error = refusal("first", unknown).await;
    assert!(error.contains("marketplace.rule_module") && error.contains("nowhere"), "{error}");
    // A configuration that breaks the module's schema is named with its problem.
    let steep = json!({"gravity": 9}).as_object().cloned().unwrap();
    let error = refusal("second", MarketplaceConfig { rule_config: steep, ..MarketplaceConfig::default() }).await;
    assert!(error.contains("marketplace.rule_config") && error.contains("/gravity"), "{error}");
}

#[tokio::test]
async fn a_deployment_without_the_bundled_rule_starts_and_ranks_by_members() {
    // Arrange: an older configuration that enables Tags alone.
    let app = spawn_app_with(|config| {
        config.modules.runtime.enable = vec![trellis_modules::EnabledModule::bundled("tags")];
    })
    .await;
    // Act
    let (_, busy, quiet) = busy_and_quiet(&app).await;
    // Assert
    let page = trending_until(&app, |page| {
        entry(page, &busy).is_some_and(|l| l["members"] == 2) && entry(page, &quiet).is_some()
    })
    .await;
    assert_eq!(ranked(&page), [busy, quiet]);
    app.stop().await;
}
