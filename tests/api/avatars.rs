//! Avatars (conventions 12 and 13) and an unreachable media store.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{TestApp, spawn_app_with};

use crate::support::media::{
    Upload, all_descriptors, assert_stored_objects, file, media_form, on_both_backends, pairs, pdf, png, send,
    store_contents, text, upload,
};

// ---------------------------------------------------------------------------------------------
// Avatars

async fn avatar(app: &TestApp, token: &str, file: Upload) -> crate::support::media::Reply {
    let Upload::File { name, mime, bytes } = file else { panic!("a file") };
    let mut part = reqwest::multipart::Part::bytes(bytes).file_name(name);
    if let Some(mime) = mime {
        part = part.mime_str(&mime).unwrap();
    }
    let form = reqwest::multipart::Form::new().part("file", part);
    send(app, app.authed(Method::POST, "/v0/media/users/me/avatar", token).multipart(form), false).await
}

async fn me(app: &TestApp, token: &str) -> Value {
    send(app, app.authed(Method::GET, "/v0/users/me", token), false).await.expect(StatusCode::OK)
}

fn avatar_path(avatar: &Value) -> String {
    format!(
        "/v0/media/users/{}/{}/avatar/{}",
        avatar["dbHash"].as_str().unwrap(),
        avatar["userId"].as_str().unwrap(),
        avatar["picId"].as_str().unwrap()
    )
}

async fn get_avatar(app: &TestApp, token: &str, path: &str) -> crate::support::media::Reply {
    send(app, app.authed(Method::GET, path, token), true).await
}

async fn an_avatar_shows_in_the_profile_and_downloads(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let image = png(5000);
    // Act
    let reply = avatar(app, &ann.token, file("me.png", "image/png", image.clone())).await;
    let profile = me(app, &ann.token).await;
    // Assert
    let created = reply.expect(StatusCode::CREATED);
    let pic_id = created["picId"].as_str().expect("a picId").to_owned();
    assert_eq!(created, json!({"picId": pic_id, "contentType": "image/png", "bytes": 5000}));
    let shown = &profile["avatar"];
    assert_eq!(shown["userId"], ann.user_id);
    assert_eq!(shown["picId"], pic_id);
    assert!(shown["dbHash"].as_str().is_some_and(|h| !h.is_empty()), "{profile}");
    assert_eq!(shown.as_object().unwrap().len(), 3, "{shown}");
    for token in [&ann.token, &bob.token] {
        let got = get_avatar(app, token, &avatar_path(shown)).await;
        assert_eq!(got.status, StatusCode::OK);
        assert_eq!(got.header("content-type").as_deref(), Some("image/png"));
        assert_eq!(got.header("content-length").as_deref(), Some("5000"));
        assert!(got.bytes == image);
    }
    let search = send(app, app.authed(Method::GET, "/v0/users/search?q=ann", &bob.token), false).await;
    assert_eq!(search.expect(StatusCode::OK)["items"][0]["avatar"], *shown);
    assert_stored_objects(app, 1).await;
}
on_both_backends!(an_avatar_shows_in_the_profile_and_downloads);

async fn avatar_urls_are_checked_part_by_part(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    avatar(app, &ann.token, file("me.png", "image/png", png(500))).await.expect(StatusCode::CREATED);
    let shown = me(app, &ann.token).await["avatar"].clone();
    let with = |key: &str, value: &str| {
        let mut changed = shown.clone();
        changed[key] = json!(value);
        avatar_path(&changed)
    };
    // Act
    let replies = [
        get_avatar(app, &ann.token, &with("dbHash", "0000000000000000")).await,
        get_avatar(app, &ann.token, &with("userId", &bob.user_id)).await,
        get_avatar(app, &ann.token, &with("userId", "not-a-user")).await,
        get_avatar(app, &ann.token, &with("picId", "0123456789abcdef0123456789abcdef")).await,
    ];
    // Assert
    for reply in replies {
        reply.error(StatusCode::NOT_FOUND, "NOT_FOUND");
    }
    assert_eq!(get_avatar(app, &ann.token, &avatar_path(&shown)).await.status, StatusCode::OK);
}
on_both_backends!(avatar_urls_are_checked_part_by_part);

async fn avatars_must_be_images_of_at_most_2_mib(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    // Act
    let not_image = avatar(app, &ann.token, file("me.txt", "text/plain", text(100))).await;
    let pdf_named_png = avatar(app, &ann.token, file("me.png", "image/png", pdf(100))).await;
    let too_large = avatar(app, &ann.token, file("me.png", "image/png", png(2 * 1024 * 1024 + 1))).await;
    let exactly = avatar(app, &ann.token, file("me.png", "image/png", png(2 * 1024 * 1024))).await;
    // Assert
    not_image.error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE");
    pdf_named_png.error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE");
    too_large.error(StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");
    assert_eq!(exactly.expect(StatusCode::CREATED)["bytes"], 2 * 1024 * 1024);
    assert_stored_objects(app, 1).await;
}
on_both_backends!(avatars_must_be_images_of_at_most_2_mib);

/// Issue 28 (conventions section 8): an avatar's part name that hides its extension is refused.
async fn an_avatar_whose_file_name_disguises_its_extension_is_refused(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let part = reqwest::multipart::Part::bytes(png(500)).file_name("me\u{202E}gnp.exe").mime_str("image/png").unwrap();
    let form = reqwest::multipart::Form::new().percent_encode_noop().part("file", part);
    // Act
    let reply =
        send(app, app.authed(Method::POST, "/v0/media/users/me/avatar", &ann.token).multipart(form), false).await;
    let profile = me(app, &ann.token).await;
    // Assert
    let error = reply.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
    assert_eq!(
        error["details"],
        json!([{"path": "/file", "code": "INVALID_FILENAME",
        "message": "must not hold control, bidirectional or zero-width characters, which can disguise its extension"}])
    );
    assert_eq!(profile["avatar"], Value::Null);
    assert_stored_objects(app, 0).await;
}
on_both_backends!(an_avatar_whose_file_name_disguises_its_extension_is_refused);

async fn a_new_avatar_replaces_the_old_and_delete_clears_it(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    avatar(app, &ann.token, file("one.png", "image/png", png(300))).await.expect(StatusCode::CREATED);
    let old = me(app, &ann.token).await["avatar"].clone();
    // Act
    let jpeg = [b"\xff\xd8\xff\xe0\0\x10JFIF\0".as_slice(), &text(400)].concat();
    let replaced = avatar(app, &ann.token, file("two.jpg", "image/jpeg", jpeg.clone())).await;
    let new = me(app, &ann.token).await["avatar"].clone();
    let old_read = get_avatar(app, &ann.token, &avatar_path(&old)).await;
    let new_read = get_avatar(app, &ann.token, &avatar_path(&new)).await;
    let objects_before_delete = store_contents(app).await.objects;
    let deleted = send(app, app.authed(Method::DELETE, "/v0/media/users/me/avatar", &ann.token), false).await;
    let after = me(app, &ann.token).await;
    let new_after_delete = get_avatar(app, &ann.token, &avatar_path(&new)).await;
    // Assert
    let created = replaced.expect(StatusCode::CREATED);
    assert_eq!(created["contentType"], "image/jpeg");
    assert_ne!(new["picId"], old["picId"]);
    assert_eq!(new["picId"], created["picId"]);
    old_read.error(StatusCode::NOT_FOUND, "NOT_FOUND");
    assert_eq!(new_read.header("content-type").as_deref(), Some("image/jpeg"));
    assert_eq!((new_read.status, new_read.bytes), (StatusCode::OK, jpeg));
    assert_eq!(objects_before_delete.len(), 1, "the replaced avatar's bytes are removed: {objects_before_delete:?}");
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    assert_eq!(after["avatar"], Value::Null);
    new_after_delete.error(StatusCode::NOT_FOUND, "NOT_FOUND");
    assert_stored_objects(app, 0).await;
}
on_both_backends!(a_new_avatar_replaces_the_old_and_delete_clears_it);

// ---------------------------------------------------------------------------------------------
// An unreachable store

#[tokio::test]
async fn an_unreachable_store_answers_503_with_retry_after_and_records_nothing() {
    // Arrange: an S3 store on a port where nothing listens.
    let app = spawn_app_with(|config| {
        config.media.backend = trellis::config::media::MediaBackend::S3;
        config.media.s3 = trellis::config::media::S3Config {
            endpoint: "http://127.0.0.1:1".into(),
            region: "garage".into(),
            bucket: "unreachable-bucket".into(),
            access_key: "GKunreachable".into(),
            secret_key: "secret".into(),
            path_style: true,
            timeout_seconds: 2,
        };
    })
    .await;
    let ann = app.sign_up("ann").await;
    let form = media_form(&app, &ann.token).await;
    // Act
    let reply =
        upload(&app, &ann.token, &form.form_id, "", pairs(vec![(&form.docs, file("a.txt", "text/plain", text(10)))]))
            .await;
    let avatar_reply = avatar(&app, &ann.token, file("me.png", "image/png", png(100))).await;
    // Assert
    for reply in [reply, avatar_reply] {
        let error = reply.error(StatusCode::SERVICE_UNAVAILABLE, "MEDIA_UNAVAILABLE");
        assert_eq!(error["numeric"], 812);
        let retry = reply.header("retry-after").expect("a Retry-After");
        assert!(retry.parse::<u64>().is_ok_and(|s| s >= 1), "{retry}");
        let text = String::from_utf8_lossy(&reply.bytes);
        assert!(!text.contains("unreachable-bucket") && !text.contains("127.0.0.1:1"), "{text}");
    }
    assert_eq!(all_descriptors(&app, &ann.token, &form.form_id, &form.file_fields()).await, Vec::<Value>::new());
    assert_eq!(me(&app, &ann.token).await["avatar"], Value::Null);
    app.stop().await;
}
