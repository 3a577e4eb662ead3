//! Live events (conventions section 14) and the tickets that open their streams.
//!
//! Events are written inside the transaction of the change that caused them ([`insert_in`], via
//! `Outbox::live` or a message insert), so only a committed change is announced. Their public ids
//! must grow in the order the events became visible, because a stream resumes "after id N" and
//! must find every later event after N. On SQLite one writer commits at a time, so the row id is
//! that order already. On PostgreSQL many transactions commit at once and a row id says only when
//! the insert ran, so an event gets its public id (`seq`) after its commit: a sequencer
//! ([`number_committed`], one pass at a time across servers under an advisory lock) numbers the
//! committed events it finds in one transaction of its own, from a counter, and `NOTIFY` carries
//! the newest number to every server's dispatcher. A request that wrote events answers once they
//! are numbered (`Db::live_committed`), so they are visible when it answers. Ordering by a lock
//! that every writer held to its commit serialised those commits at one WAL flush each (issue 34:
//! PostgreSQL carried 35 % of SQLite's mixed load, nearly every backend waiting on that lock).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use sqlx::{AnyConnection, Row};
use time::OffsetDateTime;
use tokio::sync::watch;

use super::{Db, Engine, StoreResult, to_millis};
use crate::domain::live::{Audience, EventKind, LiveEvent};

mod audience;

pub use audience::AssetAccess;

/// The `NOTIFY` channel that carries the newest numbered event's id.
pub const CHANNEL: &str = "trellis_live";

/// The advisory lock that lets one sequencer pass run at a time on PostgreSQL (an arbitrary constant).
const SEQUENCER_LOCK: i64 = 0x7472_6c69_7665;

/// How many events one sequencer pass numbers at most (it runs again at once when it found that many).
const SEQUENCER_BATCH: i64 = 10_000;

/// The passes of a process's sequencer task: a commit waits for the first pass that starts after
/// it, which numbers what the commit wrote.
#[derive(Debug)]
pub(super) struct Passes {
    /// Whether this process runs a sequencer task.
    running: AtomicBool,
    started: AtomicU64,
    finished: watch::Sender<u64>,
}

impl Default for Passes {
    fn default() -> Self {
        Self { running: AtomicBool::new(false), started: AtomicU64::new(0), finished: watch::Sender::new(0) }
    }
}

impl Passes {
    pub(super) fn running(&self) -> bool {
        self.running.load(Ordering::Relaxed)
    }

    /// Resolves once a pass that starts after this call has finished. Any pass numbered above the
    /// count read here starts its statements after this call, so after the caller's commit.
    pub(super) fn after_now(&self) -> impl Future<Output = ()> + use<> {
        let wanted = self.started.load(Ordering::SeqCst) + 1;
        let mut finished = self.finished.subscribe();
        async move {
            let _ = finished.wait_for(|done| *done >= wanted).await;
        }
    }
}

/// One stored event.
#[derive(Clone, Debug)]
pub struct StoredLiveEvent {
    pub event_id: i64,
    pub kind: EventKind,
    pub audience: Audience,
    /// The event's JSON, as the stream sends it.
    pub data: String,
    pub created_at: i64,
}

/// A redeemed ticket: whose stream it opens and the credentials the stream keeps checking.
#[derive(Clone, Debug)]
pub struct TicketRow {
    pub user_id: String,
    pub session_digest: String,
    pub license_digest: Option<String>,
}

/// Writes `events` inside the caller's transaction. On PostgreSQL they have no public id until the
/// sequencer numbers them after the commit (the commit wakes this server's sequencer).
pub(super) async fn insert_in(conn: &mut AnyConnection, events: &[LiveEvent], now: OffsetDateTime) -> StoreResult<()> {
    for event in events {
        let (reach1, reach2) = event.audience.reach().map_or((None, None), |(one, two)| (Some(one), two));
        sqlx::query(
            "insert into live_event (kind, audience, data, created_at, reach1, reach2) values ($1, $2, $3, $4, $5, $6)",
        )
        .bind(event.kind.name())
        .bind(event.audience.encode())
        .bind(event.data.to_string())
        .bind(to_millis(now))
        .bind(reach1)
        .bind(reach2)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// One sequencer pass (PostgreSQL): numbers the committed events that have no public id yet,
/// and tells every server's dispatcher; answers the newest number given, if it gave any.
///
/// The lock makes passes run one after another, across servers, and it is taken in a statement
/// of its own, so the numbering statement's snapshot (read committed) comes after the previous
/// pass's commit: whatever a pass numbers commits after everything numbered before and takes
/// larger numbers. An event that commits during a pass is numbered by the next one, after the
/// numbers a reader may already have seen, so a stream resuming after N misses nothing. The
/// events one pass numbers become visible together, numbered in insertion order (so the events
/// of one transaction keep theirs).
pub(super) async fn number_committed(db: &Db) -> StoreResult<Option<i64>> {
    if db.engine != Engine::Postgres {
        return Ok(None);
    }
    let mut tx = db.writer.begin().await?;
    // `is not null`: the Any driver cannot read a `void` column.
    sqlx::query("select pg_advisory_xact_lock($1) is not null as locked")
        .bind(SEQUENCER_LOCK)
        .execute(&mut *tx)
        .await?;
    // Numbers follow on from a counter, not from `max(seq)`: the prune may have deleted every event
    // while a dispatcher still remembers the last number it sent.
    let row = sqlx::query(
        "with waiting as ( \
             select event_id, row_number() over (order by event_id) as n from live_event \
             where seq is null order by event_id limit $1), \
         numbering as ( \
             update live_event_numbering set last = last + (select count(*) from waiting) \
             where exists (select 1 from waiting) \
             returning last - (select count(*) from waiting) as base), \
         numbered as ( \
             update live_event e set seq = numbering.base + waiting.n from waiting, numbering \
             where e.event_id = waiting.event_id returning e.seq) \
         select max(seq) as latest, count(*) as numbered from numbered",
    )
    .bind(SEQUENCER_BATCH)
    .fetch_one(&mut *tx)
    .await?;
    let latest: Option<i64> = row.try_get("latest")?;
    if let Some(latest) = latest {
        sqlx::query("select pg_notify($1, $2) is not null as notified")
            .bind(CHANNEL)
            .bind(latest.to_string())
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    if latest.is_some() {
        db.live_wake.notify_one();
    }
    let numbered: i64 = row.try_get("numbered")?;
    if numbered >= SEQUENCER_BATCH {
        // More may be waiting: have the caller run again at once.
        db.sequencer_wake.notify_one();
    }
    Ok(latest)
}

fn events_from_rows(rows: Vec<sqlx::any::AnyRow>) -> StoreResult<Vec<StoredLiveEvent>> {
    let mut events = Vec::with_capacity(rows.len());
    for row in rows {
        let kind: String = row.try_get("kind")?;
        let audience: String = row.try_get("audience")?;
        // A kind or audience a newer server wrote is nobody's here.
        let (Some(kind), Some(audience)) = (EventKind::parse(&kind), Audience::decode(&audience)) else {
            continue;
        };
        events.push(StoredLiveEvent {
            event_id: row.try_get("public_id")?,
            kind,
            audience,
            data: row.try_get("data")?,
            created_at: row.try_get("created_at")?,
        });
    }
    Ok(events)
}

/// The reach keys (`Audience::reach`) a user holds besides `u:` and their id: the spaces they read
/// (as a member, or through a channel connected to the space), their channels, and the workflows
/// they own or hold a grant of. `$4` is the user's id.
macro_rules! reach_of_user {
    () => {
        "select 's:' || space_id from space_member where user_id = $4 \
         union all select 's:' || cs.space_id from channel_space cs \
             join channel_member m on m.channel_id = cs.channel_id where m.user_id = $4 \
         union all select 'c:' || channel_id from channel_member where user_id = $4 \
         union all select 'w:' || workflow_configuration_id from workflow_grant where user_id = $4 \
         union all select 'w:' || workflow_configuration_id from workflow_configuration where owner_id = $4"
    };
}
/// The repository of live events and tickets.
#[derive(Clone, Debug)]
pub struct LiveRepo {
    db: Db,
}

impl LiveRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    /// Writes events outside any other change (a state the analysis reached, say).
    pub async fn insert(&self, events: Vec<LiveEvent>) -> StoreResult<()> {
        let events = std::sync::Arc::new(events);
        let now = OffsetDateTime::now_utc();
        let work = events.clone();
        self.db
            .write(move |conn| {
                let events = work.clone();
                Box::pin(async move { insert_in(conn, &events, now).await })
            })
            .await?;
        self.db.live_committed().await;
        Ok(())
    }

    /// Wakes this process's dispatcher: an event can be sent (on PostgreSQL: was numbered).
    pub fn wake(&self) -> &tokio::sync::Notify {
        &self.db.live_wake
    }

    /// Wakes this process's sequencer: a commit here wrote events (PostgreSQL only).
    pub fn sequencer_wake(&self) -> &tokio::sync::Notify {
        &self.db.sequencer_wake
    }

    /// Whether events are numbered after their commit by a sequencer ([`Self::sequencer_pass`]).
    pub fn needs_sequencer(&self) -> bool {
        self.db.engine == Engine::Postgres
    }

    /// The statement for this engine: an event's public id, in the order events became visible, is
    /// `event_id` on SQLite and `seq` on PostgreSQL.
    fn by_engine(&self, sqlite: &'static str, postgres: &'static str) -> &'static str {
        match self.db.engine {
            Engine::Sqlite => sqlite,
            Engine::Postgres => postgres,
        }
    }

    /// One pass of this process's sequencer (PostgreSQL; see [`number_committed`]): answers the
    /// newest number given. The commits waiting for it go on when it ends, whatever its outcome.
    pub async fn sequencer_pass(&self) -> StoreResult<Option<i64>> {
        let passes = &self.db.sequencer_passes;
        let pass = passes.started.fetch_add(1, Ordering::SeqCst) + 1;
        let outcome = number_committed(&self.db).await;
        passes.finished.send_replace(pass);
        outcome
    }

    /// Tells the store that this process runs a sequencer task, which its commits wake.
    pub fn sequencer_started(&self) {
        self.db.sequencer_passes.running.store(true, Ordering::Relaxed);
    }

    /// The newest event's id (0 with none): where a new dispatcher starts.
    pub async fn latest_id(&self) -> StoreResult<i64> {
        let query = self.by_engine(
            "select coalesce(max(event_id), 0) as latest from live_event",
            "select coalesce(max(seq), 0) as latest from live_event",
        );
        let row = sqlx::query(query).fetch_one(&self.db.pool).await?;
        Ok(row.try_get("latest")?)
    }

    /// Up to `limit` events after `after_id`, oldest first.
    pub async fn after(&self, after_id: i64, limit: i64) -> StoreResult<Vec<StoredLiveEvent>> {
        let query = self.by_engine(
            "select event_id as public_id, kind, audience, data, created_at from live_event \
             where event_id > $1 order by event_id limit $2",
            "select seq as public_id, kind, audience, data, created_at from live_event \
             where seq > $1 order by seq limit $2",
        );
        let rows = sqlx::query(query).bind(after_id).bind(limit).fetch_all(&self.db.pool).await?;
        events_from_rows(rows)
    }

    /// Up to `limit` events after `after_id` that `user_id` might hear, oldest first: those whose
    /// reach keys (`Audience::reach`) are among the user's own, and those written without keys.
    /// Read through the keys' indexes, so other people's events are never read.
    pub async fn reachable_after(&self, user_id: &str, after_id: i64, limit: i64) -> StoreResult<Vec<StoredLiveEvent>> {
        let query = self.by_engine(
            concat!(
                "with mine (reach) as (select $1 as reach union all ",
                reach_of_user!(),
                ") select event_id as public_id, kind, audience, data, created_at from live_event \
                 where event_id > $2 and (reach1 is null or reach1 in (select reach from mine) \
                     or reach2 in (select reach from mine)) \
                 order by event_id limit $3"
            ),
            concat!(
                "with mine (reach) as (select $1 as reach union all ",
                reach_of_user!(),
                ") select seq as public_id, kind, audience, data, created_at from live_event \
                 where seq > $2 and (reach1 is null or reach1 in (select reach from mine) \
                     or reach2 in (select reach from mine)) \
                 order by seq limit $3"
            ),
        );
        let rows = sqlx::query(query)
            .bind(format!("u:{user_id}"))
            .bind(after_id)
            .bind(limit)
            .bind(user_id.to_owned())
            .fetch_all(&self.db.pool)
            .await?;
        events_from_rows(rows)
    }

    /// Whether the event `event_id` is still kept and no older than `since`: a stream can resume after it.
    pub async fn resumable(&self, event_id: i64, since: OffsetDateTime) -> StoreResult<bool> {
        let query = self.by_engine(
            "select 1 as one from live_event where event_id = $1 and created_at >= $2",
            "select 1 as one from live_event where seq = $1 and created_at >= $2",
        );
        let row = sqlx::query(query).bind(event_id).bind(to_millis(since)).fetch_optional(&self.db.pool).await?;
        Ok(row.is_some())
    }

    /// Deletes events older than `before` and tickets expired by then; answers how many events went.
    pub async fn prune(&self, before: OffsetDateTime, now: OffsetDateTime) -> StoreResult<u64> {
        let events = sqlx::query("delete from live_event where created_at < $1")
            .bind(to_millis(before))
            .execute(&self.db.writer)
            .await?
            .rows_affected();
        sqlx::query("delete from live_ticket where expires_at < $1")
            .bind(to_millis(now))
            .execute(&self.db.writer)
            .await?;
        Ok(events)
    }

    pub async fn insert_ticket(
        &self,
        ticket_digest: &str,
        user_id: &str,
        session_digest: &str,
        license_digest: Option<&str>,
        expires_at: OffsetDateTime,
    ) -> StoreResult<()> {
        sqlx::query(
            "insert into live_ticket (ticket_digest, user_id, session_digest, license_digest, expires_at) \
             values ($1, $2, $3, $4, $5)",
        )
        .bind(ticket_digest.to_owned())
        .bind(user_id.to_owned())
        .bind(session_digest.to_owned())
        .bind(license_digest.map(str::to_owned))
        .bind(to_millis(expires_at))
        .execute(&self.db.writer)
        .await?;
        Ok(())
    }

    /// Takes the ticket: it opens one stream, whichever server it reaches, and only before it expires.
    pub async fn redeem_ticket(&self, ticket_digest: &str, now: OffsetDateTime) -> StoreResult<Option<TicketRow>> {
        // Looked up on the read pool first: a guessed ticket costs the single SQLite writer nothing.
        let known: Option<i64> = sqlx::query_scalar("select 1 from live_ticket where ticket_digest = $1")
            .bind(ticket_digest.to_owned())
            .fetch_optional(&self.db.pool)
            .await?;
        if known.is_none() {
            return Ok(None);
        }
        let row = sqlx::query(
            "delete from live_ticket where ticket_digest = $1 \
             returning user_id, session_digest, license_digest, expires_at",
        )
        .bind(ticket_digest.to_owned())
        .fetch_optional(&self.db.writer)
        .await?;
        let Some(row) = row else { return Ok(None) };
        if row.try_get::<i64, _>("expires_at")? < to_millis(now) {
            return Ok(None);
        }
        Ok(Some(TicketRow {
            user_id: row.try_get("user_id")?,
            session_digest: row.try_get("session_digest")?,
            license_digest: row.try_get("license_digest")?,
        }))
    }
}
