//! `asset.changed`: an asset's announcement, upload and the owner's decisions reach those who may read
//! it at that moment (the proposer and the owner while it waits; every member once approved), and so do
//! the changes of its analysis. Members who may not read it yet, and strangers, hear nothing.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use trellis_tests::{TestApp, spawn_app, spawn_app_with};

use crate::support::assets::{announced, decide, png_part, space_of_four, upload_asset};
use crate::support::live::{Live, Next, assert_replays_agree, newest_event_id, probe};

fn changed(space_id: &str, asset_id: &str, state: &str, analysis_state: Value) -> Value {
    json!({"spaceId": space_id, "assetId": asset_id, "state": state, "analysisState": analysis_state})
}

#[tokio::test]
async fn an_asset_is_heard_by_its_proposer_and_the_owner_while_it_waits_and_by_members_once_approved() {
    // Arrange: ann owns the space, bob and cat are members, dan is a stranger.
    let app = spawn_app().await;
    let (space_id, ann, bob, cat, dan) = space_of_four(&app).await;
    let mut anns = Live::open(&app, &ann).await;
    let mut bobs = Live::open(&app, &bob).await;
    let mut cats = Live::open(&app, &cat).await;
    let mut dans = Live::open(&app, &dan).await;
    // Act: bob announces and uploads; ann approves.
    let asset_id = announced(&app, &bob.token, &space_id, "rose.png").await;
    upload_asset(&app, &bob.token, &space_id, &asset_id, png_part("rose.png", 500)).await.expect(StatusCode::CREATED);
    decide(&app, &ann.token, &space_id, &asset_id, "APPROVED").await.expect(StatusCode::OK);
    // Assert
    let waiting = [
        changed(&space_id, &asset_id, "AWAITING_UPLOAD", Value::Null),
        changed(&space_id, &asset_id, "AWAITING_APPROVAL", Value::Null),
    ];
    let approved = changed(&space_id, &asset_id, "APPROVED", json!("QUEUED"));
    for stream in [&mut anns, &mut bobs] {
        assert_eq!(stream.expect("asset.changed").await, waiting[0]);
        assert_eq!(stream.expect("asset.changed").await, waiting[1]);
        assert_eq!(stream.expect("asset.changed").await, approved);
    }
    // cat could not read the proposal: the approval is the first thing she hears of it.
    assert_eq!(cats.expect("asset.changed").await, approved);
    probe(&app, &mut cats, &ann, &cat).await;
    probe(&app, &mut dans, &ann, &dan).await;
}

#[tokio::test]
async fn a_rejected_asset_is_heard_by_its_proposer_and_the_owner_only() {
    // Arrange
    let app = spawn_app().await;
    let (space_id, ann, bob, cat, _) = space_of_four(&app).await;
    let asset_id = announced(&app, &bob.token, &space_id, "weed.png").await;
    upload_asset(&app, &bob.token, &space_id, &asset_id, png_part("weed.png", 500)).await.expect(StatusCode::CREATED);
    let mut anns = Live::open(&app, &ann).await;
    let mut bobs = Live::open(&app, &bob).await;
    let mut cats = Live::open(&app, &cat).await;
    let before = newest_event_id(&app, &cat).await;
    // Act
    decide(&app, &ann.token, &space_id, &asset_id, "REJECTED").await.expect(StatusCode::OK);
    // Assert
    let rejected = changed(&space_id, &asset_id, "REJECTED", Value::Null);
    assert_eq!(anns.expect("asset.changed").await, rejected);
    assert_eq!(bobs.expect("asset.changed").await, rejected);
    probe(&app, &mut cats, &ann, &cat).await;
    // A reconnection replays to each what their stream heard.
    assert_replays_agree(&app, &before, &[(&anns, &ann), (&bobs, &bob), (&cats, &cat)], [&ann, &bob]).await;
}

/// The `asset.changed` data `live` receives until the analysis state is `last`, within `within`.
async fn analysis_until(live: &mut Live, last: &str, within: Duration) -> Vec<Value> {
    let deadline = tokio::time::Instant::now() + within;
    let mut heard = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match live.poll(left).await {
            Next::Event(event) => {
                assert_eq!(event.name, "asset.changed", "only the asset's changes: {event:?}, after {heard:?}");
                let done = event.data["analysisState"] == last;
                heard.push(event.data);
                if done {
                    return heard;
                }
            }
            other => panic!("the analysis never reached {last}: {other:?} after {heard:?}"),
        }
    }
}

/// A server that analyses with a models folder that is empty, so each analysis fails at once.
async fn analysing_without_models(folder: &tempfile::TempDir) -> TestApp {
    let models = folder.path().to_owned();
    spawn_app_with(move |config| {
        config.analysis.workers = 1;
        config.analysis.models_dir = Some(models);
    })
    .await
}

#[tokio::test]
async fn each_change_of_an_analysis_reaches_those_who_read_the_asset() {
    // Arrange: ann proposes her own asset in her space; bob is a member, dan a stranger.
    let models = tempfile::tempdir().unwrap();
    let app = analysing_without_models(&models).await;
    let (space_id, ann, bob, _, dan) = space_of_four(&app).await;
    let asset_id = announced(&app, &ann.token, &space_id, "rose.png").await;
    upload_asset(&app, &ann.token, &space_id, &asset_id, png_part("rose.png", 500)).await.expect(StatusCode::CREATED);
    let mut anns = Live::open(&app, &ann).await;
    let mut bobs = Live::open(&app, &bob).await;
    let mut dans = Live::open(&app, &dan).await;
    // Act
    decide(&app, &ann.token, &space_id, &asset_id, "APPROVED").await.expect(StatusCode::OK);
    // Assert: QUEUED with the approval, then RUNNING, ending FAILED (no models); each with the asset's state.
    for stream in [&mut anns, &mut bobs] {
        let heard = analysis_until(stream, "FAILED", Duration::from_secs(60)).await;
        let states: Vec<&str> = heard.iter().map(|d| d["analysisState"].as_str().unwrap_or("null")).collect();
        assert_eq!(heard[0], changed(&space_id, &asset_id, "APPROVED", json!("QUEUED")), "{heard:?}");
        assert!(states.contains(&"RUNNING"), "the analysis was heard starting: {states:?}");
        assert!(states.iter().all(|s| ["QUEUED", "RUNNING", "FAILED"].contains(s)), "{states:?}");
        for data in &heard {
            assert_eq!(
                (&data["spaceId"], &data["assetId"], &data["state"]),
                (&json!(space_id), &json!(asset_id), &json!("APPROVED"))
            );
        }
    }
    probe(&app, &mut dans, &ann, &dan).await;
}

#[tokio::test]
async fn an_analysis_queued_again_is_heard_queued_then_running_then_ended() {
    // Arrange: the first analysis of ann's asset has failed (no models); bob is a member.
    let models = tempfile::tempdir().unwrap();
    let app = analysing_without_models(&models).await;
    let (space_id, ann, bob, ..) = space_of_four(&app).await;
    let mut anns = Live::open(&app, &ann).await;
    let mut bobs = Live::open(&app, &bob).await;
    let asset_id = announced(&app, &ann.token, &space_id, "rose.png").await;
    upload_asset(&app, &ann.token, &space_id, &asset_id, png_part("rose.png", 500)).await.expect(StatusCode::CREATED);
    decide(&app, &ann.token, &space_id, &asset_id, "APPROVED").await.expect(StatusCode::OK);
    for stream in [&mut anns, &mut bobs] {
        analysis_until(stream, "FAILED", Duration::from_secs(60)).await;
    }
    // Act: the owner queues it again
    let path = format!("/v0/spaces/{space_id}/assets/{asset_id}/analysis");
    let queued = app.authed(reqwest::Method::POST, &path, &ann.token).send().await.unwrap();
    assert_eq!(queued.status(), StatusCode::ACCEPTED);
    // Assert: its readers hear it QUEUED first, then its new run to its end
    for stream in [&mut anns, &mut bobs] {
        let heard = analysis_until(stream, "FAILED", Duration::from_secs(60)).await;
        assert_eq!(heard[0], changed(&space_id, &asset_id, "APPROVED", json!("QUEUED")), "{heard:?}");
        assert!(heard.iter().any(|d| d["analysisState"] == "RUNNING"), "{heard:?}");
    }
}
