//! What bounds an upload: it expires `media.upload_expiry_seconds` after its last byte arrived (410
//! UPLOAD_EXPIRED; a finished one can no longer be attached), and a user holds at most
//! `media.max_open_uploads_per_user` unused uploads (finished or not) whose lengths add up to at
//! most `media.max_open_upload_bytes_per_user` (429 RATE_LIMITED with `Retry-After`); terminating
//! an upload frees its room, finishing it does not (a finished upload holds its bytes until it is
//! used, ended or expired). The sweeper removes what expired: files, S3 parts and kept tails. The
//! settings are set small here.

use std::time::Duration;

use reqwest::StatusCode;
use time::OffsetDateTime;
use trellis_tests::{TestApp, spawn_app_with};

use super::{
    MIB, assert_expires_in, assert_head_refused, assert_store_holds, attach, attached, create, created, finish,
    finished, head, http_date, named, offset_now, parse_http_date, patch, patched, terminate, tus_error,
};
use crate::support::forms::{expected, problems};
use crate::support::media::{Reply, media_form, noise, on_both_backends, store_contents, text};

#[tokio::test]
async fn an_upload_past_its_expiry_is_410_and_cannot_be_attached() {
    // Arrange: uploads expire 2 s after their last byte.
    let app = spawn_app_with(|config| config.media.upload_expiry_seconds = 2).await;
    let ann = app.sign_up("ann").await;
    let form = media_form(&app, &ann.token).await;
    let bytes = text(1_000);
    let reply = create(&app, &ann.token, bytes.len(), Some(&named("open.txt", "text/plain"))).await;
    assert_expires_in(&reply, 2, 2);
    let open = super::assert_created(&reply, bytes.len(), 0);
    patched(&app, &ann.token, &open, 0, bytes[..300].to_vec()).await;
    let done = finished(&app, &ann.token, "done.txt", "text/plain", &bytes).await;
    // Act: wait until both are past Upload-Expires
    let expires = http_date(&head(&app, &ann.token, &done).await.header("upload-expires").unwrap());
    let left = expires - OffsetDateTime::now_utc();
    tokio::time::sleep(Duration::from_millis(left.whole_milliseconds().max(0) as u64 + 1_500)).await;
    let heading = head(&app, &ann.token, &open).await;
    let patching = patch(&app, &ann.token, &open, 300, bytes[300..].to_vec()).await;
    let heading_done = head(&app, &ann.token, &done).await;
    let attaching = attach(&app, &ann.token, &form.form_id, &[&form.docs], &[&done]).await;
    // Assert
    assert_head_refused(&heading, StatusCode::GONE);
    assert_head_refused(&heading_done, StatusCode::GONE);
    tus_error(&patching, StatusCode::GONE, "UPLOAD_EXPIRED");
    let error = attaching.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
    assert_eq!(problems(&error), expected(&[("/uploadIds/0", "UNKNOWN_UPLOAD")]));
    app.stop().await;
}

#[tokio::test]
async fn each_patch_pushes_the_expiry_back() {
    // Arrange: uploads expire 5 s after their last byte; this one takes about 6 s in all, a PATCH
    // every 1.2 s (each well inside the expiry, so a slow machine cannot make one late).
    let app = spawn_app_with(|config| config.media.upload_expiry_seconds = 5).await;
    let ann = app.sign_up("ann").await;
    let bytes = text(5_000);
    let upload_id = created(&app, &ann.token, bytes.len(), Some(&named("slow.txt", "text/plain"))).await;
    let mut offset = 0;
    let mut last_expiry = http_date(&head(&app, &ann.token, &upload_id).await.header("upload-expires").unwrap());
    for piece in bytes.chunks(1_000) {
        // Act: a PATCH every 1.2 s
        tokio::time::sleep(Duration::from_millis(1_200)).await;
        let reply = patch(&app, &ann.token, &upload_id, offset, piece.to_vec()).await;
        // Assert
        assert_eq!(reply.status, StatusCode::NO_CONTENT, "{}", String::from_utf8_lossy(&reply.bytes));
        let expiry = http_date(&reply.header("upload-expires").expect("Upload-Expires"));
        assert!(expiry > last_expiry, "Upload-Expires moved from {last_expiry} to {expiry}");
        assert_expires_in(&reply, 5, 2);
        (offset, last_expiry) = (offset + piece.len() as u64, expiry);
    }
    // Assert: the upload outlived its first expiry and is whole.
    let form = media_form(&app, &ann.token).await;
    let attachments = attached(&app, &ann.token, &form.form_id, &[&form.docs], &[&upload_id]).await;
    assert_eq!(attachments[0]["bytes"], 5_000);
    app.stop().await;
}

/// Asserts 429 RATE_LIMITED with a `Retry-After` (seconds or an HTTP-date).
fn assert_rate_limited(reply: &Reply) {
    tus_error(reply, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED");
    let retry_after = reply.header("retry-after").expect("a 429 carries Retry-After");
    let seconds = retry_after.parse::<u64>().ok();
    assert!(seconds.is_some_and(|s| s >= 1) || parse_http_date(&retry_after).is_some(), "Retry-After: {retry_after}");
}

/// Uploads expire 2 s after their last byte; the sweeper runs every second.
fn expiring_and_sweeping(config: &mut trellis::config::Config) {
    config.media.upload_expiry_seconds = 2;
    config.media.sweep_interval_seconds = 1;
}

async fn the_sweeper_removes_the_bytes_of_expired_uploads(app: &TestApp) {
    // Arrange: an upload holding a whole S3 part and a kept tail, and a finished one never used.
    let ann = app.sign_up("ann").await;
    let open = created(app, &ann.token, 10 * MIB, Some(&named("open.bin", "application/octet-stream"))).await;
    let offset = patched(app, &ann.token, &open, 0, noise(6 * MIB, 1)).await;
    patched(app, &ann.token, &open, offset, noise(MIB, 2)).await;
    finished(app, &ann.token, "done.bin", "application/octet-stream", &noise(70_000, 3)).await;
    assert_store_holds_some(app).await;
    // Act: nothing arrives any more.
    tokio::time::sleep(Duration::from_secs(3)).await;
    // Assert: no object, part, tail or file of either is left.
    assert_store_holds(app, 0).await;
    assert_head_refused(&head(app, &ann.token, &open).await, StatusCode::NOT_FOUND);
}
on_both_backends!(the_sweeper_removes_the_bytes_of_expired_uploads, expiring_and_sweeping);

/// The store holds something of the uploads before they expire (else the sweep proves nothing).
async fn assert_store_holds_some(app: &TestApp) {
    let held = store_contents(app).await;
    let files = std::fs::read_dir(app.data_dir.join("media").join("uploading")).map(|d| d.count()).unwrap_or(0);
    assert!(!held.objects.is_empty() || !held.unfinished.is_empty() || files > 0, "nothing of the uploads is stored");
}

#[tokio::test]
async fn a_user_holds_at_most_max_open_uploads_and_terminating_frees_room() {
    // Arrange: two unused uploads per user.
    let app = spawn_app_with(|config| config.media.max_open_uploads_per_user = 2).await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let bytes = text(10);
    let first = created(&app, &ann.token, 10, None).await;
    let second = created(&app, &ann.token, 10, None).await;
    // Act + Assert: a third is refused; bob is not ann.
    assert_rate_limited(&create(&app, &ann.token, 10, None).await);
    created(&app, &bob.token, 10, None).await;
    // Act + Assert: the second is terminated, so there is room for one more.
    assert_eq!(terminate(&app, &ann.token, &second).await.status, StatusCode::NO_CONTENT);
    let third = created(&app, &ann.token, 10, None).await;
    assert_rate_limited(&create(&app, &ann.token, 10, None).await);
    // Act + Assert: the first finishes, and still holds its room until it is used or ended.
    finish(&app, &ann.token, &first, &bytes, 0, 10).await;
    assert_rate_limited(&create(&app, &ann.token, 10, None).await);
    // The finished upload is still there and usable; the open one too.
    assert_eq!(offset_now(&app, &ann.token, &first).await, 10);
    assert_eq!(offset_now(&app, &ann.token, &third).await, 0);
    app.stop().await;
}

#[tokio::test]
async fn open_uploads_of_a_user_add_up_to_at_most_max_open_upload_bytes() {
    // Arrange: 1,000 bytes of unfinished uploads per user.
    let app = spawn_app_with(|config| config.media.max_open_upload_bytes_per_user = 1_000).await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let bytes = text(1_000);
    // Act + Assert
    let big = created(&app, &ann.token, 600, None).await;
    assert_rate_limited(&create(&app, &ann.token, 401, None).await);
    let small = created(&app, &ann.token, 400, None).await;
    assert_rate_limited(&create(&app, &ann.token, 1, None).await);
    created(&app, &bob.token, 1_000, None).await;
    // Act + Assert: a terminated upload counts no more.
    assert_eq!(terminate(&app, &ann.token, &big).await.status, StatusCode::NO_CONTENT);
    let again = created(&app, &ann.token, 600, None).await;
    assert_rate_limited(&create(&app, &ann.token, 1, None).await);
    // Act + Assert: a finished one still does, until it is used or ended.
    finish(&app, &ann.token, &small, &bytes[..400], 0, 400).await;
    assert_rate_limited(&create(&app, &ann.token, 1, None).await);
    assert_eq!(offset_now(&app, &ann.token, &again).await, 0);
    app.stop().await;
}
