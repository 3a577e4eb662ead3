//! `trellis backup` and `trellis restore`, run as the real binary beside a real server: a backup taken
//! while a writer keeps writing holds every write acknowledged before it began, with its attachment
//! bytes; bad folders and damaged backups are refused with a message naming the path, leaving
//! nothing half-written. SQLite and local files only (PostgreSQL and S3 have their own tools, which
//! the command names instead).

use crate::support::command;
use crate::support::server;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

use command::{stderr, trellis};
use server::{Server, data_dir, json_ok, sign_up};

const FILE_FIELD: &str = "6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a41";

fn refused(output: &Output, needles: &[&str]) {
    let message = stderr(output);
    assert!(!output.status.success(), "expected a refusal, got success: {message}");
    for needle in needles {
        assert!(message.contains(needle), "{needle:?} not in: {message}");
    }
}

fn files_below(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(next) = stack.pop() {
        for entry in std::fs::read_dir(&next).into_iter().flatten().flatten() {
            if entry.path().is_dir() {
                stack.push(entry.path());
            } else {
                out.push(entry.path().strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

/// A configuration with one optional file field that takes text files.
fn form_configuration() -> Value {
    json!({"config": {
        "version": "1.0.0", "controls": {"enableLogging": false},
        "metadata": {"captureTimestamp": false, "captureTags": false, "captureSummary": false, "captureLocation": false},
        "integrations": {"allowSpaceAssociations": false, "allowWorkflowStarts": false},
        "translations": {"defaultLanguage": "en", "en": {"details": {"title": "Notes"},
            "pages": {"p1": {"title": "Note", "fields": {"p1_file": {"label": "File"}}}}}},
        "pages": [{"id": "6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a40", "key": "p1", "order": 1, "title": "$.pages.p1.title",
            "fields": [{"id": FILE_FIELD, "key": "p1_file", "order": 1, "type": "file", "value": "",
                "label": "$.pages.p1.fields.p1_file.label", "visible": true, "editable": true, "required": false,
                "file": {"accept": ["text/plain"], "maxBytes": 65536, "multiple": false}}]}]}})
}

/// A server over `dir` with Ann signed up and the configuration above created.
struct Serving {
    server: Server,
    client: Client,
    key: String,
    session: String,
    configuration: String,
}

impl Serving {
    async fn start(dir: &Path) -> Self {
        let client = Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
        let mut server = Server::start(dir, "server.log", &[]);
        server.ready(&client).await;
        let key = std::fs::read_to_string(data_dir(dir).join("license.key")).unwrap().trim().to_owned();
        let session = sign_up(&client, &server.base, &key, dir).await;
        let created = client
            .post(format!("{}/v0/forms/configurations", server.base))
            .header("X-License-Key", &key)
            .bearer_auth(&session)
            .json(&form_configuration())
            .send()
            .await
            .unwrap();
        let configuration = json_ok(created, StatusCode::CREATED).await["id"].as_str().unwrap().to_owned();
        Self { server, client, key, session, configuration }
    }

    async fn write(&self, n: usize, len: usize) -> Write {
        write_one(&self.client, &self.server.base, &self.key, &self.session, &self.configuration, n, len).await
    }
}

/// What a restored server holds of a write.
#[derive(Debug, PartialEq, Eq)]
enum Found {
    Nothing,
    /// The instance without its attachment.
    InstanceOnly,
    /// The instance, its attachment and the attachment's bytes.
    Whole,
}

/// A restored server and a session on it.
struct Restored<'a> {
    client: &'a Client,
    base: &'a str,
    key: &'a str,
    session: &'a str,
}

impl Restored<'_> {
    /// What the server holds of `write`, asserting that an attachment it names reads back its bytes.
    async fn read_back(&self, write: &Write) -> Found {
        let get = |path: String| {
            self.client.get(format!("{}{path}", self.base)).header("X-License-Key", self.key).bearer_auth(self.session)
        };
        let form = get(format!("/v0/forms/{}", write.form_id)).send().await.unwrap();
        if form.status() == StatusCode::NOT_FOUND {
            return Found::Nothing;
        }
        if !json_ok(form, StatusCode::OK).await.to_string().contains(&write.part_key) {
            return Found::InstanceOnly;
        }
        let path = format!("/v0/media/forms/{}/attachments/{}", write.form_id, write.part_key);
        let bytes = get(path).send().await.unwrap();
        assert_eq!(bytes.status(), StatusCode::OK, "the bytes of {}", write.part_key);
        assert_eq!(bytes.bytes().await.unwrap().as_ref(), write.bytes.as_slice(), "bytes of {}", write.part_key);
        Found::Whole
    }
}

/// One write: an instance and its attachment, both acknowledged.
#[derive(Clone, Debug)]
struct Write {
    form_id: String,
    part_key: String,
    bytes: Vec<u8>,
}

/// Writes instance `n` with an attachment of `len` bytes or so.
async fn write_one(
    client: &Client,
    base: &str,
    key: &str,
    session: &str,
    configuration: &str,
    n: usize,
    len: usize,
) -> Write {
    let created = client
        .post(format!("{base}/v0/forms"))
        .header("X-License-Key", key)
        .bearer_auth(session)
        .json(&json!({"payload": {"configurationId": configuration, "language": "en", "fields": {FILE_FIELD: []}}}))
        .send()
        .await
        .unwrap();
    let form_id = json_ok(created, StatusCode::CREATED).await["formId"].as_str().unwrap().to_owned();
    let bytes = format!("note {n}: {}\n", "x".repeat(len + n % 97)).into_bytes();
    let part = reqwest::multipart::Part::bytes(bytes.clone()).file_name(format!("note-{n}.txt")).mime_str("text/plain");
    let form = reqwest::multipart::Form::new().text("fieldIds", FILE_FIELD).part("files", part.unwrap());
    let uploaded = client
        .post(format!("{base}/v0/media/forms/{form_id}/attachments"))
        .header("X-License-Key", key)
        .bearer_auth(session)
        .multipart(form)
        .send()
        .await
        .unwrap();
    let answer = json_ok(uploaded, StatusCode::CREATED).await;
    let part_key = answer["attachments"][0]["partKey"].as_str().unwrap().to_owned();
    Write { form_id, part_key, bytes }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_while_a_writer_writes_restores_every_acknowledged_write_with_its_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let serving = Arc::new(Serving::start(dir.path()).await);
    let (client, key) = (serving.client.clone(), serving.key.clone());

    // A writer that keeps writing through the backup; each write is recorded once acknowledged.
    let acknowledged: Arc<Mutex<Vec<Write>>> = Arc::default();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = tokio::spawn({
        let (serving, acknowledged, stop) = (serving.clone(), acknowledged.clone(), stop.clone());
        async move {
            let mut n = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let write = serving.write(n, 0).await;
                acknowledged.lock().unwrap().push(write);
                n += 1;
            }
        }
    });
    while acknowledged.lock().unwrap().len() < 20 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    let data = data_dir(dir.path());
    let (before_backup, during_backup, backup_dir) = backup_while_writing(dir.path(), &data, &acknowledged).await;
    let written_during = during_backup.len();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    writer.await.unwrap();
    assert!(written_during > 0, "no write was acknowledged while any of five backups ran: nothing was tested");
    assert!(backup_dir.join("manifest.json").is_file());
    eprintln!("{} writes before the backup, {written_during} while it ran", before_backup.len());

    // A second backup into the same (now full) folder is refused and changes nothing there.
    let files = files_below(&backup_dir);
    let again = trellis(
        dir.path(),
        &["backup", "--to", backup_dir.to_str().unwrap(), "--data-dir", data.to_str().unwrap()],
        &[],
    );
    refused(&again, &[backup_dir.to_str().unwrap(), "is not empty"]);
    assert_eq!(files_below(&backup_dir), files);
    drop(serving);

    // Restore into a new folder and serve it.
    let restored = tempfile::tempdir().unwrap();
    let target = data_dir(restored.path());
    let restore = trellis(
        restored.path(),
        &["restore", "--from", backup_dir.to_str().unwrap(), "--data-dir", target.to_str().unwrap()],
        &[],
    );
    assert!(restore.status.success(), "restore failed: {}", stderr(&restore));
    let mut server = Server::start(restored.path(), "server.log", &[]);
    server.ready(&client).await;
    let base = server.base.clone();
    let key_after = std::fs::read_to_string(target.join("license.key")).unwrap().trim().to_owned();
    assert_eq!(key_after, key, "the license key comes back with the backup");
    let session = log_in(&client, &base, &key).await;
    let reading = Restored { client: &client, base: &base, key: &key, session: &session };
    for write in &before_backup {
        assert_eq!(reading.read_back(write).await, Found::Whole, "{} came back whole", write.form_id);
    }
    // A write acknowledged while the backup ran may or may not be in it (the instance and its
    // attachment are two requests: it may hold the first alone), but an attachment the backup names
    // always has its bytes.
    let mut whole = 0;
    for write in &during_backup {
        whole += usize::from(reading.read_back(write).await == Found::Whole);
    }
    eprintln!("{whole} of the {written_during} writes made while the backup ran are in it");
    drop(server);

    // Restoring into a data directory that is not empty is refused, and it stays as it was.
    let before = files_below(&target);
    let into_full = trellis(
        restored.path(),
        &["restore", "--from", backup_dir.to_str().unwrap(), "--data-dir", target.to_str().unwrap()],
        &[],
    );
    refused(&into_full, &[target.to_str().unwrap(), "is not empty"]);
    assert_eq!(files_below(&target), before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_backup_is_refused_whole_and_the_target_stays_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let serving = Serving::start(dir.path()).await;
    for n in 0..3 {
        serving.write(n, 0).await;
    }
    let data = data_dir(dir.path());
    let backup_dir = dir.path().join("backup");
    let backup = trellis(
        dir.path(),
        &["backup", "--to", backup_dir.to_str().unwrap(), "--data-dir", data.to_str().unwrap()],
        &[],
    );
    assert!(backup.status.success(), "{}", stderr(&backup));
    drop(serving);

    let manifest: Value = serde_json::from_slice(&std::fs::read(backup_dir.join("manifest.json")).unwrap()).unwrap();
    let objects: Vec<String> = manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .filter(|p| p.starts_with("media/objects/"))
        .collect();
    assert_eq!(objects.len(), 3, "{manifest}");
    std::fs::remove_file(backup_dir.join(&objects[0])).unwrap();
    std::fs::write(backup_dir.join(&objects[1]), b"changed").unwrap();

    let target = dir.path().join("restored");
    let damaged = trellis(
        dir.path(),
        &["restore", "--from", backup_dir.to_str().unwrap(), "--data-dir", target.to_str().unwrap()],
        &[],
    );
    refused(&damaged, &["is damaged", &format!("{} is missing", objects[0]), &format!("{} changed", objects[1])]);
    assert!(!target.exists(), "a refused restore leaves no data directory behind");
    std::fs::create_dir(&target).unwrap();
    let damaged = trellis(
        dir.path(),
        &["restore", "--from", backup_dir.to_str().unwrap(), "--data-dir", target.to_str().unwrap()],
        &[],
    );
    refused(&damaged, &["is damaged"]);
    assert!(files_below(&target).is_empty(), "an empty target stays empty");
    assert!(files_below(dir.path()).iter().all(|f| !f.contains(".restore-")), "no staging folder is left");

    // A folder without a manifest (a backup that failed) is no backup.
    std::fs::remove_file(backup_dir.join("manifest.json")).unwrap();
    let partial = trellis(
        dir.path(),
        &["restore", "--from", backup_dir.to_str().unwrap(), "--data-dir", target.to_str().unwrap()],
        &[],
    );
    refused(&partial, &["holds no manifest.json"]);
}

/// A small file system of its own (tmpfs, mounted by root), unmounted when dropped.
struct SmallDisk(std::path::PathBuf);

impl SmallDisk {
    fn mount(path: &Path, bytes: usize) -> Option<Self> {
        std::fs::create_dir_all(path).unwrap();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={bytes}"), "tmpfs"])
            .arg(path)
            .stderr(std::process::Stdio::null())
            .status();
        if status.is_ok_and(|s| s.success()) {
            return Some(Self(path.to_owned()));
        }
        assert!(std::env::var_os("CI").is_none(), "CI runs as root and can mount a tmpfs");
        eprintln!("SKIPPED: mounting a tmpfs needs root");
        None
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_that_fills_its_disk_fails_naming_the_folder_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let Some(disk) = SmallDisk::mount(&dir.path().join("small"), 512 * 1024) else { return };
    let serving = Serving::start(dir.path()).await;
    for n in 0..16 {
        serving.write(n, 60_000).await;
    }
    let to = disk.0.join("backup");
    let data = data_dir(dir.path());
    let full =
        trellis(dir.path(), &["backup", "--to", to.to_str().unwrap(), "--data-dir", data.to_str().unwrap()], &[]);
    refused(&full, &[to.to_str().unwrap(), "nothing of it was kept"]);
    let message = stderr(&full);
    assert!(message.contains("No space left on device") || message.contains("disk is full"), "{message}");
    assert!(
        files_below(&disk.0).is_empty(),
        "the full disk holds nothing of the failed backup: {:?}",
        files_below(&disk.0)
    );
    drop(serving);
}

#[test]
fn postgres_and_s3_deployments_are_told_which_tools_to_use() {
    let dir = tempfile::tempdir().unwrap();
    let to = dir.path().join("backup");
    let on_postgres = trellis(
        dir.path(),
        &["backup", "--to", to.to_str().unwrap()],
        &[("TRELLIS_DATABASE__URL", "postgres://trellis@127.0.0.1:1/none")],
    );
    refused(&on_postgres, &["pg_dump", "docs/operations.md"]);
    let on_s3 = trellis(dir.path(), &["backup", "--to", to.to_str().unwrap()], &[("TRELLIS_MEDIA__BACKEND", "s3")]);
    refused(&on_s3, &["bucket versioning", "docs/operations.md"]);
    assert!(!to.exists(), "nothing is written");
}

/// Takes a backup while the writer writes; again (into a new directory) in the rare case that it ran
/// between two acknowledgements, as the test is about writes made while it ran. Answers the writes
/// acknowledged before it, those acknowledged while it ran, and its directory.
async fn backup_while_writing(
    dir: &Path,
    data: &Path,
    acknowledged: &Mutex<Vec<Write>>,
) -> (Vec<Write>, Vec<Write>, PathBuf) {
    let mut taken = None;
    for attempt in 0..5 {
        let before_backup = acknowledged.lock().unwrap().clone();
        let backup_dir = dir.join(format!("backup-{attempt}"));
        let backup = tokio::task::spawn_blocking({
            let (dir, to, data) = (dir.to_owned(), backup_dir.clone(), data.to_owned());
            move || trellis(&dir, &["backup", "--to", to.to_str().unwrap(), "--data-dir", data.to_str().unwrap()], &[])
        })
        .await
        .unwrap();
        assert!(backup.status.success(), "backup failed: {}", stderr(&backup));
        let during_backup = acknowledged.lock().unwrap()[before_backup.len()..].to_vec();
        let done = !during_backup.is_empty();
        taken = Some((before_backup, during_backup, backup_dir));
        if done {
            break;
        }
    }
    taken.expect("five attempts")
}

/// `ann`'s session on the restored server.
async fn log_in(client: &Client, base: &str, key: &str) -> String {
    let login = client
        .post(format!("{base}/v0/auth/login"))
        .header("X-License-Key", key)
        .json(&json!({"login": "ann", "password": "correct horse 42"}))
        .send()
        .await
        .unwrap();
    json_ok(login, StatusCode::OK).await["sessionToken"].as_str().unwrap().to_owned()
}
