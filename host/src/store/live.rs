//! Live events (conventions section 14) and the tickets that open their streams.
//!
//! Events are written inside the transaction of the change that caused them ([`insert_in`], via
//! `Outbox::live` or a message insert), so only a committed change is announced. Their ids must
//! reach every server in the order the events became visible, because a stream resumes "after
//! id N": on SQLite one writer commits at a time, so that is id order already; on PostgreSQL the
//! writing transactions take one advisory lock before inserting, held to their commit, so ids are
//! handed out in commit order too. Each insert is the last statement of its transaction, so the
//! lock is never held while waiting for another lock. `NOTIFY` (delivered at commit) carries the
//! new id to every server's dispatcher.

use sqlx::{AnyConnection, Row};
use time::OffsetDateTime;

use super::{Db, StoreResult, rows_in_chunks, to_millis};
use crate::domain::live::{Audience, EventKind, LiveEvent};

/// The `NOTIFY` channel that carries new event ids.
pub const CHANNEL: &str = "trellis_live";

/// The advisory lock that orders event ids by commit on PostgreSQL (an arbitrary constant).
const ORDER_LOCK: i64 = 0x7472_6c69_7665;

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

/// Writes `events` inside the caller's transaction; call it as the transaction's last statement.
///
/// On PostgreSQL each event is one statement that takes the order lock (a no-op once held), inserts and
/// notifies: the lock is held to the commit, so the fewer round trips after it, the more writers commit.
pub(super) async fn insert_in(conn: &mut AnyConnection, events: &[LiveEvent], now: OffsetDateTime) -> StoreResult<()> {
    let postgres = conn.backend_name() == "PostgreSQL";
    let statement = if postgres {
        "with ordered as (select pg_advisory_xact_lock($5)) \
         insert into live_event (kind, audience, data, created_at) select $1, $2, $3, $4 from ordered \
         returning pg_notify($6, event_id::text) is not null as notified"
    } else {
        "insert into live_event (kind, audience, data, created_at) values ($1, $2, $3, $4)"
    };
    for event in events {
        let mut query = sqlx::query(statement)
            .bind(event.kind.name())
            .bind(event.audience.encode())
            .bind(event.data.to_string())
            .bind(to_millis(now));
        if postgres {
            query = query.bind(ORDER_LOCK).bind(CHANNEL);
        }
        query.execute(&mut *conn).await?;
    }
    Ok(())
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
        self.db.live_committed();
        Ok(())
    }

    /// Wakes this process's dispatcher: an event was committed.
    pub fn wake(&self) -> &tokio::sync::Notify {
        &self.db.live_wake
    }

    /// The newest event's id (0 with none): where a new dispatcher starts.
    pub async fn latest_id(&self) -> StoreResult<i64> {
        let row =
            sqlx::query("select coalesce(max(event_id), 0) as latest from live_event").fetch_one(&self.db.pool).await?;
        Ok(row.try_get("latest")?)
    }

    /// Up to `limit` events after `after_id`, oldest first.
    pub async fn after(&self, after_id: i64, limit: i64) -> StoreResult<Vec<StoredLiveEvent>> {
        let rows = sqlx::query(
            "select event_id, kind, audience, data, created_at from live_event \
             where event_id > $1 order by event_id limit $2",
        )
        .bind(after_id)
        .bind(limit)
        .fetch_all(&self.db.pool)
        .await?;
        let mut events = Vec::with_capacity(rows.len());
        for row in rows {
            let kind: String = row.try_get("kind")?;
            let audience: String = row.try_get("audience")?;
            // A kind or audience a newer server wrote is nobody's here.
            let (Some(kind), Some(audience)) = (EventKind::parse(&kind), Audience::decode(&audience)) else {
                continue;
            };
            events.push(StoredLiveEvent {
                event_id: row.try_get("event_id")?,
                kind,
                audience,
                data: row.try_get("data")?,
                created_at: row.try_get("created_at")?,
            });
        }
        Ok(events)
    }

    /// Whether the event `event_id` is still kept and no older than `since`: a stream can resume after it.
    pub async fn resumable(&self, event_id: i64, since: OffsetDateTime) -> StoreResult<bool> {
        let row = sqlx::query("select 1 as one from live_event where event_id = $1 and created_at >= $2")
            .bind(event_id)
            .bind(to_millis(since))
            .fetch_optional(&self.db.pool)
            .await?;
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

/// Who may hear an event (`services::live`): the reads its audience needs, each limited to the
/// users listening (in chunks), so an event costs queries in proportion to its listeners, never
/// to the size of a space or channel.
impl LiveRepo {
    /// Of `candidates`, those who read the space, with their stored role (`owner`, `member`;
    /// `None` for a reader through a connected channel). A user may come twice.
    pub async fn space_readers(
        &self,
        space_id: &str,
        candidates: &[String],
    ) -> StoreResult<Vec<(String, Option<String>)>> {
        let rows = rows_in_chunks(&self.db, Some(space_id), candidates, |list| {
            format!(
                "select user_id, role from space_member where space_id = $1 and user_id in ({list}) \
                 union all \
                 select m.user_id, cast(null as text) as role from channel_space cs \
                 join channel_member m on m.channel_id = cs.channel_id \
                 where cs.space_id = $1 and m.user_id in ({list})"
            )
        })
        .await?;
        let readers = rows
            .iter()
            .map(|row| Ok((row.try_get("user_id")?, row.try_get("role")?)))
            .collect::<Result<_, sqlx::Error>>()?;
        Ok(readers)
    }

    /// Of `candidates`, the members of a channel.
    pub async fn channel_members(&self, channel_id: &str, candidates: &[String]) -> StoreResult<Vec<String>> {
        let rows = rows_in_chunks(&self.db, Some(channel_id), candidates, |list| {
            format!("select user_id from channel_member where channel_id = $1 and user_id in ({list})")
        })
        .await?;
        let members = rows.iter().map(|row| row.try_get("user_id")).collect::<Result<_, _>>()?;
        Ok(members)
    }

    /// Of `candidates`, the grants of a workflow's permission slots, by user.
    pub async fn workflow_grants(
        &self,
        workflow_configuration_id: &str,
        candidates: &[String],
    ) -> StoreResult<std::collections::HashMap<String, Vec<i64>>> {
        let rows = rows_in_chunks(&self.db, Some(workflow_configuration_id), candidates, |list| {
            format!(
                "select user_id, slot from workflow_grant where workflow_configuration_id = $1 and user_id in ({list})"
            )
        })
        .await?;
        let mut grants = std::collections::HashMap::<String, Vec<i64>>::new();
        for row in &rows {
            grants.entry(row.try_get("user_id")?).or_default().push(row.try_get("slot")?);
        }
        Ok(grants)
    }
}
