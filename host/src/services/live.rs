//! Live updates (conventions section 14): the streams this server holds open, and the dispatcher
//! that hands each committed event to the streams of the users who may read what it is about.
//!
//! Events come from the `live_event` table, which every change writes in its own transaction
//! (`store::live`). One dispatcher per server reads them in id order when woken (by this server's
//! commits, by `NOTIFY` from other servers on PostgreSQL, or by a slow tick as a safety net) and
//! decides each event's audience at that moment (`audience.rs`). A stream holds a bounded queue:
//! a client that stops reading is dropped, and reconnects with `Last-Event-ID` to get a replay.

mod audience;
mod replay;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use time::OffsetDateTime;
use tokio::sync::mpsc;

use crate::config::live::LiveConfig;
use crate::domain::account::SessionUser;
use crate::domain::live::Audience;
use crate::domain::secret;
use crate::error::{Error, Result};
use crate::infra::rate_limits::RateLimits;
use crate::services::accounts::Accounts;
use crate::services::licenses::Licenses;
use crate::services::workflow_configurations::WorkflowConfigurations;
use crate::store::{Store, StoredLiveEvent};

/// What every ticket for `GET /v0/events?ticket=` starts with.
const TICKET_PREFIX: &str = "evt_";

/// Events read per query by the dispatcher and by a replay.
const PAGE: i64 = 500;

/// One event as a stream writes it.
#[derive(Clone, Debug)]
pub struct Outgoing {
    pub id: i64,
    pub name: &'static str,
    /// One line of JSON.
    pub data: Arc<str>,
}

/// What a stream sends before the live events.
#[derive(Debug)]
pub enum Replay {
    /// No `Last-Event-ID`: live events only, those after `latest` (the newest event when the
    /// stream opened; a dispatcher running behind may still hand over older ones).
    Nothing { latest: i64 },
    /// The events missed since `Last-Event-ID`, in order.
    Events(Vec<Outgoing>),
    /// `Last-Event-ID` was too old (or not an id): `event: reset`, with the id of the newest event.
    Reset { latest: i64 },
}

/// The credentials a stream was opened with; checked again while it is open, so a logout or a
/// revoked key ends it.
#[derive(Clone, Debug)]
pub struct Credentials {
    pub session_digest: String,
    /// `None` when a gateway, not a license key, admitted the caller.
    pub license_digest: Option<String>,
}

/// A ticket for a browser's `EventSource`.
pub struct Ticket {
    pub ticket: String,
    pub expires_at: OffsetDateTime,
}

/// An open stream: its replay, then its live events. Dropping it closes the stream here.
pub struct Subscription {
    pub replay: Replay,
    /// Shared with every other stream the event goes to: a queued event costs a pointer.
    pub events: mpsc::Receiver<Arc<Outgoing>>,
    registration: Registration,
}

impl Subscription {
    pub fn registration_id(&self) -> u64 {
        self.registration.id
    }
}

struct Registration {
    live: Arc<Live>,
    user_id: String,
    id: u64,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.live.unregister(&self.user_id, self.id);
    }
}

struct Subscriber {
    id: u64,
    tx: mpsc::Sender<Arc<Outgoing>>,
}

#[derive(Default)]
struct Hub {
    by_user: HashMap<String, Vec<Subscriber>>,
    open: usize,
}

pub struct Live {
    store: Store,
    config: LiveConfig,
    accounts: Arc<Accounts>,
    licenses: Arc<Licenses>,
    workflows: Arc<WorkflowConfigurations>,
    limits: Arc<RateLimits>,
    hub: Mutex<Hub>,
    next_id: AtomicU64,
    /// Wakes the dispatcher from its idle wait when a stream opens.
    opened: tokio::sync::Notify,
    /// Cancelled when the server shuts down: every stream ends, so shutdown need not wait for them.
    closing: tokio_util::sync::CancellationToken,
}

impl Live {
    pub fn new(
        store: Store,
        config: LiveConfig,
        accounts: Arc<Accounts>,
        licenses: Arc<Licenses>,
        workflows: Arc<WorkflowConfigurations>,
        limits: Arc<RateLimits>,
    ) -> Self {
        Self {
            store,
            config,
            accounts,
            licenses,
            workflows,
            limits,
            hub: Mutex::new(Hub::default()),
            next_id: AtomicU64::new(1),
            closing: tokio_util::sync::CancellationToken::new(),
            opened: tokio::sync::Notify::new(),
        }
    }

    /// Ends every stream (the server is shutting down) and refuses new ones.
    pub fn close(&self) {
        self.closing.cancel();
    }

    /// Resolves when the server shuts down.
    pub fn closing(&self) -> tokio_util::sync::WaitForCancellationFuture<'_> {
        self.closing.cancelled()
    }

    pub fn config(&self) -> &LiveConfig {
        &self.config
    }

    /// Streams open on this server.
    pub fn open_streams(&self) -> usize {
        self.hub().open
    }

    fn hub(&self) -> std::sync::MutexGuard<'_, Hub> {
        // A panic while holding the lock leaves plain maps behind: still usable.
        self.hub.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Issues a single-use ticket that opens one stream as `user` under `credentials`.
    pub async fn ticket(&self, user: &SessionUser, credentials: &Credentials) -> Result<Ticket> {
        let ticket = secret::new_token(TICKET_PREFIX);
        let expires_at = OffsetDateTime::now_utc() + self.config.ticket_lifetime();
        self.store
            .live
            .insert_ticket(
                &secret::digest(&ticket),
                &user.user_id,
                &credentials.session_digest,
                credentials.license_digest.as_deref(),
                expires_at,
            )
            .await?;
        Ok(Ticket { ticket, expires_at })
    }

    /// The user and credentials of a ticket, which is used up; 401 for anything but a live one. An
    /// address that keeps presenting refused tickets is 429 for a minute, before any lookup.
    pub async fn redeem(&self, ticket: &str, address: IpAddr) -> Result<(SessionUser, Credentials)> {
        self.limits.ticket_from(address)?;
        let refused = || {
            self.limits.ticket_failed(address);
            Error::unauthenticated()
        };
        if !secret::is_token_shaped(ticket, TICKET_PREFIX) {
            return Err(refused());
        }
        let now = OffsetDateTime::now_utc();
        let row = self.store.live.redeem_ticket(&secret::digest(ticket), now).await?;
        let row = row.ok_or_else(refused)?;
        let credentials = Credentials { session_digest: row.session_digest, license_digest: row.license_digest };
        let user = self.check(&credentials).await?;
        if user.user_id != row.user_id {
            return Err(Error::unauthenticated());
        }
        Ok((user, credentials))
    }

    /// The session's user while the session and the license key (if one was used) still hold.
    pub async fn check(&self, credentials: &Credentials) -> Result<SessionUser> {
        if let Some(license) = &credentials.license_digest {
            self.licenses.authorize_digest(license).await?;
        }
        self.accounts.session_by_digest(&credentials.session_digest).await
    }

    /// Opens a stream for `user`: 503 beyond the server's bound, 429 beyond the user's. With
    /// `last_event_id`, the events since then come first, or a reset; such replays are paced per
    /// user (429).
    pub async fn subscribe(self: &Arc<Self>, user: SessionUser, last_event_id: Option<&str>) -> Result<Subscription> {
        if last_event_id.is_some() {
            self.limits.live_replay(&user.user_id)?;
        }
        let (tx, events) = mpsc::channel(self.config.stream_buffer.max(1));
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        {
            let mut hub = self.hub();
            if hub.open >= self.config.max_streams || self.closing.is_cancelled() {
                return Err(Error::ServiceUnavailable { retry_after_seconds: 5 });
            }
            let mine = hub.by_user.entry(user.user_id.clone()).or_default();
            if mine.len() >= self.config.max_streams_per_user {
                crate::infra::metrics::rate_limit_refused("live_streams_per_user");
                return Err(Error::RateLimited { retry_after_seconds: 5 });
            }
            mine.push(Subscriber { id, tx });
            hub.open += 1;
        }
        self.opened.notify_one();
        // Registered before the replay is read: what commits meanwhile is queued, and the stream
        // skips what the replay already sent.
        let registration = Registration { live: self.clone(), user_id: user.user_id.clone(), id };
        let replay = match last_event_id {
            None => Replay::Nothing { latest: self.store.live.latest_id().await? },
            Some(text) => self.replay(&user, text).await?,
        };
        Ok(Subscription { replay, events, registration })
    }

    fn unregister(&self, user_id: &str, id: u64) {
        let mut hub = self.hub();
        let Some(mine) = hub.by_user.get_mut(user_id) else { return };
        let before = mine.len();
        mine.retain(|s| s.id != id);
        let removed = before - mine.len();
        if mine.is_empty() {
            hub.by_user.remove(user_id);
        }
        hub.open -= removed;
    }

    /// Runs until the process ends: sends each committed event to the streams that may hear it,
    /// and deletes events older than the replay window.
    pub async fn dispatch(self: Arc<Self>) {
        let mut last = loop {
            match self.store.live.latest_id().await {
                Ok(latest) => break latest,
                Err(error) => {
                    tracing::warn!(%error, "live events: reading the newest id failed; retrying");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        };
        let mut pruned_at = tokio::time::Instant::now();
        loop {
            let wake = self.store.live.wake().notified();
            if self.open_streams() == 0 {
                // Nobody listens: no event needs reading, only the place to start from once
                // somebody does. Read before looking at the streams, so a stream that opens
                // meanwhile starts at or after it (it skips what came before its own start).
                let latest = self.store.live.latest_id().await;
                if let Ok(latest) = latest
                    && self.open_streams() == 0
                {
                    last = latest;
                }
            } else {
                match self.send_after(last).await {
                    Ok(newest) => last = newest,
                    Err(error) => tracing::warn!(%error, "live events: reading events failed; retrying"),
                }
            }
            if pruned_at.elapsed() > Duration::from_secs(30) {
                pruned_at = tokio::time::Instant::now();
                let now = OffsetDateTime::now_utc();
                if let Err(error) = self.store.live.prune(now - self.config.replay_window(), now).await {
                    tracing::warn!(%error, "live events: pruning failed");
                }
            }
            // Woken by a commit here or a `NOTIFY` from another server (or, while nobody listens,
            // by a stream opening); the tick catches anything missed while a listener reconnected.
            if self.open_streams() == 0 {
                let _ = tokio::time::timeout(Duration::from_secs(1), self.opened.notified()).await;
            } else {
                let _ = tokio::time::timeout(Duration::from_secs(1), wake).await;
            }
        }
    }

    /// Wakes the dispatcher (an event another server committed was announced).
    pub fn wake(&self) {
        self.store.live.wake().notify_one();
    }

    /// Sends every event after `last`; answers the newest id sent.
    async fn send_after(&self, mut last: i64) -> Result<i64> {
        loop {
            let page = self.store.live.after(last, PAGE).await?;
            for event in &page {
                self.send(event).await;
                last = event.event_id;
            }
            if page.len() < PAGE as usize {
                return Ok(last);
            }
        }
    }

    async fn send(&self, event: &StoredLiveEvent) {
        let hearing = match &event.audience {
            // Named users (most events: a message's recipient): no list of listeners to build.
            Audience::Users(ids) => ids.clone(),
            audience => {
                let listening: Vec<String> = self.hub().by_user.keys().cloned().collect();
                if listening.is_empty() {
                    return;
                }
                self.audience(audience, &listening).await
            }
        };
        if hearing.is_empty() {
            return;
        }
        let message = Arc::new(outgoing(event));
        let mut hub = self.hub();
        let mut dropped = 0;
        for user_id in &hearing {
            let Some(mine) = hub.by_user.get_mut(user_id) else { continue };
            mine.retain(|subscriber| match subscriber.tx.try_send(message.clone()) {
                Ok(()) => {
                    crate::infra::metrics::live_event_sent();
                    true
                }
                // Its client stopped reading: dropping the sender ends the stream.
                Err(mpsc::error::TrySendError::Full(_)) => {
                    crate::infra::metrics::live_slow_client_dropped();
                    dropped += 1;
                    false
                }
                Err(mpsc::error::TrySendError::Closed(_)) => {
                    dropped += 1;
                    false
                }
            });
            if mine.is_empty() {
                hub.by_user.remove(user_id);
            }
        }
        hub.open -= dropped;
    }
}

fn outgoing(event: &StoredLiveEvent) -> Outgoing {
    Outgoing { id: event.event_id, name: event.kind.name(), data: Arc::from(event.data.as_str()) }
}
