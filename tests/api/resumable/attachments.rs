//! Finished uploads attached to a form with `{fieldIds, uploadIds}`: the answer is the multipart
//! upload's, every rule of it holds (`file.accept` judged from the bytes, `file.maxBytes`,
//! `maxFiles`, the daily quota, pairing) with the problems at `/uploadIds/i`, a request is all or
//! nothing (a refused one uses none of its uploads), and an upload is used once.

use std::collections::BTreeMap;

use reqwest::StatusCode;
use serde_json::{Value, json};
use trellis::config::Config;
use trellis_tests::{TestApp, detail_paths, spawn_app, spawn_app_with};

use super::{
    assert_head_refused, assert_store_holds, attach, attached, created, finished, finished_in, head, metadata_of,
    named, offset_now, patch, patched, terminate, tus_error,
};
use crate::support::forms::{expected, problems};
use crate::support::media::{
    DOCS_MAX, PHOTO_MAX, all_descriptors, descriptor, descriptors_of, download, keys_of, media_form, noise,
    on_both_backends, pdf, png, read_form, text, without_key,
};

/// Asserts the upload is still there, finished and unused.
async fn assert_usable(app: &TestApp, token: &str, upload_id: &str, length: usize) {
    let reply = head(app, token, upload_id).await;
    assert_eq!(reply.status, StatusCode::OK, "the upload {upload_id} is still there");
    assert_eq!(reply.header("upload-offset"), Some(length.to_string()));
}

async fn uploads_attach_as_multipart_files_would(app: &TestApp) {
    // Arrange: the photo names its type with tus's usual `filetype` and carries a key we do not know.
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    let (doc, photo, note) = (pdf(300), png(200), text(50));
    let doc_id = finished(app, &ann.token, "report.pdf", "application/pdf", &doc).await;
    let photo_metadata = metadata_of(&[("filename", b"me.png"), ("filetype", b"image/png"), ("origin", b"camera")]);
    let photo_id = finished_in(app, &ann.token, &photo_metadata, &photo, 64).await;
    let note_id = finished(app, &ann.token, "notes.txt", "text/plain", &note).await;
    // Act: the fields alternate, so a pairing off by one would break `accept`.
    let attachments = attached(
        app,
        &ann.token,
        &form.form_id,
        &[&form.docs, &form.photo, &form.docs],
        &[&doc_id, &photo_id, &note_id],
    )
    .await;
    // Assert
    let shown: Vec<Value> = attachments.iter().map(without_key).collect();
    assert_eq!(
        shown,
        [
            descriptor(&form.docs, "application/pdf", 300, "report.pdf"),
            descriptor(&form.photo, "image/png", 200, "me.png"),
            descriptor(&form.docs, "text/plain", 50, "notes.txt"),
        ]
    );
    for a in &attachments {
        assert_eq!(a.as_object().unwrap().len(), 5, "exactly the descriptor fields: {a}");
    }
    let read = read_form(app, &ann.token, &form.form_id).await;
    assert_eq!(read["fields"][&form.photo], json!([attachments[1]]));
    assert_eq!(read["fields"][&form.docs].as_array().unwrap().len(), 2);
    for (attachment, bytes) in attachments.iter().zip([doc, photo, note]) {
        let got = download(app, &ann.token, &form.form_id, attachment["partKey"].as_str().unwrap(), &[]).await;
        assert_eq!(got.status, StatusCode::OK);
        assert_eq!(got.bytes, bytes, "{attachment}");
    }
    // Each upload was used, so its URL is gone.
    for upload_id in [&doc_id, &photo_id, &note_id] {
        assert_head_refused(&head(app, &ann.token, upload_id).await, StatusCode::NOT_FOUND);
        tus_error(&terminate(app, &ann.token, upload_id).await, StatusCode::NOT_FOUND, "NOT_FOUND");
    }
    assert_store_holds(app, 3).await;
}
on_both_backends!(uploads_attach_as_multipart_files_would);

#[tokio::test]
async fn an_upload_is_used_once() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let form = media_form(&app, &ann.token).await;
    let other = media_form(&app, &ann.token).await;
    let upload_id = finished(&app, &ann.token, "a.txt", "text/plain", &text(100)).await;
    let first = attached(&app, &ann.token, &form.form_id, &[&form.docs], &[&upload_id]).await;
    // Act
    let again = attach(&app, &ann.token, &form.form_id, &[&form.docs], &[&upload_id]).await;
    let elsewhere = attach(&app, &ann.token, &other.form_id, &[&other.docs], &[&upload_id]).await;
    let patching = patch(&app, &ann.token, &upload_id, 100, b"x".to_vec()).await;
    // Assert
    for reply in [again, elsewhere] {
        let error = reply.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
        assert_eq!(problems(&error), expected(&[("/uploadIds/0", "UNKNOWN_UPLOAD")]));
    }
    tus_error(&patching, StatusCode::NOT_FOUND, "NOT_FOUND");
    assert_eq!(descriptors_of(&app, &ann.token, &form.form_id, &form.docs).await, first);
    assert_eq!(descriptors_of(&app, &ann.token, &other.form_id, &other.docs).await, Vec::<Value>::new());
    app.stop().await;
}

#[tokio::test]
async fn unknown_unfinished_and_foreign_uploads_are_400_at_their_place_and_nothing_is_attached() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let form = media_form(&app, &ann.token).await;
    let bytes = text(200);
    let good = finished(&app, &ann.token, "good.txt", "text/plain", &bytes).await;
    let unfinished = created(&app, &ann.token, bytes.len(), Some(&named("half.txt", "text/plain"))).await;
    patched(&app, &ann.token, &unfinished, 0, bytes[..100].to_vec()).await;
    let unknown = uuid::Uuid::new_v4().to_string();
    let bobs = finished(&app, &bob.token, "bob.txt", "text/plain", &bytes).await;
    // Act
    let reply =
        attach(&app, &ann.token, &form.form_id, &[form.docs.as_str(); 4], &[&good, &unfinished, &unknown, &bobs]).await;
    // Assert: every bad one is listed, and none was used.
    let error = reply.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
    assert_eq!(
        problems(&error),
        expected(&[
            ("/uploadIds/1", "UNKNOWN_UPLOAD"),
            ("/uploadIds/2", "UNKNOWN_UPLOAD"),
            ("/uploadIds/3", "UNKNOWN_UPLOAD"),
        ])
    );
    assert_eq!(descriptors_of(&app, &ann.token, &form.form_id, &form.docs).await, Vec::<Value>::new());
    assert_usable(&app, &ann.token, &good, 200).await;
    assert_eq!(offset_now(&app, &ann.token, &unfinished).await, 100);
    assert_usable(&app, &bob.token, &bobs, 200).await;
    // The unfinished one, once finished, attaches with the good one.
    patched(&app, &ann.token, &unfinished, 100, bytes[100..].to_vec()).await;
    let attachments = attached(&app, &ann.token, &form.form_id, &[form.docs.as_str(); 2], &[&good, &unfinished]).await;
    assert_eq!(attachments.len(), 2);
    app.stop().await;
}

async fn an_upload_whose_bytes_the_field_does_not_accept_is_415_at_its_place(app: &TestApp) {
    // Arrange: photo takes PNG or JPEG; docs takes `.pdf` or text/plain.
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    let text_as_png = finished(app, &ann.token, "fake.png", "image/png", &text(100)).await;
    let png_as_text = finished(app, &ann.token, "picture.txt", "text/plain", &png(300)).await;
    let csv = finished(app, &ann.token, "data.csv", "text/csv", b"a,b\n1,2\n").await;
    // Act
    let replies = [
        attach(app, &ann.token, &form.form_id, &[&form.photo], &[&text_as_png]).await,
        attach(app, &ann.token, &form.form_id, &[&form.docs], &[&png_as_text]).await,
        attach(app, &ann.token, &form.form_id, &[&form.docs], &[&csv]).await,
    ];
    // Assert
    for reply in replies {
        let error = reply.error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE");
        assert_eq!(detail_paths(&error), ["/uploadIds/0"]);
    }
    assert_eq!(all_descriptors(app, &ann.token, &form.form_id, &form.file_fields()).await, Vec::<Value>::new());
    assert_usable(app, &ann.token, &text_as_png, 100).await;
    assert_usable(app, &ann.token, &png_as_text, 300).await;
    assert_usable(app, &ann.token, &csv, 8).await;
    for upload_id in [&text_as_png, &png_as_text, &csv] {
        assert_eq!(terminate(app, &ann.token, upload_id).await.status, StatusCode::NO_CONTENT);
    }
    assert_store_holds(app, 0).await;
}
on_both_backends!(an_upload_whose_bytes_the_field_does_not_accept_is_415_at_its_place);

async fn an_upload_over_the_fields_max_bytes_is_413_at_its_place(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    let too_big = finished(app, &ann.token, "big.png", "image/png", &png(PHOTO_MAX + 1)).await;
    let exact = finished(app, &ann.token, "max.png", "image/png", &png(PHOTO_MAX)).await;
    let docs_too_big = finished(app, &ann.token, "big.txt", "text/plain", &text(DOCS_MAX + 1)).await;
    // Act
    let over = attach(app, &ann.token, &form.form_id, &[&form.photo], &[&too_big]).await;
    let second_over =
        attach(app, &ann.token, &form.form_id, &[&form.photo, &form.docs], &[&exact, &docs_too_big]).await;
    let fits = attached(app, &ann.token, &form.form_id, &[&form.photo], &[&exact]).await;
    // Assert
    let error = over.error(StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");
    assert_eq!(detail_paths(&error), ["/uploadIds/0"]);
    let error = second_over.error(StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");
    assert_eq!(detail_paths(&error), ["/uploadIds/1"]);
    assert_eq!(fits[0]["bytes"], PHOTO_MAX);
    assert_eq!(descriptors_of(app, &ann.token, &form.form_id, &form.photo).await, fits);
    assert_eq!(descriptors_of(app, &ann.token, &form.form_id, &form.docs).await, Vec::<Value>::new());
    assert_usable(app, &ann.token, &too_big, PHOTO_MAX + 1).await;
    for upload_id in [&too_big, &docs_too_big] {
        assert_eq!(terminate(app, &ann.token, upload_id).await.status, StatusCode::NO_CONTENT);
    }
    assert_store_holds(app, 1).await;
}
on_both_backends!(an_upload_over_the_fields_max_bytes_is_413_at_its_place);

#[tokio::test]
async fn a_field_full_of_files_is_409_and_the_uploads_stay_usable() {
    // Arrange: photo holds one file.
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let form = media_form(&app, &ann.token).await;
    let a = finished(&app, &ann.token, "a.png", "image/png", &png(100)).await;
    let b = finished(&app, &ann.token, "b.png", "image/png", &png(101)).await;
    // Act
    let both = attach(&app, &ann.token, &form.form_id, &[&form.photo, &form.photo], &[&a, &b]).await;
    let first = attached(&app, &ann.token, &form.form_id, &[&form.photo], &[&a]).await;
    let second = attach(&app, &ann.token, &form.form_id, &[&form.photo], &[&b]).await;
    // Assert
    for reply in [both, second] {
        let error = reply.error(StatusCode::CONFLICT, "MAX_FILES_EXCEEDED");
        assert_eq!(error["numeric"], 811);
    }
    assert_eq!(descriptors_of(&app, &ann.token, &form.form_id, &form.photo).await, first);
    assert_usable(&app, &ann.token, &b, 101).await;
    let elsewhere = attached(&app, &ann.token, &form.form_id, &[&form.big], &[&b]).await;
    assert_eq!(without_key(&elsewhere[0]), descriptor(&form.big, "image/png", 101, "b.png"));
    app.stop().await;
}

async fn one_bad_upload_of_two_attaches_neither_and_both_stay_usable(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    let good_bytes = noise(3_000, 31);
    let good = finished(app, &ann.token, "good.bin", "application/octet-stream", &good_bytes).await;
    let bad = finished(app, &ann.token, "fake.png", "image/png", &text(100)).await;
    // Act: the good one first, so it is judged (and might be taken) before the bad one.
    let reply = attach(app, &ann.token, &form.form_id, &[&form.big, &form.photo], &[&good, &bad]).await;
    // Assert
    let error = reply.error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE");
    assert_eq!(detail_paths(&error), ["/uploadIds/1"]);
    assert_eq!(all_descriptors(app, &ann.token, &form.form_id, &form.file_fields()).await, Vec::<Value>::new());
    assert_usable(app, &ann.token, &good, 3_000).await;
    assert_usable(app, &ann.token, &bad, 100).await;
    // Act: the good one alone
    let attachments = attached(app, &ann.token, &form.form_id, &[&form.big], &[&good]).await;
    // Assert
    let got = download(app, &ann.token, &form.form_id, attachments[0]["partKey"].as_str().unwrap(), &[]).await;
    assert_eq!(got.bytes, good_bytes);
    assert_eq!(terminate(app, &ann.token, &bad).await.status, StatusCode::NO_CONTENT);
    assert_store_holds(app, 1).await;
}
on_both_backends!(one_bad_upload_of_two_attaches_neither_and_both_stay_usable);

#[tokio::test]
async fn field_ids_and_upload_ids_must_pair_up() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let form = media_form(&app, &ann.token).await;
    let a = finished(&app, &ann.token, "a.txt", "text/plain", &text(10)).await;
    let b = finished(&app, &ann.token, "b.txt", "text/plain", &text(20)).await;
    // Act
    let more_uploads = attach(&app, &ann.token, &form.form_id, &[&form.docs], &[&a, &b]).await;
    let more_fields = attach(&app, &ann.token, &form.form_id, &[&form.docs, &form.docs], &[&a]).await;
    // Assert
    for reply in [more_uploads, more_fields] {
        let error = reply.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
        assert_eq!(problems(&error), expected(&[("/fieldIds", "COUNT_MISMATCH")]));
    }
    assert_eq!(descriptors_of(&app, &ann.token, &form.form_id, &form.docs).await, Vec::<Value>::new());
    let attachments = attached(&app, &ann.token, &form.form_id, &[&form.docs, &form.docs], &[&b, &a]).await;
    let shown: Vec<Value> = attachments.iter().map(without_key).collect();
    assert_eq!(
        shown,
        [descriptor(&form.docs, "text/plain", 20, "b.txt"), descriptor(&form.docs, "text/plain", 10, "a.txt")]
    );
    app.stop().await;
}

fn two_uploads_a_day(config: &mut Config) {
    let plan: BTreeMap<String, u64> = [("forms.attachments.uploadPerDay".to_owned(), 2)].into();
    config.plans.insert("default".into(), plan);
}

#[tokio::test]
async fn the_daily_quota_counts_attached_uploads_and_a_refusal_uses_none() {
    // Arrange: the deployment's key is on a plan of 2 uploaded files a day.
    let app = spawn_app_with(two_uploads_a_day).await;
    let ann = app.sign_up("ann").await;
    let form = media_form(&app, &ann.token).await;
    let mut ids = Vec::new();
    for name in ["a.txt", "b.txt", "c.txt"] {
        ids.push(finished(&app, &ann.token, name, "text/plain", &text(10)).await);
    }
    // Act
    let three = attach(&app, &ann.token, &form.form_id, &[form.docs.as_str(); 3], &[&ids[0], &ids[1], &ids[2]]).await;
    let two = attached(&app, &ann.token, &form.form_id, &[form.docs.as_str(); 2], &[&ids[0], &ids[1]]).await;
    let none_left = attach(&app, &ann.token, &form.form_id, &[&form.docs], &[&ids[2]]).await;
    // Assert
    for reply in [three, none_left] {
        let error = reply.error(StatusCode::FORBIDDEN, "ENTITLEMENT_LIMIT_EXCEEDED");
        assert_eq!(error["details"][0]["path"], "forms.attachments.uploadPerDay");
    }
    let mut stored = keys_of(&descriptors_of(&app, &ann.token, &form.form_id, &form.docs).await);
    let mut expected_keys = keys_of(&two);
    stored.sort();
    expected_keys.sort();
    assert_eq!(stored, expected_keys);
    assert_usable(&app, &ann.token, &ids[2], 10).await;
    app.stop().await;
}
