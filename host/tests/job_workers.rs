//! The job workers over the real database of the run (SQLite, or PostgreSQL with
//! `TEST_DATABASE=postgres`): retries with back-off, a failure handed to the handler once, a
//! panic contained, heartbeats that keep a long job, a dead worker's job taken over, and a wake-up
//! that does not wait for the poll.

use crate::support::database;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use database::TestDatabase;
use serde_json::json;
use time::OffsetDateTime;
use trellis::config::jobs::JobsConfig;
use trellis::jobs::queue::{ClaimedJob, JobFailure, JobHandler, JobQueue, NewJob, spawn_workers};
use trellis::store::{NewJobRow, Store, StoredJob};

/// Runs jobs as their payload says: `{"failures": n, "permanent": bool, "panic": bool, "sleepMs": ms}`.
#[derive(Default)]
struct Scripted {
    /// (job id, attempt) of every run.
    runs: Mutex<Vec<(i64, u32)>>,
    /// (job id, error) of every `failed` call.
    failed: Mutex<Vec<(i64, String)>>,
}

#[async_trait::async_trait]
impl JobHandler for Scripted {
    fn kind(&self) -> &'static str {
        "scripted"
    }

    async fn run(&self, job: &ClaimedJob) -> Result<(), JobFailure> {
        self.runs.lock().unwrap().push((job.id, job.attempt));
        let script = &job.payload;
        if let Some(ms) = script["sleepMs"].as_u64() {
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
        if script["panic"].as_bool() == Some(true) {
            panic!("scripted panic");
        }
        if script["permanent"].as_bool() == Some(true) {
            return Err(JobFailure::Permanent("unreadable".into()));
        }
        if u64::from(job.attempt) <= script["failures"].as_u64().unwrap_or(0) {
            return Err(JobFailure::Retry(format!("failure {}", job.attempt)));
        }
        Ok(())
    }

    async fn failed(&self, job: &ClaimedJob, error: &str) {
        self.failed.lock().unwrap().push((job.id, error.to_owned()));
    }
}

fn config(lease_seconds: u64, poll_ms: u64) -> JobsConfig {
    JobsConfig {
        lease_seconds,
        poll_ms,
        retry_base_seconds: 0,
        retry_cap_seconds: 0,
        max_attempts: 3,
        ..JobsConfig::default()
    }
}

async fn enqueue(queue: &JobQueue, store: &Store, script: serde_json::Value) -> i64 {
    assert!(
        queue.enqueue(NewJob { kind: "scripted", dedupe_key: None, order_key: None, payload: script }).await.unwrap()
    );
    let depth: i64 = store.jobs.depth().await.unwrap().iter().map(|d| d.count).sum();
    // Ids start at 1 and nothing is deleted here, so the newest job's id is the count.
    depth
}

async fn finished(store: &Store, job_id: i64) -> StoredJob {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let job = store.jobs.job(job_id).await.unwrap().unwrap();
        if job.state == "SUCCEEDED" || job.state == "FAILED" {
            return job;
        }
        assert!(Instant::now() < deadline, "job {job_id} did not finish: {job:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_runs_are_retried_and_a_job_that_keeps_failing_is_handed_to_failed_once() {
    // Arrange
    let db = TestDatabase::new().await;
    let store = db.store().await;
    let queue = JobQueue::new(store.clone(), &config(60, 20));
    let handler = Arc::new(Scripted::default());
    let workers = spawn_workers(&queue, handler.clone(), 2);
    // Act
    let recovers = enqueue(&queue, &store, json!({"failures": 2})).await;
    let keeps_failing = enqueue(&queue, &store, json!({"failures": 10})).await;
    let permanent = enqueue(&queue, &store, json!({"permanent": true})).await;
    let (recovers, keeps_failing, permanent) =
        (finished(&store, recovers).await, finished(&store, keeps_failing).await, finished(&store, permanent).await);
    // Assert
    assert_eq!((recovers.state.as_str(), recovers.attempts), ("SUCCEEDED", 3));
    assert_eq!(recovers.last_error, None);
    assert_eq!((keeps_failing.state.as_str(), keeps_failing.attempts), ("FAILED", 3));
    assert_eq!(keeps_failing.last_error.as_deref(), Some("failure 3"));
    assert_eq!((permanent.state.as_str(), permanent.attempts), ("FAILED", 1));
    // The handler hears of a failure after the job's row says FAILED: wait for both, boundedly.
    let deadline = Instant::now() + Duration::from_secs(30);
    while handler.failed.lock().unwrap().len() < 2 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut failed = handler.failed.lock().unwrap().clone();
    failed.sort();
    assert_eq!(failed, [(keeps_failing.job_id, "failure 3".to_owned()), (permanent.job_id, "unreadable".to_owned())]);
    workers.iter().for_each(|w| w.abort());
    store.close().await;
    db.remove().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_handler_fails_its_job_and_its_worker_runs_the_next() {
    // Arrange: one worker.
    let db = TestDatabase::new().await;
    let store = db.store().await;
    let queue = JobQueue::new(store.clone(), &config(60, 20));
    let handler = Arc::new(Scripted::default());
    let workers = spawn_workers(&queue, handler.clone(), 1);
    // Act
    let panics = enqueue(&queue, &store, json!({"panic": true})).await;
    let next = enqueue(&queue, &store, json!({})).await;
    let (panics, next) = (finished(&store, panics).await, finished(&store, next).await);
    // Assert
    assert_eq!((panics.state.as_str(), panics.attempts), ("FAILED", 1));
    let error = panics.last_error.unwrap();
    assert!(error.contains("panicked") && error.contains("scripted panic"), "{error}");
    assert_eq!(next.state, "SUCCEEDED");
    assert_eq!(handler.failed.lock().unwrap().len(), 1);
    workers.iter().for_each(|w| w.abort());
    store.close().await;
    db.remove().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heartbeats_keep_a_job_longer_than_its_lease_from_other_servers() {
    // Arrange: a 3 s lease (a heartbeat each second, so a loaded machine may hold one back for two), a job
    // running past two leases, and a second server polling often.
    let db = TestDatabase::new().await;
    let (one, two) = (db.store().await, db.store().await);
    let first = JobQueue::new(one.clone(), &config(3, 20));
    let second = JobQueue::new(two.clone(), &config(3, 20));
    let handler = Arc::new(Scripted::default());
    let mut workers = spawn_workers(&first, handler.clone(), 1);
    // Act: the second server starts once the first has claimed the job.
    let long = enqueue(&first, &one, json!({"sleepMs": 7_000})).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while one.jobs.job(long).await.unwrap().unwrap().state != "RUNNING" {
        assert!(Instant::now() < deadline, "the first server never claimed the job");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    workers.extend(spawn_workers(&second, handler.clone(), 2));
    let long = finished(&one, long).await;
    // Assert
    assert_eq!((long.state.as_str(), long.attempts), ("SUCCEEDED", 1));
    assert_eq!(long.worker.as_deref(), Some(first.worker_id()));
    assert_eq!(handler.runs.lock().unwrap().len(), 1, "no other worker ran it");
    workers.iter().for_each(|w| w.abort());
    one.close().await;
    two.close().await;
    db.remove().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_whose_worker_died_runs_again_once_its_lease_ran_out() {
    // Arrange: a worker that claimed the job with a lease ending in two seconds, then died.
    let db = TestDatabase::new().await;
    let store = db.store().await;
    let row =
        NewJobRow { kind: "scripted".into(), dedupe_key: None, order_key: None, fair_key: None, payload: "{}".into() };
    store.jobs.insert(row, OffsetDateTime::now_utc()).await.unwrap();
    let now = OffsetDateTime::now_utc();
    let dead = store.jobs.claim(&["scripted"], "dead", now + Duration::from_secs(2), now).await.unwrap().unwrap();
    let queue = JobQueue::new(store.clone(), &config(60, 50));
    let handler = Arc::new(Scripted::default());
    // Act
    let started = Instant::now();
    let workers = spawn_workers(&queue, handler.clone(), 1);
    let job = finished(&store, dead.job_id).await;
    // Assert
    assert!(started.elapsed() >= Duration::from_millis(1_500), "taken over before the lease ran out");
    assert_eq!((job.state.as_str(), job.attempts), ("SUCCEEDED", 2));
    assert_eq!(handler.runs.lock().unwrap().clone(), [(dead.job_id, 2)]);
    workers.iter().for_each(|w| w.abort());
    store.close().await;
    db.remove().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_local_enqueue_wakes_idle_workers_without_waiting_for_the_poll() {
    // Arrange: workers that poll once a minute, idle by now.
    let db = TestDatabase::new().await;
    let store = db.store().await;
    let queue = JobQueue::new(store.clone(), &config(60, 60_000));
    let handler = Arc::new(Scripted::default());
    let workers = spawn_workers(&queue, handler.clone(), 2);
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Act
    let started = Instant::now();
    let job = enqueue(&queue, &store, json!({})).await;
    let job = finished(&store, job).await;
    // Assert
    assert_eq!(job.state, "SUCCEEDED");
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    workers.iter().for_each(|w| w.abort());
    store.close().await;
    db.remove().await;
}

/// Prints how fast jobs are queued (16 concurrent callers) and run (no-op handler) on the run's
/// database: `cargo test -p trellis --test host job_workers:: -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, not a check"]
async fn measure_queueing_and_running_no_op_jobs() {
    const JOBS: usize = 2_000;
    let db = TestDatabase::new().await;
    let store = db.store().await;
    let queue = JobQueue::new(store.clone(), &config(60, 1_000));
    for (round, workers) in [2, 8].into_iter().enumerate() {
        let started = Instant::now();
        let callers: Vec<_> = (0..16)
            .map(|_| {
                let queue = queue.clone();
                tokio::spawn(async move {
                    for _ in 0..JOBS / 16 {
                        let job = NewJob { kind: "scripted", dedupe_key: None, order_key: None, payload: json!({}) };
                        queue.enqueue(job).await.unwrap();
                    }
                })
            })
            .collect();
        for caller in callers {
            caller.await.unwrap();
        }
        let queued_in = started.elapsed();
        let started = Instant::now();
        let tasks = spawn_workers(&queue, Arc::new(Scripted::default()), workers);
        let target = i64::try_from((round + 1) * JOBS).unwrap();
        while store.jobs.depth().await.unwrap().iter().filter(|d| d.state == "SUCCEEDED").map(|d| d.count).sum::<i64>()
            < target
        {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let ran_in = started.elapsed();
        tasks.iter().for_each(|t| t.abort());
        let rate = |took: Duration| JOBS as f64 / took.as_secs_f64();
        eprintln!("queued {JOBS} jobs in {queued_in:?} ({:.0}/s)", rate(queued_in));
        eprintln!("{workers} workers ran them in {ran_in:?} ({:.0}/s)", rate(ran_in));
    }
    store.close().await;
    db.remove().await;
}
