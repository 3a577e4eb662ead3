//! `/v0/media`: form attachments, published assets of spaces and avatars. Bodies stream in and out; see `crate::infra::media`.

mod download;
mod multipart;
pub mod tus;

use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Path, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::extract::{ApiQuery, AuthUser, is_json, parse_json};
use crate::config::Config;
use crate::http::error::{ApiResult, ErrorEnvelope};
use crate::services::assets::Assets;
use crate::services::attachments::{Attachment, Attachments};
use crate::services::avatars::{Avatar, Avatars};
use crate::services::licenses::Caller;
use crate::services::resumable::ResumableUploads;
use crate::services::uploads::{NamedUploads, PartSource};
use crate::services::workflow_items::Access;
use crate::state::AppState;
use download::Download;
use multipart::MultipartSource;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/forms/{form_id}/attachments", post(upload_attachments))
        .route("/forms/{form_id}/attachments/{part_key}", get(download_attachment).delete(delete_attachment))
        .route("/spaces/{space_id}/assets/{asset_id}", post(upload_asset).get(download_asset))
        .route("/users/me/avatar", post(upload_avatar).delete(delete_avatar))
        .route("/users/{db_hash}/{user_id}/avatar/{pic_id}", get(download_avatar))
        .merge(tus::router())
        // Uploads are bounded per file and per request while they stream, not by the JSON limit.
        .layer(DefaultBodyLimit::disable())
}

/// The stored description of one uploaded file. Storage paths never appear.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentDescriptor {
    pub field_id: String,
    /// Opaque; names the part in the download and delete routes.
    pub part_key: String,
    pub content_type: String,
    pub bytes: i64,
    pub filename: String,
}

impl From<Attachment> for AttachmentDescriptor {
    fn from(a: Attachment) -> Self {
        Self {
            field_id: a.field_id,
            part_key: a.part_key,
            content_type: a.content_type,
            bytes: a.bytes,
            filename: a.filename,
        }
    }
}

#[derive(Serialize, ToSchema)]
pub struct Uploaded {
    attachments: Vec<AttachmentDescriptor>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AvatarUploaded {
    pic_id: String,
    content_type: String,
    bytes: i64,
}

impl From<Avatar> for AvatarUploaded {
    fn from(a: Avatar) -> Self {
        Self { pic_id: a.pic_id, content_type: a.content_type, bytes: a.bytes }
    }
}

/// Acting through a workflow view: both or neither.
#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ViewQuery {
    workflow_configuration_id: Option<String>,
    workflow_view_id: Option<String>,
    /// Only for DELETE: the field the part belongs to.
    field_id: Option<String>,
}

impl ViewQuery {
    fn access(&self) -> Access<'_> {
        Access {
            workflow_configuration_id: self.workflow_configuration_id.as_deref(),
            view_id: self.workflow_view_id.as_deref(),
        }
    }
}

/// The multipart body of an upload, for the OpenAPI document.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct AttachmentUpload {
    /// Field ids, paired with `files` by position.
    #[schema(rename = "fieldIds")]
    field_ids: Vec<String>,
    #[schema(value_type = Vec<String>, format = Binary)]
    files: Vec<Vec<u8>>,
}

/// Finished resumable uploads used in place of file parts, paired with `fieldIds` by position.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UseUploads {
    field_ids: Vec<String>,
    /// Ids of finished uploads (`/v0/media/uploads`), each used once.
    upload_ids: Vec<String>,
}

/// A finished resumable upload used in place of the file part.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UseUpload {
    upload_id: String,
}

/// The most a JSON body naming uploads may hold.
const MAX_JSON_BYTES: usize = 256 * 1024;

async fn read_json<T: serde::de::DeserializeOwned>(request: Request) -> ApiResult<T> {
    let bytes = axum::body::to_bytes(request.into_body(), MAX_JSON_BYTES).await.map_err(|_| {
        crate::http::error::Error::PayloadTooLarge(std::borrow::Cow::Borrowed("the JSON body is over 256 KiB"))
    })?;
    parse_json(&bytes)
}

/// Uploads files to file fields of a form instance: all or nothing.
#[utoipa::path(post, path = "/v0/media/forms/{formId}/attachments", tag = "media",
    params(("formId" = String, Path), ViewQuery),
    request_body(content(
        (AttachmentUpload = "multipart/form-data"),
        (UseUploads = "application/json"))),
    security(("session" = [], "license" = [])),
    responses((status = 201, body = Uploaded),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED with every problem"),
        (status = 403, body = ErrorEnvelope, description = "ENTITLEMENT_LIMIT_EXCEEDED"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND"),
        (status = 409, body = ErrorEnvelope, description = "MAX_FILES_EXCEEDED"),
        (status = 413, body = ErrorEnvelope, description = "PAYLOAD_TOO_LARGE"),
        (status = 415, body = ErrorEnvelope, description = "UNSUPPORTED_MEDIA_TYPE"),
        (status = 503, body = ErrorEnvelope, description = "MEDIA_UNAVAILABLE, with Retry-After")))]
pub async fn upload_attachments(
    State(attachments): State<Arc<Attachments>>,
    State(uploads): State<Arc<ResumableUploads>>,
    AuthUser(user): AuthUser,
    caller: Caller,
    Path(form_id): Path<String>,
    ApiQuery(query): ApiQuery<ViewQuery>,
    request: Request,
) -> ApiResult<(StatusCode, Json<Uploaded>)> {
    let mut source: Box<dyn PartSource> = if is_json(request.headers()) {
        let body: UseUploads = read_json(request).await?;
        Box::new(NamedUploads::for_attachments(uploads, &user, body.field_ids, body.upload_ids))
    } else {
        Box::new(MultipartSource::from_request(request, attachments.max_request_bytes())?)
    };
    let stored = attachments.upload(&user, &caller, &form_id, query.access(), source.as_mut()).await?;
    Ok((StatusCode::CREATED, Json(Uploaded { attachments: stored.into_iter().map(Into::into).collect() })))
}

/// The bytes of one attachment; honours `Range`, `If-None-Match` and `If-Range`.
#[utoipa::path(get, path = "/v0/media/forms/{formId}/attachments/{partKey}", tag = "media",
    params(("formId" = String, Path), ("partKey" = String, Path), ViewQuery),
    security(("session" = [], "license" = [])),
    responses((status = 200, description = "The bytes, with Content-Type, Content-Length, ETag and Content-Disposition"),
        (status = 206, description = "A range of the bytes"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND"),
        (status = 416, body = ErrorEnvelope, description = "the range lies outside the file"),
        (status = 503, body = ErrorEnvelope, description = "MEDIA_UNAVAILABLE")))]
pub async fn download_attachment(
    State(attachments): State<Arc<Attachments>>,
    AuthUser(user): AuthUser,
    Path((form_id, part_key)): Path<(String, String)>,
    ApiQuery(query): ApiQuery<ViewQuery>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let attachment = attachments.open(&user, &form_id, &part_key, query.access()).await?;
    let download = Download {
        content_type: &attachment.content_type,
        length: attachment.bytes as u64,
        etag: content_tag(attachment.sha256.as_deref(), &attachment.part_key),
        filename: Some(&attachment.filename),
    };
    download.respond(&headers, |range| attachments.bytes(&attachment, range)).await
}

/// Removes one attachment; `fieldId` names its field.
#[utoipa::path(delete, path = "/v0/media/forms/{formId}/attachments/{partKey}", tag = "media",
    params(("formId" = String, Path), ("partKey" = String, Path), ViewQuery),
    security(("session" = [], "license" = [])),
    responses((status = 204, description = "Removed"), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND")))]
pub async fn delete_attachment(
    State(attachments): State<Arc<Attachments>>,
    AuthUser(user): AuthUser,
    Path((form_id, part_key)): Path<(String, String)>,
    ApiQuery(query): ApiQuery<ViewQuery>,
) -> ApiResult<StatusCode> {
    attachments.remove(&user, &form_id, &part_key, query.field_id.as_deref(), query.access()).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `{assetId, contentType, bytes, filename}`: an asset's stored bytes.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssetUploaded {
    asset_id: String,
    content_type: String,
    bytes: i64,
    filename: String,
}

/// The multipart body of an asset upload, for the OpenAPI document.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct AssetUpload {
    /// The asset's bytes; they must agree with the announced `contentType` and `filename`.
    #[schema(value_type = String, format = Binary)]
    file: Vec<u8>,
}

/// `part` of an asset download.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AssetPartQuery {
    /// `base` (the default): the uploaded bytes.
    #[param(pattern = "^base$")]
    part: Option<String>,
}

/// Uploads an announced asset's bytes, once: only its proposer may, and the bytes must agree with
/// the announced type. Moves the asset to AWAITING_APPROVAL.
#[utoipa::path(post, path = "/v0/media/spaces/{spaceId}/assets/{assetId}", tag = "media",
    params(("spaceId" = String, Path), ("assetId" = String, Path)),
    request_body(content(
        (AssetUpload = "multipart/form-data"),
        (UseUpload = "application/json"))),
    security(("session" = [], "license" = [])),
    responses((status = 201, body = AssetUploaded),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: no file part, an empty file, other parts"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: the caller did not propose the asset"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such space or asset, or one the caller may not see"),
        (status = 409, body = ErrorEnvelope, description = "CONFLICT: the asset's bytes were uploaded already"),
        (status = 413, body = ErrorEnvelope, description = "PAYLOAD_TOO_LARGE: larger than media.max_asset_bytes"),
        (status = 415, body = ErrorEnvelope, description = "UNSUPPORTED_MEDIA_TYPE: the bytes disagree with the announced or declared type"),
        (status = 503, body = ErrorEnvelope, description = "MEDIA_UNAVAILABLE, with Retry-After")))]
pub async fn upload_asset(
    State(uploads): State<Arc<ResumableUploads>>,
    State(config): State<Arc<Config>>,
    State(assets): State<Arc<Assets>>,
    AuthUser(user): AuthUser,
    caller: Caller,
    Path((space_id, asset_id)): Path<(String, String)>,
    request: Request,
) -> ApiResult<(StatusCode, Json<AssetUploaded>)> {
    let mut source: Box<dyn PartSource> = if is_json(request.headers()) {
        let body: UseUpload = read_json(request).await?;
        Box::new(NamedUploads::for_asset(uploads.clone(), &user, body.upload_id))
    } else {
        Box::new(MultipartSource::from_request(request, config.media.max_request_bytes)?)
    };
    let asset = assets.upload(&user, &caller, &space_id, &asset_id, source.as_mut()).await?;
    Ok((
        StatusCode::CREATED,
        Json(AssetUploaded {
            asset_id: asset.asset_id,
            content_type: asset.content_type,
            bytes: asset.bytes.unwrap_or(0),
            filename: asset.filename,
        }),
    ))
}

/// An asset's bytes; honours `Range`, `If-None-Match` and `If-Range` like attachment downloads.
#[utoipa::path(get, path = "/v0/media/spaces/{spaceId}/assets/{assetId}", tag = "media",
    params(("spaceId" = String, Path), ("assetId" = String, Path), AssetPartQuery),
    security(("session" = [], "license" = [])),
    responses((status = 200, description = "The bytes, with Content-Type, Content-Length, ETag and Content-Disposition"),
        (status = 206, description = "A range of the bytes"),
        (status = 304, description = "If-None-Match matched"),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: a part other than base"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such asset, one the caller may not see, or no bytes yet"),
        (status = 416, body = ErrorEnvelope, description = "the range lies outside the file"),
        (status = 503, body = ErrorEnvelope, description = "MEDIA_UNAVAILABLE")))]
pub async fn download_asset(
    State(assets): State<Arc<Assets>>,
    AuthUser(user): AuthUser,
    Path((space_id, asset_id)): Path<(String, String)>,
    ApiQuery(query): ApiQuery<AssetPartQuery>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let asset = assets.open(&user, &space_id, &asset_id, query.part.as_deref()).await?;
    let download = Download {
        content_type: &asset.content_type,
        length: asset.bytes.unwrap_or(0).max(0) as u64,
        etag: content_tag(asset.sha256.as_deref(), &asset.asset_id.replace('-', "")),
        filename: Some(&asset.filename),
    };
    download.respond(&headers, |range| assets.bytes(&asset, range)).await
}

/// The multipart body of an avatar upload, for the OpenAPI document.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct AvatarUpload {
    /// PNG, JPEG, WebP or GIF, at most 2 MiB.
    #[schema(value_type = String, format = Binary)]
    file: Vec<u8>,
}

/// Sets the caller's avatar (replacing any previous one).
#[utoipa::path(post, path = "/v0/media/users/me/avatar", tag = "media",
    request_body(content = AvatarUpload, content_type = "multipart/form-data"),
    security(("session" = [], "license" = [])),
    responses((status = 201, body = AvatarUploaded), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED"),
        (status = 413, body = ErrorEnvelope, description = "PAYLOAD_TOO_LARGE"),
        (status = 415, body = ErrorEnvelope, description = "UNSUPPORTED_MEDIA_TYPE: not an image")))]
pub async fn upload_avatar(
    State(avatars): State<Arc<Avatars>>,
    AuthUser(user): AuthUser,
    request: Request,
) -> ApiResult<(StatusCode, Json<AvatarUploaded>)> {
    let limit = crate::services::avatars::AVATAR_MAX_BYTES + 64 * 1024;
    let mut source = MultipartSource::from_request(request, limit)?;
    let avatar = avatars.upload(&user, &mut source).await?;
    Ok((StatusCode::CREATED, Json(avatar.into())))
}

/// Removes the caller's avatar.
#[utoipa::path(delete, path = "/v0/media/users/me/avatar", tag = "media", security(("session" = [], "license" = [])),
    responses((status = 204, description = "Removed (or there was none)")))]
pub async fn delete_avatar(State(avatars): State<Arc<Avatars>>, AuthUser(user): AuthUser) -> ApiResult<StatusCode> {
    avatars.remove(&user).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// A user's avatar, by the ids a profile or search result gives.
#[utoipa::path(get, path = "/v0/media/users/{dbHash}/{userId}/avatar/{picId}", tag = "media",
    params(("dbHash" = String, Path), ("userId" = String, Path), ("picId" = String, Path)),
    security(("session" = [], "license" = [])),
    responses((status = 200, description = "The image"), (status = 404, body = ErrorEnvelope, description = "NOT_FOUND")))]
pub async fn download_avatar(
    State(avatars): State<Arc<Avatars>>,
    _user: AuthUser,
    Path((db_hash, user_id, pic_id)): Path<(String, String, String)>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let avatar = avatars.find(&db_hash, &user_id, &pic_id).await?;
    let download = Download {
        content_type: &avatar.content_type,
        length: avatar.bytes as u64,
        etag: content_tag(avatar.sha256.as_deref(), &avatar.pic_id),
        filename: None,
    };
    download.respond(&headers, |range| avatars.bytes(&avatar, range)).await
}

/// A download's entity tag: the quoted SHA-256 of its bytes (conventions section 14). Bytes stored
/// before content addressing have no address until the start-up step has read them; meanwhile
/// their tag is the name of what holds them, which never holds other bytes either.
fn content_tag(sha256: Option<&str>, name: &str) -> String {
    format!("\"{}\"", sha256.unwrap_or(name))
}
