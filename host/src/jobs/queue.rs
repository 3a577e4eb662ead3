//! The worker pool over the durable job table (`store/jobs.rs`).
//!
//! Each worker is a light async loop: it claims a job of its handler's kind, runs the handler
//! while a heartbeat keeps the claim's lease alive, and records the outcome. Handlers move heavy
//! work to blocking threads themselves, so workers never hold the request executor for long.
//! Jobs queued by this process wake idle workers at once; workers also poll, for jobs queued by
//! other servers on the same database and for retries coming due. Delivery is at least once: a
//! job whose server dies while running it runs again after its lease runs out, so handlers are
//! idempotent.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use time::OffsetDateTime;
use tokio::task::JoinHandle;

use crate::config::jobs::JobsConfig;
use crate::domain::jobs::{AfterFailure, JobKind, RetryPolicy};
use crate::error::Error;
use crate::store::{Claim, ClaimedRow, NewJobRow, Store};

/// Characters of a failure message kept with a job, at most.
const MAX_ERROR_CHARS: usize = 2_000;

/// Queues jobs and wakes this process's workers. Cheap to clone.
#[derive(Clone)]
pub struct JobQueue {
    shared: Arc<Shared>,
}

struct Shared {
    store: Store,
    /// Names this server process in the jobs it claims.
    worker: String,
    lease: Duration,
    poll: Duration,
    retry: RetryPolicy,
}

/// A job to queue.
#[derive(Clone, Debug)]
pub struct NewJob {
    pub kind: &'static str,
    /// A second job with the same key is not queued.
    pub dedupe_key: Option<String>,
    /// Jobs with the same key run strictly one at a time, in the order they were queued.
    pub order_key: Option<String>,
    pub payload: serde_json::Value,
}

/// A job a worker runs.
#[derive(Clone, Debug)]
pub struct ClaimedJob {
    pub id: i64,
    pub kind: String,
    pub payload: serde_json::Value,
    /// 1 for the first run; the job may have run before (a retry, or a worker that died).
    pub attempt: u32,
}

/// Why a job's run failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobFailure {
    /// Worth another attempt later (the retry policy decides when, or that it is the last).
    Retry(String),
    /// Another attempt would fail the same way: FAILED now.
    Permanent(String),
}

/// The code that runs the jobs of one kind of `domain::jobs`, given their typed payload.
#[async_trait::async_trait]
pub trait KindHandler: Send + Sync + 'static {
    type Kind: JobKind;
    async fn run(&self, job_id: i64, job: Self::Kind) -> Result<(), JobFailure>;
    /// Called once when the job ends FAILED, so the handler can record it.
    async fn failed(&self, job_id: i64, job: Self::Kind, error: &str);
}

/// A [`KindHandler`] as the workers run it: a payload that is not its kind's fails at once.
pub fn handler<H: KindHandler>(handler: H) -> Arc<dyn JobHandler> {
    Arc::new(Typed(handler))
}

struct Typed<H>(H);

impl<H: KindHandler> Typed<H> {
    fn payload(job: &ClaimedJob) -> Result<H::Kind, JobFailure> {
        serde_json::from_value(job.payload.clone())
            .map_err(|error| JobFailure::Permanent(format!("not a {} job: {error}", H::Kind::NAME)))
    }
}

#[async_trait::async_trait]
impl<H: KindHandler> JobHandler for Typed<H> {
    fn kind(&self) -> &'static str {
        H::Kind::NAME
    }

    async fn run(&self, job: &ClaimedJob) -> Result<(), JobFailure> {
        self.0.run(job.id, Self::payload(job)?).await
    }

    async fn failed(&self, job: &ClaimedJob, error: &str) {
        match Self::payload(job) {
            Ok(payload) => self.0.failed(job.id, payload, error).await,
            Err(_) => tracing::warn!(job_id = job.id, error, "a job that is not of its kind failed"),
        }
    }
}

/// The code that runs the jobs of one kind, given their JSON payload.
#[async_trait::async_trait]
pub trait JobHandler: Send + Sync + 'static {
    fn kind(&self) -> &'static str;
    async fn run(&self, job: &ClaimedJob) -> Result<(), JobFailure>;
    /// Called once when the job ends FAILED (retries used up or permanent), so the handler can record it.
    async fn failed(&self, job: &ClaimedJob, error: &str);
}

impl JobQueue {
    pub fn new(store: Store, config: &JobsConfig) -> Self {
        Self {
            shared: Arc::new(Shared {
                store,
                worker: uuid::Uuid::new_v4().to_string(),
                lease: config.lease(),
                poll: config.poll(),
                retry: config.retry_policy(),
            }),
        }
    }

    /// Names this server process in the jobs its workers claim.
    pub fn worker_id(&self) -> &str {
        &self.shared.worker
    }

    /// Queues a job and wakes the workers; `false` when the dedupe_key already exists.
    pub async fn enqueue(&self, job: NewJob) -> Result<bool, Error> {
        let queued = self.shared.store.jobs.insert(row(job), OffsetDateTime::now_utc()).await?;
        if queued {
            self.shared.store.jobs.wake();
        }
        Ok(queued)
    }
}

fn row(job: NewJob) -> NewJobRow {
    NewJobRow {
        kind: job.kind.to_owned(),
        dedupe_key: job.dedupe_key,
        order_key: job.order_key,
        fair_key: None,
        payload: job.payload.to_string(),
    }
}

/// Starts `workers` loops for one handler; each claims, runs with a lease heartbeat, and records the outcome.
pub fn spawn_workers(queue: &JobQueue, handler: Arc<dyn JobHandler>, workers: usize) -> Vec<JoinHandle<()>> {
    (0..workers).map(|_| tokio::spawn(work(queue.shared.clone(), handler.clone()))).collect()
}

async fn work(shared: Arc<Shared>, handler: Arc<dyn JobHandler>) {
    let kinds = [handler.kind()];
    loop {
        // Listening before the claim, so a job queued between an empty claim and the wait wakes us.
        let woken = shared.store.jobs.queued().notified();
        tokio::pin!(woken);
        woken.as_mut().enable();
        let now = OffsetDateTime::now_utc();
        match shared.store.jobs.claim(&kinds, &shared.worker, now + shared.lease, now).await {
            Ok(Some(row)) => {
                shared.run(handler.as_ref(), row).await;
                continue;
            }
            Ok(None) => {}
            Err(error) => tracing::warn!(kind = kinds[0], %error, "claiming a job failed"),
        }
        tokio::select! {
            () = &mut woken => {}
            () = tokio::time::sleep(shared.poll) => {}
        }
    }
}

impl Shared {
    #[tracing::instrument(skip_all, fields(job_id = row.job_id, kind = %row.kind, attempt = row.attempts))]
    async fn run(&self, handler: &dyn JobHandler, row: ClaimedRow) {
        let claim = Claim { job_id: row.job_id, worker: &self.worker, attempts: row.attempts };
        let attempt = u32::try_from(row.attempts).unwrap_or(u32::MAX);
        let payload = serde_json::from_str(&row.payload);
        let job = ClaimedJob {
            id: row.job_id,
            kind: row.kind,
            payload: payload.as_ref().cloned().unwrap_or(serde_json::Value::Null),
            attempt,
        };
        let outcome = if let Err(error) = payload {
            Err(JobFailure::Permanent(format!("the job's payload is not JSON: {error}")))
        } else if attempt > self.retry.max_attempts() {
            // Only a claim that outlived its lease counts past the limit: its worker died each time.
            Err(JobFailure::Permanent(format!("its worker stopped during each of {} attempts", attempt - 1)))
        } else {
            match self.run_with_heartbeat(handler, &job, claim).await {
                Some(outcome) => outcome,
                None => return,
            }
        };
        self.record(handler, &job, claim, outcome).await;
    }

    /// Runs the handler, catching a panic as a permanent failure, and keeps the claim's lease
    /// alive meanwhile. `None` when the claim was lost (another worker took the job over).
    async fn run_with_heartbeat(
        &self,
        handler: &dyn JobHandler,
        job: &ClaimedJob,
        claim: Claim<'_>,
    ) -> Option<Result<(), JobFailure>> {
        let run = AssertUnwindSafe(handler.run(job)).catch_unwind();
        tokio::pin!(run);
        let every = self.lease / 3;
        let mut beat = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        loop {
            tokio::select! {
                result = &mut run => {
                    return Some(result.unwrap_or_else(|panic| {
                        Err(JobFailure::Permanent(format!("the {} handler panicked: {}", job.kind, panic_text(&*panic))))
                    }));
                }
                _ = beat.tick() => {
                    let now = OffsetDateTime::now_utc();
                    match self.store.jobs.extend_lease(claim, now + self.lease, now).await {
                        Ok(true) => {}
                        Ok(false) => {
                            tracing::warn!("the job's lease ran out and another worker took it; this run is abandoned");
                            return None;
                        }
                        Err(error) => tracing::warn!(%error, "extending the job's lease failed; trying again"),
                    }
                }
            }
        }
    }

    /// Stores the outcome; a job that ends FAILED is handed to the handler's `failed` once.
    async fn record(
        &self,
        handler: &dyn JobHandler,
        job: &ClaimedJob,
        claim: Claim<'_>,
        outcome: Result<(), JobFailure>,
    ) {
        let now = OffsetDateTime::now_utc();
        let (error, retry_at) = match outcome {
            Ok(()) => {
                crate::infra::metrics::job_finished(&job.kind, "succeeded");
                match self.store.jobs.succeed(claim, now).await {
                    Ok(true) => {}
                    Ok(false) => tracing::warn!("the job succeeded after another worker took it over"),
                    Err(error) => tracing::warn!(%error, "recording a job's success failed; it runs again later"),
                }
                return;
            }
            Err(JobFailure::Permanent(error)) => (error, None),
            Err(JobFailure::Retry(error)) => match self.retry.after_failure(job.attempt, rand::random::<f64>()) {
                AfterFailure::RetryAfter(delay) => (error, Some(now + delay)),
                AfterFailure::GiveUp => (error, None),
            },
        };
        let error = truncated(error);
        tracing::warn!(%error, retry_at = ?retry_at, "a job failed");
        crate::infra::metrics::job_finished(&job.kind, if retry_at.is_some() { "retry" } else { "failed" });
        match self.store.jobs.fail(claim, &error, retry_at, now).await {
            Ok(true) if retry_at.is_none() => {
                if AssertUnwindSafe(handler.failed(job, &error)).catch_unwind().await.is_err() {
                    tracing::error!("the handler panicked recording a failed job");
                }
            }
            Ok(true) => {}
            Ok(false) => tracing::warn!("the job failed after another worker took it over"),
            Err(error) => tracing::warn!(%error, "recording a job's failure failed; it runs again later"),
        }
    }
}

fn truncated(mut error: String) -> String {
    if let Some((cut, _)) = error.char_indices().nth(MAX_ERROR_CHARS) {
        error.truncate(cut);
        error.push('…');
    }
    error
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a non-text panic")
}
