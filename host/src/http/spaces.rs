//! `/v0/spaces`: spaces, their general settings, and (in submodules) connected modules, comments and
//! published assets.

pub mod assets;
pub mod comments;
pub mod marketplace;
pub mod modules;

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{any, get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::conditional::{IfMatch, Tagged};
use super::extract::{ApiBody, AuthUser};
use super::list::{ListEnvelope, ListQuery, PageQuery, cursor_millis};
use crate::http::error::{ApiResult, ErrorEnvelope};
use crate::services::spaces::{SpaceMembership, Spaces};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/", get(list_spaces).post(create_space))
        .route("/{space_id}/settings/general", get(get_general).patch(update_general))
        .route("/{space_id}/settings/marketplace", get(marketplace::get_settings).put(marketplace::put_settings))
        .route("/{space_id}/users/pending", get(marketplace::list_pending).post(marketplace::decide_pending))
        .route("/{space_id}/comments", get(comments::list_comments).post(comments::post_comment))
        .route(
            "/{space_id}/assets",
            get(assets::list_assets).post(assets::create_asset).patch(assets::change_asset_state),
        )
        .route("/{space_id}/assets/awaiting-approval", get(assets::awaiting_approval))
        .route("/{space_id}/assets/{asset_id}", get(assets::get_asset))
        .route("/{space_id}/assets/{asset_id}/analysis", post(assets::reanalyse_asset))
        .route("/{space_id}/modules", get(modules::get_modules).put(modules::replace_modules))
        .route("/{space_id}/modules/{module_id}", any(modules::module_route))
        // `{*rest}` needs at least one character, so the root with a trailing slash is its own route.
        .route("/{space_id}/modules/{module_id}/", any(modules::module_route))
        .route("/{space_id}/modules/{module_id}/{*rest}", any(modules::module_route))
}

/// A space as one of its members sees it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SpaceView {
    space_id: String,
    /// A slug, unique in the deployment: 3 to 64 characters of a-z, 0-9 and `-`.
    name: String,
    display_name: String,
    summary: String,
    /// The caller's role: `owner`, `member`, or `reader` (a member of a channel the space is
    /// connected to, who reads what members read and writes nothing).
    #[schema(pattern = "^(owner|member|reader)$")]
    role: String,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    updated_at: OffsetDateTime,
}

impl From<SpaceMembership> for SpaceView {
    fn from(space: SpaceMembership) -> Self {
        Self {
            space_id: space.space_id,
            name: space.name,
            display_name: space.display_name,
            summary: space.summary,
            role: space.role,
            created_at: space.created_at,
            updated_at: space.updated_at,
        }
    }
}

/// The general settings. On create `name` and `displayName` are required; a PATCH sends any of
/// them. The handlers read the body as a map so they can name every unknown or read-only
/// property; this type documents it.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct GeneralSettings {
    /// 3 to 64 characters of a-z, 0-9 and `-`; unique.
    #[schema(nullable = false)]
    name: Option<String>,
    /// 1 to 100 characters.
    #[schema(nullable = false)]
    display_name: Option<String>,
    /// At most 1000 characters; `null` clears it.
    summary: Option<String>,
}

/// A new space: `name` and `displayName` are required.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct NewSpace {
    /// 3 to 64 characters of a-z, 0-9 and `-`; unique.
    name: String,
    /// 1 to 100 characters.
    display_name: String,
    /// At most 1000 characters.
    summary: Option<String>,
}

/// Creates a space; the caller becomes its owner.
#[utoipa::path(post, path = "/v0/spaces", tag = "spaces", request_body = NewSpace,
    security(("session" = [], "license" = [])),
    responses((status = 201, body = SpaceView), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED with every problem"),
        (status = 409, body = ErrorEnvelope, description = "CONFLICT: the name is taken")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
pub async fn create_space(
    State(spaces): State<Arc<Spaces>>,
    AuthUser(user): AuthUser,
    ApiBody(body): ApiBody<crate::domain::spaces::NewSpace>,
) -> ApiResult<(StatusCode, Json<SpaceView>)> {
    let created = spaces.create(&user, body).await?;
    Ok((StatusCode::CREATED, Json(created.into())))
}

/// The spaces the caller is a member of, newest first.
#[utoipa::path(get, path = "/v0/spaces", tag = "spaces", params(PageQuery), security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<SpaceView>), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
pub async fn list_spaces(
    State(spaces): State<Arc<Spaces>>,
    AuthUser(user): AuthUser,
    list: ListQuery<(i64, String)>,
) -> ApiResult<Json<ListEnvelope<SpaceView>>> {
    let (page, after) = list.finish()?;
    let rows = spaces.list(&user, after, page.fetch_limit()).await?;
    Ok(Json(ListEnvelope::from_rows(
        rows,
        &page,
        |m| (cursor_millis(m.created_at), m.space_id.clone()),
        SpaceView::from,
    )))
}

/// The general settings; members read them.
#[utoipa::path(get, path = "/v0/spaces/{spaceId}/settings/general", operation_id = "get_space_settings", tag = "spaces", params(("spaceId" = String, Path)),
    security(("session" = [], "license" = [])),
    responses((status = 200, body = SpaceView), (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such space, or the caller is not a member")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
pub async fn get_general(
    State(spaces): State<Arc<Spaces>>,
    AuthUser(user): AuthUser,
    Path(space_id): Path<String>,
) -> ApiResult<Tagged<SpaceView>> {
    let space = spaces.get(&user, &space_id).await?;
    Ok(Tagged(space.etag(), space.into()))
}

/// Changes any of `name`, `displayName` and `summary`; only the owner may.
#[utoipa::path(patch, path = "/v0/spaces/{spaceId}/settings/general", operation_id = "update_space_settings", tag = "spaces", params(("spaceId" = String, Path)),
    request_body = GeneralSettings, security(("session" = [], "license" = [])),
    responses((status = 200, body = SpaceView), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED with every problem"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: a member who is not the owner"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such space, or the caller is not a member"),
        (status = 409, body = ErrorEnvelope, description = "CONFLICT: the name is taken")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
pub async fn update_general(
    State(spaces): State<Arc<Spaces>>,
    AuthUser(user): AuthUser,
    Path(space_id): Path<String>,
    IfMatch(precondition): IfMatch,
    ApiBody(body): ApiBody<crate::domain::spaces::GeneralChange>,
) -> ApiResult<Tagged<SpaceView>> {
    let space = spaces.update_general(&user, &space_id, body, &precondition).await?;
    Ok(Tagged(space.etag(), space.into()))
}
