//! Bytes stored once (conventions section 14, "Stored bytes"), on both media backends: identical
//! bytes are one object however many attachments, avatars, assets or users name them, whether they
//! came in a multipart part or a resumable upload, one after another or all at once; a download's
//! `ETag` is the quoted SHA-256 of its bytes; the object goes with the last name, and the same
//! bytes sent again afterwards are stored anew.

use reqwest::{Method, StatusCode};
use serde_json::Value;
use sha2::{Digest, Sha256};
use sqlx::Connection;
use trellis_tests::TestApp;

use crate::resumable::{attached, finished};
use crate::support::media::{
    Reply, assert_stored_objects, delete, download, file, media_form, noise, on_both_backends, pairs, png, uploaded,
};

fn address(bytes: &[u8]) -> String {
    let digest: String = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{digest}\"")
}

/// Downloads every descriptor of `form_id` and asserts bytes and tag.
async fn assert_downloads(app: &TestApp, token: &str, form_id: &str, descriptors: &[Value], bytes: &[u8]) {
    for descriptor in descriptors {
        let key = descriptor["partKey"].as_str().unwrap();
        let read = download(app, token, form_id, key, &[]).await;
        assert_eq!(read.status, StatusCode::OK, "{descriptor}");
        assert!(read.bytes == bytes, "the bytes of {descriptor} differ");
        assert_eq!(read.header("etag"), Some(address(bytes)), "the tag of {descriptor}");
    }
}

async fn identical_bytes_are_one_object_whoever_sends_them(app: &TestApp) {
    // Arrange
    let (ann, bob) = (app.sign_up("ann").await, app.sign_up("bob").await);
    let (ann_form, bob_form) = (media_form(app, &ann.token).await, media_form(app, &bob.token).await);
    let (same, other) = (noise(300_000, 3), noise(300_000, 4));
    // Act: twice in one request, once more later, once by another user, once through tus.
    let mut anns = uploaded(
        app,
        &ann.token,
        &ann_form.form_id,
        pairs(vec![
            (&ann_form.big, file("a.bin", "application/octet-stream", same.clone())),
            (&ann_form.big, file("b.bin", "application/octet-stream", same.clone())),
        ]),
    )
    .await;
    let big = &ann_form.big;
    anns.extend(
        uploaded(
            app,
            &ann.token,
            &ann_form.form_id,
            pairs(vec![(big, file("c.bin", "application/octet-stream", same.clone()))]),
        )
        .await,
    );
    let upload_id = finished(app, &ann.token, "d.bin", "application/octet-stream", &same).await;
    anns.extend(attached(app, &ann.token, &ann_form.form_id, &[big], &[&upload_id]).await);
    let bobs = uploaded(
        app,
        &bob.token,
        &bob_form.form_id,
        pairs(vec![(&bob_form.big, file("e.bin", "application/octet-stream", same.clone()))]),
    )
    .await;
    // Assert
    assert_eq!(anns.len(), 4);
    assert_stored_objects(app, 1).await;
    assert_downloads(app, &ann.token, &ann_form.form_id, &anns, &same).await;
    assert_downloads(app, &bob.token, &bob_form.form_id, &bobs, &same).await;
    let others = uploaded(
        app,
        &bob.token,
        &bob_form.form_id,
        pairs(vec![(&bob_form.big, file("f.bin", "application/octet-stream", other.clone()))]),
    )
    .await;
    assert_stored_objects(app, 2).await;
    assert_downloads(app, &bob.token, &bob_form.form_id, &others, &other).await;
}
on_both_backends!(identical_bytes_are_one_object_whoever_sends_them);

async fn the_object_goes_with_its_last_name_and_comes_back_with_the_next(app: &TestApp) {
    // Arrange: two attachments of the same bytes.
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    let bytes = noise(100_000, 9);
    let sent = |name: &str| file(name, "application/octet-stream", bytes.clone());
    let two =
        uploaded(app, &ann.token, &form.form_id, pairs(vec![(&form.big, sent("a")), (&form.big, sent("b"))])).await;
    let key = |d: &Value| d["partKey"].as_str().unwrap().to_owned();
    let field = format!("?fieldId={}", form.big);
    // Act + Assert: the first delete leaves the bytes to the other name ...
    let removed = delete(app, &ann.token, &form.form_id, &key(&two[0]), &field).await;
    assert_eq!(removed.status, StatusCode::NO_CONTENT);
    assert_stored_objects(app, 1).await;
    assert_downloads(app, &ann.token, &form.form_id, &two[1..], &bytes).await;
    // ... the second takes them away ...
    let removed = delete(app, &ann.token, &form.form_id, &key(&two[1]), &field).await;
    assert_eq!(removed.status, StatusCode::NO_CONTENT);
    assert_stored_objects(app, 0).await;
    // ... and the same bytes sent again are stored anew.
    let again = uploaded(app, &ann.token, &form.form_id, pairs(vec![(&form.big, sent("c"))])).await;
    assert_stored_objects(app, 1).await;
    assert_downloads(app, &ann.token, &form.form_id, &again, &bytes).await;
}
on_both_backends!(the_object_goes_with_its_last_name_and_comes_back_with_the_next);

async fn parallel_uploads_of_one_content_keep_one_object_and_every_name(app: &TestApp) {
    // Arrange
    let ann = app.sign_up("ann").await;
    let form = media_form(app, &ann.token).await;
    let bytes = noise(200_000, 5);
    // Act: eight requests at once, each with the same bytes.
    let sends = (0..8).map(|i| {
        let parts = pairs(vec![(&form.big, file(&format!("{i}.bin"), "application/octet-stream", bytes.clone()))]);
        uploaded(app, &ann.token, &form.form_id, parts)
    });
    let descriptors: Vec<Value> = futures::future::join_all(sends).await.into_iter().flatten().collect();
    // Assert
    assert_eq!(descriptors.len(), 8);
    assert_stored_objects(app, 1).await;
    assert_downloads(app, &ann.token, &form.form_id, &descriptors, &bytes).await;
}
on_both_backends!(parallel_uploads_of_one_content_keep_one_object_and_every_name);

async fn avatar(app: &TestApp, token: &str, bytes: Vec<u8>) -> Reply {
    let part = reqwest::multipart::Part::bytes(bytes).file_name("me.png").mime_str("image/png").unwrap();
    let form = reqwest::multipart::Form::new().part("file", part);
    let request = app.authed(Method::POST, "/v0/media/users/me/avatar", token).multipart(form);
    crate::support::media::send(app, request, false).await
}

async fn avatars_and_attachments_share_bytes_and_each_keeps_them(app: &TestApp) {
    // Arrange: a picture as an attachment, then as two users' avatars, then as one avatar again.
    let (ann, bob) = (app.sign_up("ann").await, app.sign_up("bob").await);
    let form = media_form(app, &ann.token).await;
    let picture = png(3000);
    let photo = uploaded(
        app,
        &ann.token,
        &form.form_id,
        pairs(vec![(&form.photo, file("p.png", "image/png", picture.clone()))]),
    )
    .await;
    // Act
    avatar(app, &ann.token, picture.clone()).await.expect(StatusCode::CREATED);
    avatar(app, &bob.token, picture.clone()).await.expect(StatusCode::CREATED);
    avatar(app, &ann.token, picture.clone()).await.expect(StatusCode::CREATED);
    // Assert: one object; removing both avatars leaves it to the attachment.
    assert_stored_objects(app, 1).await;
    for user in [&ann, &bob] {
        let removed = app.authed(Method::DELETE, "/v0/media/users/me/avatar", &user.token).send().await.unwrap();
        assert_eq!(removed.status(), StatusCode::NO_CONTENT);
    }
    assert_stored_objects(app, 1).await;
    assert_downloads(app, &ann.token, &form.form_id, &photo, &picture).await;
}
on_both_backends!(avatars_and_attachments_share_bytes_and_each_keeps_them);

async fn two_dozen_avatar_writes_at_once_leave_every_other_copy_of_their_bytes_readable(app: &TestApp) {
    // Arrange: ann keeps a picture as an attachment; bob, who could read it, makes it his avatar.
    let (ann, bob) = (app.sign_up("ann").await, app.sign_up("bob").await);
    let form = media_form(app, &ann.token).await;
    let picture = png(3000);
    let kept = uploaded(
        app,
        &ann.token,
        &form.form_id,
        pairs(vec![(&form.photo, file("p.png", "image/png", picture.clone()))]),
    )
    .await;
    avatar(app, &bob.token, picture.clone()).await.expect(StatusCode::CREATED);
    // Act: 24 writes of bob's avatar at once, each of which reads the avatar it replaces: 20 new
    // pictures, the shared one again twice, and two deletes.
    let writes = (0..24).map(|i| {
        let bob = &bob;
        let picture = &picture;
        async move {
            match i {
                0 | 12 => {
                    let sent = app.authed(Method::DELETE, "/v0/media/users/me/avatar", &bob.token).send().await;
                    // The other delete may have come first, or the avatar may be a new one's.
                    let status = sent.expect("request sent").status();
                    assert!([StatusCode::NO_CONTENT, StatusCode::NOT_FOUND].contains(&status), "{status}");
                }
                6 | 18 => drop(avatar(app, &bob.token, picture.clone()).await.expect(StatusCode::CREATED)),
                _ => drop(avatar(app, &bob.token, png(3000 + i)).await.expect(StatusCode::CREATED)),
            }
        }
    });
    futures::future::join_all(writes).await;
    // Assert: ann's copy reads back whole, and every count of names matches the rows that name them.
    assert_downloads(app, &ann.token, &form.form_id, &kept, &picture).await;
    sqlx::any::install_default_drivers();
    let mut conn = sqlx::AnyConnection::connect(&app.config.database_url()).await.unwrap();
    let wrong: i64 = sqlx::query_scalar(
        "select count(*) from media_blob b where b.refs <> \
           (select count(*) from user_avatar a where a.storage_key = b.storage_key) \
         + (select count(*) from form_attachment f where f.storage_key = b.storage_key) \
         + (select count(*) from published_asset p where p.storage_key = b.storage_key)",
    )
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(wrong, 0, "every blob's reference count equals the rows that name it");
}
on_both_backends!(two_dozen_avatar_writes_at_once_leave_every_other_copy_of_their_bytes_readable);
