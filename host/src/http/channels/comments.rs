//! `/v0/channels/{channelId}/comments`: the channel's members comment and read.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;

use crate::http::error::{ApiResult, ErrorEnvelope};
use crate::http::extract::{ApiBody, AuthUser};
use crate::http::list::{ListEnvelope, ListQuery, PageQuery};
use crate::http::spaces::comments::NewComment;
use crate::http::views::{CommentView, comment_page};
use crate::services::avatars::Avatars;
use crate::services::channels::Channels;

/// Comments in the channel; every member may.
#[utoipa::path(post, path = "/v0/channels/{channelId}/comments", operation_id = "post_channel_comment", tag = "channels", params(("channelId" = String, Path)),
    request_body = NewComment, security(("session" = [], "license" = [])),
    responses((status = 201, body = CommentView),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED with every problem"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such channel, or the caller is not a member"),
        (status = 429, body = ErrorEnvelope, description = "RATE_LIMITED, with Retry-After: the caller comments faster than the deployment allows")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, channel_id))]
pub async fn post_comment(
    State(channels): State<Arc<Channels>>,
    State(avatars): State<Arc<Avatars>>,
    AuthUser(user): AuthUser,
    Path(channel_id): Path<String>,
    ApiBody(body): ApiBody<crate::domain::comments::CommentText>,
) -> ApiResult<(StatusCode, Json<CommentView>)> {
    let comment = channels.post_comment(&user, &channel_id, body).await?;
    Ok((StatusCode::CREATED, Json(CommentView::new(comment, avatars.db_hash()))))
}

/// The channel's comments, newest first; members read them.
#[utoipa::path(get, path = "/v0/channels/{channelId}/comments", operation_id = "list_channel_comments", tag = "channels", params(("channelId" = String, Path), PageQuery),
    security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<CommentView>),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: query.limit, query.cursor"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such channel, or the caller is not a member")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, channel_id))]
pub async fn list_comments(
    State(channels): State<Arc<Channels>>,
    State(avatars): State<Arc<Avatars>>,
    AuthUser(user): AuthUser,
    Path(channel_id): Path<String>,
    list: ListQuery<(i64, String)>,
) -> ApiResult<Json<ListEnvelope<CommentView>>> {
    let (page, after) = list.finish()?;
    let rows = channels.comments(&user, &channel_id, after, page.fetch_limit()).await?;
    Ok(Json(comment_page(rows, &page, avatars.db_hash())))
}
