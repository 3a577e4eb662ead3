//! `/v0/events`: live updates as Server-Sent Events, and the tickets that open them from a
//! browser's `EventSource` (conventions section 14). The stream itself is `services::live`'s;
//! this file speaks the wire: credentials in, `id`/`event`/`data` frames and keep-alives out.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, Sse};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures::Stream;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use super::extract::{ApiQuery, BearerToken, ClientAddress};
use super::middleware::caller_of;
use crate::domain::secret;
use crate::http::error::{ApiResult, Error, ErrorEnvelope};
use crate::services::live::{Credentials, Live, Outgoing, Replay, Subscription};
use crate::state::AppState;

/// The stream: outside the license layer, since a ticket stands in for every credential.
pub fn stream_router() -> Router<AppState> {
    Router::new().route("/events", get(events))
}

/// The ticket route, inside the license layer as every other route.
pub fn router() -> Router<AppState> {
    Router::new().route("/ticket", post(create_ticket))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// A ticket from `POST /v0/events/ticket`, for clients that cannot send headers (a browser's
    /// `EventSource`); it is used up, and stands in for `Authorization` and `X-License-Key`.
    ticket: Option<String>,
    /// Stands in for the `Last-Event-ID` header (which wins when both are sent), for a browser
    /// that reconnects by hand with a new ticket.
    #[serde(rename = "lastEventId")]
    last_event_id: Option<String>,
}

/// `{ticket, expiresAt}`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventTicket {
    /// Opens one stream as `GET /v0/events?ticket=...`, within 60 seconds.
    ticket: String,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    expires_at: OffsetDateTime,
}

/// The signed-in user's live updates, as `text/event-stream`. Each event has `id:` (increasing;
/// send the last one back as `Last-Event-ID` to resume), `event:` (`message.created`,
/// `unread.changed`, `comment.created`, `asset.changed`, `invite.created`,
/// `registration.changed`, `item.changed`; see the `Live*` schemas for each one's `data:`) and one
/// line of JSON as `data:`. A resumed stream first sends what was missed, if it is at most 5
/// minutes and 1,000 events back, else `event: reset` (`data: {}`): read again what you show.
/// A `: keep-alive` comment comes at least every 15 seconds. The stream ends when the session
/// ends or the license key is revoked, and after an hour (the server's `live.max_stream_seconds`):
/// reconnect with `Last-Event-ID`. At most 5 streams per user.
#[utoipa::path(get, path = "/v0/events", operation_id = "open_event_stream", tag = "events", params(EventsQuery,
        ("Last-Event-ID" = Option<String>, Header, description = "The `id` of the last event received: the stream resumes after it")),
    security(("session" = [], "license" = []), ()),
    responses((status = 200, content_type = "text/event-stream", body = inline(EventStream),
            description = "Server-Sent Events as text (`id:`, `event:` and one line of JSON as `data:`): `LiveEventData` describes one event, the `Live*` schemas each event's `data:`"),
        (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED: no session, or a ticket that is unknown, used or expired; LICENSE_REQUIRED, LICENSE_INVALID"),
        (status = 429, body = ErrorEnvelope, description = "RATE_LIMITED: the user holds 5 streams already, reconnects with `Last-Event-ID` too often, or this address presented too many refused tickets (`Retry-After`)"),
        (status = 503, body = ErrorEnvelope, description = "SERVICE_UNAVAILABLE: the server holds as many streams as it may (`Retry-After`)")))]
pub async fn events(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    ApiQuery(query): ApiQuery<EventsQuery>,
    headers: HeaderMap,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    let (user, credentials) = match &query.ticket {
        Some(ticket) => state.live.redeem(ticket, address).await?,
        None => {
            let credentials = credentials_of(&state, &headers).await?;
            (state.live.check(&credentials).await?, credentials)
        }
    };
    let last_event_id = match headers.get("last-event-id") {
        Some(value) => Some(value.to_str().unwrap_or("not text")),
        None => query.last_event_id.as_deref(),
    };
    let subscription = state.live.subscribe(user, last_event_id).await?;
    Ok(Sse::new(stream(state.live.clone(), subscription, credentials)))
}

/// A ticket for `GET /v0/events?ticket=...`: single use, valid 60 seconds, bound to the caller's
/// session and license key (the stream it opens ends with them).
#[utoipa::path(post, path = "/v0/events/ticket", operation_id = "create_event_ticket", tag = "events", security(("session" = [], "license" = [])),
    responses((status = 201, body = EventTicket), (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED")))]
pub async fn create_ticket(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> ApiResult<(StatusCode, Json<EventTicket>)> {
    let credentials = credentials_of(&state, &headers).await?;
    let user = state.live.check(&credentials).await?;
    let ticket = state.live.ticket(&user, &credentials).await?;
    Ok((StatusCode::CREATED, Json(EventTicket { ticket: ticket.ticket, expires_at: ticket.expires_at })))
}

/// The session and license key of the request's headers, the license checked as every route checks it.
async fn credentials_of(state: &AppState, headers: &HeaderMap) -> Result<Credentials, Error> {
    let (_caller, license_digest) = caller_of(state, headers).await?;
    let token = bearer(headers)?;
    Ok(Credentials { session_digest: secret::digest(&token), license_digest })
}

fn bearer(headers: &HeaderMap) -> Result<String, Error> {
    let value = headers.get(axum::http::header::AUTHORIZATION).and_then(|v| v.to_str().ok());
    BearerToken::parse(value).map(|BearerToken(token)| token).ok_or_else(Error::unauthenticated)
}

struct Open {
    live: Arc<Live>,
    subscription: Subscription,
    credentials: Credentials,
    replay: VecDeque<Event>,
    /// The newest id written: live events the replay already sent are skipped.
    last_sent: i64,
    /// One timer per stream for both the credential check and the keep-alive comment (each
    /// open stream's memory counts: thousands are held open).
    tick: tokio::time::Interval,
    /// Since when nothing was written: a keep-alive comment is due once that is `keep_alive` ago
    /// less one tick, so none is later than `live.keep_alive_seconds`.
    idle_since: tokio::time::Instant,
    keep_alive: std::time::Duration,
    recheck_every: u32,
    ticks: u32,
    /// When the stream ends however busy it is (`live.max_stream_seconds`), checked on each tick.
    ends_at: tokio::time::Instant,
}

fn stream(
    live: Arc<Live>,
    mut subscription: Subscription,
    credentials: Credentials,
) -> impl Stream<Item = Result<Event, Infallible>> {
    let mut replay = VecDeque::new();
    let mut last_sent = 0;
    match std::mem::replace(&mut subscription.replay, Replay::Nothing { latest: 0 }) {
        Replay::Nothing { latest } => last_sent = latest,
        Replay::Events(events) => {
            for event in events {
                last_sent = event.id;
                replay.push_back(frame(&event));
            }
        }
        Replay::Reset { latest } => {
            // The reset stands for every event up to `latest`: those the dispatcher still hands
            // over are skipped.
            last_sent = latest;
            let reset = Event::default().event("reset").data("{}");
            replay.push_back(if latest > 0 { reset.id(latest.to_string()) } else { reset });
        }
    }
    let (keep_alive, recheck) = (live.config().keep_alive(), live.config().recheck());
    // Ticks often enough for both; the keep-alive goes a tick early rather than late.
    let period = recheck.min(keep_alive / 4);
    let keep_alive = keep_alive.saturating_sub(period);
    let recheck_every = u32::try_from(recheck.as_millis() / period.as_millis().max(1)).unwrap_or(1).max(1);
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let idle_since = tokio::time::Instant::now();
    let ends_at = idle_since + live.config().max_stream_lifetime();
    let open = Open {
        live,
        subscription,
        credentials,
        replay,
        last_sent,
        tick,
        idle_since,
        keep_alive,
        recheck_every,
        ticks: 0,
        ends_at,
    };
    futures::stream::unfold(open, |mut open| async move {
        if let Some(event) = open.replay.pop_front() {
            open.idle_since = tokio::time::Instant::now();
            return Some((Ok(event), open));
        }
        loop {
            tokio::select! {
                next = open.subscription.events.recv() => match next {
                    Some(event) if event.id <= open.last_sent => continue,
                    Some(event) => {
                        open.last_sent = event.id;
                        open.idle_since = tokio::time::Instant::now();
                        return Some((Ok(frame(&event)), open));
                    }
                    // Dropped by the dispatcher (the client stopped reading): the stream ends.
                    None => return None,
                },
                () = open.live.closing() => return None,
                _ = open.tick.tick() => {
                    if tokio::time::Instant::now() >= open.ends_at {
                        return None;
                    }
                    open.ticks = open.ticks.wrapping_add(1);
                    // Boxed: the check's future is large and needed for a moment every few
                    // seconds, not held inline in every open stream.
                    if open.ticks % open.recheck_every == 0
                        && Box::pin(open.live.check(&open.credentials)).await.is_err()
                    {
                        return None;
                    }
                    if open.idle_since.elapsed() >= open.keep_alive {
                        open.idle_since = tokio::time::Instant::now();
                        return Some((Ok(Event::default().comment("keep-alive")), open));
                    }
                }
            }
        }
    })
}

fn frame(event: &Outgoing) -> Event {
    Event::default().id(event.id.to_string()).event(event.name).data(&*event.data)
}

// The `data:` of each event kind, for the OpenAPI document (clients generate their types from
// these); the events themselves are written by `domain::live`.

/// The stream: its text, and each of its events a `LiveEventData` (generators read the text; a contract
/// tester checks each event).
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum EventStream {
    Text(String),
    Event(LiveEventData),
}

/// One event of the stream as its lines carry it: `id`, `event` (one of the names below) and
/// `data`, one line of JSON whose schema is the event's (`message.created`: `LiveMessageCreated`,
/// and so on; `reset`: `{}`).
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub struct LiveEventData {
    /// Increasing; send the last one back as `Last-Event-ID`. A `reset` sent before any event
    /// exists has none.
    #[schema(nullable = false)]
    id: Option<String>,
    /// `message.created`, `unread.changed`, `comment.created`, `asset.changed`, `invite.created`,
    /// `registration.changed`, `item.changed` or `reset`.
    #[schema(example = "message.created")]
    event: String,
    /// One line of JSON.
    data: String,
}

/// `message.created`, to the recipient.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct LiveMessageCreated {
    thread_id: String,
    message_id: String,
    /// The recipient's unread messages, this one included.
    unread: i64,
}

/// `unread.changed`, to the user whose unread count changed.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub struct LiveUnreadChanged {
    unread: i64,
}

/// `comment.created`, to those who may read the space or channel.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct LiveCommentCreated {
    /// `space` or `channel`.
    scope: String,
    scope_id: String,
    comment_id: String,
}

/// `asset.changed`, to those who may read the asset.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct LiveAssetChanged {
    space_id: String,
    asset_id: String,
    state: String,
    /// `null` before the asset's first analysis is queued.
    analysis_state: Option<String>,
}

/// `invite.created`, to the invitee.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct LiveInviteCreated {
    channel_id: String,
    invite_id: String,
}

/// `registration.changed`, to the registrant and the space's owner.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct LiveRegistrationChanged {
    space_id: String,
    registration_id: String,
    state: String,
}

/// `item.changed`, to the item's creator and holders of a view of its workbasket (the one it left
/// too, on a move).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct LiveItemChanged {
    workflow_configuration_id: String,
    item_id: String,
    workbasket_id: String,
    /// `STARTED`, `MOVED` or `UPDATED`.
    #[schema(pattern = "^(STARTED|MOVED|UPDATED)$")]
    change: String,
}
