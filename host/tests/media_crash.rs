//! The real `trellis` binary killed (SIGKILL) in the middle of concurrent uploads of form
//! attachments and of published assets: after a restart whose start-up sweep treats every
//! unfinished upload as dead, each descriptor's and each asset's bytes are there in full, no stray
//! object or temporary file remains, and every upload answered 201 before the kill survived.
//! The same for resumable (tus) uploads cut mid-PATCH (module `tus` beside this file), and for
//! the start-up step that moves media stored before content addressing to it (`addressing`).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[path = "media_crash/addressing.rs"]
mod addressing;
#[path = "media_crash/load.rs"]
mod load;
use crate::support::server;
#[path = "media_crash/tus.rs"]
mod tus;

use bytes::Bytes;
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

use load::{Holdings, Load};
use server::{Server, data_dir, json_ok, sign_up};

const BOUNDARY: &str = "trellis-crash-test-boundary";
const MIB: usize = 1024 * 1024;

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            found.push(path);
        }
    }
    found
}

/// Length of the noise block every file's bytes are cut from (a prime, so files of different
/// numbers start at different offsets and no chunk size lines up with it).
const BLOCK: usize = 1_048_573;

/// The noise block twice over, so that any `BLOCK`-long window is one contiguous slice.
fn doubled_block() -> &'static Bytes {
    static DOUBLED: std::sync::OnceLock<Bytes> = std::sync::OnceLock::new();
    DOUBLED.get_or_init(|| {
        let block: Vec<u8> = (0..BLOCK).map(|i| ((i % 251) as u8) ^ ((i >> 11) as u8).wrapping_mul(7)).collect();
        Bytes::from([block.as_slice(), block.as_slice()].concat())
    })
}

/// `len` bytes of upload `n` from `offset` on (`len` at most `BLOCK`), without copying.
fn content_at(n: u32, offset: usize, len: usize) -> Bytes {
    assert!(len <= BLOCK);
    let start = (offset + n as usize * 7919) % BLOCK;
    doubled_block().slice(start..start + len)
}

/// Whether `bytes` are exactly the bytes of upload `n`.
fn is_content(n: u32, bytes: &[u8]) -> bool {
    bytes.chunks(BLOCK).enumerate().all(|(i, chunk)| *chunk == content_at(n, i * BLOCK, chunk.len())[..])
}

/// The file name carries the upload number and length, so the bytes can be checked afterwards.
fn name_of(n: u32, len: usize) -> String {
    format!("f{n}-{len}.bin")
}

fn parse_name(name: &str) -> (u32, usize) {
    let (n, len) = name.trim_start_matches('f').trim_end_matches(".bin").split_once('-').unwrap();
    (n.parse().unwrap(), len.parse().unwrap())
}

fn file_head(part: &str, name: &str) -> String {
    format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{part}\"; filename=\"{name}\"\r\n\
         Content-Type: application/octet-stream\r\n\r\n"
    )
}

/// A multipart body for `files` (number, length) on `field`, the bytes sent in chunks of
/// `chunk` with `pause` between them.
fn slow_body(field: &str, files: Vec<(u32, usize)>, chunk: usize, pause: Duration) -> reqwest::Body {
    let mut head = String::new();
    for _ in &files {
        head.push_str(&format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"fieldIds\"\r\n\r\n{field}\r\n"));
    }
    reqwest::Body::wrap_stream(async_stream(head, "files", files, chunk, pause))
}

/// A multipart body holding file `n` of `len` bytes in the one part named `file` of an asset upload.
fn slow_asset_body(n: u32, len: usize, chunk: usize, pause: Duration) -> reqwest::Body {
    reqwest::Body::wrap_stream(async_stream(String::new(), "file", vec![(n, len)], chunk, pause))
}

fn async_stream(
    head: String,
    part: &'static str,
    files: Vec<(u32, usize)>,
    chunk: usize,
    pause: Duration,
) -> impl futures::Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static {
    let mut pieces: Vec<(Bytes, bool)> = vec![(Bytes::from(head), false)];
    for (n, len) in files {
        pieces.push((Bytes::from(file_head(part, &name_of(n, len))), false));
        let mut from = 0;
        while from < len {
            let to = (from + chunk).min(len);
            pieces.push((content_at(n, from, to - from), true));
            from = to;
        }
        pieces.push((Bytes::from_static(b"\r\n"), false));
    }
    pieces.push((Bytes::from(format!("--{BOUNDARY}--\r\n")), false));
    futures::stream::unfold(pieces.into_iter(), move |mut rest| async move {
        let (piece, slow) = rest.next()?;
        if slow && !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
        Some((Ok(piece), rest))
    })
}

/// A configuration with one file field taking up to 1000 files of 64 MiB; answers (form id,
/// field id) of a new instance.
async fn form_with_a_file_field(client: &Client, base: &str, key: &str, session: &str) -> (String, String) {
    let field_id = uuid::Uuid::new_v4().to_string();
    let config = json!({
        "version": "1.0.0",
        "controls": {"enableLogging": false},
        "metadata": {"captureTimestamp": false, "captureTags": false, "captureSummary": false, "captureLocation": false},
        "integrations": {"allowSpaceAssociations": false, "allowWorkflowStarts": false},
        "translations": {
            "defaultLanguage": "en",
            "en": {"details": {"title": "Crash"}, "pages": {"p1": {"title": "Page", "fields": {"f": {"label": "Files"}}}}},
        },
        "pages": [{
            "id": uuid::Uuid::new_v4().to_string(), "key": "p1", "order": 1, "title": "$.pages.p1.title",
            "fields": [{
                "id": field_id, "key": "f", "order": 1, "type": "file", "value": "", "label": "$.pages.p1.fields.f.label",
                "visible": true, "editable": true, "required": false,
                "file": {"maxBytes": 64 * MIB, "multiple": true, "maxFiles": 1000},
            }],
        }],
    });
    let created = client
        .post(format!("{base}/v0/forms/configurations"))
        .header("X-License-Key", key)
        .bearer_auth(session)
        .json(&json!({"config": config}))
        .send()
        .await
        .unwrap();
    let configuration_id = json_ok(created, StatusCode::CREATED).await["id"].as_str().unwrap().to_owned();
    let form = client
        .post(format!("{base}/v0/forms"))
        .header("X-License-Key", key)
        .bearer_auth(session)
        .json(&json!({"payload": {"configurationId": configuration_id, "fields": {}}}))
        .send()
        .await
        .unwrap();
    let form_id = json_ok(form, StatusCode::CREATED).await["formId"].as_str().unwrap().to_owned();
    (form_id, field_id)
}

struct Uploader {
    client: Client,
    base: String,
    key: String,
    session: String,
    form_id: String,
    field_id: String,
    space_id: String,
}

impl Uploader {
    /// Sends one upload; answers its descriptors when it answered 201, `None` when the request
    /// failed (the server died under it).
    async fn upload(&self, files: Vec<(u32, usize)>, chunk: usize, pause: Duration) -> Option<Vec<Value>> {
        let response = self
            .client
            .post(format!("{}/v0/media/forms/{}/attachments", self.base, self.form_id))
            .header("X-License-Key", &self.key)
            .bearer_auth(&self.session)
            .header("Content-Type", format!("multipart/form-data; boundary={BOUNDARY}"))
            .body(slow_body(&self.field_id, files, chunk, pause))
            .send()
            .await
            .ok()?;
        if response.status() != StatusCode::CREATED {
            let status = response.status();
            panic!("an upload answered {status}: {}", response.text().await.unwrap_or_default());
        }
        let value: Value = response.json().await.ok()?;
        Some(value["attachments"].as_array().unwrap().clone())
    }

    /// Announces an asset for file `n` of `len` bytes and uploads it; answers the upload's answer
    /// when it was 201, `None` when a request failed (the server died under it).
    async fn asset(&self, n: u32, len: usize, chunk: usize, pause: Duration) -> Option<Value> {
        let name = name_of(n, len);
        let announced = self
            .client
            .post(format!("{}/v0/spaces/{}/assets", self.base, self.space_id))
            .header("X-License-Key", &self.key)
            .bearer_auth(&self.session)
            .json(&json!({"title": name, "filename": name, "contentType": "application/octet-stream"}))
            .send()
            .await
            .ok()?;
        let value: Value = announced.json().await.ok()?;
        let asset_id = value["newPublishedAssetId"].as_str().expect("an announced asset").to_owned();
        let response = self
            .client
            .post(format!("{}/v0/media/spaces/{}/assets/{asset_id}", self.base, self.space_id))
            .header("X-License-Key", &self.key)
            .bearer_auth(&self.session)
            .header("Content-Type", format!("multipart/form-data; boundary={BOUNDARY}"))
            .body(slow_asset_body(n, len, chunk, pause))
            .send()
            .await
            .ok()?;
        if response.status() != StatusCode::CREATED {
            let status = response.status();
            panic!("an asset upload answered {status}: {}", response.text().await.unwrap_or_default());
        }
        response.json().await.ok()
    }
}

/// Creates a space owned by the session's user; answers its id.
async fn space(client: &Client, base: &str, key: &str, session: &str) -> String {
    let created = client
        .post(format!("{base}/v0/spaces"))
        .header("X-License-Key", key)
        .bearer_auth(session)
        .json(&json!({"name": "crash", "displayName": "Crash"}))
        .send()
        .await
        .unwrap();
    json_ok(created, StatusCode::CREATED).await["spaceId"].as_str().unwrap().to_owned()
}

/// A first server over a new folder, with `ann` signed up and a form with a file field.
struct Started {
    dir: tempfile::TempDir,
    client: Client,
    server: Server,
    key: String,
    session: String,
    form_id: String,
    field_id: String,
}

impl Started {
    async fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let client = Client::builder().timeout(Duration::from_secs(120)).build().unwrap();
        let mut server = Server::start(dir.path(), "first.log", &[]);
        server.ready(&client).await;
        let key = std::fs::read_to_string(data_dir(dir.path()).join("license.key")).unwrap().trim().to_owned();
        let session = sign_up(&client, &server.base, &key, dir.path()).await;
        let (form_id, field_id) = form_with_a_file_field(&client, &server.base, &key, &session).await;
        Self { dir, client, server, key, session, form_id, field_id }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killed_mid_upload_the_restarted_server_keeps_whole_files_and_no_strays() {
    // Arrange: a server with a user, a form with a file field, and a few finished uploads.
    let Started { dir, client, mut server, key, session, form_id, field_id } = Started::new().await;
    let space_id = space(&client, &server.base, &key, &session).await;
    let uploader = Arc::new(Uploader {
        client: client.clone(),
        base: server.base.clone(),
        key: key.clone(),
        session: session.clone(),
        form_id: form_id.clone(),
        field_id,
        space_id: space_id.clone(),
    });
    let mut answered = Vec::new();
    for n in 0..3 {
        answered.extend(uploader.upload(vec![(n, 100_000 + n as usize)], 64 * 1024, Duration::ZERO).await.unwrap());
    }
    let mut assets_answered = vec![uploader.asset(9, 80_000, 64 * 1024, Duration::ZERO).await.unwrap()];
    // Act: slow large uploads and streams of small ones (so that some are between storing their bytes
    // and committing their row), then SIGKILL once most are under way (each large one takes at least
    // 2.5 s to send).
    let load = Load::start(&uploader);
    let tmp_dir = data_dir(dir.path()).join("media").join("tmp");
    let deadline = Instant::now() + Duration::from_secs(60);
    while files_under(&tmp_dir).len() < 6 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let partial = files_under(&tmp_dir).len();
    server.kill();
    let (attachments, assets) = load.answered().await;
    answered.extend(attachments);
    assets_answered.extend(assets);
    let mut restarted = Server::start(dir.path(), "second.log", &[("TRELLIS_MEDIA__SWEEP_GRACE_SECONDS", "0")]);
    restarted.ready(&client).await;
    // Assert
    eprintln!("{} uploads answered before the kill; {partial} temporary files at the kill", answered.len());
    if partial == 0 {
        let log = std::fs::read_to_string(dir.path().join("first.log")).unwrap_or_default();
        panic!("the kill should interrupt uploads in progress; the server's log:\n{log}");
    }
    let held = Holdings {
        client: &client,
        base: &restarted.base,
        key: &key,
        session: &session,
        form_id: &form_id,
        space_id: &space_id,
    };
    let objects_dir = data_dir(dir.path()).join("media").join("objects");
    // The sweep runs in the background right after the start; the wait allows for a loaded
    // machine and ends as soon as the store agrees with the descriptors and assets.
    let deadline = Instant::now() + Duration::from_secs(60);
    let with_bytes = |assets: &[Value]| assets.iter().filter(|a| !a["bytes"].is_null()).count();
    let (mut descriptors, mut stored_assets) = (held.descriptors().await, held.assets().await);
    while Instant::now() < deadline
        && (files_under(&objects_dir).len() != descriptors.len() + with_bytes(&stored_assets)
            || !files_under(&tmp_dir).is_empty())
    {
        tokio::time::sleep(Duration::from_millis(200)).await;
        (descriptors, stored_assets) = (held.descriptors().await, held.assets().await);
    }
    assert_attachments_whole(&held, &descriptors, &answered).await;
    eprintln!("{} asset uploads answered before the kill", assets_answered.len());
    assert_assets_whole(&held, &stored_assets, &assets_answered).await;
    let objects = files_under(&objects_dir);
    assert_eq!(
        objects.len(),
        descriptors.len() + with_bytes(&stored_assets),
        "objects without a descriptor or asset remain after the sweep ({} answered uploads): {objects:?}",
        answered.len()
    );
    assert_eq!(files_under(&tmp_dir), Vec::<PathBuf>::new(), "temporary files remain after the sweep");
    drop(restarted);
}

/// Every upload answered before the kill has its descriptor, and every descriptor its whole bytes.
async fn assert_attachments_whole(held: &Holdings<'_>, descriptors: &[Value], answered: &[Value]) {
    let part_keys: Vec<&str> = descriptors.iter().map(|d| d["partKey"].as_str().unwrap()).collect();
    for done in answered {
        assert!(part_keys.contains(&done["partKey"].as_str().unwrap()), "an answered upload was lost: {done}");
    }
    for descriptor in descriptors {
        let bytes = held.attachment_bytes(descriptor["partKey"].as_str().unwrap()).await;
        let (n, len) = parse_name(descriptor["filename"].as_str().unwrap());
        assert_eq!(descriptor["bytes"], len, "{descriptor}");
        assert_eq!(bytes.len(), len, "{descriptor}");
        assert!(is_content(n, &bytes), "the bytes of {descriptor} differ");
    }
}

/// Every asset upload answered before the kill kept its bytes whole; an asset without bytes still
/// awaits its upload.
async fn assert_assets_whole(held: &Holdings<'_>, stored_assets: &[Value], answered: &[Value]) {
    for done in answered {
        let stored = stored_assets.iter().find(|a| a["assetId"] == done["assetId"]);
        assert!(stored.is_some_and(|a| a["bytes"] == done["bytes"]), "an answered asset upload was lost: {done}");
    }
    for asset in stored_assets.iter().filter(|a| !a["bytes"].is_null()) {
        assert_eq!(asset["state"], "AWAITING_APPROVAL", "{asset}");
        let bytes = held.asset_bytes(asset["assetId"].as_str().unwrap()).await;
        let (n, len) = parse_name(asset["filename"].as_str().unwrap());
        assert_eq!((asset["bytes"].as_u64(), bytes.len()), (Some(len as u64), len), "{asset}");
        assert!(is_content(n, &bytes), "the bytes of {asset} differ");
    }
    for asset in stored_assets.iter().filter(|a| a["bytes"].is_null()) {
        assert_eq!(asset["state"], "AWAITING_UPLOAD", "an asset without bytes awaits its upload: {asset}");
    }
}
