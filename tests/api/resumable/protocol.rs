//! The protocol as a client walks it: OPTIONS, creation, HEAD, PATCH in chunks, creation-with-upload,
//! termination and a PATCH cut off mid-way; the bytes read back after attaching are the bytes sent.
//! Whatever moves bytes runs on the local and the S3 backend, in chunks that are not multiples of
//! S3's 5 MiB part size (S3 keeps parts of at least 5 MiB, so the server must carry the rest over).

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use trellis_tests::{TestApp, spawn_app};

use super::{
    MIB, OCTETS, TUS_VERSION, UPLOADS, assert_created, assert_expires_in, assert_head_refused, assert_store_holds,
    assert_tus_resumable, attach, attached, created, finish, head, http_date, named, offset_now, offset_of, patch,
    patched, terminate, tus, tus_error, upload_path,
};
use crate::support::forms::{expected, problems};
use crate::support::media::{Reply, descriptor, download, media_form, noise, on_both_backends, send};

/// Attaches `upload_id` to the form's `big` field and asserts the descriptor and that the download is
/// `bytes`.
async fn assert_reads_back(app: &TestApp, token: &str, upload_id: &str, name: &str, bytes: &[u8]) {
    let form = media_form(app, token).await;
    let attachments = attached(app, token, &form.form_id, &[&form.big], &[upload_id]).await;
    assert_eq!(attachments.len(), 1);
    let mut shown = attachments[0].clone();
    shown.as_object_mut().unwrap().remove("partKey");
    assert_eq!(shown, descriptor(&form.big, "application/octet-stream", bytes.len(), name));
    let part_key = attachments[0]["partKey"].as_str().unwrap();
    let got = download(app, token, &form.form_id, part_key, &[]).await;
    assert_eq!(got.status, StatusCode::OK);
    assert_eq!(got.bytes.len(), bytes.len(), "the downloaded length");
    assert!(got.bytes == bytes, "the downloaded bytes are the bytes sent");
    // A used upload is gone.
    assert_head_refused(&head(app, token, upload_id).await, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn options_announces_the_version_extensions_and_size_without_a_session() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act: with credentials, and with the license key alone (no session, no Tus-Resumable); like
    // every route of the deployment, OPTIONS needs the license key (docs/contract.md).
    let signed_in = send(&app, tus(&app, Method::OPTIONS, UPLOADS, &ann.token), false).await;
    let bare = send(
        &app,
        app.client.request(Method::OPTIONS, app.url(UPLOADS)).header("X-License-Key", &app.license_key),
        false,
    )
    .await;
    // Assert
    for reply in [signed_in, bare] {
        assert_eq!(reply.status, StatusCode::NO_CONTENT, "{}", String::from_utf8_lossy(&reply.bytes));
        assert!(reply.bytes.is_empty());
        assert_tus_resumable(&reply);
        assert_eq!(reply.header("tus-version").as_deref(), Some(TUS_VERSION));
        let extensions = reply.header("tus-extension").expect("Tus-Extension");
        let mut extensions: Vec<&str> = extensions.split(',').map(str::trim).collect();
        extensions.sort();
        assert_eq!(extensions, ["creation", "creation-with-upload", "expiration", "termination"]);
        assert_eq!(reply.header("tus-max-size"), Some(app.config.media.max_file_bytes.to_string()));
    }
    app.stop().await;
}

#[tokio::test]
async fn creation_answers_where_the_upload_is_and_head_tells_what_it_holds() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let metadata = named("report.pdf", "application/pdf");
    // Act
    let reply = super::create(&app, &ann.token, 5_000, Some(&metadata)).await;
    // Assert
    let upload_id = assert_created(&reply, 5_000, 0);
    assert_expires_in(&reply, 86_400, 60);
    // Act
    let state = head(&app, &ann.token, &upload_id).await;
    // Assert
    assert_eq!(state.status, StatusCode::OK);
    assert!(state.bytes.is_empty(), "a HEAD answer has no body");
    assert_eq!(state.header("upload-offset").as_deref(), Some("0"));
    assert_eq!(state.header("upload-length").as_deref(), Some("5000"));
    assert_eq!(state.header("upload-metadata"), Some(metadata), "Upload-Metadata as sent");
    assert_eq!(state.header("cache-control").as_deref(), Some("no-store"));
    assert_tus_resumable(&state);
    assert_eq!(state.header("upload-expires"), reply.header("upload-expires"));
    http_date(&state.header("upload-expires").unwrap());

    // Act: a first PATCH
    let sent = noise(1_234, 1);
    let after = patch(&app, &ann.token, &upload_id, 0, sent).await;
    // Assert
    assert_eq!(after.status, StatusCode::NO_CONTENT);
    assert!(after.bytes.is_empty());
    assert_eq!(offset_of(&after), 1_234);
    assert_tus_resumable(&after);
    assert_expires_in(&after, 86_400, 60);
    assert_eq!(offset_now(&app, &ann.token, &upload_id).await, 1_234);
    app.stop().await;
}

// ---------------------------------------------------------------------------------------------
// Bytes in chunks

async fn a_twelve_mib_file_in_three_mib_patches_reads_back_whole(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let bytes = noise(12 * MIB, 3);
    let upload_id = created(app, &ann.token, bytes.len(), Some(&named("twelve.bin", "application/octet-stream"))).await;
    // Act + Assert: HEAD tells each PATCH's offset
    let mut offset = 0;
    for piece in bytes.chunks(3 * MIB) {
        offset = patched(app, &ann.token, &upload_id, offset, piece.to_vec()).await;
        assert_eq!(offset_now(app, &ann.token, &upload_id).await, offset);
    }
    assert_eq!(offset, 12 * MIB as u64);
    assert_reads_back(app, &ann.token, &upload_id, "twelve.bin", &bytes).await;
    assert_store_holds(app, 1).await;
}
on_both_backends!(a_twelve_mib_file_in_three_mib_patches_reads_back_whole);

async fn an_eleven_mib_patch_and_a_small_one_read_back_whole(app: &TestApp) {
    // Arrange: 11 MiB is two S3 parts and a 1 MiB rest; the last PATCH is far below a part.
    let ann = app.sign_up("ann").await;
    let bytes = noise(11 * MIB + 123_457, 5);
    let upload_id = created(app, &ann.token, bytes.len(), Some(&named("eleven.bin", "application/octet-stream"))).await;
    // Act
    let offset = patched(app, &ann.token, &upload_id, 0, bytes[..11 * MIB].to_vec()).await;
    let middle = offset_now(app, &ann.token, &upload_id).await;
    let last = patched(app, &ann.token, &upload_id, offset, bytes[11 * MIB..].to_vec()).await;
    // Assert
    assert_eq!(middle, 11 * MIB as u64);
    assert_eq!(last, bytes.len() as u64);
    assert_eq!(offset_now(app, &ann.token, &upload_id).await, bytes.len() as u64);
    assert_reads_back(app, &ann.token, &upload_id, "eleven.bin", &bytes).await;
    assert_store_holds(app, 1).await;
}
on_both_backends!(an_eleven_mib_patch_and_a_small_one_read_back_whole);

async fn small_uneven_patches_read_back_whole(app: &TestApp) {
    // Arrange: pieces of 100,003 bytes, the last one shorter.
    let ann = app.sign_up("ann").await;
    let bytes = noise(1_000_000, 7);
    let upload_id = created(app, &ann.token, bytes.len(), Some(&named("small.bin", "application/octet-stream"))).await;
    // Act
    finish(app, &ann.token, &upload_id, &bytes, 0, 100_003).await;
    // Assert
    assert_reads_back(app, &ann.token, &upload_id, "small.bin", &bytes).await;
    assert_store_holds(app, 1).await;
}
on_both_backends!(small_uneven_patches_read_back_whole);

// ---------------------------------------------------------------------------------------------
// creation-with-upload

/// A creation carrying `first` as its first bytes.
async fn create_with(app: &TestApp, token: &str, length: usize, metadata: &str, first: &[u8]) -> Reply {
    let request = tus(app, Method::POST, UPLOADS, token)
        .header("Upload-Length", length.to_string())
        .header("Upload-Metadata", metadata)
        .header("Content-Type", OCTETS)
        .body(first.to_vec());
    send(app, request, false).await
}

async fn creation_with_upload_keeps_the_first_bytes(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let bytes = noise(7 * MIB + 11, 9);
    let first = &bytes[..MIB + 7];
    // Act
    let reply = create_with(app, &ann.token, bytes.len(), &named("first.bin", "application/octet-stream"), first).await;
    // Assert: Upload-Offset says how many bytes were kept, and HEAD agrees.
    let kept = offset_of(&reply);
    assert!(kept <= first.len() as u64, "kept {kept} of {} bytes", first.len());
    let upload_id = assert_created(&reply, bytes.len(), kept);
    assert_eq!(offset_now(app, &ann.token, &upload_id).await, kept);
    // Act: the rest in PATCHes
    finish(app, &ann.token, &upload_id, &bytes, kept, 3 * MIB).await;
    // Assert
    assert_reads_back(app, &ann.token, &upload_id, "first.bin", &bytes).await;
    assert_store_holds(app, 1).await;
}
on_both_backends!(creation_with_upload_keeps_the_first_bytes);

async fn a_whole_file_in_the_creation_is_finished_at_once(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let bytes = noise(40_000, 11);
    // Act
    let reply =
        create_with(app, &ann.token, bytes.len(), &named("whole.bin", "application/octet-stream"), &bytes).await;
    // Assert
    let kept = offset_of(&reply);
    let upload_id = assert_created(&reply, bytes.len(), kept);
    finish(app, &ann.token, &upload_id, &bytes, kept, 64 * 1024).await;
    assert_reads_back(app, &ann.token, &upload_id, "whole.bin", &bytes).await;
}
on_both_backends!(a_whole_file_in_the_creation_is_finished_at_once);

// ---------------------------------------------------------------------------------------------
// Termination

async fn a_terminated_upload_and_its_bytes_are_gone(app: &TestApp) {
    // Arrange: 6 MiB of 8 MiB arrived (on S3, a whole part and a rest).
    let ann = app.sign_up("ann").await;
    let bytes = noise(8 * MIB, 13);
    let upload_id = created(app, &ann.token, bytes.len(), Some(&named("gone.bin", "application/octet-stream"))).await;
    patched(app, &ann.token, &upload_id, 0, bytes[..6 * MIB].to_vec()).await;
    let form = media_form(app, &ann.token).await;
    // Act
    let deleted = terminate(app, &ann.token, &upload_id).await;
    // Assert
    assert_eq!(deleted.status, StatusCode::NO_CONTENT, "{}", String::from_utf8_lossy(&deleted.bytes));
    assert!(deleted.bytes.is_empty());
    assert_tus_resumable(&deleted);
    assert_head_refused(&head(app, &ann.token, &upload_id).await, StatusCode::NOT_FOUND);
    let again = patch(app, &ann.token, &upload_id, 6 * MIB as u64, bytes[6 * MIB..].to_vec()).await;
    tus_error(&again, StatusCode::NOT_FOUND, "NOT_FOUND");
    tus_error(&terminate(app, &ann.token, &upload_id).await, StatusCode::NOT_FOUND, "NOT_FOUND");
    let used = attach(app, &ann.token, &form.form_id, &[&form.big], &[&upload_id]).await;
    let error = used.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
    assert_eq!(problems(&error), expected(&[("/uploadIds/0", "UNKNOWN_UPLOAD")]));
    assert_store_holds(app, 0).await;
}
on_both_backends!(a_terminated_upload_and_its_bytes_are_gone);

async fn a_finished_upload_never_used_can_be_terminated(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let bytes = noise(6 * MIB + 5, 15);
    let upload_id = created(app, &ann.token, bytes.len(), Some(&named("done.bin", "application/octet-stream"))).await;
    finish(app, &ann.token, &upload_id, &bytes, 0, 4 * MIB).await;
    // Act
    let deleted = terminate(app, &ann.token, &upload_id).await;
    // Assert
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    assert_head_refused(&head(app, &ann.token, &upload_id).await, StatusCode::NOT_FOUND);
    assert_store_holds(app, 0).await;
}
on_both_backends!(a_finished_upload_never_used_can_be_terminated);

// ---------------------------------------------------------------------------------------------
// A PATCH cut off mid-way

async fn a_patch_cut_off_mid_way_resumes_from_the_offset_head_tells(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let bytes = noise(7 * MIB + 3, 17);
    let upload_id = created(app, &ann.token, bytes.len(), Some(&named("cut.bin", "application/octet-stream"))).await;
    // Act: 6 MiB + 5 of the 7 MiB arrive, then (after a pause, so all of them reach the server)
    // the client's body fails and the request is dropped.
    let arrived = bytes[..6 * MIB + 5].to_vec();
    let pieces: Vec<Result<Vec<u8>, std::io::Error>> = arrived.chunks(MIB).map(|piece| Ok(piece.to_vec())).collect();
    let failure = futures::stream::once(async {
        tokio::time::sleep(Duration::from_millis(500)).await;
        Err(std::io::Error::other("the connection dropped"))
    });
    let body = reqwest::Body::wrap_stream(futures::StreamExt::chain(futures::stream::iter(pieces), failure));
    let cut = tus(app, Method::PATCH, &upload_path(&upload_id), &ann.token)
        .header("Content-Type", OCTETS)
        .header("Upload-Offset", "0")
        .body(body)
        .send()
        .await;
    // Assert: the request failed on the client's side.
    assert!(cut.is_err() || cut.as_ref().is_ok_and(|r| !r.status().is_success()), "{cut:?}");
    // Act: ask where the upload is, and send the rest from there. The server may still be ending the
    // cut-off PATCH for a moment, so a 409 is tried again.
    let deadline = Instant::now() + Duration::from_secs(10);
    let kept = loop {
        let kept = offset_now(app, &ann.token, &upload_id).await;
        assert!(kept <= arrived.len() as u64, "kept {kept} of the {} bytes that arrived", arrived.len());
        let reply = patch(app, &ann.token, &upload_id, kept, bytes[kept as usize..].to_vec()).await;
        if reply.status == StatusCode::NO_CONTENT {
            assert_eq!(offset_of(&reply), bytes.len() as u64);
            break kept;
        }
        tus_error(&reply, StatusCode::CONFLICT, "CONFLICT");
        assert!(Instant::now() < deadline, "the cut-off PATCH never ended");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    // Assert: every byte that arrived was kept (docs/contract.md, "Partial writes": on local files
    // all of them, on S3 a whole part and the tail), and the upload reads back whole.
    assert_eq!(kept, arrived.len() as u64, "the offset to resume from");
    assert_reads_back(app, &ann.token, &upload_id, "cut.bin", &bytes).await;
    assert_store_holds(app, 1).await;
}
on_both_backends!(a_patch_cut_off_mid_way_resumes_from_the_offset_head_tells);
