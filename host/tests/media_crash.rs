//! The real `trellis` binary killed (SIGKILL) in the middle of concurrent uploads of form
//! attachments and of published assets: after a restart whose start-up sweep treats every
//! unfinished upload as dead, each descriptor's and each asset's bytes are there in full, no stray
//! object or temporary file remains, and every upload answered 201 before the kill survived.
//! The same for resumable (tus) uploads cut mid-PATCH (module `tus` beside this file), and for
//! the start-up step that moves media stored before content addressing to it (`addressing`).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

#[path = "media_crash/addressing.rs"]
mod addressing;
use crate::support::server;
#[path = "media_crash/tus.rs"]
mod tus;

use bytes::Bytes;
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

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
    // Act: 8 slow uploads of a small file and then a 20 MiB one, and a stream of small uploads
    // (so that some are between storing their bytes and committing their row), then SIGKILL.
    let mut large = Vec::new();
    for i in 0..8u32 {
        let uploader = uploader.clone();
        let files = vec![(100 + 2 * i, 4096 + i as usize), (101 + 2 * i, 20 * MIB + i as usize)];
        large.push(tokio::spawn(async move { uploader.upload(files, 64 * 1024, Duration::from_millis(8)).await }));
    }
    let mut assets_answered = Vec::new();
    assets_answered.push(uploader.asset(9, 80_000, 64 * 1024, Duration::ZERO).await.unwrap());
    let mut large_assets = Vec::new();
    for i in 0..3u32 {
        let uploader = uploader.clone();
        let (n, len) = (500 + i, 8 * MIB + i as usize);
        large_assets
            .push(tokio::spawn(async move { uploader.asset(n, len, 64 * 1024, Duration::from_millis(8)).await }));
    }
    let stop = Arc::new(AtomicBool::new(false));
    let mut small_assets = Vec::new();
    for lane in 0..2u32 {
        let (uploader, stop) = (uploader.clone(), stop.clone());
        small_assets.push(tokio::spawn(async move {
            let mut done = Vec::new();
            let mut n = 5000 + lane * 1000;
            while !stop.load(Ordering::Relaxed) {
                match uploader.asset(n, 40_000 + n as usize, 16 * 1024, Duration::ZERO).await {
                    Some(answer) => done.push(answer),
                    None => break,
                }
                n += 1;
                // Each asset takes one of the plan's 1000 a day; a short pause keeps well inside it.
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            done
        }));
    }
    let mut small = Vec::new();
    for lane in 0..3u32 {
        let (uploader, stop) = (uploader.clone(), stop.clone());
        small.push(tokio::spawn(async move {
            let mut done = Vec::new();
            let mut n = 1000 + lane * 1000;
            while !stop.load(Ordering::Relaxed) {
                let files = vec![(n, 30_000 + n as usize), (n + 1, 200_000 + n as usize)];
                match uploader.upload(files, 16 * 1024, Duration::ZERO).await {
                    Some(descriptors) => done.extend(descriptors),
                    None => break,
                }
                n += 2;
            }
            done
        }));
    }
    // Kill once most uploads are under way (each large one takes at least 2.5 s to send).
    let tmp_dir = data_dir(dir.path()).join("media").join("tmp");
    let deadline = Instant::now() + Duration::from_secs(60);
    while files_under(&tmp_dir).len() < 6 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let partial = files_under(&tmp_dir).len();
    server.kill();
    stop.store(true, Ordering::Relaxed);
    for task in large {
        if let Some(descriptors) = task.await.unwrap() {
            answered.extend(descriptors);
        }
    }
    for task in small {
        answered.extend(task.await.unwrap());
    }
    for task in large_assets {
        assets_answered.extend(task.await.unwrap());
    }
    for task in small_assets {
        assets_answered.extend(task.await.unwrap());
    }
    let mut restarted = Server::start(dir.path(), "second.log", &[("TRELLIS_MEDIA__SWEEP_GRACE_SECONDS", "0")]);
    restarted.ready(&client).await;
    // Assert
    eprintln!("{} uploads answered before the kill; {partial} temporary files at the kill", answered.len());
    if partial == 0 {
        let log = std::fs::read_to_string(dir.path().join("first.log")).unwrap_or_default();
        panic!("the kill should interrupt uploads in progress; the server's log:\n{log}");
    }
    let objects_dir = data_dir(dir.path()).join("media").join("objects");
    let read = || async {
        let response = client
            .get(format!("{}/v0/forms/{form_id}", restarted.base))
            .header("X-License-Key", &key)
            .bearer_auth(&session)
            .send()
            .await
            .unwrap();
        let form = json_ok(response, StatusCode::OK).await;
        form["fields"].as_object().unwrap().values().filter_map(Value::as_array).flatten().cloned().collect::<Vec<_>>()
    };
    // Every asset of the space (the owner sees all), those with bytes among them.
    let assets = || async {
        let mut found: Vec<Value> = Vec::new();
        let mut cursor = String::new();
        loop {
            let response = client
                .get(format!("{}/v0/spaces/{space_id}/assets?limit=200{cursor}", restarted.base))
                .header("X-License-Key", &key)
                .bearer_auth(&session)
                .send()
                .await
                .unwrap();
            let page = json_ok(response, StatusCode::OK).await;
            found.extend(page["items"].as_array().unwrap().iter().cloned());
            match page["nextCursor"].as_str() {
                Some(next) => cursor = format!("&cursor={next}"),
                None => return found,
            }
        }
    };
    // The sweep runs in the background right after the start; the wait allows for a loaded
    // machine and ends as soon as the store agrees with the descriptors and assets.
    let deadline = Instant::now() + Duration::from_secs(60);
    let with_bytes = |assets: &[Value]| assets.iter().filter(|a| !a["bytes"].is_null()).count();
    let mut descriptors = read().await;
    let mut stored_assets = assets().await;
    while Instant::now() < deadline
        && (files_under(&objects_dir).len() != descriptors.len() + with_bytes(&stored_assets)
            || !files_under(&tmp_dir).is_empty())
    {
        tokio::time::sleep(Duration::from_millis(200)).await;
        descriptors = read().await;
        stored_assets = assets().await;
    }
    let part_keys: Vec<&str> = descriptors.iter().map(|d| d["partKey"].as_str().unwrap()).collect();
    for done in &answered {
        assert!(part_keys.contains(&done["partKey"].as_str().unwrap()), "an answered upload was lost: {done}");
    }
    for descriptor in &descriptors {
        let part_key = descriptor["partKey"].as_str().unwrap();
        let response = client
            .get(format!("{}/v0/media/forms/{form_id}/attachments/{part_key}", restarted.base))
            .header("X-License-Key", &key)
            .bearer_auth(&session)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{descriptor}");
        let bytes = response.bytes().await.expect("the whole body");
        let (n, len) = parse_name(descriptor["filename"].as_str().unwrap());
        assert_eq!(descriptor["bytes"], len, "{descriptor}");
        assert_eq!(bytes.len(), len, "{descriptor}");
        assert!(is_content(n, &bytes), "the bytes of {descriptor} differ");
    }
    eprintln!("{} asset uploads answered before the kill", assets_answered.len());
    for done in &assets_answered {
        let stored = stored_assets.iter().find(|a| a["assetId"] == done["assetId"]);
        assert!(stored.is_some_and(|a| a["bytes"] == done["bytes"]), "an answered asset upload was lost: {done}");
    }
    for asset in stored_assets.iter().filter(|a| !a["bytes"].is_null()) {
        assert_eq!(asset["state"], "AWAITING_APPROVAL", "{asset}");
        let response = client
            .get(format!(
                "{}/v0/media/spaces/{space_id}/assets/{}?part=base",
                restarted.base,
                asset["assetId"].as_str().unwrap()
            ))
            .header("X-License-Key", &key)
            .bearer_auth(&session)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{asset}");
        let bytes = response.bytes().await.expect("the whole body");
        let (n, len) = parse_name(asset["filename"].as_str().unwrap());
        assert_eq!((asset["bytes"].as_u64(), bytes.len()), (Some(len as u64), len), "{asset}");
        assert!(is_content(n, &bytes), "the bytes of {asset} differ");
    }
    for asset in stored_assets.iter().filter(|a| a["bytes"].is_null()) {
        assert_eq!(asset["state"], "AWAITING_UPLOAD", "an asset without bytes awaits its upload: {asset}");
    }
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
