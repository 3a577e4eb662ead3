//! The daily quotas of published assets: announcements count against theirs (a refused one costs
//! nothing), and uploaded bytes against the upload-bytes quota that attachments count against too.

use reqwest::StatusCode;
use serde_json::json;
use trellis::config::Config;
use trellis_tests::spawn_app_with;

use crate::support::assets::{
    announce, announced, asset_ids, asset_path, assets_path, png_metadata, png_part, read, space_of_four, upload_asset,
};
use crate::support::media::assert_stored_objects;

fn two_assets_a_day(config: &mut Config) {
    config.plans.insert("default".into(), [("spaces.publishedAssets.perDay".to_owned(), 2)].into_iter().collect());
}

#[tokio::test]
async fn announcements_count_against_the_daily_quota_and_refusals_cost_nothing() {
    // Arrange
    let app = spawn_app_with(two_assets_a_day).await;
    let (space_id, ann, bob, ..) = space_of_four(&app).await;
    // Act
    let refused = announce(&app, &ann.token, &space_id, &json!({"title": ""})).await;
    announced(&app, &ann.token, &space_id, "a.png").await;
    announced(&app, &bob.token, &space_id, "b.png").await;
    let third = announce(&app, &bob.token, &space_id, &png_metadata("c.png")).await;
    // Assert
    refused.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
    let error = third.error(StatusCode::FORBIDDEN, "ENTITLEMENT_LIMIT_EXCEEDED");
    assert_eq!(error["details"][0]["path"], "spaces.publishedAssets.perDay");
    assert_eq!(asset_ids(&read(&app, &ann.token, &assets_path(&space_id)).await).len(), 2);
}

/// Issue 28: an asset's bytes count in the daily upload-bytes quota, as an attachment's do; a
/// refused upload stores nothing and leaves the announcement waiting for its bytes.
#[tokio::test]
async fn asset_bytes_count_in_the_daily_upload_bytes_quota() {
    // Arrange
    let app = spawn_app_with(|config: &mut Config| {
        let quota = [("forms.attachments.uploadBytesPerDay".to_owned(), 1_000)];
        config.plans.insert("default".into(), quota.into_iter().collect());
    })
    .await;
    let (space_id, _, bob, ..) = space_of_four(&app).await;
    let first = announced(&app, &bob.token, &space_id, "a.png").await;
    let second = announced(&app, &bob.token, &space_id, "b.png").await;
    // Act
    let within = upload_asset(&app, &bob.token, &space_id, &first, png_part("a.png", 600)).await;
    let beyond = upload_asset(&app, &bob.token, &space_id, &second, png_part("b.png", 600)).await;
    // Assert
    assert_eq!(within.expect(StatusCode::CREATED)["bytes"], 600);
    let error = beyond.error(StatusCode::FORBIDDEN, "ENTITLEMENT_LIMIT_EXCEEDED");
    assert_eq!(error["details"][0]["path"], "forms.attachments.uploadBytesPerDay");
    assert_eq!(read(&app, &bob.token, &asset_path(&space_id, &second)).await["state"], "AWAITING_UPLOAD");
    assert_stored_objects(&app, 1).await;
}
