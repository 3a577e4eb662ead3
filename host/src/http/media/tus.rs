//! `/v0/media/uploads`: resumable uploads speaking tus 1.0.0 (core, creation,
//! creation-with-upload, termination, expiration; conventions section 14). The protocol's
//! headers are read here and handed to `services::resumable` as text; every answer, errors too,
//! carries `Tus-Resumable`.

use std::sync::Arc;
use std::time::SystemTime;

use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use futures::TryStreamExt;
use serde::Serialize;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use utoipa::ToSchema;

use crate::domain::problems::Problems;
use crate::domain::resumable::{OFFSET_OCTET_STREAM, TUS_EXTENSIONS, TUS_VERSION};
use crate::http::error::{ApiResult, Error, ErrorCode, ErrorEnvelope};
use crate::http::extract::AuthUser;
use crate::infra::media::ByteStream;
use crate::services::licenses::Caller;
use crate::services::resumable::{NewUpload, ResumableUploads, SentBytes, UploadStatus};
use crate::state::AppState;

const TUS_RESUMABLE: HeaderName = HeaderName::from_static("tus-resumable");
const TUS_VERSION_HEADER: HeaderName = HeaderName::from_static("tus-version");
const UPLOAD_OFFSET: HeaderName = HeaderName::from_static("upload-offset");
const UPLOAD_LENGTH: HeaderName = HeaderName::from_static("upload-length");
const UPLOAD_METADATA: HeaderName = HeaderName::from_static("upload-metadata");
const UPLOAD_EXPIRES: HeaderName = HeaderName::from_static("upload-expires");

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/uploads", post(create_upload).options(tus_options))
        .route("/uploads/{upload_id}", axum::routing::head(upload_status).patch(append_upload).delete(terminate_upload))
        .layer(axum::middleware::map_response(tus_headers))
}

/// Every answer names the protocol version; a refused version also lists the one served.
async fn tus_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(TUS_RESUMABLE, HeaderValue::from_static(TUS_VERSION));
    if response.status() == StatusCode::PRECONDITION_FAILED {
        response.headers_mut().insert(TUS_VERSION_HEADER, HeaderValue::from_static(TUS_VERSION));
    }
    response
}

/// `Tus-Resumable: 1.0.0`, which every request but `OPTIONS` must carry (412 otherwise).
fn require_version(headers: &HeaderMap) -> ApiResult<()> {
    if headers.get(&TUS_RESUMABLE).is_some_and(|v| v.as_bytes() == TUS_VERSION.as_bytes()) {
        return Ok(());
    }
    let mut problems = Problems::new();
    problems.push("header.Tus-Resumable", "UNSUPPORTED_VERSION", format!("must be {TUS_VERSION}"));
    Err(Error::rejected(ErrorCode::PreconditionFailed, problems))
}

fn text<'a>(headers: &'a HeaderMap, name: &HeaderName) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn is_offset_stream(headers: &HeaderMap) -> bool {
    text(headers, &header::CONTENT_TYPE)
        .and_then(|v| v.split(';').next())
        .is_some_and(|mime| mime.trim().eq_ignore_ascii_case(OFFSET_OCTET_STREAM))
}

fn sent_bytes(request: Request) -> SentBytes {
    let announced = text(request.headers(), &header::CONTENT_LENGTH).and_then(|v| v.parse().ok());
    let body: ByteStream = Box::pin(request.into_body().into_data_stream().map_err(std::io::Error::other));
    SentBytes { body, announced }
}

fn http_date(at: OffsetDateTime) -> HeaderValue {
    let at = SystemTime::from(at);
    HeaderValue::from_str(&httpdate::fmt_http_date(at)).unwrap_or(HeaderValue::from_static(""))
}

fn count(value: u64) -> HeaderValue {
    HeaderValue::from(value)
}

/// An upload as the creation answers it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UploadCreated {
    upload_id: String,
    /// Bytes received so far (those a creation-with-upload carried).
    offset: u64,
    length: u64,
    /// RFC 3339; `Upload-Expires` says the same as an HTTP date.
    expires_at: String,
}

/// What the server speaks: the tus version, extensions and largest upload.
#[utoipa::path(options, path = "/v0/media/uploads", tag = "media",
    responses((status = 204, description = "Tus-Version, Tus-Extension and Tus-Max-Size")))]
pub async fn tus_options(State(uploads): State<Arc<ResumableUploads>>) -> Response {
    let mut headers = HeaderMap::new();
    headers.insert(TUS_VERSION_HEADER, HeaderValue::from_static(TUS_VERSION));
    headers.insert(HeaderName::from_static("tus-extension"), HeaderValue::from_static(TUS_EXTENSIONS));
    headers.insert(HeaderName::from_static("tus-max-size"), count(uploads.max_size()));
    (StatusCode::NO_CONTENT, headers).into_response()
}

/// Creates a resumable upload (tus creation): `Tus-Resumable: 1.0.0`, `Upload-Length` (bytes, at
/// least 1) and `Upload-Metadata` (`filename` and `contentType`, base64). With `Content-Type:
/// application/offset+octet-stream` the body holds its first bytes (creation-with-upload). The tus
/// headers are written into the document by `openapi/tus.rs`, so a generated client can send them.
#[utoipa::path(post, path = "/v0/media/uploads", tag = "media",
    security(("session" = [], "license" = [])),
    responses((status = 201, body = UploadCreated, description = "Location names the upload; Upload-Offset, Upload-Expires"),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED at a header"),
        (status = 412, body = ErrorEnvelope, description = "PRECONDITION_FAILED: no Tus-Resumable 1.0.0"),
        (status = 413, body = ErrorEnvelope, description = "PAYLOAD_TOO_LARGE: longer than media.max_file_bytes"),
        (status = 429, body = ErrorEnvelope, description = "RATE_LIMITED: the user or license key holds too many unused uploads or bytes"),
        (status = 503, body = ErrorEnvelope, description = "MEDIA_UNAVAILABLE, or SERVICE_UNAVAILABLE: the server's unused uploads hold as many bytes as it allows (`Retry-After`)")))]
pub async fn create_upload(
    State(uploads): State<Arc<ResumableUploads>>,
    AuthUser(user): AuthUser,
    caller: Caller,
    request: Request,
) -> ApiResult<Response> {
    let headers = request.headers().clone();
    require_version(&headers)?;
    let new = NewUpload {
        length: text(&headers, &UPLOAD_LENGTH),
        defer_length: headers.contains_key("upload-defer-length"),
        metadata: text(&headers, &UPLOAD_METADATA),
    };
    let first = is_offset_stream(&headers).then(|| sent_bytes(request));
    let status = uploads.create(&user, &caller.subject, new, first).await?;
    let mut answer = HeaderMap::new();
    let location = format!("/v0/media/uploads/{}", status.upload_id);
    answer.insert(header::LOCATION, HeaderValue::from_str(&location).map_err(Error::internal)?);
    describe(&mut answer, &status);
    let body = UploadCreated {
        upload_id: status.upload_id,
        offset: status.offset,
        length: status.length,
        expires_at: status.expires_at.format(&Rfc3339).map_err(Error::internal)?,
    };
    Ok((StatusCode::CREATED, answer, Json(body)).into_response())
}

fn describe(headers: &mut HeaderMap, status: &UploadStatus) {
    headers.insert(UPLOAD_OFFSET, count(status.offset));
    headers.insert(UPLOAD_EXPIRES, http_date(status.expires_at));
}

/// Where an upload stands (`Tus-Resumable: 1.0.0` required): `Upload-Offset`, `Upload-Length`,
/// `Upload-Metadata`, `Upload-Expires`.
#[utoipa::path(head, path = "/v0/media/uploads/{uploadId}", tag = "media",
    params(("uploadId" = String, Path)),
    security(("session" = [], "license" = [])),
    responses((status = 200, description = "Upload-Offset, Upload-Length, Upload-Metadata, Upload-Expires"),
        (status = 404, description = "NOT_FOUND: unknown, or another user's"),
        (status = 410, description = "UPLOAD_EXPIRED"),
        (status = 412, description = "PRECONDITION_FAILED: no Tus-Resumable 1.0.0")))]
pub async fn upload_status(
    State(uploads): State<Arc<ResumableUploads>>,
    AuthUser(user): AuthUser,
    Path(upload_id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    require_version(&headers)?;
    let status = uploads.status(&user, &upload_id).await?;
    let mut answer = HeaderMap::new();
    describe(&mut answer, &status);
    answer.insert(UPLOAD_LENGTH, count(status.length));
    if let Ok(metadata) = HeaderValue::from_str(&status.metadata)
        && !status.metadata.is_empty()
    {
        answer.insert(UPLOAD_METADATA, metadata);
    }
    answer.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok((StatusCode::OK, answer).into_response())
}

/// Appends the body at `Upload-Offset`, which must be where the upload stands (`Tus-Resumable:
/// 1.0.0` required).
#[utoipa::path(patch, path = "/v0/media/uploads/{uploadId}", tag = "media",
    params(("uploadId" = String, Path)),
    request_body(content = Vec<u8>, content_type = "application/offset+octet-stream"),
    security(("session" = [], "license" = [])),
    responses((status = 204, description = "The new Upload-Offset and Upload-Expires"),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: no Upload-Offset"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: unknown, or another user's"),
        (status = 409, body = ErrorEnvelope, description = "CONFLICT: Upload-Offset is not the upload's offset, or another request writes it"),
        (status = 410, body = ErrorEnvelope, description = "UPLOAD_EXPIRED"),
        (status = 412, body = ErrorEnvelope, description = "PRECONDITION_FAILED: no Tus-Resumable 1.0.0"),
        (status = 413, body = ErrorEnvelope, description = "PAYLOAD_TOO_LARGE: more bytes than the upload lacks"),
        (status = 415, body = ErrorEnvelope, description = "UNSUPPORTED_MEDIA_TYPE: not application/offset+octet-stream"),
        (status = 503, body = ErrorEnvelope, description = "MEDIA_UNAVAILABLE")))]
pub async fn append_upload(
    State(uploads): State<Arc<ResumableUploads>>,
    AuthUser(user): AuthUser,
    Path(upload_id): Path<String>,
    request: Request,
) -> ApiResult<Response> {
    let headers = request.headers().clone();
    require_version(&headers)?;
    if !is_offset_stream(&headers) {
        return Err(Error::UnsupportedMediaType(format!("the body must be {OFFSET_OCTET_STREAM}").into()));
    }
    let offset = text(&headers, &UPLOAD_OFFSET);
    let status = uploads.append(&user, &upload_id, offset, sent_bytes(request)).await?;
    let mut answer = HeaderMap::new();
    describe(&mut answer, &status);
    Ok((StatusCode::NO_CONTENT, answer).into_response())
}

/// Removes an upload and its bytes (tus termination; `Tus-Resumable: 1.0.0` required).
#[utoipa::path(delete, path = "/v0/media/uploads/{uploadId}", tag = "media",
    params(("uploadId" = String, Path)),
    security(("session" = [], "license" = [])),
    responses((status = 204, description = "Removed"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: unknown, or another user's"),
        (status = 409, body = ErrorEnvelope, description = "CONFLICT: a request is writing it"),
        (status = 412, body = ErrorEnvelope, description = "PRECONDITION_FAILED: no Tus-Resumable 1.0.0")))]
pub async fn terminate_upload(
    State(uploads): State<Arc<ResumableUploads>>,
    AuthUser(user): AuthUser,
    Path(upload_id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<StatusCode> {
    require_version(&headers)?;
    uploads.terminate(&user, &upload_id).await?;
    Ok(StatusCode::NO_CONTENT)
}
