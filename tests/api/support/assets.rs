//! Announcing, uploading, deciding on and reading published assets of a space for the asset tests.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{TestApp, TestUser, body};

use crate::support::media::{Reply, Upload, multipart, png, send};
use crate::support::spaces::{add_member, created_space, id};

/// `ann` owns a space where `bob` and `cat` are members; `dan` is a stranger.
pub async fn space_of_four(app: &TestApp) -> (String, TestUser, TestUser, TestUser, TestUser) {
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let dan = app.sign_up("dan").await;
    let space_id = id(&created_space(app, &ann, "gallery").await);
    add_member(app, &space_id, &bob).await;
    add_member(app, &space_id, &cat).await;
    (space_id, ann, bob, cat, dan)
}

pub fn assets_path(space_id: &str) -> String {
    format!("/v0/spaces/{space_id}/assets")
}

pub fn asset_path(space_id: &str, asset_id: &str) -> String {
    format!("/v0/spaces/{space_id}/assets/{asset_id}")
}

/// `POST /v0/spaces/{spaceId}/assets` with `metadata`.
pub async fn announce(app: &TestApp, token: &str, space_id: &str, metadata: &Value) -> Reply {
    let request = app.authed(Method::POST, &format!("/v0/spaces/{space_id}/assets"), token).json(metadata);
    send(app, request, false).await
}

/// The metadata of a PNG named `name`.
pub fn png_metadata(name: &str) -> Value {
    json!({"title": format!("Picture {name}"), "filename": name, "contentType": "image/png"})
}

/// Announces a PNG named `name` and answers its id, asserting 201.
pub async fn announced(app: &TestApp, token: &str, space_id: &str, name: &str) -> String {
    let created = announce(app, token, space_id, &png_metadata(name)).await.expect(StatusCode::CREATED);
    created["newPublishedAssetId"].as_str().expect("a newPublishedAssetId").to_owned()
}

pub fn media_path(space_id: &str, asset_id: &str) -> String {
    format!("/v0/media/spaces/{space_id}/assets/{asset_id}")
}

/// `POST /v0/media/spaces/{spaceId}/assets/{assetId}` with `parts`.
pub async fn upload_asset(app: &TestApp, token: &str, space_id: &str, asset_id: &str, parts: Vec<Upload>) -> Reply {
    let request = app.authed(Method::POST, &media_path(space_id, asset_id), token).multipart(multipart(parts));
    send(app, request, false).await
}

/// One `file` part holding a PNG of `len` bytes named `name`.
pub fn png_part(name: &str, len: usize) -> Vec<Upload> {
    vec![file_part(name, "image/png", png(len))]
}

/// A part named `file`.
pub fn file_part(name: &str, mime: &str, bytes: Vec<u8>) -> Upload {
    Upload::Named { part: "file".into(), filename: name.to_owned(), mime: Some(mime.to_owned()), bytes }
}

/// Announces and uploads a PNG of `len` bytes: the asset now awaits approval.
pub async fn proposed(app: &TestApp, token: &str, space_id: &str, name: &str, len: usize) -> String {
    let asset_id = announced(app, token, space_id, name).await;
    upload_asset(app, token, space_id, &asset_id, png_part(name, len)).await.expect(StatusCode::CREATED);
    asset_id
}

/// `GET /v0/media/spaces/{spaceId}/assets/{assetId}` (with `query`, e.g. `?part=base`) and `headers`.
pub async fn download_asset(
    app: &TestApp,
    token: &str,
    space_id: &str,
    asset_id: &str,
    query: &str,
    headers: &[(&str, &str)],
) -> Reply {
    let mut request = app.authed(Method::GET, &format!("{}{query}", media_path(space_id, asset_id)), token);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    send(app, request, true).await
}

/// `PATCH /v0/spaces/{spaceId}/assets` with `{assetId, state}`.
pub async fn decide(app: &TestApp, token: &str, space_id: &str, asset_id: &str, state: &str) -> Reply {
    let request = app
        .authed(Method::PATCH, &format!("/v0/spaces/{space_id}/assets"), token)
        .json(&json!({"assetId": asset_id, "state": state}));
    send(app, request, false).await
}

/// Moves an asset through `states` in order, asserting each move succeeds.
pub async fn moved_through(app: &TestApp, token: &str, space_id: &str, asset_id: &str, states: &[&str]) {
    for state in states {
        let view = decide(app, token, space_id, asset_id, state).await.expect(StatusCode::OK);
        assert_eq!(view["state"], *state, "{view}");
    }
}

/// `GET` of `path` as `token`, answering the JSON body and asserting 200.
pub async fn read(app: &TestApp, token: &str, path: &str) -> Value {
    let response = app.get_authed(path, token).await;
    let status = response.status();
    let value = body(response).await;
    assert_eq!(status, StatusCode::OK, "{path}: {value}");
    value
}

/// The asset ids of a list page, in order.
pub fn asset_ids(page: &Value) -> Vec<String> {
    page["items"].as_array().expect("items").iter().map(|a| a["assetId"].as_str().unwrap().to_owned()).collect()
}
