//! `/v0/spaces/{spaceId}/comments`: the space's owner and members comment and read.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::http::error::{ApiResult, ErrorEnvelope};
use crate::http::extract::{ApiBody, AuthUser};
use crate::http::list::{ListEnvelope, ListQuery, PageQuery};
use crate::http::views::{CommentView, comment_page};
use crate::services::avatars::Avatars;
use crate::services::comments::Comments;

/// A new comment. The handler reads the body as a map so it can name every unknown property; this
/// type documents it.
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct NewComment {
    /// 1 to 4000 characters, not blank; no control characters other than line breaks and tabs.
    body: String,
}

/// Comments on the space; its owner and members may (not readers through a channel).
#[utoipa::path(post, path = "/v0/spaces/{spaceId}/comments", operation_id = "post_space_comment", tag = "spaces", params(("spaceId" = String, Path)),
    request_body = NewComment, security(("session" = [], "license" = [])),
    responses((status = 201, body = CommentView),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED with every problem"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: the caller reads the space through a channel and may not write"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such space, or the caller is not a member"),
        (status = 429, body = ErrorEnvelope, description = "RATE_LIMITED, with Retry-After: the caller comments faster than the deployment allows")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
pub async fn post_comment(
    State(comments): State<Arc<Comments>>,
    State(avatars): State<Arc<Avatars>>,
    AuthUser(user): AuthUser,
    Path(space_id): Path<String>,
    ApiBody(body): ApiBody<crate::domain::comments::CommentText>,
) -> ApiResult<(StatusCode, Json<CommentView>)> {
    let comment = comments.post_in_space(&user, &space_id, body).await?;
    Ok((StatusCode::CREATED, Json(CommentView::new(comment, avatars.db_hash()))))
}

/// The space's comments, newest first.
#[utoipa::path(get, path = "/v0/spaces/{spaceId}/comments", operation_id = "list_space_comments", tag = "spaces", params(("spaceId" = String, Path), PageQuery),
    security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<CommentView>),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: limit or cursor"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such space, or the caller is not a member")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
pub async fn list_comments(
    State(comments): State<Arc<Comments>>,
    State(avatars): State<Arc<Avatars>>,
    AuthUser(user): AuthUser,
    Path(space_id): Path<String>,
    list: ListQuery<(i64, String)>,
) -> ApiResult<Json<ListEnvelope<CommentView>>> {
    let (page, after) = list.finish()?;
    let rows = comments.list_in_space(&user, &space_id, after, page.fetch_limit()).await?;
    Ok(Json(comment_page(rows, &page, avatars.db_hash())))
}
