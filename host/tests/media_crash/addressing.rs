//! Bytes stored before content addressing (migration 0019), made here by undoing it on a stopped
//! server's data: every attachment gets an object of its own again (copies of one content
//! included) and loses its address. The restarted server addresses them as a start-up step; a
//! SIGKILL in the middle of that and a second start lose no byte, and the folder ends with one
//! object per distinct content, every download whole and tagged with its quoted SHA-256.

use std::path::Path;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::Value;
use sha2::{Digest, Sha256};
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Row, SqliteConnection};

use super::server::{Server, data_dir, json_ok};
use super::{BOUNDARY, Started, files_under, is_content, parse_name, slow_body};

/// Distinct contents, each stored `COPIES` times.
const CONTENTS: u32 = 50;
const COPIES: u32 = 6;

async fn database(dir: &Path) -> SqliteConnection {
    SqliteConnectOptions::new().filename(data_dir(dir).join("trellis.db")).connect().await.expect("the database")
}

async fn addressed(db: &mut SqliteConnection) -> i64 {
    sqlx::query("select count(*) from form_attachment where sha256 is not null")
        .fetch_one(db)
        .await
        .map(|row| row.get::<i64, _>(0))
        .unwrap_or(-1)
}

/// The number of files under `dir` once it is `expected`, or after 20 s: a copy of bytes held
/// already is removed in the background, after the upload has answered.
async fn settled_count(dir: &Path, expected: usize) -> usize {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut count = files_under(dir).len();
    while count != expected && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
        count = files_under(dir).len();
    }
    count
}

/// Gives every attachment an object of its own under a new key and forgets every address: the
/// state of a deployment that stored its media before content addressing.
async fn undo_addressing(dir: &Path) {
    let objects = data_dir(dir).join("media").join("objects");
    let mut db = database(dir).await;
    let rows = sqlx::query("select part_key, storage_key from form_attachment").fetch_all(&mut db).await.unwrap();
    let mut old_keys = Vec::new();
    for row in &rows {
        let (part_key, old): (String, String) = (row.get(0), row.get(1));
        let new = format!("forms/{}", uuid::Uuid::now_v7());
        std::fs::copy(objects.join(&old), objects.join(&new)).expect("copying an object");
        sqlx::query("update form_attachment set storage_key = $1, sha256 = null where part_key = $2")
            .bind(new)
            .bind(part_key)
            .execute(&mut db)
            .await
            .unwrap();
        old_keys.push(old);
    }
    sqlx::query("delete from media_blob").execute(&mut db).await.unwrap();
    for old in old_keys {
        let _ = std::fs::remove_file(objects.join(old));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killed_while_addressing_old_media_the_next_start_finishes_it_and_loses_nothing() {
    // Arrange: 300 attachments of 50 contents, stored once each by this server ...
    let Started { dir, client, mut server, key, session, form_id, field_id } = Started::new().await;
    for copy in 0..COPIES {
        let files: Vec<(u32, usize)> = (0..CONTENTS).map(|n| (n, 300_000 + n as usize * 13)).collect();
        let response = client
            .post(format!("{}/v0/media/forms/{form_id}/attachments", server.base))
            .header("X-License-Key", &key)
            .bearer_auth(&session)
            .header("Content-Type", format!("multipart/form-data; boundary={BOUNDARY}"))
            .body(slow_body(&field_id, files, 64 * 1024, Duration::ZERO))
            .send()
            .await
            .unwrap();
        json_ok(response, StatusCode::CREATED).await;
        let objects = settled_count(&data_dir(dir.path()).join("media").join("objects"), CONTENTS as usize).await;
        assert_eq!(objects, CONTENTS as usize, "after {} copies, identical bytes are stored once", copy + 1);
    }
    server.kill();
    // ... then turned into a deployment from before content addressing: one object per row.
    undo_addressing(dir.path()).await;
    let objects_dir = data_dir(dir.path()).join("media").join("objects");
    let total = (CONTENTS * COPIES) as i64;
    assert_eq!(files_under(&objects_dir).len() as i64, total);
    // Act: start; kill once the start-up step has addressed a few objects; start again.
    let mut second = Server::start(dir.path(), "second.log", &[]);
    let mut db = database(dir.path()).await;
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut at_kill = addressed(&mut db).await;
    while at_kill < 20 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(2)).await;
        at_kill = addressed(&mut db).await;
    }
    second.kill();
    let at_kill = addressed(&mut db).await;
    assert!(0 < at_kill && at_kill < total, "the kill should cut the addressing short: {at_kill} of {total} done");
    let mut third = Server::start(dir.path(), "third.log", &[("TRELLIS_MEDIA__SWEEP_GRACE_SECONDS", "0")]);
    third.ready(&client).await;
    // Assert: everything addressed, one object per content (the sweep removes what the killed
    // run freed but could not remove), every attachment whole and tagged with its SHA-256.
    let deadline = Instant::now() + Duration::from_secs(120);
    while (addressed(&mut db).await < total || files_under(&objects_dir).len() != CONTENTS as usize)
        && Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    eprintln!("{at_kill} of {total} objects were addressed at the kill");
    assert_eq!(addressed(&mut db).await, total, "every row has its address");
    assert_eq!(files_under(&objects_dir).len(), CONTENTS as usize, "one object per distinct content");
    let response = client
        .get(format!("{}/v0/forms/{form_id}", third.base))
        .header("X-License-Key", &key)
        .bearer_auth(&session)
        .send()
        .await
        .unwrap();
    let form = json_ok(response, StatusCode::OK).await;
    let descriptors: Vec<Value> =
        form["fields"].as_object().unwrap().values().filter_map(Value::as_array).flatten().cloned().collect();
    assert_eq!(descriptors.len() as i64, total);
    for descriptor in &descriptors {
        let part_key = descriptor["partKey"].as_str().unwrap();
        let response = client
            .get(format!("{}/v0/media/forms/{form_id}/attachments/{part_key}", third.base))
            .header("X-License-Key", &key)
            .bearer_auth(&session)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{descriptor}");
        let tag = response.headers()["etag"].to_str().unwrap().to_owned();
        let bytes = response.bytes().await.unwrap();
        let (n, len) = parse_name(descriptor["filename"].as_str().unwrap());
        assert!(bytes.len() == len && is_content(n, &bytes), "the bytes of {descriptor} differ");
        let digest: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(tag, format!("\"{digest}\""), "{descriptor}");
    }
    drop(third);
}
