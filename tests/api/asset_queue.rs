//! The queue of a space's assets awaiting an upload or a decision (issue 28; conventions sections 4
//! and 12): no member can fill it, the owner may refuse an announcement before its upload, and an
//! announcement whose upload never came is rejected by the server.

use reqwest::StatusCode;
use serde_json::Value;
use trellis::config::Config;
use trellis_tests::{spawn_app, spawn_app_with};

use crate::support::assets::{
    announce, announced, asset_path, decide, png_metadata, png_part, proposed, read, space_of_four, upload_asset,
};
use crate::support::media::assert_stored_objects;

#[tokio::test]
async fn the_owner_rejects_an_announcement_before_its_upload_and_the_upload_is_then_refused() {
    // Arrange
    let app = spawn_app().await;
    let (space_id, ann, bob, ..) = space_of_four(&app).await;
    let asset_id = announced(&app, &bob.token, &space_id, "a.png").await;
    // Act
    let by_member = decide(&app, &bob.token, &space_id, &asset_id, "REJECTED").await;
    let rejected = decide(&app, &ann.token, &space_id, &asset_id, "REJECTED").await;
    let upload = upload_asset(&app, &bob.token, &space_id, &asset_id, png_part("a.png", 100)).await;
    // Assert
    by_member.error(StatusCode::FORBIDDEN, "FORBIDDEN");
    assert_eq!(rejected.expect(StatusCode::OK)["state"], "REJECTED");
    upload.error(StatusCode::CONFLICT, "CONFLICT");
    let kept = read(&app, &bob.token, &asset_path(&space_id, &asset_id)).await;
    assert_eq!((kept["state"].as_str(), &kept["bytes"]), (Some("REJECTED"), &Value::Null));
    assert_stored_objects(&app, 0).await;
}

#[tokio::test]
async fn a_proposer_holds_at_most_100_waiting_assets_and_never_blocks_the_owner() {
    // Arrange: bob fills his share of the queue, with announcements and one upload.
    let app = spawn_app().await;
    let (space_id, ann, bob, cat, _) = space_of_four(&app).await;
    let mut bobs = Vec::new();
    for i in 0..99 {
        bobs.push(announced(&app, &bob.token, &space_id, &format!("{i}.png")).await);
    }
    bobs.push(proposed(&app, &bob.token, &space_id, "last.png", 100).await);
    // Act
    let over = announce(&app, &bob.token, &space_id, &png_metadata("over.png")).await;
    let owners = announce(&app, &ann.token, &space_id, &png_metadata("owner.png")).await;
    let others = announce(&app, &cat.token, &space_id, &png_metadata("cat.png")).await;
    decide(&app, &ann.token, &space_id, &bobs[0], "REJECTED").await.expect(StatusCode::OK);
    decide(&app, &ann.token, &space_id, &bobs[99], "APPROVED").await.expect(StatusCode::OK);
    let freed = announce(&app, &bob.token, &space_id, &png_metadata("again.png")).await;
    let freed_too = announce(&app, &bob.token, &space_id, &png_metadata("again2.png")).await;
    let full_again = announce(&app, &bob.token, &space_id, &png_metadata("again3.png")).await;
    // Assert
    let error = over.error(StatusCode::CONFLICT, "CONFLICT");
    assert!(error["message"].as_str().unwrap().contains("100"), "{error}");
    owners.expect(StatusCode::CREATED);
    others.expect(StatusCode::CREATED);
    freed.expect(StatusCode::CREATED);
    freed_too.expect(StatusCode::CREATED);
    full_again.error(StatusCode::CONFLICT, "CONFLICT");
}

fn a_one_second_upload_window(sweep_interval_seconds: u64) -> impl FnOnce(&mut Config) {
    move |config: &mut Config| {
        config.media.asset_upload_window_seconds = 1;
        config.media.sweep_interval_seconds = sweep_interval_seconds;
    }
}

#[tokio::test]
async fn announcements_left_without_their_upload_stop_counting_once_the_window_passed() {
    // Arrange: the sweep does not come by in this test; the next announcement looks itself.
    let app = spawn_app_with(a_one_second_upload_window(3600)).await;
    let (space_id, _, bob, ..) = space_of_four(&app).await;
    let mut bobs = Vec::new();
    for i in 0..100 {
        bobs.push(announced(&app, &bob.token, &space_id, &format!("{i}.png")).await);
    }
    tokio::time::sleep(std::time::Duration::from_millis(1_100)).await;
    // Act
    let after = announce(&app, &bob.token, &space_id, &png_metadata("after.png")).await;
    let late_upload = upload_asset(&app, &bob.token, &space_id, &bobs[0], png_part("0.png", 100)).await;
    // Assert
    after.expect(StatusCode::CREATED);
    late_upload.error(StatusCode::CONFLICT, "CONFLICT");
    for asset_id in [&bobs[0], &bobs[99]] {
        assert_eq!(read(&app, &bob.token, &asset_path(&space_id, asset_id)).await["state"], "REJECTED");
    }
}

#[tokio::test]
async fn the_server_rejects_an_announcement_whose_upload_never_came() {
    // Arrange
    let app = spawn_app_with(a_one_second_upload_window(1)).await;
    let (space_id, ann, bob, ..) = space_of_four(&app).await;
    let asset_id = announced(&app, &bob.token, &space_id, "a.png").await;
    let path = asset_path(&space_id, &asset_id);
    // Act: wait for the sweep, generously bounded for a loaded machine.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while read(&app, &ann.token, &path).await["state"] == "AWAITING_UPLOAD" {
        assert!(std::time::Instant::now() < deadline, "the announcement was never rejected");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    // Assert
    assert_eq!(read(&app, &bob.token, &path).await["state"], "REJECTED");
}
