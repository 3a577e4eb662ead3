//! Form attachments and avatars (`/v0/media`, interface "Form attachments (media)", conventions 2,
//! 8, 11 and 12): pairing, every upload rule, all or nothing, the daily quota, workflow views,
//! downloads with ranges and conditional requests, removal, safe file names, avatars, and an
//! unreachable store. Every scenario that stores bytes runs on the local and the S3 backend.

use std::collections::BTreeMap;

use reqwest::StatusCode;
use serde_json::{Value, json};
use trellis::config::Config;
use trellis_tests::TestApp;

use crate::support::forms::{expected, problems};
use crate::support::media::{
    DOCS_MAX, PHOTO_MAX, Upload, all_descriptors, assert_stored_objects, descriptor, descriptors_of, download, file,
    keys_of, media_form, on_both_backends, pairs, pdf, png, read_form, text, upload, uploaded, without_key,
};

// ---------------------------------------------------------------------------------------------
// Pairing and the descriptor

async fn upload_pairs_field_ids_and_files_by_position(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    let (doc, photo, note) = (pdf(300), png(200), text(50));
    // Act: the fields alternate, so a pairing off by one would break `accept`.
    let parts = pairs(vec![
        (&form.docs, file("report.pdf", "application/pdf", doc.clone())),
        (&form.photo, file("me.png", "image/png", photo.clone())),
        (&form.docs, file("notes.txt", "text/plain", note.clone())),
    ]);
    let reply = upload(app, &ann.token, &form.form_id, "", parts).await;
    // Assert
    let created = reply.expect(StatusCode::CREATED);
    assert_eq!(created.as_object().unwrap().keys().collect::<Vec<_>>(), ["attachments"]);
    let attachments = created["attachments"].as_array().unwrap();
    let shown: Vec<Value> = attachments.iter().map(without_key).collect();
    assert_eq!(
        shown,
        [
            descriptor(&form.docs, "application/pdf", 300, "report.pdf"),
            descriptor(&form.photo, "image/png", 200, "me.png"),
            descriptor(&form.docs, "text/plain", 50, "notes.txt"),
        ]
    );
    for a in attachments {
        assert_eq!(a.as_object().unwrap().len(), 5, "exactly the descriptor fields: {a}");
    }
    let read = read_form(app, &ann.token, &form.form_id).await;
    assert_eq!(read["fields"][&form.photo], json!([attachments[1]]));
    let mut docs = read["fields"][&form.docs].as_array().unwrap().clone();
    docs.sort_by_key(|d| d["filename"].as_str().unwrap().to_owned());
    assert_eq!(docs, [attachments[2].clone(), attachments[0].clone()]);
    assert_eq!(read["fields"][&form.big], json!([]));
    for (attachment, bytes) in attachments.iter().zip([doc, photo, note]) {
        let got = download(app, &ann.token, &form.form_id, attachment["partKey"].as_str().unwrap(), &[]).await;
        assert_eq!(got.status, StatusCode::OK);
        assert_eq!(got.bytes, bytes, "{attachment}");
    }
    assert_stored_objects(app, 3).await;
}
on_both_backends!(upload_pairs_field_ids_and_files_by_position);

async fn field_ids_sent_after_the_files_still_pair_by_position(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    let parts = vec![
        file("a.png", "image/png", png(100)),
        file("b.txt", "text/plain", text(10)),
        Upload::FieldId(form.photo.clone()),
        Upload::FieldId(form.docs.clone()),
    ];
    // Act
    let reply = upload(app, &ann.token, &form.form_id, "", parts).await;
    // Assert
    let created = reply.expect(StatusCode::CREATED);
    let shown: Vec<Value> = created["attachments"].as_array().unwrap().iter().map(without_key).collect();
    assert_eq!(
        shown,
        [descriptor(&form.photo, "image/png", 100, "a.png"), descriptor(&form.docs, "text/plain", 10, "b.txt")]
    );
}
on_both_backends!(field_ids_sent_after_the_files_still_pair_by_position);

// ---------------------------------------------------------------------------------------------
// Validation: every problem listed, nothing stored

async fn every_pairing_problem_is_listed_and_nothing_is_stored(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    let unknown = uuid::Uuid::new_v4().to_string();
    let parts = vec![
        Upload::FieldId(unknown),
        Upload::FieldId(form.notes.clone()),
        Upload::FieldId(form.docs.clone()),
        Upload::FieldId("not-a-uuid".into()),
        file("a.txt", "text/plain", text(10)),
        file("b.txt", "text/plain", text(10)),
        file("empty.txt", "text/plain", Vec::new()),
    ];
    // Act
    let reply = upload(app, &ann.token, &form.form_id, "", parts).await;
    // Assert
    let error = reply.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
    assert_eq!(
        problems(&error),
        expected(&[
            ("/fieldIds", "COUNT_MISMATCH"),
            ("/fieldIds/0", "UNKNOWN_FIELD"),
            ("/fieldIds/1", "NOT_A_FILE_FIELD"),
            ("/fieldIds/3", "UNKNOWN_FIELD"),
            ("/files/2", "EMPTY_FILE"),
        ])
    );
    assert_eq!(all_descriptors(app, &ann.token, &form.form_id, &form.file_fields()).await, Vec::<Value>::new());
    assert_stored_objects(app, 0).await;
}
on_both_backends!(every_pairing_problem_is_listed_and_nothing_is_stored);

/// Issue 28 (conventions section 8): a file name with a bidirectional control or a zero-width
/// character can show another extension than it has (`invoice\u{202e}fdp.exe` shows as
/// "invoiceexe.pdf"); it is refused at its place, and nothing of the request is stored.
async fn file_names_that_disguise_their_extension_are_refused_and_nothing_is_stored(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    let parts = pairs(vec![
        (&form.docs, file("invoice\u{202E}fdp.exe", "application/pdf", pdf(300))),
        (&form.photo, file("me.png", "image/png", png(200))),
        (&form.docs, file("report\u{200B}.pdf", "application/pdf", pdf(300))),
        (&form.docs, file("a\u{2067}b.pdf", "application/pdf", pdf(300))),
    ]);
    // Browsers send the name as it is, in UTF-8 (no `filename*` encoding).
    let request = app
        .authed(reqwest::Method::POST, &crate::support::media::attachments_path(&form.form_id), &ann.token)
        .multipart(crate::support::media::multipart(parts).percent_encode_noop());
    // Act
    let reply = crate::support::media::send(app, request, false).await;
    // Assert
    let error = reply.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
    assert_eq!(
        problems(&error),
        expected(&[
            ("/files/0", "INVALID_FILENAME"),
            ("/files/2", "INVALID_FILENAME"),
            ("/files/3", "INVALID_FILENAME")
        ])
    );
    assert_eq!(all_descriptors(app, &ann.token, &form.form_id, &form.file_fields()).await, Vec::<Value>::new());
    assert_stored_objects(app, 0).await;
}
on_both_backends!(file_names_that_disguise_their_extension_are_refused_and_nothing_is_stored);

async fn more_files_than_field_ids_is_a_count_mismatch(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    let parts = vec![
        Upload::FieldId(form.docs.clone()),
        file("a.txt", "text/plain", text(10)),
        file("b.txt", "text/plain", text(10)),
    ];
    // Act
    let reply = upload(app, &ann.token, &form.form_id, "", parts).await;
    let no_file = upload(app, &ann.token, &form.form_id, "", vec![Upload::FieldId(form.docs.clone())]).await;
    // Assert
    let error = reply.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
    assert_eq!(problems(&error), expected(&[("/fieldIds", "COUNT_MISMATCH")]));
    let error = no_file.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
    assert_eq!(problems(&error), expected(&[("/fieldIds", "COUNT_MISMATCH"), ("/files", "REQUIRED")]));
    assert_eq!(descriptors_of(app, &ann.token, &form.form_id, &form.docs).await, Vec::<Value>::new());
    assert_stored_objects(app, 0).await;
}
on_both_backends!(more_files_than_field_ids_is_a_count_mismatch);

// ---------------------------------------------------------------------------------------------
// Types: `file.accept` and sniffing

async fn accept_matches_by_mime_type_and_by_extension(app: &TestApp) {
    // Arrange: docs accepts `.pdf` (extension) and `text/plain` (MIME type), not application/pdf.
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    // Act
    let by_extension = uploaded(
        app,
        &ann.token,
        &form.form_id,
        pairs(vec![(&form.docs, file("Scan.PDF", "application/pdf", pdf(100)))]),
    )
    .await;
    let by_mime =
        uploaded(app, &ann.token, &form.form_id, pairs(vec![(&form.docs, file("readme", "text/plain", text(20)))]))
            .await;
    let csv = upload(
        app,
        &ann.token,
        &form.form_id,
        "",
        pairs(vec![(&form.docs, file("data.csv", "text/csv", b"a,b\n1,2\n".to_vec()))]),
    )
    .await;
    let pdf_as_photo = upload(
        app,
        &ann.token,
        &form.form_id,
        "",
        pairs(vec![(&form.photo, file("scan.pdf", "application/pdf", pdf(100)))]),
    )
    .await;
    // Assert
    assert_eq!(without_key(&by_extension[0]), descriptor(&form.docs, "application/pdf", 100, "Scan.PDF"));
    assert_eq!(without_key(&by_mime[0]), descriptor(&form.docs, "text/plain", 20, "readme"));
    let error = csv.error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE");
    assert_eq!(error["numeric"], 810);
    assert_eq!(problems(&error), expected(&[("/files/0", "NOT_ACCEPTED")]));
    let error = pdf_as_photo.error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE");
    assert_eq!(problems(&error), expected(&[("/files/0", "NOT_ACCEPTED")]));
    assert_eq!(all_descriptors(app, &ann.token, &form.form_id, &form.file_fields()).await.len(), 2);
    assert_stored_objects(app, 2).await;
}
on_both_backends!(accept_matches_by_mime_type_and_by_extension);

async fn a_text_file_named_png_is_refused(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    // Act: declared image/png on a field taking PNG; and declared text/plain on a field taking
    // text/plain, where only the name claims an image.
    let declared_png = upload(
        app,
        &ann.token,
        &form.form_id,
        "",
        pairs(vec![(&form.photo, file("fake.png", "image/png", text(100)))]),
    )
    .await;
    let named_png = upload(
        app,
        &ann.token,
        &form.form_id,
        "",
        pairs(vec![(&form.docs, file("fake.png", "text/plain", text(100)))]),
    )
    .await;
    // Assert
    for reply in [declared_png, named_png] {
        let error = reply.error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE");
        assert_eq!(crate::support::forms::problems(&error).len(), 1, "{error}");
        assert_eq!(trellis_tests::detail_paths(&error), ["/files/0"]);
    }
    assert_eq!(all_descriptors(app, &ann.token, &form.form_id, &form.file_fields()).await, Vec::<Value>::new());
    assert_stored_objects(app, 0).await;
}
on_both_backends!(a_text_file_named_png_is_refused);

async fn a_png_declared_as_text_is_refused(app: &TestApp) {
    // Arrange: docs takes text/plain, so only the bytes can refuse it.
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    // Act
    let reply = upload(
        app,
        &ann.token,
        &form.form_id,
        "",
        pairs(vec![(&form.docs, file("picture.txt", "text/plain", png(300)))]),
    )
    .await;
    // Assert
    let error = reply.error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE");
    assert_eq!(trellis_tests::detail_paths(&error), ["/files/0"]);
    assert_eq!(descriptors_of(app, &ann.token, &form.form_id, &form.docs).await, Vec::<Value>::new());
    assert_stored_objects(app, 0).await;
}
on_both_backends!(a_png_declared_as_text_is_refused);

// ---------------------------------------------------------------------------------------------
// Sizes and counts

async fn a_file_over_max_bytes_is_413_and_nothing_is_stored(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    // Act: the field id first (cut off while streaming), and after the file (checked afterwards,
    // the form's largest cap having applied while streaming).
    let first = upload(
        app,
        &ann.token,
        &form.form_id,
        "",
        pairs(vec![(&form.photo, file("big.png", "image/png", png(PHOTO_MAX + 1)))]),
    )
    .await;
    let after = upload(
        app,
        &ann.token,
        &form.form_id,
        "",
        vec![file("big.png", "image/png", png(PHOTO_MAX + 1)), Upload::FieldId(form.photo.clone())],
    )
    .await;
    let exact = uploaded(
        app,
        &ann.token,
        &form.form_id,
        pairs(vec![(&form.photo, file("max.png", "image/png", png(PHOTO_MAX)))]),
    )
    .await;
    // Assert
    for reply in [first, after] {
        let error = reply.error(StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");
        assert_eq!(error["numeric"], 809);
        assert_eq!(problems(&error), expected(&[("/files/0", "TOO_LARGE")]));
    }
    assert_eq!(exact[0]["bytes"], PHOTO_MAX);
    assert_eq!(descriptors_of(app, &ann.token, &form.form_id, &form.photo).await, exact);
    assert_stored_objects(app, 1).await;
}
on_both_backends!(a_file_over_max_bytes_is_413_and_nothing_is_stored);

async fn a_second_file_on_a_single_file_field_is_409(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    let photo = |name: &str| (form.photo.as_str(), file(name, "image/png", png(100)));
    // Act
    let two_at_once = upload(app, &ann.token, &form.form_id, "", pairs(vec![photo("a.png"), photo("b.png")])).await;
    let first = uploaded(app, &ann.token, &form.form_id, pairs(vec![photo("c.png")])).await;
    let second = upload(app, &ann.token, &form.form_id, "", pairs(vec![photo("d.png")])).await;
    // Assert
    for reply in [two_at_once, second] {
        let error = reply.error(StatusCode::CONFLICT, "MAX_FILES_EXCEEDED");
        assert_eq!(error["numeric"], 811);
    }
    assert_eq!(descriptors_of(app, &ann.token, &form.form_id, &form.photo).await, first);
    assert_stored_objects(app, 1).await;
}
on_both_backends!(a_second_file_on_a_single_file_field_is_409);

async fn max_files_counts_the_files_already_stored(app: &TestApp) {
    // Arrange: docs holds at most 3.
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    // Each file's own text: identical bytes would be stored once.
    let doc = |name: &str| (form.docs.as_str(), file(name, "text/plain", [name.as_bytes(), &text(10)].concat()));
    // Act
    let two = uploaded(app, &ann.token, &form.form_id, pairs(vec![doc("1.txt"), doc("2.txt")])).await;
    let two_more = upload(app, &ann.token, &form.form_id, "", pairs(vec![doc("3.txt"), doc("4.txt")])).await;
    let third = uploaded(app, &ann.token, &form.form_id, pairs(vec![doc("3.txt")])).await;
    let fourth = upload(app, &ann.token, &form.form_id, "", pairs(vec![doc("4.txt")])).await;
    // Assert
    two_more.error(StatusCode::CONFLICT, "MAX_FILES_EXCEEDED");
    fourth.error(StatusCode::CONFLICT, "MAX_FILES_EXCEEDED");
    let mut stored = keys_of(&descriptors_of(app, &ann.token, &form.form_id, &form.docs).await);
    let mut expected_keys = keys_of(&[two, third].concat());
    stored.sort();
    expected_keys.sort();
    assert_eq!(stored, expected_keys);
    assert_stored_objects(app, 3).await;
}
on_both_backends!(max_files_counts_the_files_already_stored);

async fn concurrent_uploads_never_overfill_a_single_file_field(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    // Act
    let sends = (0..4).map(|i| {
        let parts = pairs(vec![(&form.photo, file(&format!("{i}.png"), "image/png", png(1000)))]);
        upload(app, &ann.token, &form.form_id, "", parts)
    });
    let replies = futures::future::join_all(sends).await;
    // Assert
    let statuses: Vec<StatusCode> = replies.iter().map(|r| r.status).collect();
    assert_eq!(statuses.iter().filter(|s| **s == StatusCode::CREATED).count(), 1, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == StatusCode::CONFLICT).count(), 3, "{statuses:?}");
    assert_eq!(descriptors_of(app, &ann.token, &form.form_id, &form.photo).await.len(), 1);
    assert_stored_objects(app, 1).await;
}
on_both_backends!(concurrent_uploads_never_overfill_a_single_file_field);

async fn one_bad_file_of_three_stores_none(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    let good = |name: &str| (form.docs.as_str(), file(name, "text/plain", text(2000)));
    // Act: the bad one last, so the good ones are already written when it is judged.
    let wrong_type = upload(
        app,
        &ann.token,
        &form.form_id,
        "",
        pairs(vec![good("a.txt"), good("b.txt"), (&form.docs, file("c.csv", "text/csv", b"a,b\n".to_vec()))]),
    )
    .await;
    let too_large = upload(
        app,
        &ann.token,
        &form.form_id,
        "",
        pairs(vec![good("a.txt"), good("b.txt"), (&form.docs, file("c.txt", "text/plain", text(DOCS_MAX + 1)))]),
    )
    .await;
    let unknown_field = upload(
        app,
        &ann.token,
        &form.form_id,
        "",
        pairs(vec![good("a.txt"), good("b.txt"), (&form.notes, file("c.txt", "text/plain", text(10)))]),
    )
    .await;
    // Assert
    let error = wrong_type.error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE");
    assert_eq!(trellis_tests::detail_paths(&error), ["/files/2"]);
    let error = too_large.error(StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");
    assert_eq!(trellis_tests::detail_paths(&error), ["/files/2"]);
    let error = unknown_field.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
    assert_eq!(problems(&error), expected(&[("/fieldIds/2", "NOT_A_FILE_FIELD")]));
    assert_eq!(all_descriptors(app, &ann.token, &form.form_id, &form.file_fields()).await, Vec::<Value>::new());
    assert_stored_objects(app, 0).await;
}
on_both_backends!(one_bad_file_of_three_stores_none);

// ---------------------------------------------------------------------------------------------
// The daily quota

fn three_uploads_a_day(config: &mut Config) {
    let plan: BTreeMap<String, u64> = [("forms.attachments.uploadPerDay".to_owned(), 3)].into();
    config.plans.insert("default".into(), plan);
}

async fn the_daily_upload_quota_counts_files_and_a_refused_upload_stores_nothing(app: &TestApp) {
    // Arrange: the deployment's key is on a plan of 3 uploaded files a day.
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    // Each file's own text: identical bytes would be stored once.
    let doc = |name: &str| (form.docs.as_str(), file(name, "text/plain", [name.as_bytes(), &text(10)].concat()));
    let photo = |name: &str| (form.photo.as_str(), file(name, "image/png", png(100)));
    // Act: refusals before the quota is reached must not use it up.
    let wrong_type = upload(
        app,
        &ann.token,
        &form.form_id,
        "",
        pairs(vec![doc("a.txt"), (&form.docs, file("c.csv", "text/csv", b"a,b\n".to_vec()))]),
    )
    .await;
    let first = uploaded(app, &ann.token, &form.form_id, pairs(vec![photo("a.png")])).await;
    let too_many = upload(app, &ann.token, &form.form_id, "", pairs(vec![photo("b.png")])).await;
    let second = uploaded(app, &ann.token, &form.form_id, pairs(vec![doc("1.txt")])).await;
    let over = upload(app, &ann.token, &form.form_id, "", pairs(vec![doc("2.txt"), doc("3.txt")])).await;
    let last = uploaded(app, &ann.token, &form.form_id, pairs(vec![doc("2.txt")])).await;
    let none_left = upload(app, &ann.token, &form.form_id, "", pairs(vec![doc("3.txt")])).await;
    // Assert
    wrong_type.error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE");
    too_many.error(StatusCode::CONFLICT, "MAX_FILES_EXCEEDED");
    for reply in [over, none_left] {
        let error = reply.error(StatusCode::FORBIDDEN, "ENTITLEMENT_LIMIT_EXCEEDED");
        assert_eq!(error["numeric"], 803);
        assert_eq!(error["details"][0]["path"], "forms.attachments.uploadPerDay");
    }
    let mut stored = keys_of(&all_descriptors(app, &ann.token, &form.form_id, &form.file_fields()).await);
    let mut expected_keys = keys_of(&[first, second, last].concat());
    stored.sort();
    expected_keys.sort();
    assert_eq!(stored, expected_keys);
    assert_stored_objects(app, 3).await;
}
on_both_backends!(the_daily_upload_quota_counts_files_and_a_refused_upload_stores_nothing, three_uploads_a_day);
