//! Form attachments through workflow views and for other users, downloads (headers, ranges,
//! conditional requests), removal and file names. Every scenario runs on both backends.

use std::collections::BTreeSet;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{TestApp, TestUser};

use crate::support::forms::{expected, problems, sample};
use crate::support::media::{
    BIG_MAX, assert_stored_objects, attachments_path, delete, descriptor, descriptors_of, download, file, media_form,
    noise, on_both_backends, pairs, pdf, png, read_form, send, slow_upload, store_contents, text, upload, uploaded,
    without_key,
};
use crate::support::workflow::{grant, moved, read_item, sample_setup, started, submitted_form, wf};

// ---------------------------------------------------------------------------------------------
// Workflow views and access

async fn workflow_parameters_come_together(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    let one = || pairs(vec![(&form.docs, file("a.txt", "text/plain", text(10)))]);
    let id = uuid::Uuid::new_v4();
    // Act
    let only_configuration =
        upload(app, &ann.token, &form.form_id, &format!("?workflowConfigurationId={id}"), one()).await;
    let only_view = upload(app, &ann.token, &form.form_id, &format!("?workflowViewId={id}"), one()).await;
    // Assert
    let error = only_configuration.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
    assert_eq!(trellis_tests::detail_paths(&error), ["query.workflowViewId"]);
    let error = only_view.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
    assert_eq!(trellis_tests::detail_paths(&error), ["query.workflowConfigurationId"]);
    assert_eq!(descriptors_of(app, &ann.token, &form.form_id, &form.docs).await, Vec::<Value>::new());
    assert_stored_objects(app, 0).await;
}
on_both_backends!(workflow_parameters_come_together);

/// `ann` owns the sample workflow; her sample item sits in review; `bob` holds slot 2 (review,
/// whose detail fields include the photo but not the documents).
async fn item_in_review(app: &TestApp) -> (TestUser, TestUser, String) {
    let ann = sample_setup(app, "ann").await;
    let bob = app.sign_up("bob").await;
    grant(app, &ann.token, json!([{"handle": "bob", "slots": [2]}])).await;
    let item = submitted_form(app, &ann.token).await;
    started(app, &ann.token, &item).await;
    moved(app, &ann.token, &item, Some(wf::INTAKE_VIEW), wf::SUBMIT).await;
    (ann, bob, item)
}

fn through(view: &str) -> String {
    format!("?workflowConfigurationId={}&workflowViewId={view}", wf::ID)
}

async fn a_workflow_view_allows_uploads_to_the_fields_it_makes_editable(app: &TestApp) {
    // Arrange
    let (ann, bob, item) = item_in_review(app).await;
    let photo = || pairs(vec![(sample::PHOTO, file("me.png", "image/png", png(500)))]);
    let document = || pairs(vec![(sample::DOCUMENTS, file("a.pdf", "application/pdf", pdf(500)))]);
    // Act
    let without_view = upload(app, &bob.token, &item, "", photo()).await;
    let not_editable = upload(app, &bob.token, &item, &through(wf::REVIEW_VIEW), document()).await;
    let not_in_view = upload(app, &ann.token, &item, &through(wf::INTAKE_VIEW), photo()).await;
    let editable = upload(app, &bob.token, &item, &through(wf::REVIEW_VIEW), photo()).await;
    // Assert
    without_view.error(StatusCode::NOT_FOUND, "NOT_FOUND");
    let error = not_editable.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
    assert_eq!(problems(&error), expected(&[("/fieldIds/0", "NOT_EDITABLE")]));
    // The intake view does not reach an item in review: for it the item does not exist.
    not_in_view.error(StatusCode::NOT_FOUND, "NOT_FOUND");
    let created = editable.expect(StatusCode::CREATED);
    let attachment = &created["attachments"][0];
    assert_eq!(without_key(attachment), descriptor(sample::PHOTO, "image/png", 500, "me.png"));
    let key = attachment["partKey"].as_str().unwrap();
    let owner_copy = download(app, &ann.token, &item, key, &[]).await;
    assert_eq!((owner_copy.status, owner_copy.bytes), (StatusCode::OK, png(500)));
    let path = format!("{}/{key}{}", attachments_path(&item), through(wf::REVIEW_VIEW));
    let viewer_copy = send(app, app.authed(Method::GET, &path, &bob.token), true).await;
    assert_eq!((viewer_copy.status, viewer_copy.bytes), (StatusCode::OK, png(500)));
    assert_eq!(descriptors_of(app, &ann.token, &item, sample::PHOTO).await, std::slice::from_ref(attachment));
    assert_eq!(descriptors_of(app, &ann.token, &item, sample::DOCUMENTS).await, Vec::<Value>::new());
    assert_stored_objects(app, 1).await;
}
on_both_backends!(a_workflow_view_allows_uploads_to_the_fields_it_makes_editable);

async fn another_users_form_and_its_attachments_are_not_found(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let form = media_form(app, &ann.token).await;
    let stored =
        uploaded(app, &ann.token, &form.form_id, pairs(vec![(&form.docs, file("a.txt", "text/plain", text(10)))]))
            .await;
    let key = stored[0]["partKey"].as_str().unwrap();
    // Act
    let bob_upload =
        upload(app, &bob.token, &form.form_id, "", pairs(vec![(&form.docs, file("b.txt", "text/plain", text(10)))]))
            .await;
    let bob_download = download(app, &bob.token, &form.form_id, key, &[]).await;
    let bob_delete = delete(app, &bob.token, &form.form_id, key, &format!("?fieldId={}", form.docs)).await;
    let unknown_form = upload(
        app,
        &ann.token,
        &uuid::Uuid::new_v4().to_string(),
        "",
        pairs(vec![(&form.docs, file("b.txt", "text/plain", text(10)))]),
    )
    .await;
    let unknown_part = download(app, &ann.token, &form.form_id, "0123456789abcdef0123456789abcdef", &[]).await;
    // Assert
    for reply in [bob_upload, bob_download, bob_delete, unknown_form, unknown_part] {
        reply.error(StatusCode::NOT_FOUND, "NOT_FOUND");
    }
    assert_eq!(descriptors_of(app, &ann.token, &form.form_id, &form.docs).await, stored);
    let still = download(app, &ann.token, &form.form_id, key, &[]).await;
    assert_eq!((still.status, still.bytes), (StatusCode::OK, text(10)));
    assert_stored_objects(app, 1).await;
}
on_both_backends!(another_users_form_and_its_attachments_are_not_found);

/// Conventions 13: outside the item routes a view holder sees only what their views show.
async fn a_view_holder_reads_only_the_fields_and_files_their_views_show(app: &TestApp) {
    // Arrange
    let (ann, bob, item) = item_in_review(app).await;
    let photo = pairs(vec![(sample::PHOTO, file("me.png", "image/png", png(500)))]);
    let photo_key = uploaded(app, &ann.token, &item, photo).await[0]["partKey"].as_str().unwrap().to_owned();
    let document = pairs(vec![(sample::DOCUMENTS, file("a.pdf", "application/pdf", pdf(500)))]);
    let document_key = uploaded(app, &ann.token, &item, document).await[0]["partKey"].as_str().unwrap().to_owned();
    let (_, through_view) = read_item(app, &bob.token, &item, Some(wf::REVIEW_VIEW)).await;
    let view_fields: BTreeSet<String> =
        through_view["fields"].as_array().unwrap().iter().map(|f| f["fieldId"].as_str().unwrap().to_owned()).collect();
    // Act
    let owners_read = read_form(app, &ann.token, &item).await;
    let holders_read = read_form(app, &bob.token, &item).await;
    let hidden_file = download(app, &bob.token, &item, &document_key, &[]).await;
    let shown_file = download(app, &bob.token, &item, &photo_key, &[]).await;
    // Assert
    let keys = |read: &Value| read["fields"].as_object().unwrap().keys().cloned().collect::<BTreeSet<String>>();
    assert_eq!(keys(&holders_read), view_fields, "the form route shows the review view's fields: {holders_read}");
    assert!(keys(&owners_read).contains(sample::DOCUMENTS) && !view_fields.contains(sample::DOCUMENTS));
    assert!(keys(&owners_read).len() > view_fields.len());
    assert_eq!(holders_read["fields"][sample::PHOTO].as_array().map(Vec::len), Some(1));
    hidden_file.error(StatusCode::NOT_FOUND, "NOT_FOUND");
    assert_eq!((shown_file.status, shown_file.bytes), (StatusCode::OK, png(500)));
}
on_both_backends!(a_view_holder_reads_only_the_fields_and_files_their_views_show);

// ---------------------------------------------------------------------------------------------
// Downloads

async fn downloads_carry_the_stored_headers_and_honour_ranges(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    let bytes = noise(1000, 7);
    let stored = uploaded(
        app,
        &ann.token,
        &form.form_id,
        pairs(vec![(&form.big, file("scan 1.bin", "application/octet-stream", bytes.clone()))]),
    )
    .await;
    let key = stored[0]["partKey"].as_str().unwrap();
    // Act
    let whole = download(app, &ann.token, &form.form_id, key, &[]).await;
    let etag = whole.header("etag").expect("an ETag");
    let part = download(app, &ann.token, &form.form_id, key, &[("Range", "bytes=10-19")]).await;
    let suffix = download(app, &ann.token, &form.form_id, key, &[("Range", "bytes=-5")]).await;
    let open_ended = download(app, &ann.token, &form.form_id, key, &[("Range", "bytes=990-")]).await;
    let beyond = download(app, &ann.token, &form.form_id, key, &[("Range", "bytes=1000-")]).await;
    let unchanged = download(app, &ann.token, &form.form_id, key, &[("If-None-Match", &etag)]).await;
    let other_tag = download(app, &ann.token, &form.form_id, key, &[("If-None-Match", "\"other\"")]).await;
    // Assert
    assert_eq!(whole.status, StatusCode::OK);
    assert_eq!(whole.bytes, bytes);
    assert_eq!(stored[0]["contentType"], "application/octet-stream");
    assert_eq!(whole.header("content-type").as_deref(), Some("application/octet-stream"));
    assert_eq!(whole.header("content-length").as_deref(), Some("1000"));
    assert!(etag.starts_with('"') && etag.ends_with('"') && etag.len() > 2, "{etag}");
    let disposition = whole.header("content-disposition").expect("a Content-Disposition");
    assert!(disposition.starts_with("attachment; filename=\"scan 1.bin\""), "{disposition}");
    assert_eq!(part.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(part.header("content-range").as_deref(), Some("bytes 10-19/1000"));
    assert_eq!(part.header("content-length").as_deref(), Some("10"));
    assert_eq!(part.bytes, bytes[10..20]);
    assert_eq!(suffix.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(suffix.header("content-range").as_deref(), Some("bytes 995-999/1000"));
    assert_eq!(suffix.bytes, bytes[995..]);
    assert_eq!(open_ended.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(open_ended.bytes, bytes[990..]);
    assert_eq!(beyond.status, StatusCode::RANGE_NOT_SATISFIABLE);
    assert_eq!(beyond.header("content-range").as_deref(), Some("bytes */1000"));
    assert_eq!(unchanged.status, StatusCode::NOT_MODIFIED);
    assert!(unchanged.bytes.is_empty());
    assert_eq!(unchanged.header("etag"), Some(etag));
    assert_eq!((other_tag.status, other_tag.bytes), (StatusCode::OK, bytes));
}
on_both_backends!(downloads_carry_the_stored_headers_and_honour_ranges);

async fn a_large_file_streams_in_and_out_whole(app: &TestApp) {
    // Arrange: past the S3 backend's 8 MiB part size, so it goes up in several parts.
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    let size = 17 * 1024 * 1024 + 123;
    let bytes = noise(size, 3);
    // Act
    let stored = uploaded(
        app,
        &ann.token,
        &form.form_id,
        pairs(vec![(&form.big, file("big.bin", "application/octet-stream", bytes.clone()))]),
    )
    .await;
    let key = stored[0]["partKey"].as_str().unwrap();
    let whole = download(app, &ann.token, &form.form_id, key, &[]).await;
    let boundary = 8 * 1024 * 1024;
    let range = format!("bytes={}-{}", boundary - 10, boundary + 9);
    let across = download(app, &ann.token, &form.form_id, key, &[("Range", &range)]).await;
    let over = upload(
        app,
        &ann.token,
        &form.form_id,
        "",
        pairs(vec![(&form.big, file("over.bin", "application/octet-stream", noise(BIG_MAX + 1, 1)))]),
    )
    .await;
    // Assert
    assert_eq!(stored[0]["bytes"], size);
    assert_eq!(whole.status, StatusCode::OK);
    assert_eq!(whole.header("content-length"), Some(size.to_string()));
    assert!(whole.bytes == bytes, "the downloaded bytes differ from the uploaded ones");
    assert_eq!(across.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(across.bytes, bytes[boundary - 10..boundary + 10]);
    // The server may stop reading at the cap and close before the client has sent everything.
    assert!(over.status == StatusCode::PAYLOAD_TOO_LARGE, "{}", over.status);
    assert_eq!(descriptors_of(app, &ann.token, &form.form_id, &form.big).await, stored);
    assert_stored_objects(app, 1).await;
}
on_both_backends!(a_large_file_streams_in_and_out_whole);

/// Issue 11, finding 6: a client that stops reading a download does not hold the connection.
async fn a_download_the_client_stops_reading_is_cut_off(app: &TestApp) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    // Arrange: more bytes than the loopback socket buffers hold.
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    let size = 20 * 1024 * 1024;
    let file_part = file("big.bin", "application/octet-stream", noise(size, 5));
    let stored = uploaded(app, &ann.token, &form.form_id, pairs(vec![(&form.big, file_part)])).await;
    let key = stored[0]["partKey"].as_str().unwrap();
    let mut stream = tokio::net::TcpStream::connect(app.address.trim_start_matches("http://")).await.unwrap();
    let request = format!(
        "GET {}/{key} HTTP/1.1\r\nhost: localhost\r\nx-license-key: {}\r\nauthorization: Bearer {}\r\n\r\n",
        attachments_path(&form.form_id),
        app.license_key,
        ann.token
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut first = [0u8; 1024];
    let mut received = stream.read(&mut first).await.unwrap();
    // Act: read nothing for longer than the write timeout, then read what is left.
    tokio::time::sleep(std::time::Duration::from_secs(4)).await;
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        match tokio::time::timeout(std::time::Duration::from_secs(20), stream.read(&mut buffer)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(n)) => received += n,
            Err(_) => panic!("the connection neither delivered nor closed"),
        }
    }
    // Assert: the server gave up on the stalled client before sending everything.
    assert!(received < size, "all {received} bytes arrived: the stalled write was never cut off");
}

fn short_write_timeout(config: &mut trellis::config::Config) {
    config.http.write_timeout_seconds = 1;
}
on_both_backends!(a_download_the_client_stops_reading_is_cut_off, short_write_timeout);

/// Issue 11, finding 11: an upload that runs longer than the sweeper's grace is kept announced
/// while its bytes arrive, so the sweeper (every second here) never takes it for abandoned.
async fn an_upload_longer_than_the_sweep_grace_is_kept(app: &TestApp) {
    // Arrange: 16 MiB (two S3 parts) arriving over about eight seconds; the grace is one.
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    let bytes = noise(32 * 512 * 1024, 7);
    let body = slow_upload(&form.big, &bytes);
    // Act
    let response = app
        .authed(Method::POST, &attachments_path(&form.form_id), &ann.token)
        .multipart(body)
        .send()
        .await
        .expect("an answer");
    // Assert
    let status = response.status();
    let created: Value = response.json().await.unwrap();
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let key = created["attachments"][0]["partKey"].as_str().unwrap();
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    let stored = download(app, &ann.token, &form.form_id, key, &[]).await;
    assert!(stored.status == StatusCode::OK && stored.bytes == bytes, "the upload was swept");
}

fn sweeping_every_second(config: &mut trellis::config::Config) {
    config.media.sweep_interval_seconds = 1;
    config.media.sweep_grace_seconds = 1;
}
on_both_backends!(an_upload_longer_than_the_sweep_grace_is_kept, sweeping_every_second);

// ---------------------------------------------------------------------------------------------
// Removal

async fn delete_needs_the_right_field_and_removes_part_and_bytes(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    let stored = uploaded(
        app,
        &ann.token,
        &form.form_id,
        pairs(vec![
            (&form.docs, file("a.txt", "text/plain", text(10))),
            (&form.docs, file("b.txt", "text/plain", text(20))),
        ]),
    )
    .await;
    let (gone, kept) = (stored[0]["partKey"].as_str().unwrap(), &stored[1]);
    // Act
    let no_field = delete(app, &ann.token, &form.form_id, gone, "").await;
    let wrong_field = delete(app, &ann.token, &form.form_id, gone, &format!("?fieldId={}", form.photo)).await;
    let removed = delete(app, &ann.token, &form.form_id, gone, &format!("?fieldId={}", form.docs)).await;
    let again = delete(app, &ann.token, &form.form_id, gone, &format!("?fieldId={}", form.docs)).await;
    let read_back = download(app, &ann.token, &form.form_id, gone, &[]).await;
    // Assert
    let error = no_field.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
    assert_eq!(trellis_tests::detail_paths(&error), ["query.fieldId"]);
    wrong_field.error(StatusCode::NOT_FOUND, "NOT_FOUND");
    assert_eq!(removed.status, StatusCode::NO_CONTENT);
    assert!(removed.bytes.is_empty());
    again.error(StatusCode::NOT_FOUND, "NOT_FOUND");
    read_back.error(StatusCode::NOT_FOUND, "NOT_FOUND");
    assert_eq!(descriptors_of(app, &ann.token, &form.form_id, &form.docs).await, std::slice::from_ref(kept));
    let kept_bytes = download(app, &ann.token, &form.form_id, kept["partKey"].as_str().unwrap(), &[]).await;
    assert_eq!(kept_bytes.bytes, text(20));
    assert_stored_objects(app, 1).await;
}
on_both_backends!(delete_needs_the_right_field_and_removes_part_and_bytes);

// ---------------------------------------------------------------------------------------------
// File names and storage details

async fn path_like_file_names_keep_only_their_last_segment(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    // Act
    let stored = uploaded(
        app,
        &ann.token,
        &form.form_id,
        pairs(vec![
            (&form.docs, file("../../x.txt", "text/plain", text(10))),
            (&form.docs, file("..\\..\\evil.txt", "text/plain", text(11))),
            (&form.big, file("../..", "application/octet-stream", noise(12, 0))),
        ]),
    )
    .await;
    let key = stored[0]["partKey"].as_str().unwrap();
    let got = download(app, &ann.token, &form.form_id, key, &[]).await;
    // Assert
    let names: Vec<&str> = stored.iter().map(|d| d["filename"].as_str().unwrap()).collect();
    assert_eq!(names[..2], ["x.txt", "evil.txt"]);
    assert!(!names[2].contains('/') && !names[2].contains("..") && !names[2].is_empty(), "{names:?}");
    let read = read_form(app, &ann.token, &form.form_id).await.to_string();
    assert!(!read.contains("../") && !read.contains("..\\\\"), "{read}");
    let disposition = got.header("content-disposition").unwrap();
    assert!(disposition.starts_with("attachment; filename=\"x.txt\""), "{disposition}");
    assert!(!disposition.contains(".."), "{disposition}");
    assert!(!app.data_dir.join("x.txt").exists() && !app.data_dir.join("media").join("x.txt").exists());
    let objects = store_contents(app).await.objects;
    assert_eq!(objects.len(), 3, "{objects:?}");
    for name in &objects {
        let named_by_server = name.split_once('/').is_some_and(|(kind, id)| {
            !kind.is_empty() && kind.bytes().all(|b| b.is_ascii_lowercase()) && uuid::Uuid::parse_str(id).is_ok()
        });
        assert!(named_by_server, "objects are named by the server alone: {name:?}");
    }
}
on_both_backends!(path_like_file_names_keep_only_their_last_segment);
