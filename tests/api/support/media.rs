//! Building forms with file fields, sending multipart uploads and reading attachments back for the
//! media tests, on either media backend. Every response passes a leak check: no body or header may
//! name a storage path, the data directory, the S3 endpoint or bucket, or a stored object's key.

use std::path::Path;
use std::time::{Duration, Instant};

use reqwest::header::HeaderMap;
use reqwest::multipart::{Form, Part};
use reqwest::{Method, RequestBuilder, StatusCode};
use serde_json::{Value, json};
use trellis::config::Config;
use trellis::config::media::MediaBackend;
use trellis_tests::{
    TestApp, assert_error_envelope, s3_object_keys, s3_settings, s3_unfinished_uploads, spawn_app_on_s3, spawn_app_with,
};

use crate::support::forms::{answers_by_key, config_with, created_config, created_form, field, field_ids};

/// The media backend a scenario runs on.
#[derive(Clone, Copy, Debug)]
pub enum Backend {
    Local,
    S3,
}

/// A server on `backend`, after `customize`; on S3 with a bucket of its own. `None` for S3 when
/// `S3_ENDPOINT` is unset in a local run, after noting that `test` was skipped; in CI (`CI` set)
/// a missing S3 server fails the test instead.
pub async fn media_app(backend: Backend, test: &str, customize: impl FnOnce(&mut Config)) -> Option<TestApp> {
    match backend {
        Backend::Local => Some(spawn_app_with(customize).await),
        Backend::S3 => Some(spawn_app_on_s3(&s3_settings(test)?, customize).await),
    }
}

/// Generates a `local` and an `s3` test running `async fn $scenario(app: &TestApp)`, optionally
/// after `fn $customize(&mut Config)` (a function of the calling module).
macro_rules! on_both_backends {
    ($scenario:ident) => {
        on_both_backends!(@tests $scenario, |_: &mut trellis::config::Config| {});
    };
    ($scenario:ident, $customize:ident) => {
        on_both_backends!(@tests $scenario, super::$customize);
    };
    (@tests $scenario:ident, $customize:expr) => {
        mod $scenario {
            #[tokio::test]
            async fn local() {
                let backend = crate::support::media::Backend::Local;
                let test = concat!(module_path!(), "::local");
                let app = crate::support::media::media_app(backend, test, $customize).await.expect("a local app");
                super::$scenario(&app).await;
                app.stop().await;
            }

            #[tokio::test]
            async fn s3() {
                let backend = crate::support::media::Backend::S3;
                let test = concat!(module_path!(), "::s3");
                let Some(app) = crate::support::media::media_app(backend, test, $customize).await else { return };
                super::$scenario(&app).await;
                app.stop().await;
            }
        }
    };
}
pub(crate) use on_both_backends;

/// A raw answer: status, headers and the body bytes.
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub bytes: Vec<u8>,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.bytes)
            .unwrap_or_else(|_| panic!("{} body is not JSON: {}", self.status, String::from_utf8_lossy(&self.bytes)))
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.headers.get(name).map(|v| v.to_str().expect("an ASCII header").to_owned())
    }

    /// The error object, asserting the status, the code and the envelope.
    pub fn error(&self, status: StatusCode, code: &str) -> Value {
        let value = self.json();
        assert_eq!(self.status, status, "status of {value}");
        assert_eq!(self.header("content-type").as_deref(), Some("application/json"), "{value}");
        assert_error_envelope(&value, self.header("x-request-id").as_deref(), code)
    }

    /// The JSON body, asserting the status.
    pub fn expect(&self, status: StatusCode) -> Value {
        let value = if self.bytes.is_empty() { Value::Null } else { self.json() };
        assert_eq!(self.status, status, "{value}");
        value
    }
}

/// Sends `request` and checks that nothing of the storage shows in the answer. `raw_body` marks a
/// download, whose body is the user's own bytes and is not searched.
pub async fn send(app: &TestApp, request: RequestBuilder, raw_body: bool) -> Reply {
    let response = request.send().await.expect("request sent");
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.bytes().await.expect("body read").to_vec();
    let reply = Reply { status, headers, bytes };
    assert_no_leak(&reply, &secrets(app).await, raw_body);
    reply
}

/// Strings that must never reach a client.
async fn secrets(app: &TestApp) -> Vec<String> {
    let mut needles = vec![app.data_dir.display().to_string(), "objects/".to_owned(), "media/tmp".to_owned()];
    if app.config.media.backend == MediaBackend::S3 {
        let s3 = &app.config.media.s3;
        needles.push(s3.endpoint.trim_start_matches("http://").trim_start_matches("https://").to_owned());
        needles.push(format!("/{}/", s3.bucket));
        needles.push(s3.access_key.clone());
    }
    // The stored objects' names are their storage keys' ids.
    let stored = store_contents(app).await;
    needles.extend(stored.objects.iter().chain(&stored.unfinished).map(|name| id_of(name).to_owned()));
    needles
}

fn assert_no_leak(reply: &Reply, secrets: &[String], raw_body: bool) {
    let body = if raw_body { String::new() } else { String::from_utf8_lossy(&reply.bytes).into_owned() };
    for needle in secrets {
        assert!(!body.contains(needle), "the body names {needle:?}: {body}");
        for (name, value) in &reply.headers {
            let value = String::from_utf8_lossy(value.as_bytes());
            assert!(!value.contains(needle), "header {name} names {needle:?}: {value}");
        }
    }
}

/// What a media store holds, each list sorted.
#[derive(Debug, PartialEq)]
pub struct Stored {
    /// Complete objects by name, `<kind>/<id>`: their path under `<data-dir>/media/objects` on
    /// the local backend, their key in the server's own bucket on S3.
    pub objects: Vec<String>,
    /// Writes in progress or left behind: the temporary files under `<data-dir>/media/tmp`, or the
    /// keys of the bucket's unfinished multipart uploads.
    pub unfinished: Vec<String>,
}

/// What the server's media store holds, read from the folder or listed through the S3 API.
/// Empty for an S3 store that is not the test's own bucket (one that cannot be reached, say).
pub async fn store_contents(app: &TestApp) -> Stored {
    match app.config.media.backend {
        MediaBackend::Local => {
            let media = app.data_dir.join("media");
            Stored { objects: names_under(&media.join("objects")), unfinished: names_under(&media.join("tmp")) }
        }
        MediaBackend::S3 => match app.media_bucket() {
            Some(bucket) => {
                Stored { objects: s3_object_keys(&bucket).await, unfinished: s3_unfinished_uploads(&bucket).await }
            }
            None => Stored { objects: Vec::new(), unfinished: Vec::new() },
        },
    }
}

/// The last segment of an object's name: the id of its storage key.
pub fn id_of(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// The files under `dir`, as paths relative to it with `/` between segments, sorted.
fn names_under(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = files_under(dir)
        .iter()
        .filter_map(|path| path.strip_prefix(dir).ok())
        .map(|path| path.iter().map(|s| s.to_string_lossy()).collect::<Vec<_>>().join("/"))
        .collect();
    names.sort();
    names
}

fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return found };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            found.push(path);
        }
    }
    found.sort();
    found
}

/// Waits for the store to hold exactly `count` objects and no unfinished write (the staged
/// objects of a refused upload are removed in the background), then asserts it; on the local
/// backend the object files are counted, on S3 the objects the bucket lists. The wait is generous
/// for a loaded machine and ends as soon as the store agrees.
pub async fn assert_stored_objects(app: &TestApp, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut now = store_contents(app).await;
    while (now.objects.len() != count || !now.unfinished.is_empty()) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
        now = store_contents(app).await;
    }
    assert_eq!(now.objects.len(), count, "stored objects: {:?}", now.objects);
    assert_eq!(now.unfinished, Vec::<String>::new(), "unfinished writes remain");
}

/// One part of an upload request, in the order sent.
pub enum Upload {
    FieldId(String),
    File {
        name: String,
        mime: Option<String>,
        bytes: Vec<u8>,
    },
    /// A file in a part named `part` (avatars and assets take one named `file`).
    Named {
        part: String,
        filename: String,
        mime: Option<String>,
        bytes: Vec<u8>,
    },
    /// A text part named `part`.
    Text {
        part: String,
        value: String,
    },
}

/// A file part.
pub fn file(name: &str, mime: &str, bytes: Vec<u8>) -> Upload {
    Upload::File { name: name.to_owned(), mime: Some(mime.to_owned()), bytes }
}

/// The usual request: every field id first, then every file, paired by position.
pub fn pairs(files: Vec<(&str, Upload)>) -> Vec<Upload> {
    let mut parts: Vec<Upload> = files.iter().map(|(id, _)| Upload::FieldId((*id).to_owned())).collect();
    parts.extend(files.into_iter().map(|(_, file)| file));
    parts
}

pub fn multipart(parts: Vec<Upload>) -> Form {
    let file = |filename: String, mime: Option<String>, bytes: Vec<u8>| {
        let part = Part::bytes(bytes).file_name(filename);
        match mime {
            Some(mime) => part.mime_str(&mime).expect("a valid MIME type"),
            None => part,
        }
    };
    parts.into_iter().fold(Form::new(), |form, part| match part {
        Upload::FieldId(id) => form.text("fieldIds", id),
        Upload::File { name, mime, bytes } => form.part("files", file(name, mime, bytes)),
        Upload::Named { part, filename, mime, bytes } => form.part(part, file(filename, mime, bytes)),
        Upload::Text { part, value } => form.text(part, value),
    })
}

pub fn attachments_path(form_id: &str) -> String {
    format!("/v0/media/forms/{form_id}/attachments")
}

/// `POST .../attachments{query}` with `parts`.
pub async fn upload(app: &TestApp, token: &str, form_id: &str, query: &str, parts: Vec<Upload>) -> Reply {
    let path = format!("{}{query}", attachments_path(form_id));
    send(app, app.authed(Method::POST, &path, token).multipart(multipart(parts)), false).await
}

/// An upload that must answer 201; answers its descriptors.
pub async fn uploaded(app: &TestApp, token: &str, form_id: &str, parts: Vec<Upload>) -> Vec<Value> {
    let reply = upload(app, token, form_id, "", parts).await;
    let value = reply.expect(StatusCode::CREATED);
    value["attachments"].as_array().expect("attachments").clone()
}

pub async fn download(app: &TestApp, token: &str, form_id: &str, part_key: &str, headers: &[(&str, &str)]) -> Reply {
    let path = format!("{}/{part_key}", attachments_path(form_id));
    let request = headers.iter().fold(app.authed(Method::GET, &path, token), |r, (k, v)| r.header(*k, *v));
    send(app, request, true).await
}

pub async fn delete(app: &TestApp, token: &str, form_id: &str, part_key: &str, query: &str) -> Reply {
    let path = format!("{}/{part_key}{query}", attachments_path(form_id));
    send(app, app.authed(Method::DELETE, &path, token), false).await
}

/// `GET /v0/forms/{formId}`, asserting 200.
pub async fn read_form(app: &TestApp, token: &str, form_id: &str) -> Value {
    send(app, app.authed(Method::GET, &format!("/v0/forms/{form_id}"), token), false).await.expect(StatusCode::OK)
}

/// The descriptors `GET /v0/forms/{formId}` shows under `field_id`.
pub async fn descriptors_of(app: &TestApp, token: &str, form_id: &str, field_id: &str) -> Vec<Value> {
    let form = read_form(app, token, form_id).await;
    form["fields"][field_id].as_array().unwrap_or_else(|| panic!("{field_id} is not a file field: {form}")).clone()
}

/// Every descriptor of every file field of the form.
pub async fn all_descriptors(app: &TestApp, token: &str, form_id: &str, file_fields: &[&str]) -> Vec<Value> {
    let form = read_form(app, token, form_id).await;
    file_fields.iter().flat_map(|id| form["fields"][*id].as_array().cloned().unwrap_or_default()).collect()
}

/// The form every media test uses, and one SUBMITTED instance of it.
pub struct MediaForm {
    pub form_id: String,
    /// PNG or JPEG by MIME type, at most 4096 bytes, one file (`multiple: false`).
    pub photo: String,
    /// `.pdf` by extension or `text/plain` by MIME type, at most 64 KiB, up to 3 files.
    pub docs: String,
    /// Anything, at most 24 MiB, up to 10 files.
    pub big: String,
    /// A textarea.
    pub notes: String,
}

impl MediaForm {
    pub fn file_fields(&self) -> [&str; 3] {
        [&self.photo, &self.docs, &self.big]
    }
}

pub const PHOTO_MAX: usize = 4096;
pub const DOCS_MAX: usize = 64 * 1024;
pub const BIG_MAX: usize = 24 * 1024 * 1024;

pub fn media_config() -> Value {
    let mut photo = field("photo", "file");
    photo["file"] = json!({"accept": ["image/png", "image/jpeg"], "maxBytes": PHOTO_MAX, "multiple": false});
    let mut docs = field("docs", "file");
    docs["file"] = json!({"accept": [".pdf", "text/plain"], "maxBytes": DOCS_MAX, "multiple": true, "maxFiles": 3});
    let mut big = field("big", "file");
    big["file"] = json!({"maxBytes": BIG_MAX, "multiple": true, "maxFiles": 10});
    let notes = field("notes", "textarea");
    config_with(vec![photo, docs, big, notes])
}

/// Creates the media configuration and an instance of it as `token`'s user.
pub async fn media_form(app: &TestApp, token: &str) -> MediaForm {
    let view = created_config(app, token, media_config()).await;
    let form_id = new_instance(app, token, &view).await;
    let ids = field_ids(&view);
    MediaForm {
        form_id,
        photo: ids["photo"].clone(),
        docs: ids["docs"].clone(),
        big: ids["big"].clone(),
        notes: ids["notes"].clone(),
    }
}

/// A new SUBMITTED instance of the configuration `view`; answers its id.
pub async fn new_instance(app: &TestApp, token: &str, view: &Value) -> String {
    created_form(app, token, &answers_by_key(view, &[])).await["formId"].as_str().unwrap().to_owned()
}

/// An attachment upload of `bytes` to `field_id` that arrives in 512 KiB pieces, one every 250 ms
/// (an upload that outlasts a short sweep grace).
pub fn slow_upload(field_id: &str, bytes: &[u8]) -> reqwest::multipart::Form {
    use futures::StreamExt;
    let chunks: Vec<Vec<u8>> = bytes.chunks(512 * 1024).map(<[u8]>::to_vec).collect();
    let slow = futures::stream::iter(chunks).then(|piece| async move {
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        Ok::<_, std::io::Error>(piece)
    });
    let part = reqwest::multipart::Part::stream(reqwest::Body::wrap_stream(slow))
        .file_name("slow.bin")
        .mime_str("application/octet-stream")
        .expect("a MIME type");
    reqwest::multipart::Form::new().text("fieldIds", field_id.to_owned()).part("files", part)
}

/// `len` bytes that no sniffer recognises and that do not repeat with a short period.
pub fn noise(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| (((i % 251) ^ (i >> 8)) as u8).wrapping_add(seed) | 0x80).collect()
}

/// Plain ASCII text of `len` bytes.
pub fn text(len: usize) -> Vec<u8> {
    b"the quick brown fox jumps over the lazy dog\n".iter().copied().cycle().take(len).collect()
}

const PNG_HEAD: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";

/// A PNG signature and header padded to `len` bytes.
pub fn png(len: usize) -> Vec<u8> {
    padded(PNG_HEAD, len)
}

/// A PDF header padded to `len` bytes.
pub fn pdf(len: usize) -> Vec<u8> {
    padded(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", len)
}

fn padded(head: &[u8], len: usize) -> Vec<u8> {
    assert!(len >= head.len());
    let mut bytes = head.to_vec();
    bytes.extend(text(len - head.len()));
    bytes
}

pub fn descriptor(field_id: &str, content_type: &str, bytes: usize, filename: &str) -> Value {
    json!({"fieldId": field_id, "contentType": content_type, "bytes": bytes, "filename": filename})
}

/// A descriptor without its `partKey` (which the server makes up), asserting the key is there.
pub fn without_key(descriptor: &Value) -> Value {
    let key = descriptor["partKey"].as_str().expect("a partKey");
    assert!(!key.is_empty());
    let mut copy = descriptor.clone();
    copy.as_object_mut().unwrap().remove("partKey");
    copy
}

pub fn keys_of(descriptors: &[Value]) -> Vec<String> {
    descriptors.iter().map(|d| d["partKey"].as_str().unwrap().to_owned()).collect()
}
