//! The durable job queue: background work that survives restarts and `kill -9`.
//!
//! A claim takes the oldest due job of the asked kinds: QUEUED and due, or RUNNING with its lease
//! run out (its worker died). A job whose `order_key` has an earlier unfinished job waits, so jobs
//! sharing a key run one at a time in id order. On PostgreSQL the claim locks its row with
//! `for update skip locked`, so servers sharing the database never block on, or take, the same
//! job; on SQLite the one writer serialises claims, so the same statement without the lock clause
//! is enough. Everything after the claim (heartbeat, outcome) names the claim by worker and
//! attempt, so a worker that lost its lease cannot overwrite the work of the one that took over.

use std::sync::Arc;

use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};
use time::OffsetDateTime;

use super::{Db, Engine, StoreResult, from_millis, placeholders, to_millis};

/// Finished jobs one housekeeping statement deletes at most, so it never holds the writer long.
const DELETE_BATCH: i64 = 1_000;

/// A job to queue.
#[derive(Clone, Debug)]
pub struct NewJobRow {
    pub kind: String,
    /// A second job with the same key is not queued.
    pub dedupe_key: Option<String>,
    /// Jobs with the same key run one at a time, in the order they were queued.
    pub order_key: Option<String>,
    /// Keys take turns: a claim takes the next job of the key served least recently.
    pub fair_key: Option<String>,
    /// JSON text.
    pub payload: String,
}

/// A job a worker claimed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimedRow {
    pub job_id: i64,
    pub kind: String,
    pub payload: String,
    /// Claims so far, this one included; with the worker id it names the claim.
    pub attempts: i64,
}

/// A job as stored, for inspection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredJob {
    pub job_id: i64,
    pub kind: String,
    pub dedupe_key: Option<String>,
    pub order_key: Option<String>,
    pub payload: String,
    pub state: String,
    pub attempts: i64,
    pub run_at: OffsetDateTime,
    pub lease_until: Option<OffsetDateTime>,
    pub worker: Option<String>,
    pub last_error: Option<String>,
}

/// Names one claim of a job: after its lease ran out, another worker's claim (or a later claim
/// of the same worker) has another name, and changes through this one find no row.
#[derive(Clone, Copy, Debug)]
pub struct Claim<'a> {
    pub job_id: i64,
    pub worker: &'a str,
    pub attempts: i64,
}

/// What becomes of a claim.
enum Change {
    Lease(i64),
    Succeed,
    Retry { run_at: i64, error: String },
    Fail { error: String },
}

/// How many jobs of a kind are in a state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobDepth {
    pub kind: String,
    pub state: String,
    pub count: i64,
}

/// The repository of background jobs.
#[derive(Clone, Debug)]
pub struct JobRepo {
    db: Db,
}

const INSERT: &str = "insert into job (kind, dedupe_key, order_key, payload, state, attempts, run_at, created_at, \
     updated_at, fair_key) values ($1, $2, $3, $4, 'QUEUED', 0, $5, $5, $5, $6) on conflict (dedupe_key) do nothing";

/// Queues `job` on `conn`, inside whatever transaction the caller holds: a repository that
/// changes a row and must start work about it does both in one commit, so a crash cannot keep
/// the one and lose the other. `false` when a job with the same dedupe key exists.
pub(crate) async fn insert_in(conn: &mut AnyConnection, job: &NewJobRow, now: OffsetDateTime) -> StoreResult<bool> {
    let inserted = sqlx::query(INSERT)
        .bind(job.kind.clone())
        .bind(job.dedupe_key.clone())
        .bind(job.order_key.clone())
        .bind(job.payload.clone())
        .bind(to_millis(now))
        .bind(job.fair_key.clone())
        .execute(conn)
        .await?
        .rows_affected();
    Ok(inserted == 1)
}

/// Queues `job` unless its order key already has `max_unfinished` unfinished jobs (or its dedupe
/// key exists), inside the caller's transaction: the count and the insert are one statement.
pub(crate) async fn insert_bounded_in(
    conn: &mut AnyConnection,
    job: &NewJobRow,
    max_unfinished: i64,
    now: OffsetDateTime,
) -> StoreResult<bool> {
    let inserted = sqlx::query(
        "insert into job (kind, dedupe_key, order_key, payload, state, attempts, run_at, created_at, updated_at, \
         fair_key) select $1, $2, $3, $4, 'QUEUED', 0, $5, $5, $5, $7 \
         where (select count(*) from job where order_key = $3 and state in ('QUEUED', 'RUNNING')) < $6 \
         on conflict (dedupe_key) do nothing",
    )
    .bind(job.kind.clone())
    .bind(job.dedupe_key.clone())
    .bind(job.order_key.clone())
    .bind(job.payload.clone())
    .bind(to_millis(now))
    .bind(max_unfinished)
    .bind(job.fair_key.clone())
    .execute(conn)
    .await?
    .rows_affected();
    Ok(inserted == 1)
}

impl JobRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    /// Notified when a commit of this process queued jobs.
    pub fn queued(&self) -> &tokio::sync::Notify {
        &self.db.job_wake
    }

    /// Wakes this process's idle workers (after a job was queued outside an [`super::Outbox`]).
    pub fn wake(&self) {
        self.db.job_wake.notify_waiters();
    }

    /// Queues a job; `false` when a job with the same dedupe key exists.
    #[tracing::instrument(skip_all, fields(kind = %job.kind))]
    pub async fn insert(&self, job: NewJobRow, now: OffsetDateTime) -> StoreResult<bool> {
        let job = Arc::new(job);
        self.db
            .write(move |conn| {
                let job = job.clone();
                Box::pin(async move { insert_in(conn, &job, now).await })
            })
            .await
    }

    /// Queues a job unless its order key already has `max_unfinished` unfinished jobs (or its
    /// dedupe key exists): `false`, nothing queued. The count and the insert are one statement.
    #[tracing::instrument(skip_all, fields(kind = %job.kind))]
    pub async fn insert_bounded(&self, job: NewJobRow, max_unfinished: i64, now: OffsetDateTime) -> StoreResult<bool> {
        let job = Arc::new(job);
        self.db
            .write(move |conn| {
                let job = job.clone();
                Box::pin(async move { insert_bounded_in(conn, &job, max_unfinished, now).await })
            })
            .await
    }

    /// Takes the oldest claimable job of `kinds` for `worker` until `lease_until`: RUNNING, its
    /// attempts counted up. `None` when no job of those kinds is due.
    #[tracing::instrument(skip_all, fields(worker))]
    pub async fn claim(
        &self,
        kinds: &[&str],
        worker: &str,
        lease_until: OffsetDateTime,
        now: OffsetDateTime,
    ) -> StoreResult<Option<ClaimedRow>> {
        if kinds.is_empty() {
            return Ok(None);
        }
        // A read first: an idle worker's poll then costs no write transaction (on SQLite, no turn
        // of the one writer that requests wait for).
        let mut probe = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select j.job_id from job j where {} limit 1",
            claimable(1, kinds.len())
        )))
        .bind(to_millis(now));
        for kind in kinds {
            probe = probe.bind((*kind).to_owned());
        }
        if probe.fetch_optional(&self.db.pool).await?.is_none() {
            return Ok(None);
        }
        let lock = match self.db.engine() {
            Engine::Postgres => " for update skip locked",
            Engine::Sqlite => "",
        };
        let sql = Arc::new(format!(
            "update job set state = 'RUNNING', attempts = attempts + 1, worker = $1, lease_until = $2, \
             updated_at = $3 where job_id = (select j.job_id from job j where {} order by {FAIR_TURN}, j.job_id \
             limit 1{lock}) \
             returning job_id, kind, payload, attempts",
            claimable(3, kinds.len()),
        ));
        let binds = Arc::new((worker.to_owned(), kinds.iter().map(|k| (*k).to_owned()).collect::<Vec<_>>()));
        self.db
            .write(move |conn| {
                let (sql, binds) = (sql.clone(), binds.clone());
                Box::pin(async move {
                    let (worker, kinds) = &*binds;
                    let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.as_str()))
                        .bind(worker.clone())
                        .bind(to_millis(lease_until))
                        .bind(to_millis(now));
                    for kind in kinds {
                        query = query.bind(kind.clone());
                    }
                    let row = query.fetch_optional(conn).await?;
                    Ok(row.as_ref().map(claimed_from_row).transpose()?)
                })
            })
            .await
    }

    /// Moves the lease of a running claim on; `false` when the claim is no longer this worker's
    /// (its lease ran out and another worker took the job, or it finished).
    #[tracing::instrument(skip_all, fields(job_id = claim.job_id))]
    pub async fn extend_lease(
        &self,
        claim: Claim<'_>,
        lease_until: OffsetDateTime,
        now: OffsetDateTime,
    ) -> StoreResult<bool> {
        self.change_claim(claim, Change::Lease(to_millis(lease_until)), now).await
    }

    /// Records that a claim succeeded; `false` when the claim is no longer this worker's.
    #[tracing::instrument(skip_all, fields(job_id = claim.job_id))]
    pub async fn succeed(&self, claim: Claim<'_>, now: OffsetDateTime) -> StoreResult<bool> {
        self.change_claim(claim, Change::Succeed, now).await
    }

    /// Records that a claim failed: QUEUED again, due at `retry_at`, or FAILED without one.
    /// `false` when the claim is no longer this worker's.
    #[tracing::instrument(skip_all, fields(job_id = claim.job_id))]
    pub async fn fail(
        &self,
        claim: Claim<'_>,
        error: &str,
        retry_at: Option<OffsetDateTime>,
        now: OffsetDateTime,
    ) -> StoreResult<bool> {
        let error = error.to_owned();
        let change = match retry_at {
            Some(at) => Change::Retry { run_at: to_millis(at), error },
            None => Change::Fail { error },
        };
        self.change_claim(claim, change, now).await
    }

    /// One update of a claim, conditional on its still being this worker's.
    async fn change_claim(&self, claim: Claim<'_>, change: Change, now: OffsetDateTime) -> StoreResult<bool> {
        macro_rules! claimed {
            ($set:literal) => {
                concat!(
                    "update job set ",
                    $set,
                    " where job_id = $1 and worker = $2 and attempts = $3 and state = 'RUNNING'"
                )
            };
        }
        let (job_id, attempts, now) = (claim.job_id, claim.attempts, to_millis(now));
        let work = Arc::new((claim.worker.to_owned(), change));
        self.db
            .write(move |conn| {
                let work = work.clone();
                Box::pin(async move {
                    let (worker, change) = &*work;
                    let query = |sql| sqlx::query(sql).bind(job_id).bind(worker.clone()).bind(attempts);
                    let query = match change {
                        Change::Lease(until) => {
                            query(claimed!("lease_until = $4, updated_at = $5")).bind(*until).bind(now)
                        }
                        Change::Succeed => query(claimed!(
                            "state = 'SUCCEEDED', lease_until = null, last_error = null, updated_at = $4"
                        ))
                        .bind(now),
                        Change::Retry { run_at, error } => query(claimed!(
                            "state = 'QUEUED', run_at = $4, last_error = $5, updated_at = $6, lease_until = null"
                        ))
                        .bind(*run_at)
                        .bind(error.clone())
                        .bind(now),
                        Change::Fail { error } => {
                            query(claimed!("state = 'FAILED', last_error = $4, updated_at = $5, lease_until = null"))
                                .bind(error.clone())
                                .bind(now)
                        }
                    };
                    Ok(query.execute(conn).await?.rows_affected() == 1)
                })
            })
            .await
    }

    /// Jobs per kind and state, for metrics.
    pub async fn depth(&self) -> StoreResult<Vec<JobDepth>> {
        let rows = sqlx::query("select kind, state, count(*) as n from job group by kind, state order by kind, state")
            .fetch_all(&self.db.pool)
            .await?;
        rows.iter()
            .map(|row| {
                Ok(JobDepth { kind: row.try_get("kind")?, state: row.try_get("state")?, count: row.try_get("n")? })
            })
            .collect()
    }

    /// A job by id.
    pub async fn job(&self, job_id: i64) -> StoreResult<Option<StoredJob>> {
        let row = sqlx::query(
            "select job_id, kind, dedupe_key, order_key, payload, state, attempts, run_at, lease_until, worker, \
             last_error from job where job_id = $1",
        )
        .bind(job_id)
        .fetch_optional(&self.db.pool)
        .await?;
        Ok(row.as_ref().map(stored_from_row).transpose()?)
    }

    /// Deletes jobs that finished (SUCCEEDED or FAILED) before `before`, in batches; answers how
    /// many.
    #[tracing::instrument(skip_all)]
    pub async fn delete_finished_before(&self, before: OffsetDateTime) -> StoreResult<u64> {
        let mut deleted = 0;
        loop {
            let batch = self
                .db
                .write(move |conn| {
                    Box::pin(async move {
                        let done = sqlx::query(
                            "delete from job where job_id in (select job_id from job \
                             where state in ('SUCCEEDED', 'FAILED') and updated_at < $1 limit $2)",
                        )
                        .bind(to_millis(before))
                        .bind(DELETE_BATCH)
                        .execute(conn)
                        .await?;
                        Ok(done.rows_affected())
                    })
                })
                .await?;
            deleted += batch;
            if batch < DELETE_BATCH as u64 {
                return Ok(deleted);
            }
        }
    }
}

/// The condition on `job j` of a claimable job: one of `kinds` kinds (bound from `$now + 1` on),
/// due at `$now` or its lease run out by then, and first of its order key among unfinished jobs.
/// The claim's first order: the job whose fair key was served least recently (never, or no key,
/// first); served means claimed (RUNNING) or finished, whose `updated_at` is when.
const FAIR_TURN: &str = "(select max(f.updated_at) from job f where f.fair_key = j.fair_key \
     and f.state in ('RUNNING', 'SUCCEEDED', 'FAILED')) nulls first";

fn claimable(now: usize, kinds: usize) -> String {
    format!(
        "j.kind in ({kinds}) \
         and ((j.state = 'QUEUED' and j.run_at <= ${now}) or (j.state = 'RUNNING' and j.lease_until < ${now})) \
         and (j.order_key is null or not exists (select 1 from job e where e.order_key = j.order_key \
           and e.job_id < j.job_id and e.state in ('QUEUED', 'RUNNING')))",
        kinds = placeholders(now + 1, kinds),
    )
}

fn claimed_from_row(row: &AnyRow) -> Result<ClaimedRow, sqlx::Error> {
    Ok(ClaimedRow {
        job_id: row.try_get("job_id")?,
        kind: row.try_get("kind")?,
        payload: row.try_get("payload")?,
        attempts: row.try_get("attempts")?,
    })
}

fn stored_from_row(row: &AnyRow) -> Result<StoredJob, sqlx::Error> {
    Ok(StoredJob {
        job_id: row.try_get("job_id")?,
        kind: row.try_get("kind")?,
        dedupe_key: row.try_get("dedupe_key")?,
        order_key: row.try_get("order_key")?,
        payload: row.try_get("payload")?,
        state: row.try_get("state")?,
        attempts: row.try_get("attempts")?,
        run_at: from_millis(row.try_get("run_at")?),
        lease_until: row.try_get::<Option<i64>, _>("lease_until")?.map(from_millis),
        worker: row.try_get("worker")?,
        last_error: row.try_get("last_error")?,
    })
}
