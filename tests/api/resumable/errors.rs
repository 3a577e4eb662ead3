//! Every refusal of the protocol: its status, code and problem path in the error envelope (which
//! also carries `Tus-Resumable: 1.0.0`), and that a refused request leaves the upload as it was.

use std::time::Duration;

use futures::SinkExt;
use reqwest::{Method, RequestBuilder, StatusCode};
use trellis_tests::{TestApp, detail_paths, spawn_app};

use super::{
    OCTETS, TUS_VERSION, UPLOADS, assert_head_refused, attach, attached, base64, create, created, finish, finished,
    head, metadata_of, named, offset_now, offset_of, patch, patched, terminate, tus, tus_error, upload_path,
};
use crate::support::forms::{expected, problems};
use crate::support::media::{download, media_form, noise, send, text};

/// A request with the license key and `token`'s session, and `Tus-Resumable: version` when given.
fn with_version(app: &TestApp, method: Method, path: &str, token: &str, version: Option<&str>) -> RequestBuilder {
    let request = app.authed(method, path, token);
    match version {
        Some(version) => request.header("Tus-Resumable", version),
        None => request,
    }
}

#[tokio::test]
async fn every_request_but_options_needs_tus_resumable_1_0_0() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let upload_id = created(&app, &ann.token, 100, None).await;
    let path = upload_path(&upload_id);
    for version in [None, Some("0.2.2"), Some("1.0"), Some("")] {
        // Act
        let creation = send(
            &app,
            with_version(&app, Method::POST, UPLOADS, &ann.token, version).header("Upload-Length", "10"),
            false,
        )
        .await;
        let patching = with_version(&app, Method::PATCH, &path, &ann.token, version)
            .header("Content-Type", OCTETS)
            .header("Upload-Offset", "0")
            .body(vec![b'x'; 10]);
        let patching = send(&app, patching, false).await;
        let deleting = send(&app, with_version(&app, Method::DELETE, &path, &ann.token, version), false).await;
        let heading = send(&app, with_version(&app, Method::HEAD, &path, &ann.token, version), false).await;
        // Assert
        for reply in [&creation, &patching, &deleting] {
            let error = tus_error(reply, StatusCode::PRECONDITION_FAILED, "PRECONDITION_FAILED");
            assert_eq!(detail_paths(&error), ["header.Tus-Resumable"], "Tus-Resumable {version:?}");
            assert_eq!(reply.header("tus-version").as_deref(), Some(TUS_VERSION), "Tus-Resumable {version:?}");
        }
        assert_head_refused(&heading, StatusCode::PRECONDITION_FAILED);
        assert_eq!(heading.header("tus-version").as_deref(), Some(TUS_VERSION));
    }
    // Nothing was written, nothing was deleted.
    assert_eq!(offset_now(&app, &ann.token, &upload_id).await, 0);
    app.stop().await;
}

#[tokio::test]
async fn upload_length_must_be_a_whole_number_from_one_to_max_file_bytes() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let max = app.config.media.max_file_bytes;
    let creation = |length: Option<String>| {
        let request = tus(&app, Method::POST, UPLOADS, &ann.token);
        match length {
            Some(length) => request.header("Upload-Length", length),
            None => request,
        }
    };
    for length in [None, Some("ten"), Some("-1"), Some("1.5"), Some(" "), Some("0")] {
        // Act
        let reply = send(&app, creation(length.map(str::to_owned)), false).await;
        // Assert
        let error = tus_error(&reply, StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
        assert_eq!(detail_paths(&error), ["header.Upload-Length"], "Upload-Length {length:?}");
    }
    // Act: a deferred length, and one past the deployment's largest file
    let deferred =
        send(&app, tus(&app, Method::POST, UPLOADS, &ann.token).header("Upload-Defer-Length", "1"), false).await;
    let too_large = send(&app, creation(Some((max + 1).to_string())), false).await;
    let largest = send(&app, creation(Some(max.to_string())), false).await;
    // Assert
    let error = tus_error(&deferred, StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
    assert!(detail_paths(&error).contains(&"header.Upload-Defer-Length".to_owned()), "{error}");
    let error = tus_error(&too_large, StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");
    assert_eq!(detail_paths(&error), ["header.Upload-Length"]);
    let upload_id = super::assert_created(&largest, max as usize, 0);
    assert_eq!(terminate(&app, &ann.token, &upload_id).await.status, StatusCode::NO_CONTENT);
    app.stop().await;
}

#[tokio::test]
async fn malformed_upload_metadata_is_refused() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let cases = [
        "filename !!!notbase64".to_owned(),
        "filename YS50eHQ".to_owned(),
        format!("filename {},filename {}", base64(b"a.txt"), base64(b"b.txt")),
        format!("filename {}", base64(&[b'a', 0xff, 0xfe, b'.', b't'])),
        format!("filename {},contentType {}", base64(b"a.txt"), base64(&[0xc3, 0x28])),
    ];
    for metadata in &cases {
        // Act
        let reply = create(&app, &ann.token, 100, Some(metadata)).await;
        // Assert
        let error = tus_error(&reply, StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
        assert_eq!(detail_paths(&error), ["header.Upload-Metadata"], "Upload-Metadata {metadata:?}");
    }
    app.stop().await;
}

/// Conventions section 8: a file name with a control, bidirectional or zero-width character could
/// show another extension than it has.
#[tokio::test]
async fn file_names_that_disguise_their_extension_are_refused() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    for name in ["invoice\u{202E}fdp.exe", "report\u{200B}.pdf", "a\u{2067}b.pdf", "bell\u{7}.txt", "two\nlines.txt"] {
        // Act
        let reply = create(&app, &ann.token, 100, Some(&named(name, "application/pdf"))).await;
        // Assert
        let error = tus_error(&reply, StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
        assert_eq!(detail_paths(&error), ["header.Upload-Metadata"], "filename {name:?}");
    }
    app.stop().await;
}

#[tokio::test]
async fn metadata_may_hold_unknown_keys_and_keys_without_a_value() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let with_flag =
        format!("{},relativePath,filetype {}", metadata_of(&[("filename", b"a.txt")]), base64(b"text/plain"));
    // Act + Assert
    for metadata in [metadata_of(&[("name", b"x"), ("filename", b"a.txt"), ("filetype", b"text/plain")]), with_flag] {
        let reply = create(&app, &ann.token, 10, Some(&metadata)).await;
        super::assert_created(&reply, 10, 0);
    }
    app.stop().await;
}

#[tokio::test]
async fn a_patch_needs_the_offset_content_type_and_a_numeric_offset() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let upload_id = created(&app, &ann.token, 100, None).await;
    let path = upload_path(&upload_id);
    let base = || tus(&app, Method::PATCH, &path, &ann.token).body(vec![b'x'; 10]);
    // Act
    let no_type = send(&app, base().header("Upload-Offset", "0"), false).await;
    let octets =
        send(&app, base().header("Upload-Offset", "0").header("Content-Type", "application/octet-stream"), false).await;
    let no_offset = send(&app, base().header("Content-Type", OCTETS), false).await;
    let words = send(&app, base().header("Content-Type", OCTETS).header("Upload-Offset", "zero"), false).await;
    let negative = send(&app, base().header("Content-Type", OCTETS).header("Upload-Offset", "-1"), false).await;
    // Assert
    for reply in [&no_type, &octets] {
        tus_error(reply, StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE");
    }
    for reply in [&no_offset, &words, &negative] {
        let error = tus_error(reply, StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
        assert_eq!(detail_paths(&error), ["header.Upload-Offset"]);
    }
    assert_eq!(offset_now(&app, &ann.token, &upload_id).await, 0);
    app.stop().await;
}

#[tokio::test]
async fn a_patch_at_another_offset_than_the_servers_is_409() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bytes = text(100);
    let upload_id = created(&app, &ann.token, bytes.len(), Some(&named("a.txt", "text/plain"))).await;
    // Act
    let ahead = patch(&app, &ann.token, &upload_id, 5, bytes[5..15].to_vec()).await;
    patched(&app, &ann.token, &upload_id, 0, bytes[..10].to_vec()).await;
    let again = patch(&app, &ann.token, &upload_id, 0, bytes[..10].to_vec()).await;
    let behind = patch(&app, &ann.token, &upload_id, 5, bytes[5..15].to_vec()).await;
    let past = patch(&app, &ann.token, &upload_id, 20, bytes[20..30].to_vec()).await;
    // Assert
    for reply in [&ahead, &again, &behind, &past] {
        tus_error(reply, StatusCode::CONFLICT, "CONFLICT");
    }
    assert_eq!(offset_now(&app, &ann.token, &upload_id).await, 10);
    app.stop().await;
}

/// A PATCH of `pieces` sent as they come (no Content-Length) at `offset`.
fn streamed(app: &TestApp, token: &str, upload_id: &str, offset: u64, pieces: Vec<Vec<u8>>) -> RequestBuilder {
    let body = futures::stream::iter(pieces.into_iter().map(Ok::<_, std::io::Error>));
    tus(app, Method::PATCH, &upload_path(upload_id), token)
        .header("Content-Type", OCTETS)
        .header("Upload-Offset", offset.to_string())
        .body(reqwest::Body::wrap_stream(body))
}

/// Asserts the upload, attached to a new form of `token`'s user, reads back as `bytes`.
async fn assert_attaches_as(app: &TestApp, token: &str, upload_id: &str, bytes: &[u8]) {
    let form = media_form(app, token).await;
    let attachments = attached(app, token, &form.form_id, &[&form.docs], &[upload_id]).await;
    let got = download(app, token, &form.form_id, attachments[0]["partKey"].as_str().unwrap(), &[]).await;
    assert_eq!(got.bytes, bytes);
}

#[tokio::test]
async fn a_patch_whose_content_length_passes_the_end_is_413_and_the_offset_stays() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bytes = text(100);
    let upload_id = created(&app, &ann.token, bytes.len(), Some(&named("a.txt", "text/plain"))).await;
    // Act + Assert
    let whole_and_more = patch(&app, &ann.token, &upload_id, 0, vec![b'!'; 150]).await;
    tus_error(&whole_and_more, StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");
    assert_eq!(offset_now(&app, &ann.token, &upload_id).await, 0);
    patched(&app, &ann.token, &upload_id, 0, bytes[..60].to_vec()).await;
    let one_more = patch(&app, &ann.token, &upload_id, 60, vec![b'!'; 41]).await;
    tus_error(&one_more, StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");
    assert_eq!(offset_now(&app, &ann.token, &upload_id).await, 60);
    // Act + Assert: the rest, streamed, then nothing remains
    let rest = send(
        &app,
        streamed(&app, &ann.token, &upload_id, 60, vec![bytes[60..80].to_vec(), bytes[80..].to_vec()]),
        false,
    )
    .await;
    assert_eq!((rest.status, offset_of(&rest)), (StatusCode::NO_CONTENT, 100));
    let after_the_end = patch(&app, &ann.token, &upload_id, 100, b"!".to_vec()).await;
    tus_error(&after_the_end, StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");
    // Assert: none of the refused bytes were kept.
    assert_attaches_as(&app, &ann.token, &upload_id, &bytes).await;
    app.stop().await;
}

#[tokio::test]
async fn a_streamed_patch_that_passes_the_end_is_413_and_keeps_at_most_what_fits() {
    // Arrange: 60 of 100 bytes are there.
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bytes = text(100);
    let upload_id = created(&app, &ann.token, bytes.len(), Some(&named("a.txt", "text/plain"))).await;
    patched(&app, &ann.token, &upload_id, 0, bytes[..60].to_vec()).await;
    // Act: 60 bytes as they come (no Content-Length), where 40 remain
    let too_many =
        send(&app, streamed(&app, &ann.token, &upload_id, 60, vec![vec![b'!'; 30], vec![b'!'; 30]]), false).await;
    // Assert: refused; as for any PATCH cut off part way, the bytes that arrived before the refusal
    // and fit are kept (docs/contract.md, "Partial writes"), never more than the upload's length.
    tus_error(&too_many, StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");
    let offset = offset_now(&app, &ann.token, &upload_id).await;
    assert!((60..=100).contains(&offset), "the offset after a refused PATCH: {offset}");
    app.stop().await;
}

#[tokio::test]
async fn a_patch_while_another_patch_of_the_upload_runs_is_409() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bytes = noise(200_000, 21);
    let upload_id = created(&app, &ann.token, bytes.len(), Some(&named("a.bin", "application/octet-stream"))).await;
    let (mut sender, receiver) = futures::channel::mpsc::channel::<Result<Vec<u8>, std::io::Error>>(4);
    let running = tus(&app, Method::PATCH, &upload_path(&upload_id), &ann.token)
        .header("Content-Type", OCTETS)
        .header("Upload-Offset", "0")
        .body(reqwest::Body::wrap_stream(receiver))
        .send();
    let running = tokio::spawn(running);
    sender.send(Ok(bytes[..50_000].to_vec())).await.expect("the first bytes go out");
    tokio::time::sleep(Duration::from_millis(500)).await;
    // Act: a second PATCH while the first is still receiving, at the offset it started from
    let second = patch(&app, &ann.token, &upload_id, 0, bytes[..1_000].to_vec()).await;
    // Assert
    tus_error(&second, StatusCode::CONFLICT, "CONFLICT");
    // Act: the first PATCH ends
    sender.send(Ok(bytes[50_000..].to_vec())).await.expect("the rest goes out");
    drop(sender);
    let first = running.await.expect("the task ran").expect("the first PATCH is answered");
    // Assert
    assert_eq!(first.status(), StatusCode::NO_CONTENT);
    let offset = first.headers().get("upload-offset").and_then(|v| v.to_str().ok()).map(str::to_owned);
    assert_eq!(offset.as_deref(), Some("200000"));
    let form = media_form(&app, &ann.token).await;
    let attachments = attached(&app, &ann.token, &form.form_id, &[&form.big], &[&upload_id]).await;
    let got = download(&app, &ann.token, &form.form_id, attachments[0]["partKey"].as_str().unwrap(), &[]).await;
    assert!(got.bytes == bytes, "the bytes of the first PATCH alone");
    app.stop().await;
}

#[tokio::test]
async fn an_unknown_upload_is_404() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    for upload_id in [uuid::Uuid::new_v4().to_string(), "not-a-uuid".to_owned()] {
        // Act
        let heading = head(&app, &ann.token, &upload_id).await;
        let patching = patch(&app, &ann.token, &upload_id, 0, b"abc".to_vec()).await;
        let deleting = terminate(&app, &ann.token, &upload_id).await;
        // Assert
        assert_head_refused(&heading, StatusCode::NOT_FOUND);
        tus_error(&patching, StatusCode::NOT_FOUND, "NOT_FOUND");
        tus_error(&deleting, StatusCode::NOT_FOUND, "NOT_FOUND");
    }
    app.stop().await;
}

#[tokio::test]
async fn another_users_upload_is_404_to_them_and_they_cannot_attach_it() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let bytes = text(1_000);
    let open = created(&app, &ann.token, bytes.len(), Some(&named("open.txt", "text/plain"))).await;
    patched(&app, &ann.token, &open, 0, bytes[..400].to_vec()).await;
    let done = finished(&app, &ann.token, "done.txt", "text/plain", &bytes).await;
    let bobs_form = media_form(&app, &bob.token).await;
    for upload_id in [&open, &done] {
        // Act
        let heading = head(&app, &bob.token, upload_id).await;
        let patching = patch(&app, &bob.token, upload_id, 400, bytes[400..].to_vec()).await;
        let deleting = terminate(&app, &bob.token, upload_id).await;
        // Assert: exactly as an unknown upload
        assert_head_refused(&heading, StatusCode::NOT_FOUND);
        tus_error(&patching, StatusCode::NOT_FOUND, "NOT_FOUND");
        tus_error(&deleting, StatusCode::NOT_FOUND, "NOT_FOUND");
    }
    // Act: bob names ann's finished upload for his own form
    let taken = attach(&app, &bob.token, &bobs_form.form_id, &[&bobs_form.docs], &[&done]).await;
    // Assert
    let error = taken.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
    assert_eq!(problems(&error), expected(&[("/uploadIds/0", "UNKNOWN_UPLOAD")]));
    // ann's uploads are as they were, and hers to use.
    assert_eq!(offset_now(&app, &ann.token, &open).await, 400);
    finish(&app, &ann.token, &open, &bytes, 400, 1_000).await;
    let anns_form = media_form(&app, &ann.token).await;
    let attachments = attached(
        &app,
        &ann.token,
        &anns_form.form_id,
        &[anns_form.docs.as_str(), anns_form.docs.as_str()],
        &[&open, &done],
    )
    .await;
    assert_eq!(attachments.len(), 2);
    app.stop().await;
}

#[tokio::test]
async fn without_credentials_every_route_but_options_is_401() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let upload_id = created(&app, &ann.token, 100, None).await;
    let path = upload_path(&upload_id);
    let anonymous = |method: Method, path: &str| app.request(method, path).header("Tus-Resumable", TUS_VERSION);
    let unlicensed = |method: Method, path: &str| {
        app.client.request(method, app.url(path)).bearer_auth(&ann.token).header("Tus-Resumable", TUS_VERSION)
    };
    let patch_of = |request: RequestBuilder| {
        request.header("Content-Type", OCTETS).header("Upload-Offset", "0").body(b"ab".to_vec())
    };
    // Act
    let replies = [
        send(&app, anonymous(Method::POST, UPLOADS).header("Upload-Length", "10"), false).await,
        send(&app, patch_of(anonymous(Method::PATCH, &path)), false).await,
        send(&app, anonymous(Method::DELETE, &path), false).await,
    ];
    let heading = send(&app, anonymous(Method::HEAD, &path), false).await;
    let no_license = send(&app, unlicensed(Method::POST, UPLOADS).header("Upload-Length", "10"), false).await;
    // Assert: the usual refusals, each past the license check also naming the protocol
    // (`Tus-Resumable`; the license check answers before any route, for every route alike)
    for reply in &replies {
        reply.error(StatusCode::UNAUTHORIZED, "UNAUTHENTICATED");
    }
    assert_eq!((heading.status, heading.bytes.is_empty()), (StatusCode::UNAUTHORIZED, true));
    no_license.error(StatusCode::UNAUTHORIZED, "LICENSE_REQUIRED");
    assert_eq!(offset_now(&app, &ann.token, &upload_id).await, 0);
    for reply in replies.iter().chain([&heading]) {
        let what = format!("{} {}", reply.status, String::from_utf8_lossy(&reply.bytes));
        assert_eq!(reply.header("tus-resumable").as_deref(), Some(TUS_VERSION), "Tus-Resumable of {what}");
    }
    app.stop().await;
}
