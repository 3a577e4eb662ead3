//! A finished upload as an announced asset's bytes (`POST /v0/media/spaces/{spaceId}/assets/{assetId}`
//! with `{uploadId}`): the answer is the multipart upload's, the rules are its rules, and problems
//! are reported at `/uploadId`.

use reqwest::StatusCode;
use serde_json::json;
use trellis::config::Config;
use trellis_tests::{TestApp, detail_paths, spawn_app};

use super::{
    assert_head_refused, assert_store_holds, attach_asset, created, finished, finished_in, head, named, patched,
};
use crate::support::assets::{announced, asset_path, download_asset, media_path, moved_through, read, space_of_four};
use crate::support::forms::{expected, problems};
use crate::support::media::{on_both_backends, png, send, text};

async fn an_announced_asset_takes_a_finished_upload(app: &TestApp) {
    // Arrange
    let (space_id, ann, bob, cat, _) = space_of_four(app).await;
    let asset_id = announced(app, &bob.token, &space_id, "rose.png").await;
    let bytes = png(6 * 1024 * 1024 + 20_000);
    let upload_id = finished_in(app, &bob.token, &named("rose.png", "image/png"), &bytes, 5 * 1024 * 1024 + 7).await;
    // Act
    let stored = attach_asset(app, &bob.token, &space_id, &asset_id, &upload_id).await;
    // Assert
    assert_eq!(
        stored.expect(StatusCode::CREATED),
        json!({"assetId": asset_id, "contentType": "image/png", "bytes": bytes.len(), "filename": "rose.png"})
    );
    let waiting = read(app, &bob.token, &asset_path(&space_id, &asset_id)).await;
    assert_eq!((waiting["state"].clone(), waiting["bytes"].clone()), (json!("AWAITING_APPROVAL"), json!(bytes.len())));
    assert_head_refused(&head(app, &bob.token, &upload_id).await, StatusCode::NOT_FOUND);
    // Act: the owner approves and a member downloads
    moved_through(app, &ann.token, &space_id, &asset_id, &["APPROVED"]).await;
    let download = download_asset(app, &cat.token, &space_id, &asset_id, "?part=base", &[]).await;
    // Assert
    assert_eq!(download.status, StatusCode::OK);
    assert!(download.bytes == bytes, "the downloaded bytes are the bytes sent");
    assert_eq!(download.header("content-type").as_deref(), Some("image/png"));
    assert_store_holds(app, 1).await;
}
on_both_backends!(an_announced_asset_takes_a_finished_upload);

#[tokio::test]
async fn asset_upload_problems_are_reported_at_upload_id() {
    // Arrange
    let app = spawn_app().await;
    let (space_id, ann, bob, cat, _) = space_of_four(&app).await;
    let asset_id = announced(&app, &bob.token, &space_id, "rose.png").await;
    let bytes = png(2_000);
    let unfinished = created(&app, &bob.token, bytes.len(), Some(&named("rose.png", "image/png"))).await;
    patched(&app, &bob.token, &unfinished, 0, bytes[..1_000].to_vec()).await;
    let cats = finished(&app, &cat.token, "rose.png", "image/png", &bytes).await;
    let text_as_png = finished(&app, &bob.token, "rose.png", "image/png", &text(300)).await;
    let anns = finished(&app, &ann.token, "rose.png", "image/png", &bytes).await;
    // Act
    let unknown = attach_asset(&app, &bob.token, &space_id, &asset_id, &uuid::Uuid::new_v4().to_string()).await;
    let half = attach_asset(&app, &bob.token, &space_id, &asset_id, &unfinished).await;
    let foreign = attach_asset(&app, &bob.token, &space_id, &asset_id, &cats).await;
    let mismatch = attach_asset(&app, &bob.token, &space_id, &asset_id, &text_as_png).await;
    let by_owner = attach_asset(&app, &ann.token, &space_id, &asset_id, &anns).await;
    // Assert
    let mut unusable = Vec::new();
    for (case, reply) in [("unknown", unknown), ("unfinished", half), ("foreign", foreign)] {
        let error = reply.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
        let found = problems(&error);
        assert!(found.contains(&("/uploadId".to_owned(), "UNKNOWN_UPLOAD".to_owned())), "{case}: {error}");
        unusable.push((case, found, error));
    }
    let error = mismatch.error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE");
    assert_eq!(detail_paths(&error), ["/uploadId"]);
    by_owner.error(StatusCode::FORBIDDEN, "FORBIDDEN");
    assert_eq!(read(&app, &bob.token, &asset_path(&space_id, &asset_id)).await["state"], "AWAITING_UPLOAD");
    for (token, upload_id) in [(&cat.token, &cats), (&bob.token, &text_as_png), (&ann.token, &anns)] {
        assert_eq!(head(&app, token, upload_id).await.status, StatusCode::OK, "a refusal uses no upload");
    }

    // Act: the unfinished one finishes and is used; then another upload for the same asset
    patched(&app, &bob.token, &unfinished, 1_000, bytes[1_000..].to_vec()).await;
    let stored = attach_asset(&app, &bob.token, &space_id, &asset_id, &unfinished).await;
    let second = finished(&app, &bob.token, "rose.png", "image/png", &png(2_001)).await;
    let again = attach_asset(&app, &bob.token, &space_id, &asset_id, &second).await;
    // Assert
    assert_eq!(stored.expect(StatusCode::CREATED)["bytes"], 2_000);
    again.error(StatusCode::CONFLICT, "CONFLICT");
    assert_eq!(head(&app, &bob.token, &second).await.status, StatusCode::OK);
    assert_eq!(read(&app, &bob.token, &asset_path(&space_id, &asset_id)).await["bytes"], 2_000);
    // Assert: an unusable upload is that one problem, nothing more.
    for (case, found, error) in unusable {
        assert_eq!(found, expected(&[("/uploadId", "UNKNOWN_UPLOAD")]), "{case}: {error}");
    }
    app.stop().await;
}

fn small_assets(config: &mut Config) {
    config.media.max_asset_bytes = 10_000;
}

async fn an_upload_over_the_asset_size_cap_is_413_at_upload_id(app: &TestApp) {
    // Arrange
    let (space_id, _, bob, _, _) = space_of_four(app).await;
    let asset_id = announced(app, &bob.token, &space_id, "big.png").await;
    let big = finished(app, &bob.token, "big.png", "image/png", &png(10_001)).await;
    let fits = finished(app, &bob.token, "big.png", "image/png", &png(10_000)).await;
    // Act
    let over = attach_asset(app, &bob.token, &space_id, &asset_id, &big).await;
    let stored = attach_asset(app, &bob.token, &space_id, &asset_id, &fits).await;
    // Assert
    let error = over.error(StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");
    assert_eq!(detail_paths(&error), ["/uploadId"]);
    stored.expect(StatusCode::CREATED);
    assert_eq!(head(app, &bob.token, &big).await.status, StatusCode::OK);
    let deleted =
        send(app, super::tus(app, reqwest::Method::DELETE, &super::upload_path(&big), &bob.token), false).await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    assert_store_holds(app, 1).await;
}
on_both_backends!(an_upload_over_the_asset_size_cap_is_413_at_upload_id, small_assets);

#[tokio::test]
async fn an_asset_upload_body_names_exactly_one_upload() {
    // Arrange
    let app = spawn_app().await;
    let (space_id, _, bob, _, _) = space_of_four(&app).await;
    let asset_id = announced(&app, &bob.token, &space_id, "rose.png").await;
    let path = media_path(&space_id, &asset_id);
    // Act: no uploadId at all
    let empty = send(&app, app.authed(reqwest::Method::POST, &path, &bob.token).json(&json!({})), false).await;
    // Assert
    // (a missing member is reported at its object, as every JSON body of the service reports it)
    let error = empty.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
    assert_eq!(detail_paths(&error), [""], "{error}");
    assert!(error.to_string().contains("uploadId"), "{error}");
    app.stop().await;
}
