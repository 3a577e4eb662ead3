//! Hand-made multipart bodies against the upload route (issue 11, finding 4): endless part
//! headers, floods of parts, and requests larger than the form could ever accept.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::Value;
use trellis_tests::{TestApp, assert_error, spawn_app};

use crate::support::forms::{config_with, created_config, field, field_ids};
use crate::support::media::{attachments_path, media_form, new_instance};

const BOUNDARY: &str = "XtrellisBoundaryX";

async fn post_raw(app: &TestApp, token: &str, form_id: &str, body: Vec<u8>) -> reqwest::Response {
    app.authed(reqwest::Method::POST, &attachments_path(form_id), token)
        .header("content-type", format!("multipart/form-data; boundary={BOUNDARY}"))
        .body(body)
        .send()
        .await
        .expect("an answer")
}

fn text_part(name: &str, value: &str) -> String {
    format!("--{BOUNDARY}\r\ncontent-disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n")
}

/// An instance of a form with one small file field (1,000 bytes, one file); answers (form, field).
async fn small_form(app: &TestApp, token: &str) -> (String, String) {
    let mut scan = field("scan", "file");
    scan["file"] = serde_json::json!({"maxBytes": 1000});
    let view: Value = created_config(app, token, config_with(vec![scan])).await;
    (new_instance(app, token, &view).await, field_ids(&view)["scan"].clone())
}

#[tokio::test]
async fn an_endless_part_header_is_cut_off_early() {
    // Arrange: one header line of 8 MB that never ends, to a form that takes large files.
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let form_id = media_form(&app, &ann.token).await.form_id;
    let mut body =
        format!("--{BOUNDARY}\r\ncontent-disposition: form-data; name=\"files\"; filename=\"a.txt\"\r\nx-junk: ")
            .into_bytes();
    body.extend(std::iter::repeat_n(b'a', 8 << 20));
    // Act
    let started = Instant::now();
    let response = post_raw(&app, &ann.token, &form_id, body).await;
    // Assert
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(error["details"][0]["code"], "PART_HEADERS_TOO_LARGE", "{error}");
    assert!(started.elapsed() < Duration::from_secs(20), "took {:?}", started.elapsed());
    app.stop().await;
}

#[tokio::test]
async fn a_flood_of_parts_is_refused_with_one_problem() {
    // Arrange: 10,000 fieldIds parts, to a form that takes large files.
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let form = media_form(&app, &ann.token).await;
    let (form_id, field_id) = (form.form_id, form.big);
    let mut body = (0..10_000).map(|_| text_part("fieldIds", &field_id)).collect::<String>();
    body.push_str(&format!("--{BOUNDARY}--\r\n"));
    // Act
    let response = post_raw(&app, &ann.token, &form_id, body.into_bytes()).await;
    // Assert
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    let details = error["details"].as_array().unwrap();
    assert_eq!(details.len(), 1, "{error}");
    assert_eq!(details[0]["code"], "TOO_MANY_PARTS");
    app.stop().await;
}

#[tokio::test]
async fn a_request_larger_than_the_form_could_accept_is_refused_before_it_is_read() {
    // Arrange: the form takes one file of 1,000 bytes; the request announces 2 MB.
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let (form_id, _) = small_form(&app, &ann.token).await;
    let mut body =
        format!("--{BOUNDARY}\r\ncontent-disposition: form-data; name=\"other\"; filename=\"a.bin\"\r\n\r\n")
            .into_bytes();
    body.extend(std::iter::repeat_n(b'z', 2 << 20));
    body.extend(format!("\r\n--{BOUNDARY}--\r\n").into_bytes());
    // Act
    let response = post_raw(&app, &ann.token, &form_id, body).await;
    // Assert
    assert_error(response, StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE").await;
    app.stop().await;
}

/// Issue 11, finding 9: the deployment's file ceiling holds whatever `file.maxBytes` says, and the
/// bytes uploaded per day are counted, not only the files.
#[tokio::test]
async fn the_deployment_ceiling_and_the_daily_bytes_bound_uploads() {
    use crate::support::media::{file, pairs, text, upload};
    // Arrange: docs allows 64 KiB per file; the deployment 20,000 bytes; the plan 30,000 bytes a day.
    let app = trellis_tests::spawn_app_with(|config| {
        config.media.max_file_bytes = 20_000;
        config.plans.insert(
            "default".into(),
            std::collections::BTreeMap::from([("forms.attachments.uploadBytesPerDay".to_owned(), 30_000)]),
        );
    })
    .await;
    let ann = app.sign_up("ann").await;
    let form = media_form(&app, &ann.token).await;
    let doc = |len: usize| pairs(vec![(&form.docs, file("a.txt", "text/plain", text(len)))]);
    // Act
    let over_ceiling = upload(&app, &ann.token, &form.form_id, "", doc(25_000)).await;
    let first = upload(&app, &ann.token, &form.form_id, "", doc(18_000)).await;
    let over_the_day = upload(&app, &ann.token, &form.form_id, "", doc(18_000)).await;
    // Assert
    over_ceiling.error(StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");
    first.expect(StatusCode::CREATED);
    let error = over_the_day.error(StatusCode::FORBIDDEN, "ENTITLEMENT_LIMIT_EXCEEDED");
    assert_eq!(error["details"][0]["path"], "forms.attachments.uploadBytesPerDay");
    app.stop().await;
}
