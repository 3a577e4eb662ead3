//! `/v0/channels/{channelId}/invites` and `/v0/channels/invites/...`: inviting by handle, the
//! invitee's inbox and answer, and cancelling.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::http::error::{ApiResult, ErrorEnvelope};
use crate::http::extract::{ApiBody, AuthUser};
use crate::http::list::{ListEnvelope, ListQuery, PageQuery, cursor_millis};
use crate::services::channels::{Channels, Invite, InviteAnswer};

/// Whom to invite.
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct InviteRequest {
    /// 1 to 50 distinct handles (without `@`), each naming an account other than the caller's.
    users: Vec<String>,
}

/// What the request did for one handle.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InviteResult {
    /// The invite: new, or the one already PENDING for this user. For a user who is already a
    /// member (state `ACCEPTED`), the invite they accepted, or `null` when they joined without
    /// one (the owner).
    #[schema(required = true)]
    invite_id: Option<String>,
    handle: String,
    /// `PENDING` (invited now or before) or `ACCEPTED` (already a member).
    #[schema(pattern = "^(PENDING|ACCEPTED)$")]
    state: String,
}

impl From<InviteAnswer> for InviteResult {
    fn from(outcome: InviteAnswer) -> Self {
        Self { invite_id: outcome.invite_id, handle: outcome.handle, state: outcome.state }
    }
}

/// One result per handle, in the order the request named them.
#[derive(Serialize, ToSchema)]
pub struct InvitesCreated {
    invites: Vec<InviteResult>,
}

/// A user as an invite names them.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserRef {
    user_id: String,
    handle: String,
}

/// An invite as its invitee sees it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InviteView {
    invite_id: String,
    channel_id: String,
    channel_name: String,
    invited_by: UserRef,
    /// `PENDING`, `ACCEPTED`, `DECLINED` or `CANCELLED`.
    #[schema(pattern = "^(PENDING|ACCEPTED|DECLINED|CANCELLED)$")]
    state: String,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
}

impl From<Invite> for InviteView {
    fn from(invite: Invite) -> Self {
        Self {
            invite_id: invite.invite_id,
            channel_id: invite.channel_id,
            channel_name: invite.channel_name,
            invited_by: UserRef { user_id: invite.invited_by_id, handle: invite.invited_by_handle },
            state: invite.state,
            created_at: invite.created_at,
        }
    }
}

/// The invitee's answer.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct InviteResponse {
    invite_id: String,
    /// `ACCEPT` or `DECLINE`.
    #[schema(pattern = "^(ACCEPT|DECLINE)$")]
    response: String,
}

/// Invites users by handle; the channel's owner and inviters may. A handle of a member answers
/// its membership, one already invited its PENDING invite; no second invite is made. Any unknown
/// handle (or the caller's own) refuses the whole request, as does a user who declined this
/// channel's invite less than `rate_limits.reinvite_after_decline_seconds` (24 h) ago.
#[utoipa::path(post, path = "/v0/channels/{channelId}/invites", operation_id = "invite_to_channel", tag = "channels", params(("channelId" = String, Path)),
    request_body = InviteRequest, security(("session" = [], "license" = [])),
    responses((status = 201, body = InvitesCreated),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED, nothing written: UNKNOWN_USER, SELF_INVITE, INVALID_HANDLE, DUPLICATE_USER, INVALID_TYPE at /users/{i}; REQUIRED (missing or empty), TOO_MANY (over 50) at /users"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: a member who is neither the owner nor an inviter"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such channel, or the caller is not a member"),
        (status = 409, body = ErrorEnvelope, description = "CONFLICT: the channel would have more than 1,000 pending invites; nothing written"),
        (status = 429, body = ErrorEnvelope, description = "RATE_LIMITED with Retry-After (the time left): a user named declined this channel's invite less than the cool-down (24 h by default) ago; nothing written")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, channel_id))]
pub async fn invite(
    State(channels): State<Arc<Channels>>,
    AuthUser(user): AuthUser,
    Path(channel_id): Path<String>,
    ApiBody(body): ApiBody<crate::domain::channels::InviteHandles>,
) -> ApiResult<(StatusCode, Json<InvitesCreated>)> {
    let outcomes = channels.invite(&user, &channel_id, body).await?;
    Ok((StatusCode::CREATED, Json(InvitesCreated { invites: outcomes.into_iter().map(InviteResult::from).collect() })))
}

/// The caller's PENDING invites, newest first.
#[utoipa::path(get, path = "/v0/channels/invites/pending", operation_id = "list_pending_invites", tag = "channels", params(PageQuery),
    security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<InviteView>), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: query.limit, query.cursor")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
pub async fn pending_invites(
    State(channels): State<Arc<Channels>>,
    AuthUser(user): AuthUser,
    list: ListQuery<(i64, String)>,
) -> ApiResult<Json<ListEnvelope<InviteView>>> {
    let (page, after) = list.finish()?;
    let rows = channels.pending_invites(&user, after, page.fetch_limit()).await?;
    Ok(Json(ListEnvelope::from_rows(
        rows,
        &page,
        |i| (cursor_millis(i.created_at), i.invite_id.clone()),
        InviteView::from,
    )))
}

/// The invitee accepts or declines a PENDING invite; accepting makes them a `member`. Answers the
/// invite in its new state.
#[utoipa::path(post, path = "/v0/channels/invites/respond", operation_id = "respond_to_invite", tag = "channels", request_body = InviteResponse,
    security(("session" = [], "license" = [])),
    responses((status = 200, body = InviteView),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: /inviteId REQUIRED or INVALID_TYPE; /response REQUIRED or not ACCEPT or DECLINE (INVALID_VALUE); UNKNOWN_FIELD"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such invite, or the caller is not its invitee"),
        (status = 409, body = ErrorEnvelope, description = "INVALID_TRANSITION: the invite is already ACCEPTED, DECLINED or CANCELLED")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
pub async fn respond(
    State(channels): State<Arc<Channels>>,
    AuthUser(user): AuthUser,
    ApiBody(body): ApiBody<crate::domain::channels::InviteAnswer>,
) -> ApiResult<Json<InviteView>> {
    Ok(Json(channels.respond(&user, body).await?.into()))
}

/// Cancels a PENDING invite; its inviter or the channel's owner may.
#[utoipa::path(delete, path = "/v0/channels/{channelId}/invites/{inviteId}", tag = "channels",
    params(("channelId" = String, Path), ("inviteId" = String, Path)), security(("session" = [], "license" = [])),
    responses((status = 204, description = "the invite is CANCELLED"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: a member who is neither the inviter nor the owner"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such channel or invite in it, or the caller is not a member"),
        (status = 409, body = ErrorEnvelope, description = "INVALID_TRANSITION: the invite is already ACCEPTED, DECLINED or CANCELLED")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, channel_id))]
pub async fn cancel_invite(
    State(channels): State<Arc<Channels>>,
    AuthUser(user): AuthUser,
    Path((channel_id, invite_id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    channels.cancel_invite(&user, &channel_id, &invite_id).await?;
    Ok(StatusCode::NO_CONTENT)
}
