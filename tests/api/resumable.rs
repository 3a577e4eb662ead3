//! Resumable uploads (tus 1.0.0, conventions section 14): `/v0/media/uploads` speaks tus core,
//! creation, creation-with-upload, termination and expiration, and a finished upload is used once,
//! instead of a file part, by the attachments route (`{fieldIds, uploadIds}`) and by an announced
//! asset's upload (`{uploadId}`).
//!
//! - `protocol`: OPTIONS, creation, HEAD, PATCH in chunks, creation-with-upload, termination, a PATCH
//!   cut off mid-way, and the bytes read back after attaching, on the local and the S3 backend (with
//!   chunks that are not multiples of S3's 5 MiB part size);
//! - `errors`: every refusal of the protocol with its status, code and problem path, and what it
//!   leaves behind;
//! - `bounds`: expiry (410 UPLOAD_EXPIRED) and the per-user bounds on open uploads (429);
//! - `attachments` and `assets`: using a finished upload, with every rule of the multipart version
//!   reported at `/uploadIds/i` (or `/uploadId`);
//! - `tus_client`: a real tus client (tuspy, `tus_client.py` beside this file) that uploads in chunks,
//!   drops its uploader and resumes with a new one from the server's offset.
//!
//! The helpers the resumable-upload tests share are below; the tests are in the submodules.

mod assets;
mod attachments;
mod bounds;
mod errors;
mod protocol;
mod races;
mod shared_bounds;
mod tus_client;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use reqwest::{Method, RequestBuilder, StatusCode};
use serde_json::{Value, json};
use time::OffsetDateTime;
use trellis::config::media::MediaBackend;
use trellis_tests::TestApp;

use crate::support::media::{Reply, assert_stored_objects, attachments_path, send};

pub const UPLOADS: &str = "/v0/media/uploads";
pub const TUS_VERSION: &str = "1.0.0";
/// The content type of every PATCH (and of a creation that carries bytes).
pub const OCTETS: &str = "application/offset+octet-stream";
pub const MIB: usize = 1024 * 1024;

pub fn upload_path(upload_id: &str) -> String {
    format!("{UPLOADS}/{upload_id}")
}

/// A request with `Tus-Resumable: 1.0.0`, the license key and `token`'s session.
pub fn tus(app: &TestApp, method: Method, path: &str, token: &str) -> RequestBuilder {
    app.authed(method, path, token).header("Tus-Resumable", TUS_VERSION)
}

/// Standard base64 with padding, as `Upload-Metadata` carries its values.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `Upload-Metadata` of `pairs`: `key base64(value)` joined by commas.
pub fn metadata_of(pairs: &[(&str, &[u8])]) -> String {
    pairs.iter().map(|(key, value)| format!("{key} {}", base64(value))).collect::<Vec<_>>().join(",")
}

/// `Upload-Metadata` naming the file and its declared type.
pub fn named(filename: &str, content_type: &str) -> String {
    metadata_of(&[("filename", filename.as_bytes()), ("contentType", content_type.as_bytes())])
}

/// `POST /v0/media/uploads` (creation) declaring `length` bytes, with `metadata` when given.
pub async fn create(app: &TestApp, token: &str, length: usize, metadata: Option<&str>) -> Reply {
    let mut request = tus(app, Method::POST, UPLOADS, token).header("Upload-Length", length.to_string());
    if let Some(metadata) = metadata {
        request = request.header("Upload-Metadata", metadata);
    }
    send(app, request, false).await
}

/// A creation that must answer 201; answers the upload's id, after checking the answer's headers
/// and body agree with each other and with what was asked.
pub async fn created(app: &TestApp, token: &str, length: usize, metadata: Option<&str>) -> String {
    let reply = create(app, token, length, metadata).await;
    assert_created(&reply, length, 0)
}

/// Asserts a creation's 201 with `offset` bytes kept; answers the upload's id.
pub fn assert_created(reply: &Reply, length: usize, offset: u64) -> String {
    let value = reply.expect(StatusCode::CREATED);
    let upload_id = value["uploadId"].as_str().unwrap_or_else(|| panic!("an uploadId: {value}")).to_owned();
    assert!(uuid::Uuid::parse_str(&upload_id).is_ok_and(|u| u.get_version_num() == 4), "a UUID v4: {value}");
    assert_eq!(reply.header("location"), Some(upload_path(&upload_id)), "Location is the upload's path");
    assert_eq!(offset_of(reply), offset, "Upload-Offset of the creation");
    assert_tus_resumable(reply);
    let expires = http_date(&reply.header("upload-expires").expect("Upload-Expires"));
    let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
    let mut keys: Vec<&str> = keys.into_iter().map(String::as_str).collect();
    keys.sort();
    assert_eq!(keys, ["expiresAt", "length", "offset", "uploadId"], "{value}");
    assert_eq!(value["offset"], json!(offset), "{value}");
    assert_eq!(value["length"], json!(length), "{value}");
    let expires_at = rfc3339(&value["expiresAt"]);
    assert_eq!(expires_at.unix_timestamp(), expires.unix_timestamp(), "expiresAt and Upload-Expires agree: {value}");
    upload_id
}

/// `PATCH` of `bytes` at `offset`, with the offset content type.
pub async fn patch(app: &TestApp, token: &str, upload_id: &str, offset: u64, bytes: Vec<u8>) -> Reply {
    let request = tus(app, Method::PATCH, &upload_path(upload_id), token)
        .header("Content-Type", OCTETS)
        .header("Upload-Offset", offset.to_string())
        .body(bytes);
    send(app, request, false).await
}

/// A PATCH that must answer 204 with an empty body; answers the new offset.
pub async fn patched(app: &TestApp, token: &str, upload_id: &str, offset: u64, bytes: Vec<u8>) -> u64 {
    let sent = bytes.len() as u64;
    let reply = patch(app, token, upload_id, offset, bytes).await;
    assert_eq!(reply.status, StatusCode::NO_CONTENT, "{}", String::from_utf8_lossy(&reply.bytes));
    assert!(reply.bytes.is_empty(), "a 204 has no body");
    assert_tus_resumable(&reply);
    http_date(&reply.header("upload-expires").expect("a PATCH answers Upload-Expires"));
    let new_offset = offset_of(&reply);
    assert_eq!(new_offset, offset + sent, "the whole PATCH was kept");
    new_offset
}

/// `HEAD` of an upload.
pub async fn head(app: &TestApp, token: &str, upload_id: &str) -> Reply {
    send(app, tus(app, Method::HEAD, &upload_path(upload_id), token), false).await
}

/// The offset a HEAD answers, asserting 200 and the headers every HEAD carries.
pub async fn offset_now(app: &TestApp, token: &str, upload_id: &str) -> u64 {
    let reply = head(app, token, upload_id).await;
    assert_eq!(reply.status, StatusCode::OK, "HEAD of {upload_id}");
    assert_eq!(reply.header("cache-control").as_deref(), Some("no-store"));
    assert_tus_resumable(&reply);
    offset_of(&reply)
}

/// `DELETE` (termination) of an upload.
pub async fn terminate(app: &TestApp, token: &str, upload_id: &str) -> Reply {
    send(app, tus(app, Method::DELETE, &upload_path(upload_id), token), false).await
}

/// Sends `bytes` from `offset` to the end in PATCHes of `chunk` bytes, asserting each.
pub async fn finish(app: &TestApp, token: &str, upload_id: &str, bytes: &[u8], offset: u64, chunk: usize) {
    let mut offset = offset;
    for piece in bytes[offset as usize..].chunks(chunk) {
        offset = patched(app, token, upload_id, offset, piece.to_vec()).await;
    }
    assert_eq!(offset, bytes.len() as u64);
}

/// A finished upload of `bytes` named `filename`, declared `content_type`, sent in PATCHes of
/// 64 KiB; answers its id.
pub async fn finished(app: &TestApp, token: &str, filename: &str, content_type: &str, bytes: &[u8]) -> String {
    finished_in(app, token, &named(filename, content_type), bytes, 64 * 1024).await
}

/// A finished upload of `bytes` with `metadata`, sent in PATCHes of `chunk` bytes; answers its id.
pub async fn finished_in(app: &TestApp, token: &str, metadata: &str, bytes: &[u8], chunk: usize) -> String {
    let upload_id = created(app, token, bytes.len(), Some(metadata)).await;
    finish(app, token, &upload_id, bytes, 0, chunk).await;
    upload_id
}

/// The `Upload-Offset` of an answer, as a number.
pub fn offset_of(reply: &Reply) -> u64 {
    let offset = reply.header("upload-offset").unwrap_or_else(|| panic!("no Upload-Offset ({})", reply.status));
    offset.parse().unwrap_or_else(|_| panic!("Upload-Offset is not a number: {offset}"))
}

pub fn assert_tus_resumable(reply: &Reply) {
    assert_eq!(reply.header("tus-resumable").as_deref(), Some(TUS_VERSION), "Tus-Resumable of a {}", reply.status);
}

/// The error object of a refusal, asserting its status, code and envelope, and `Tus-Resumable`.
pub fn tus_error(reply: &Reply, status: StatusCode, code: &str) -> Value {
    let error = if code == "UPLOAD_EXPIRED" { expired_error(reply) } else { reply.error(status, code) };
    assert_tus_resumable(reply);
    error
}

/// UPLOAD_EXPIRED (conventions section 2: 820, HTTP 410), checked here as `assert_error_envelope`
/// checks the others.
fn expired_error(reply: &Reply) -> Value {
    let value = reply.json();
    assert_eq!(reply.status, StatusCode::GONE, "status of {value}");
    assert_eq!(reply.header("content-type").as_deref(), Some("application/json"), "{value}");
    let top: Vec<&String> = value.as_object().map(|o| o.keys().collect()).unwrap_or_default();
    assert_eq!(top, ["error"], "the body is the error envelope alone: {value}");
    let error = value["error"].clone();
    for key in error.as_object().unwrap_or_else(|| panic!("error is not an object: {value}")).keys() {
        assert!(["code", "numeric", "message", "details", "requestId"].contains(&key.as_str()), "{key} in {value}");
    }
    assert_eq!(error["code"], "UPLOAD_EXPIRED", "{value}");
    assert_eq!(error["numeric"], 820, "{value}");
    assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()), "message of {value}");
    let id = error["requestId"].as_str().filter(|id| !id.is_empty()).unwrap_or_else(|| panic!("requestId: {value}"));
    assert_eq!(Some(id.to_owned()), reply.header("x-request-id"), "requestId is X-Request-Id: {value}");
    error
}

/// Asserts a refusal of a HEAD: `status`, no body, `Tus-Resumable`.
pub fn assert_head_refused(reply: &Reply, status: StatusCode) {
    assert_eq!(reply.status, status, "HEAD answer");
    assert!(reply.bytes.is_empty(), "a HEAD answer has no body");
    assert_tus_resumable(reply);
}

/// `POST /v0/media/forms/{formId}/attachments` with the JSON body `{fieldIds, uploadIds}`.
pub async fn attach(app: &TestApp, token: &str, form_id: &str, field_ids: &[&str], upload_ids: &[&str]) -> Reply {
    let request = app
        .authed(Method::POST, &attachments_path(form_id), token)
        .json(&json!({"fieldIds": field_ids, "uploadIds": upload_ids}));
    send(app, request, false).await
}

/// An attachment that must answer 201; answers its descriptors.
pub async fn attached(
    app: &TestApp,
    token: &str,
    form_id: &str,
    field_ids: &[&str],
    upload_ids: &[&str],
) -> Vec<Value> {
    let value = attach(app, token, form_id, field_ids, upload_ids).await.expect(StatusCode::CREATED);
    let keys: Vec<&String> = value.as_object().expect("an object").keys().collect();
    assert_eq!(keys, ["attachments"], "{value}");
    value["attachments"].as_array().expect("attachments").clone()
}

/// `POST /v0/media/spaces/{spaceId}/assets/{assetId}` with the JSON body `{uploadId}`.
pub async fn attach_asset(app: &TestApp, token: &str, space_id: &str, asset_id: &str, upload_id: &str) -> Reply {
    let path = crate::support::assets::media_path(space_id, asset_id);
    send(app, app.authed(Method::POST, &path, token).json(&json!({"uploadId": upload_id})), false).await
}

/// Waits for the store to hold exactly `count` objects and nothing of an upload in progress, then
/// asserts it: besides `assert_stored_objects` (objects, temporary files, S3's unfinished multipart
/// uploads), on the local backend no file under `<data-dir>/media` outside `objects/`, where the parts
/// of resumable uploads wait.
pub async fn assert_store_holds(app: &TestApp, count: usize) {
    assert_stored_objects(app, count).await;
    if app.config.media.backend != MediaBackend::Local {
        return;
    }
    let media = app.data_dir.join("media");
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut left = files_outside_objects(&media);
    while !left.is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
        left = files_outside_objects(&media);
    }
    assert_eq!(left, Vec::<PathBuf>::new(), "files of uploads left under the media folder");
}

fn files_outside_objects(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|name| name != "objects") {
                found.extend(files_outside_objects(&path));
            }
        } else {
            found.push(path);
        }
    }
    found
}

/// An `HTTP-date` (IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), or `None`.
pub fn parse_http_date(text: &str) -> Option<OffsetDateTime> {
    let format = time::macros::format_description!(
        "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
    );
    time::PrimitiveDateTime::parse(text, format).ok().map(time::PrimitiveDateTime::assume_utc)
}

/// An `HTTP-date`, asserting it is one.
pub fn http_date(text: &str) -> OffsetDateTime {
    parse_http_date(text).unwrap_or_else(|| panic!("not an HTTP-date: {text:?}"))
}

/// An RFC 3339 time of a JSON body.
pub fn rfc3339(value: &Value) -> OffsetDateTime {
    let text = value.as_str().unwrap_or_else(|| panic!("not a time: {value}"));
    OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| panic!("not an RFC 3339 time: {text}"))
}

/// Asserts `Upload-Expires` of `reply` is about `seconds` from now (give or take `slack` seconds).
pub fn assert_expires_in(reply: &Reply, seconds: i64, slack: i64) {
    let expires = http_date(&reply.header("upload-expires").expect("Upload-Expires"));
    let left = (expires - OffsetDateTime::now_utc()).whole_seconds();
    assert!((seconds - slack..=seconds + 1).contains(&left), "Upload-Expires is {left} s away, not about {seconds}");
}

#[test]
fn base64_pads_as_the_standard_alphabet_does() {
    assert_eq!(base64(b""), "");
    assert_eq!(base64(b"f"), "Zg==");
    assert_eq!(base64(b"fo"), "Zm8=");
    assert_eq!(base64(b"foo"), "Zm9v");
    assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    assert_eq!(base64(&[0xff, 0xfe]), "//4=");
    assert_eq!(http_date("Sun, 06 Nov 1994 08:49:37 GMT").unix_timestamp(), 784_111_777);
}
