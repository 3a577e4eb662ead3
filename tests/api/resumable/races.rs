//! Writers that race for one upload (Security III, finding 1): two PATCHes at the same offset, sent
//! at once, on one server or two. One is acknowledged and the other refused, and the bytes kept are
//! always the acknowledged ones, so a stale PATCH can never rewrite what the server acknowledged (and
//! with stored-once bytes, what every later upload of the genuine bytes would be served).

use reqwest::StatusCode;
use trellis_tests::{TestApp, spawn_app_beside};

use super::{assert_store_holds, attached, created, head, patch, terminate};
use crate::support::media::{download, media_form, on_both_backends};

/// Rounds of the race; before the claim a stale writer won a few rounds in a hundred.
const ROUNDS: usize = 40;

/// Races two PATCHes of `LEN` bytes at offset 0 of a new upload, through `first` and `second`
/// (the same server or two), `ROUNDS` times; asserts exactly one is acknowledged each time and the
/// upload then holds its bytes.
async fn race(first: &TestApp, second: &TestApp) {
    const LEN: usize = 24;
    let ann = first.sign_up("ann").await;
    let mut form = media_form(first, &ann.token).await;
    for round in 0..ROUNDS {
        if round % 10 == 9 {
            // The field takes ten files.
            form = media_form(first, &ann.token).await;
        }
        let upload_id = created(first, &ann.token, LEN, None).await;
        let bytes = |who: char| format!("round {round:03} by {who}{}", ".".repeat(LEN)).into_bytes()[..LEN].to_vec();
        let (a, b) = (bytes('a'), bytes('b'));
        let (sent_a, sent_b) = tokio::join!(
            patch(first, &ann.token, &upload_id, 0, a.clone()),
            patch(second, &ann.token, &upload_id, 0, b.clone()),
        );
        let acknowledged = match (sent_a.status, sent_b.status) {
            (StatusCode::NO_CONTENT, StatusCode::CONFLICT) => a,
            (StatusCode::CONFLICT, StatusCode::NO_CONTENT) => b,
            other => panic!("round {round}: one PATCH is acknowledged and the other refused, got {other:?}"),
        };
        let descriptors = attached(first, &ann.token, &form.form_id, &[&form.big], &[&upload_id]).await;
        let key = descriptors[0]["partKey"].as_str().expect("a part key");
        let read = download(first, &ann.token, &form.form_id, key, &[]).await;
        assert_eq!(read.status, StatusCode::OK);
        assert_eq!(
            String::from_utf8_lossy(&read.bytes),
            String::from_utf8_lossy(&acknowledged),
            "round {round}: the upload holds the acknowledged bytes"
        );
    }
}

async fn two_patches_at_one_offset_keep_the_acknowledged_bytes(app: &TestApp) {
    race(app, app).await;
}
on_both_backends!(two_patches_at_one_offset_keep_the_acknowledged_bytes);

#[tokio::test]
async fn two_patches_at_one_offset_through_two_servers_keep_the_acknowledged_bytes() {
    // Several servers share one database only on PostgreSQL.
    let test = "two_patches_at_one_offset_through_two_servers_keep_the_acknowledged_bytes";
    if std::env::var("TEST_DATABASE").map_or(true, |db| db != "postgres") {
        trellis_tests::note_skip(test, "several servers share a PostgreSQL database (TEST_DATABASE=postgres)");
        return;
    }
    // Two servers share bytes through S3 (each server's local files are its own).
    let Some(s3) = trellis_tests::s3_settings(test) else { return };
    let first = trellis_tests::spawn_app_on_s3(&s3, |_| {}).await;
    let second = spawn_app_beside(&first, |_| {}).await;
    race(&first, &second).await;
    second.stop_keeping_database().await;
    first.stop().await;
}

/// A DELETE racing a PATCH of the same upload, `ROUNDS` times: each round ends with the upload
/// whole (the PATCH acknowledged and the DELETE refused) or gone (HEAD 404), never a deleted upload
/// that a PATCH went on writing; and no bytes of a deleted upload stay behind.
async fn a_delete_racing_a_patch_leaves_the_whole_upload_or_nothing(app: &TestApp) {
    const LEN: usize = 24;
    let ann = app.sign_up("ann").await;
    let mut form = media_form(app, &ann.token).await;
    let mut kept = 0;
    for round in 0..ROUNDS {
        let upload_id = created(app, &ann.token, LEN, None).await;
        let bytes = format!("round {round:03}{}", ".".repeat(LEN)).into_bytes()[..LEN].to_vec();
        let (patched, deleted) =
            tokio::join!(patch(app, &ann.token, &upload_id, 0, bytes.clone()), terminate(app, &ann.token, &upload_id));
        let after = head(app, &ann.token, &upload_id).await;
        match (patched.status, deleted.status) {
            // The DELETE came after the PATCH ended, or before it began: gone either way.
            (StatusCode::NO_CONTENT | StatusCode::CONFLICT | StatusCode::NOT_FOUND, StatusCode::NO_CONTENT) => {
                assert_eq!(after.status, StatusCode::NOT_FOUND, "round {round}: a deleted upload is gone");
            }
            // The DELETE found the PATCH writing: the upload is whole.
            (StatusCode::NO_CONTENT, StatusCode::CONFLICT) => {
                assert_eq!(after.status, StatusCode::OK, "round {round}");
                if kept % 10 == 9 {
                    form = media_form(app, &ann.token).await;
                }
                let descriptors = attached(app, &ann.token, &form.form_id, &[&form.big], &[&upload_id]).await;
                let key = descriptors[0]["partKey"].as_str().expect("a part key");
                let read = download(app, &ann.token, &form.form_id, key, &[]).await;
                assert_eq!(read.bytes, bytes, "round {round}: the upload holds the acknowledged bytes");
                kept += 1;
            }
            other => panic!("round {round}: a PATCH and a DELETE at once answered {other:?}"),
        }
    }
    eprintln!("{kept} of {ROUNDS} uploads outlived their DELETE");
    assert_store_holds(app, kept).await;
}
on_both_backends!(a_delete_racing_a_patch_leaves_the_whole_upload_or_nothing);
