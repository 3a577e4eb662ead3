//! The transactional outbox: what a change causes (jobs such as a space event for modules or an
//! asset's analysis, and notices from `system`) is written in the change's own transaction. The
//! change commits with its consequences or not at all, so a request cancelled after its commit
//! (a client that hung up) loses nothing, and a rolled-back change announces nothing. Workers take
//! the jobs from the job table afterwards (`jobs/queue.rs`), at least once.

use std::sync::atomic::{AtomicBool, Ordering};

use sqlx::AnyConnection;
use time::OffsetDateTime;

use super::StoreResult;
use super::jobs::NewJobRow;
use super::messages::NewMessageRow;
use crate::domain::jobs::JobKind;
use crate::domain::live::LiveEvent;

/// What one change causes, written with it. Empty by default; a repository method that takes an
/// outbox writes it inside the change's transaction and wakes this process's job workers after
/// the commit.
#[derive(Debug, Default)]
pub struct Outbox {
    jobs: Vec<OutboxJob>,
    notices: Vec<NewMessageRow>,
    live: Vec<LiveEvent>,
}

#[derive(Debug)]
struct OutboxJob {
    row: NewJobRow,
    /// The job is left out when its order key already has this many unfinished jobs.
    max_unfinished: Option<i64>,
    /// Set by the write: the job was left out (bound reached). A group commit may run the write
    /// twice; the last run decides.
    dropped: AtomicBool,
}

impl Outbox {
    pub fn new() -> Self {
        Self::default()
    }

    /// Queues a job of `kind` with the change.
    pub fn job<K: JobKind>(mut self, job: &K) -> Self {
        self.push(job, None);
        self
    }

    /// Queues a job of `kind` with the change unless its order key already holds `max_unfinished`
    /// unfinished jobs; then the change commits without it ([`Outbox::dropped`] counts it).
    pub fn bounded_job<K: JobKind>(mut self, job: &K, max_unfinished: usize) -> Self {
        self.push(job, Some(i64::try_from(max_unfinished).unwrap_or(i64::MAX)));
        self
    }

    /// Sends a notice from `system` with the change: a thread of its own to `notice.recipient_id`,
    /// left out when that user has no account (any more).
    pub fn notice(mut self, notice: NewMessageRow) -> Self {
        self.notices.push(notice);
        self
    }

    /// Announces the change to the users who may read it (`GET /v0/events`) once it commits.
    pub fn live(mut self, event: LiveEvent) -> Self {
        self.live.push(event);
        self
    }

    fn push<K: JobKind>(&mut self, job: &K, max_unfinished: Option<i64>) {
        let row = NewJobRow {
            kind: K::NAME.to_owned(),
            dedupe_key: job.dedupe_key(),
            order_key: job.order_key(),
            fair_key: job.fair_key(),
            // A struct of strings and JSON values always serialises.
            payload: serde_json::to_string(job).unwrap_or_default(),
        };
        self.jobs.push(OutboxJob { row, max_unfinished, dropped: AtomicBool::new(false) });
    }

    pub fn has_jobs(&self) -> bool {
        !self.jobs.is_empty()
    }

    /// Whether the change announces something live (a notice does: it is a message).
    pub fn has_live(&self) -> bool {
        !self.live.is_empty() || !self.notices.is_empty()
    }

    /// Jobs the committed write left out because their bound was reached.
    pub fn dropped(&self) -> usize {
        self.jobs.iter().filter(|job| job.dropped.load(Ordering::Relaxed)).count()
    }

    /// Writes everything inside the caller's transaction; call it as the transaction's last step
    /// (the live events go last of all, see `store::live`).
    pub(super) async fn write_in(&self, conn: &mut AnyConnection, now: OffsetDateTime) -> StoreResult<()> {
        let mut live = self.live.clone();
        for job in &self.jobs {
            let queued = match job.max_unfinished {
                None => super::jobs::insert_in(conn, &job.row, now).await?,
                Some(max) => super::jobs::insert_bounded_in(conn, &job.row, max, now).await?,
            };
            // A job refused for its dedupe key exists already: not a drop.
            job.dropped.store(!queued && job.max_unfinished.is_some(), Ordering::Relaxed);
        }
        for notice in &self.notices {
            let recipient_exists = sqlx::query("select 1 as one from app_user where user_id = $1")
                .bind(notice.recipient_id.clone())
                .fetch_optional(&mut *conn)
                .await?
                .is_some();
            if recipient_exists {
                live.extend(super::messages::insert_in(conn, notice).await?);
            }
        }
        super::live::insert_in(conn, &live, now).await
    }
}
