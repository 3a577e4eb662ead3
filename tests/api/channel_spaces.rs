//! Spaces read through channels: a member of a channel reads each space connected to it as a space
//! member reads (settings, connected modules, comments, published assets and their bytes) and
//! writes nothing there; the reading ends with the channel membership or the connection, and a
//! space that is not connected stays hidden.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis::config::Config;
use trellis_tests::{TestApp, TestUser, assert_error, body, spawn_app_with};

use crate::support::assets::{
    announce, asset_ids, download_asset, moved_through, png_metadata, png_part, proposed, upload_asset,
};
use crate::support::channels::{created_channel, join, put_spaces, remove};
use crate::support::modules::{connect, module_call};
use crate::support::spaces::{created_space, id};

/// Roles are read afresh on every request, so a membership that ends takes effect at once.
fn no_role_cache(config: &mut Config) {
    config.space_cache_seconds = 0;
}

/// `ann` owns the space `garden` (a comment, an enabled and a waiting asset, Tags connected) and a
/// channel it is connected to, which `cat` joined. Answers the space, channel and asset ids.
async fn garden_in_a_channel(app: &TestApp, ann: &TestUser, cat: &TestUser) -> (String, String, String, String) {
    let space_id = id(&created_space(app, ann, "garden").await);
    let comment = app
        .authed(Method::POST, &format!("/v0/spaces/{space_id}/comments"), &ann.token)
        .json(&json!({"body": "Roses first"}))
        .send()
        .await
        .unwrap();
    assert_eq!(comment.status(), StatusCode::CREATED);
    let enabled = proposed(app, &ann.token, &space_id, "rose.png", 300).await;
    moved_through(app, &ann.token, &space_id, &enabled, &["APPROVED", "ENABLED"]).await;
    let waiting = proposed(app, &ann.token, &space_id, "bud.png", 300).await;
    connect(app, ann, &space_id, json!([{"moduleId": "tags", "config": {}}])).await;
    let channel = crate::support::channels::id(&created_channel(app, ann, "friends").await);
    assert_eq!(put_spaces(app, &ann.token, &channel, &json!([space_id])).await.status(), StatusCode::OK);
    join(app, ann, &channel, cat).await;
    (space_id, channel, enabled, waiting)
}

async fn get(app: &TestApp, token: &str, path: &str) -> (StatusCode, Value) {
    let response = app.get_authed(path, token).await;
    (response.status(), body(response).await)
}

#[tokio::test]
async fn a_channel_member_reads_a_connected_space_and_writes_nothing() {
    // Arrange
    let app = spawn_app_with(no_role_cache).await;
    let ann = app.sign_up("ann").await;
    let cat = app.sign_up("cat").await;
    let (space_id, _, enabled, waiting) = garden_in_a_channel(&app, &ann, &cat).await;
    let space = format!("/v0/spaces/{space_id}");
    // Act + Assert: reading
    let (status, general) = get(&app, &cat.token, &format!("{space}/settings/general")).await;
    assert_eq!((status, general["role"].clone()), (StatusCode::OK, json!("reader")), "{general}");
    let (status, comments) = get(&app, &cat.token, &format!("{space}/comments")).await;
    assert_eq!((status, comments["items"][0]["body"].clone()), (StatusCode::OK, json!("Roses first")));
    let (status, assets) = get(&app, &cat.token, &format!("{space}/assets")).await;
    assert_eq!((status, asset_ids(&assets)), (StatusCode::OK, vec![enabled.clone()]), "only published assets");
    let (status, _) = get(&app, &cat.token, &format!("{space}/assets/{waiting}")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let download = download_asset(&app, &cat.token, &space_id, &enabled, "?part=base", &[]).await;
    assert_eq!((download.status, download.bytes.len()), (StatusCode::OK, 300));
    // Issue 28: a module's configuration is the space's administration, not its content.
    let (status, modules) = get(&app, &cat.token, &format!("{space}/modules")).await;
    assert_eq!((status, modules["error"]["code"].clone()), (StatusCode::FORBIDDEN, json!("FORBIDDEN")), "{modules}");
    let (status, spaces) = get(&app, &cat.token, "/v0/spaces").await;
    assert_eq!((status, spaces["items"].clone()), (StatusCode::OK, json!([])), "the list holds memberships only");

    // Act + Assert: writing is refused with 403 (the space is visible to a reader)
    let comment = app
        .authed(Method::POST, &format!("{space}/comments"), &cat.token)
        .json(&json!({"body": "may I?"}))
        .send()
        .await
        .unwrap();
    assert_error(comment, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    announce(&app, &cat.token, &space_id, &png_metadata("x.png")).await.error(StatusCode::FORBIDDEN, "FORBIDDEN");
    let decision = app
        .authed(Method::PATCH, &format!("{space}/assets"), &cat.token)
        .json(&json!({"assetId": waiting, "state": "APPROVED"}))
        .send()
        .await
        .unwrap();
    assert_error(decision, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    let rename = app
        .authed(Method::PATCH, &format!("{space}/settings/general"), &cat.token)
        .json(&json!({"displayName": "Mine"}))
        .send()
        .await
        .unwrap();
    assert_error(rename, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    let route = module_call(&app, &cat.token, Method::GET, &space_id, "/tags/counts").await;
    assert_error(route, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    let upload = upload_asset(&app, &cat.token, &space_id, &waiting, png_part("bud.png", 300)).await;
    upload.error(StatusCode::NOT_FOUND, "NOT_FOUND");
    let (_, comments) = get(&app, &ann.token, &format!("{space}/comments")).await;
    assert_eq!(comments["items"].as_array().unwrap().len(), 1, "nothing was written");
}

#[tokio::test]
async fn the_reading_ends_with_the_membership_or_the_connection() {
    // Arrange
    let app = spawn_app_with(no_role_cache).await;
    let ann = app.sign_up("ann").await;
    let cat = app.sign_up("cat").await;
    let dan = app.sign_up("dan").await;
    let (space_id, channel, _, _) = garden_in_a_channel(&app, &ann, &cat).await;
    join(&app, &ann, &channel, &dan).await;
    let other = id(&created_space(&app, &ann, "kitchen").await);
    let general = |space: &str| format!("/v0/spaces/{space}/settings/general");
    // Act + Assert
    assert_eq!(get(&app, &cat.token, &general(&other)).await.0, StatusCode::NOT_FOUND, "not connected");
    assert_eq!(get(&app, &dan.token, &general(&space_id)).await.0, StatusCode::OK);
    assert_eq!(remove(&app, &ann.token, &channel, &dan.user_id).await.status(), StatusCode::NO_CONTENT);
    let (status, _) = get(&app, &dan.token, &general(&space_id)).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "a removed member reads no more");
    assert_eq!(put_spaces(&app, &ann.token, &channel, &json!([other])).await.status(), StatusCode::OK);
    assert_eq!(get(&app, &cat.token, &general(&space_id)).await.0, StatusCode::NOT_FOUND, "disconnected");
    assert_eq!(get(&app, &cat.token, &general(&other)).await.0, StatusCode::OK, "newly connected");
}
