//! `/v0/messages`: sending and replying, thread lists, a thread's messages, one message (which
//! marks it read for its recipient) and the unread indicator (conventions 7).

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::extract::{ApiJson, AuthUser};
use super::list::{ListEnvelope, ListQuery, PageQuery, cursor_millis};
use super::views::AvatarRef;
use crate::domain::messages::{SYSTEM_DISPLAY_NAME, SYSTEM_HANDLE};
use crate::http::error::{ApiResult, ErrorEnvelope};
use crate::services::avatars::Avatars;
use crate::services::licenses::Caller;
use crate::services::messages::{Message, Messages, Party, Thread};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/", post(send_message))
        .route("/unread", get(unread))
        .route("/threads", get(list_threads))
        .route("/threads/{thread_id}/messages", get(list_messages))
        .route("/threads/{thread_id}/messages/{message_id}", get(get_message))
}

/// A new message or a reply. The handler reads the body as a map so it can name every unknown
/// property; this type documents it.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct NewMessage {
    /// The recipient's handle, without `@`. Required for a new thread; a reply may leave it out,
    /// and when it gives it, it must name the thread's other participant. Never `system`.
    #[schema(nullable = false)]
    to: Option<String>,
    /// 1 to 200 characters, not blank, no control characters. Required for a new thread (it
    /// becomes the thread's subject); a reply that leaves it out takes the thread's.
    #[schema(nullable = false)]
    subject: Option<String>,
    /// 1 to 10,000 characters, not blank; no control characters other than line breaks and tabs.
    body: String,
    /// The thread to reply in; the sender must take part in it. Left out (or `null`): a new thread.
    thread_id: Option<String>,
}

/// What a send answers.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageSent {
    thread_id: String,
    message_id: String,
}

/// `{unread: N}`: messages to the caller not yet fetched.
#[derive(Serialize, ToSchema)]
pub struct UnreadCount {
    unread: i64,
}

/// A participant of a thread or a message. The platform's notices come from `system`, which has no
/// account: `{userId: null, handle: "system", displayName: "Trellis", avatar: null}`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CorrespondentView {
    user_id: Option<String>,
    handle: String,
    display_name: String,
    avatar: Option<AvatarRef>,
}

impl CorrespondentView {
    fn new(correspondent: Option<Party>, db_hash: &str) -> Self {
        match correspondent {
            None => Self {
                user_id: None,
                handle: SYSTEM_HANDLE.to_owned(),
                display_name: SYSTEM_DISPLAY_NAME.to_owned(),
                avatar: None,
            },
            Some(c) => Self {
                avatar: c.avatar_pic_id.map(|pic_id| AvatarRef {
                    db_hash: db_hash.to_owned(),
                    user_id: c.user_id.clone(),
                    pic_id,
                }),
                user_id: Some(c.user_id),
                handle: c.handle,
                display_name: c.display_name,
            },
        }
    }
}

/// A thread as the caller sees it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ThreadView {
    thread_id: String,
    /// The first message's subject.
    subject: String,
    /// The thread's messages to the caller not yet fetched.
    unread: i64,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    last_message_at: OffsetDateTime,
    /// The other participant.
    participant: CorrespondentView,
}

impl ThreadView {
    fn new(thread: Thread, db_hash: &str) -> Self {
        Self {
            thread_id: thread.thread_id,
            subject: thread.subject,
            unread: thread.unread,
            last_message_at: thread.last_message_at,
            participant: CorrespondentView::new(thread.participant, db_hash),
        }
    }
}

/// A message.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageView {
    message_id: String,
    thread_id: String,
    from: CorrespondentView,
    to: CorrespondentView,
    subject: String,
    body: String,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    /// When the recipient first fetched it; `null` until then.
    #[serde(with = "crate::domain::timestamp::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    read_at: Option<OffsetDateTime>,
}

impl MessageView {
    fn new(message: Message, db_hash: &str) -> Self {
        Self {
            message_id: message.message_id,
            thread_id: message.thread_id,
            from: CorrespondentView::new(message.from, db_hash),
            to: CorrespondentView::new(Some(message.to), db_hash),
            subject: message.subject,
            body: message.body,
            created_at: message.created_at,
            read_at: message.read_at,
        }
    }
}

/// Sends a message: a new thread (`to`, `subject`, `body`), or a reply in a thread the caller
/// takes part in (`threadId`, `body`). Counts one against the plan's `messaging.perDay`.
#[utoipa::path(post, path = "/v0/messages", tag = "messages", request_body = NewMessage,
    security(("session" = [], "license" = [])),
    responses((status = 201, body = MessageSent),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED with every problem: a missing, blank, over-long or badly formed field; `/to` an unknown user, the caller, `system`, or (in a reply) not the thread's other participant; `/threadId` a notice from `system`, which takes no replies"),
        (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED"),
        (status = 403, body = ErrorEnvelope, description = "ENTITLEMENT_LIMIT_EXCEEDED: messaging.perDay"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: `threadId` names no thread the caller takes part in")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
pub async fn send_message(
    State(messages): State<Arc<Messages>>,
    AuthUser(user): AuthUser,
    caller: Caller,
    ApiJson(body): ApiJson<Map<String, Value>>,
) -> ApiResult<(StatusCode, Json<MessageSent>)> {
    let sent = messages.send(&user, &caller, &body).await?;
    Ok((StatusCode::CREATED, Json(MessageSent { thread_id: sent.thread_id, message_id: sent.message_id })))
}

/// The unread indicator, cheap enough to poll: one primary-key read.
#[utoipa::path(get, path = "/v0/messages/unread", operation_id = "count_unread_messages", tag = "messages", security(("session" = [], "license" = [])),
    responses((status = 200, body = UnreadCount), (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
pub async fn unread(State(messages): State<Arc<Messages>>, AuthUser(user): AuthUser) -> ApiResult<Json<UnreadCount>> {
    Ok(Json(UnreadCount { unread: messages.unread(&user).await? }))
}

/// The caller's threads, newest activity first.
#[utoipa::path(get, path = "/v0/messages/threads", tag = "messages", params(PageQuery),
    security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<ThreadView>),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: limit or cursor"),
        (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
pub async fn list_threads(
    State(messages): State<Arc<Messages>>,
    State(avatars): State<Arc<Avatars>>,
    AuthUser(user): AuthUser,
    list: ListQuery<(i64, String)>,
) -> ApiResult<Json<ListEnvelope<ThreadView>>> {
    let (page, after) = list.finish()?;
    let rows = messages.threads(&user, after, page.fetch_limit()).await?;
    let db_hash = avatars.db_hash();
    Ok(Json(ListEnvelope::from_rows(
        rows,
        &page,
        |t| (cursor_millis(t.last_message_at), t.thread_id.clone()),
        |t| ThreadView::new(t, db_hash),
    )))
}

/// A thread's messages, newest first. Listing marks nothing read; fetching one message does.
#[utoipa::path(get, path = "/v0/messages/threads/{threadId}/messages", tag = "messages",
    params(("threadId" = String, Path), PageQuery), security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<MessageView>),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: limit or cursor"),
        (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such thread, or the caller takes no part in it")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, thread_id))]
pub async fn list_messages(
    State(messages): State<Arc<Messages>>,
    State(avatars): State<Arc<Avatars>>,
    AuthUser(user): AuthUser,
    Path(thread_id): Path<String>,
    list: ListQuery<(i64, String)>,
) -> ApiResult<Json<ListEnvelope<MessageView>>> {
    let (page, after) = list.finish()?;
    let rows = messages.messages(&user, &thread_id, after, page.fetch_limit()).await?;
    let db_hash = avatars.db_hash();
    Ok(Json(ListEnvelope::from_rows(
        rows,
        &page,
        |m| (cursor_millis(m.created_at), m.message_id.clone()),
        |m| MessageView::new(m, db_hash),
    )))
}

/// One message. The recipient's fetch marks it read (the first fetch sets `readAt`; later ones
/// keep it); the sender's changes nothing.
#[utoipa::path(get, path = "/v0/messages/threads/{threadId}/messages/{messageId}", tag = "messages",
    params(("threadId" = String, Path), ("messageId" = String, Path)), security(("session" = [], "license" = [])),
    responses((status = 200, body = MessageView),
        (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such message in the thread, or the caller takes no part in the thread")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, thread_id, message_id))]
pub async fn get_message(
    State(messages): State<Arc<Messages>>,
    State(avatars): State<Arc<Avatars>>,
    AuthUser(user): AuthUser,
    Path((thread_id, message_id)): Path<(String, String)>,
) -> ApiResult<Json<MessageView>> {
    let message = messages.message(&user, &thread_id, &message_id).await?;
    Ok(Json(MessageView::new(message, avatars.db_hash())))
}
