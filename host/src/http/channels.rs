//! `/v0/channels`: channels, their connected spaces and members, and (in submodules) invites with
//! the invitee's inbox, and comments.

pub mod comments;
pub mod invites;

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, patch, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::conditional::{IfMatch, Tagged};
use super::extract::{ApiBody, AuthUser};
use super::list::{ListEnvelope, ListQuery, PageQuery, cursor_millis};
use crate::http::error::{ApiResult, ErrorEnvelope};
use crate::services::channels::{ChannelMembership, ChannelSpace, Channels, Member};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    // The static `invites/...` routes win over `{channel_id}` (axum matches static segments
    // first); `GET /v0/channels/invites` is a channel id that is no UUID, so NOT_FOUND.
    Router::new()
        .route("/", get(list_channels).post(create_channel))
        .route("/invites/pending", get(invites::pending_invites))
        .route("/invites/respond", post(invites::respond))
        .route("/{channel_id}", get(get_channel))
        .route("/{channel_id}/spaces", get(list_spaces).put(replace_spaces))
        .route("/{channel_id}/invites", post(invites::invite))
        .route("/{channel_id}/invites/{invite_id}", delete(invites::cancel_invite))
        .route("/{channel_id}/members", get(list_members))
        .route("/{channel_id}/members/{user_id}", patch(change_role).delete(remove_member))
        .route("/{channel_id}/comments", get(comments::list_comments).post(comments::post_comment))
}

/// A channel as one of its members sees it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChannelView {
    channel_id: String,
    /// 1 to 100 characters.
    name: String,
    /// At most 1000 characters; empty when none was given.
    description: String,
    /// The caller's role: `owner`, `inviter` or `member`.
    #[schema(pattern = "^(owner|inviter|member)$")]
    role: String,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    updated_at: OffsetDateTime,
}

impl From<ChannelMembership> for ChannelView {
    fn from(channel: ChannelMembership) -> Self {
        Self {
            channel_id: channel.channel_id,
            name: channel.name,
            description: channel.description,
            role: channel.role,
            created_at: channel.created_at,
            updated_at: channel.updated_at,
        }
    }
}

/// A new channel. The handler reads the body as a map so it can name every unknown or
/// read-only property; this type documents it.
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct NewChannel {
    /// Required: 1 to 100 characters, not blank, no control characters; trimmed.
    name: String,
    /// At most 1000 characters; line breaks allowed, other control characters not.
    description: Option<String>,
}

/// A space connected to a channel.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConnectedSpaceView {
    space_id: String,
    name: String,
    display_name: String,
}

impl From<ChannelSpace> for ConnectedSpaceView {
    fn from(space: ChannelSpace) -> Self {
        Self { space_id: space.space_id, name: space.name, display_name: space.display_name }
    }
}

/// The whole connected set.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct ChannelSpaceSet {
    /// At most 100 distinct ids of spaces the caller owns, in the order the list shows them;
    /// `[]` disconnects every space.
    space_ids: Vec<String>,
}

/// A member of a channel.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MemberView {
    user_id: String,
    handle: String,
    display_name: String,
    /// `owner`, `inviter` or `member`.
    #[schema(pattern = "^(owner|inviter|member)$")]
    role: String,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    joined_at: OffsetDateTime,
}

impl From<Member> for MemberView {
    fn from(member: Member) -> Self {
        Self {
            user_id: member.user_id,
            handle: member.handle,
            display_name: member.display_name,
            role: member.role,
            joined_at: member.joined_at,
        }
    }
}

/// A member's new role.
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct RoleChange {
    /// `inviter` (may invite) or `member`; ownership does not move.
    #[schema(pattern = "^(inviter|member)$")]
    role: String,
}

/// Creates a channel; the caller becomes its owner.
#[utoipa::path(post, path = "/v0/channels", tag = "channels", request_body = NewChannel,
    security(("session" = [], "license" = [])),
    responses((status = 201, body = ChannelView),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED with every problem: REQUIRED, TOO_LONG, INVALID_CHARACTERS, INVALID_TYPE, UNKNOWN_FIELD, READ_ONLY"),
        (status = 409, body = ErrorEnvelope, description = "CONFLICT: the caller already owns 1,000 channels")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
pub async fn create_channel(
    State(channels): State<Arc<Channels>>,
    AuthUser(user): AuthUser,
    ApiBody(body): ApiBody<crate::domain::channels::NewChannel>,
) -> ApiResult<(StatusCode, Json<ChannelView>)> {
    let created = channels.create(&user, body).await?;
    Ok((StatusCode::CREATED, Json(created.into())))
}

/// The channels the caller is a member of, the most recently joined first (for the owner, joining
/// is the creation).
#[utoipa::path(get, path = "/v0/channels", tag = "channels", params(PageQuery), security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<ChannelView>), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: query.limit, query.cursor")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
pub async fn list_channels(
    State(channels): State<Arc<Channels>>,
    AuthUser(user): AuthUser,
    list: ListQuery<(i64, String)>,
) -> ApiResult<Json<ListEnvelope<ChannelView>>> {
    let (page, after) = list.finish()?;
    let rows = channels.list(&user, after, page.fetch_limit()).await?;
    Ok(Json(ListEnvelope::from_rows(
        rows,
        &page,
        |m| (cursor_millis(m.joined_at), m.channel_id.clone()),
        ChannelView::from,
    )))
}

/// A channel; members read it.
#[utoipa::path(get, path = "/v0/channels/{channelId}", tag = "channels", params(("channelId" = String, Path)),
    security(("session" = [], "license" = [])),
    responses((status = 200, body = ChannelView), (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such channel, or the caller is not a member")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, channel_id))]
pub async fn get_channel(
    State(channels): State<Arc<Channels>>,
    AuthUser(user): AuthUser,
    Path(channel_id): Path<String>,
) -> ApiResult<Json<ChannelView>> {
    Ok(Json(channels.get(&user, &channel_id).await?.into()))
}

/// Replaces the connected spaces; only the owner may, and only with spaces the owner owns:
/// connecting a space lets every member of the channel read it. Answers the whole connected set.
#[utoipa::path(put, path = "/v0/channels/{channelId}/spaces", operation_id = "replace_channel_spaces", tag = "channels", params(("channelId" = String, Path)),
    request_body = ChannelSpaceSet, security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<ConnectedSpaceView>, description = "every connected space, in the order given; nextCursor is null"),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED, nothing written: UNKNOWN_SPACE (no such space, or one the caller cannot see), NOT_SPACE_OWNER, DUPLICATE_SPACE, INVALID_TYPE at /spaceIds/{i}; TOO_MANY (over 100), REQUIRED at /spaceIds"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: a member who is not the owner"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such channel, or the caller is not a member")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, channel_id))]
pub async fn replace_spaces(
    State(channels): State<Arc<Channels>>,
    AuthUser(user): AuthUser,
    Path(channel_id): Path<String>,
    IfMatch(precondition): IfMatch,
    ApiBody(body): ApiBody<crate::domain::channels::SpaceIds>,
) -> ApiResult<Tagged<ListEnvelope<ConnectedSpaceView>>> {
    let connected = channels.replace_spaces(&user, &channel_id, body, &precondition).await?;
    let items = connected.spaces.into_iter().map(ConnectedSpaceView::from).collect();
    Ok(Tagged(connected.etag, ListEnvelope { items, next_cursor: None }))
}

/// The spaces connected to the channel, in the order the owner gave them; members read them.
#[utoipa::path(get, path = "/v0/channels/{channelId}/spaces", operation_id = "list_channel_spaces", tag = "channels", params(("channelId" = String, Path), PageQuery),
    security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<ConnectedSpaceView>), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: query.limit, query.cursor"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such channel, or the caller is not a member")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, channel_id))]
pub async fn list_spaces(
    State(channels): State<Arc<Channels>>,
    AuthUser(user): AuthUser,
    Path(channel_id): Path<String>,
    list: ListQuery<i64>,
) -> ApiResult<Response> {
    let (page, after) = list.finish()?;
    let connected = channels.spaces(&user, &channel_id, after, page.fetch_limit()).await?;
    // A page that holds the whole set carries the set's tag (what `If-Match` of a `PUT` names);
    // any other page is tagged by its bytes.
    let whole_set = after.is_none() && connected.spaces.len() < page.fetch_limit() as usize;
    let envelope = ListEnvelope::from_rows(connected.spaces, &page, |s| s.position, ConnectedSpaceView::from);
    Ok(if whole_set { Tagged(connected.etag, envelope).into_response() } else { Json(envelope).into_response() })
}

/// The members of the channel, the most recently joined first; members read them.
#[utoipa::path(get, path = "/v0/channels/{channelId}/members", operation_id = "list_channel_members", tag = "channels", params(("channelId" = String, Path), PageQuery),
    security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<MemberView>), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: query.limit, query.cursor"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such channel, or the caller is not a member")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, channel_id))]
pub async fn list_members(
    State(channels): State<Arc<Channels>>,
    AuthUser(user): AuthUser,
    Path(channel_id): Path<String>,
    list: ListQuery<(i64, String)>,
) -> ApiResult<Json<ListEnvelope<MemberView>>> {
    let (page, after) = list.finish()?;
    let rows = channels.members(&user, &channel_id, after, page.fetch_limit()).await?;
    Ok(Json(ListEnvelope::from_rows(
        rows,
        &page,
        |m| (cursor_millis(m.joined_at), m.user_id.clone()),
        MemberView::from,
    )))
}

/// Gives a member the `inviter` role or takes it; only the owner may. Answers the member.
#[utoipa::path(patch, path = "/v0/channels/{channelId}/members/{userId}", operation_id = "change_channel_member_role", tag = "channels",
    params(("channelId" = String, Path), ("userId" = String, Path)), request_body = RoleChange,
    security(("session" = [], "license" = [])),
    responses((status = 200, body = MemberView),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: /role is REQUIRED or not inviter or member (INVALID_VALUE); UNKNOWN_FIELD"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: a member who is not the owner"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such channel, the caller is not a member, or the user is not a member"),
        (status = 409, body = ErrorEnvelope, description = "CONFLICT: the owner's own role does not change")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, channel_id))]
pub async fn change_role(
    State(channels): State<Arc<Channels>>,
    AuthUser(user): AuthUser,
    Path((channel_id, member_id)): Path<(String, String)>,
    ApiBody(body): ApiBody<crate::domain::channels::RoleChange>,
) -> ApiResult<Json<MemberView>> {
    Ok(Json(channels.change_role(&user, &channel_id, &member_id, body).await?.into()))
}

/// A member leaves (`userId` is the caller's own id), or the owner removes a member.
#[utoipa::path(delete, path = "/v0/channels/{channelId}/members/{userId}", operation_id = "remove_channel_member", tag = "channels",
    params(("channelId" = String, Path), ("userId" = String, Path)), security(("session" = [], "license" = [])),
    responses((status = 204, description = "the user is no longer a member"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: a member other than the owner removing someone else"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such channel, the caller is not a member, or the user is not a member"),
        (status = 409, body = ErrorEnvelope, description = "CONFLICT: the owner cannot leave; a channel always has its owner")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, channel_id))]
pub async fn remove_member(
    State(channels): State<Arc<Channels>>,
    AuthUser(user): AuthUser,
    Path((channel_id, member_id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    channels.remove_member(&user, &channel_id, &member_id).await?;
    Ok(StatusCode::NO_CONTENT)
}
