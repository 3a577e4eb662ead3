//! Analysing a published asset again (issue 33): the owner's route, once the last analysis has
//! ended and within a daily bound, and the operator's `trellis admin reanalyze`, which re-runs
//! every FAILED analysis, for example once the models are installed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::Value;
use trellis::config::Config;
use trellis_tests::{TestApp, spawn_app_with};

use crate::support::analysis::{analysed, analysing, approved, models_dir, models_present, photo};
use crate::support::assets::{asset_path, decide, proposed, read, space_of_four};
use crate::support::media::{Reply, send};

/// Generous: the whole test run shares two cores.
const WITHIN: Duration = Duration::from_secs(180);
const BIRDS: [&str; 4] = ["kite", "eagle", "vulture", "hawk"];

/// `POST /v0/spaces/{spaceId}/assets/{assetId}/analysis` as `token`.
async fn reanalyse(app: &TestApp, token: &str, space_id: &str, asset_id: &str) -> Reply {
    let path = format!("{}/analysis", asset_path(space_id, asset_id));
    send(app, app.authed(Method::POST, &path, token), false).await
}

/// A server whose analyses read the models in `models` (while it is empty, every analysis
/// fails), with `per_day` re-analyses a day for each owner when given.
fn analysing_from(models: &Path, per_day: Option<u64>) -> impl FnOnce(&mut Config) + Send + 'static {
    let models: PathBuf = models.to_owned();
    move |config| {
        analysing(config);
        config.analysis.models_dir = Some(models);
        if let Some(per_day) = per_day {
            let plan = BTreeMap::from([("spaces.assets.reanalysisPerDay".to_owned(), per_day)]);
            config.plans.insert("default".to_owned(), plan);
        }
    }
}

/// Puts the installed models into `dir`, as `trellis models install` would there.
fn install_models(dir: &Path) {
    for entry in std::fs::read_dir(models_dir()).expect("the installed models") {
        let entry = entry.unwrap();
        let target = dir.join(entry.file_name());
        if std::fs::hard_link(entry.path(), &target).is_err() {
            std::fs::copy(entry.path(), &target).expect("copying a model");
        }
    }
}

fn has_a_bird(asset: &Value) -> bool {
    let tags = asset["analysis"]["tags"].to_string().to_lowercase();
    BIRDS.iter().any(|bird| tags.contains(bird))
}

#[tokio::test]
async fn a_failed_analysis_the_owner_queues_again_once_the_models_are_installed_succeeds() {
    let test = "a_failed_analysis_the_owner_queues_again_once_the_models_are_installed_succeeds";
    let (Some(eagle), true) = (photo(test, "eagle.jpg"), models_present(test)) else { return };
    // Arrange: no models yet, so the analysis fails
    let models = tempfile::tempdir().unwrap();
    let app = spawn_app_with(analysing_from(models.path(), None)).await;
    let (space_id, ann, ..) = space_of_four(&app).await;
    let asset_id = approved(&app, &ann.token, &space_id, "eagle.jpg", "image/jpeg", eagle).await;
    let failed = analysed(&app, &ann.token, &space_id, &asset_id, WITHIN).await;
    assert_eq!(failed["analysis"]["state"], "FAILED", "{failed}");
    // Act
    install_models(models.path());
    let queued = reanalyse(&app, &ann.token, &space_id, &asset_id).await.expect(StatusCode::ACCEPTED);
    // Assert: queued at once, the last result readable meanwhile, then a success
    assert_eq!(queued["analysis"]["state"], "QUEUED", "{queued}");
    assert_eq!(queued["analysis"]["error"], failed["analysis"]["error"], "{queued}");
    assert_eq!(queued["assetId"], asset_id);
    let again = analysed(&app, &ann.token, &space_id, &asset_id, WITHIN).await;
    assert_eq!(again["analysis"]["state"], "SUCCEEDED", "{again}");
    assert_eq!(again["analysis"]["error"], Value::Null, "{again}");
    assert!(has_a_bird(&again), "{again}");
    app.stop().await;
}

#[tokio::test]
async fn only_the_owner_queues_an_ended_analysis_again_and_only_so_often_a_day() {
    // Arrange: every analysis fails at once (no models); two re-analyses a day
    let models = tempfile::tempdir().unwrap();
    let app = spawn_app_with(analysing_from(models.path(), Some(2))).await;
    let (space_id, ann, bob, _cat, dan) = space_of_four(&app).await;
    let asset_id = proposed(&app, &bob.token, &space_id, "one.png", 2_000).await;
    // An asset awaiting approval was never analysed
    let never = reanalyse(&app, &ann.token, &space_id, &asset_id).await.error(StatusCode::CONFLICT, "CONFLICT");
    assert!(never["message"].as_str().unwrap().contains("not been analysed"), "{never}");
    decide(&app, &ann.token, &space_id, &asset_id, "APPROVED").await.expect(StatusCode::OK);
    let failed = analysed(&app, &ann.token, &space_id, &asset_id, WITHIN).await;
    assert_eq!(failed["analysis"]["state"], "FAILED", "{failed}");
    // A member who proposed it may not; a stranger finds nothing; nor does anyone an unknown asset
    reanalyse(&app, &bob.token, &space_id, &asset_id).await.error(StatusCode::FORBIDDEN, "FORBIDDEN");
    reanalyse(&app, &dan.token, &space_id, &asset_id).await.error(StatusCode::NOT_FOUND, "NOT_FOUND");
    let unknown = uuid::Uuid::new_v4().to_string();
    reanalyse(&app, &ann.token, &space_id, &unknown).await.error(StatusCode::NOT_FOUND, "NOT_FOUND");
    reanalyse(&app, &ann.token, &space_id, "not-an-id").await.error(StatusCode::NOT_FOUND, "NOT_FOUND");
    // Act: the owner queues it twice, each time once the last has ended (the refusals cost nothing)
    for _ in 0..2 {
        let queued = reanalyse(&app, &ann.token, &space_id, &asset_id).await.expect(StatusCode::ACCEPTED);
        assert_eq!(queued["analysis"]["state"], "QUEUED", "{queued}");
        let ended = analysed(&app, &ann.token, &space_id, &asset_id, WITHIN).await;
        assert_eq!(ended["analysis"]["state"], "FAILED", "{ended}");
    }
    // Assert: a third is over the day's bound, says which, and queues nothing
    let over = reanalyse(&app, &ann.token, &space_id, &asset_id)
        .await
        .error(StatusCode::FORBIDDEN, "ENTITLEMENT_LIMIT_EXCEEDED");
    assert_eq!(over["details"][0]["path"], "spaces.assets.reanalysisPerDay", "{over}");
    let path = asset_path(&space_id, &asset_id);
    assert_eq!(read(&app, &ann.token, &path).await["analysis"]["state"], "FAILED");
    app.stop().await;
}

#[tokio::test]
async fn an_analysis_still_queued_is_not_queued_twice() {
    // Arrange: no analysis worker, so the first analysis stays QUEUED
    let app = spawn_app_with(|config| config.analysis.workers = 0).await;
    let (space_id, ann, bob, ..) = space_of_four(&app).await;
    let asset_id = proposed(&app, &bob.token, &space_id, "one.png", 2_000).await;
    let approved = decide(&app, &ann.token, &space_id, &asset_id, "APPROVED").await.expect(StatusCode::OK);
    assert_eq!(approved["analysis"]["state"], "QUEUED", "{approved}");
    // Act
    let refused = reanalyse(&app, &ann.token, &space_id, &asset_id).await.error(StatusCode::CONFLICT, "CONFLICT");
    // Assert
    assert!(refused["message"].as_str().unwrap().contains("queued or running"), "{refused}");
    app.stop().await;
}

#[tokio::test]
async fn the_operator_queues_every_failed_analysis_again_with_trellis_admin_reanalyze() {
    let test = "the_operator_queues_every_failed_analysis_again_with_trellis_admin_reanalyze";
    let (Some(eagle), true) = (photo(test, "eagle.jpg"), models_present(test)) else { return };
    // Arrange: two analyses failed for want of the models; a third asset awaits approval
    let models = tempfile::tempdir().unwrap();
    let app = spawn_app_with(analysing_from(models.path(), None)).await;
    let (space_id, ann, bob, ..) = space_of_four(&app).await;
    let mut failed = Vec::new();
    for name in ["first.jpg", "second.jpg"] {
        let asset_id = approved(&app, &ann.token, &space_id, name, "image/jpeg", eagle.clone()).await;
        let asset = analysed(&app, &ann.token, &space_id, &asset_id, WITHIN).await;
        assert_eq!(asset["analysis"]["state"], "FAILED", "{asset}");
        failed.push(asset_id);
    }
    let waiting = proposed(&app, &bob.token, &space_id, "waiting.png", 2_000).await;
    install_models(models.path());
    // Act: the command's own code, against this server's database
    use clap::Parser;
    let cli = trellis::cli::Cli::try_parse_from(["trellis", "admin", "reanalyze"]).unwrap();
    trellis::cli::run_admin(cli.command, app.config.clone()).await.expect("admin reanalyze succeeds");
    // Assert: both analysed again, now with the models; the waiting asset untouched
    for asset_id in &failed {
        let asset = analysed(&app, &ann.token, &space_id, asset_id, WITHIN).await;
        assert_eq!(asset["analysis"]["state"], "SUCCEEDED", "{asset}");
        assert!(has_a_bird(&asset), "{asset}");
    }
    let path = asset_path(&space_id, &waiting);
    assert_eq!(read(&app, &ann.token, &path).await["analysis"], Value::Null);
    app.stop().await;
}
