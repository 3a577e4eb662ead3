//! The claim rules of the durable job queue, against the real database of the run (SQLite, or
//! PostgreSQL with `TEST_DATABASE=postgres`): one job at a time per order key in id order,
//! dedupe keys, leases that run out, retries, the per-key bound, and concurrent claimers.

use crate::support::database;

use std::collections::HashSet;
use std::time::Duration;

use database::TestDatabase;
use time::OffsetDateTime;
use trellis::store::{Claim, ClaimedRow, NewJobRow, Store};

const LEASE: Duration = Duration::from_secs(60);

fn job(kind: &str, dedupe_key: Option<&str>, order_key: Option<&str>, n: u32) -> NewJobRow {
    NewJobRow {
        kind: kind.to_owned(),
        dedupe_key: dedupe_key.map(str::to_owned),
        order_key: order_key.map(str::to_owned),
        fair_key: None,
        payload: format!("{{\"n\":{n}}}"),
    }
}

fn fair(n: u32, key: &str) -> NewJobRow {
    NewJobRow { fair_key: Some(key.to_owned()), ..job("k", None, None, n) }
}

/// A fixed instant, so leases and back-off are exact.
fn t0() -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp(1_900_000_000).unwrap()
}

fn at(seconds: u64) -> OffsetDateTime {
    t0() + Duration::from_secs(seconds)
}

async fn claim(store: &Store, worker: &str, now: OffsetDateTime) -> Option<ClaimedRow> {
    store.jobs.claim(&["k"], worker, now + LEASE, now).await.unwrap()
}

fn payload_n(row: &ClaimedRow) -> u64 {
    serde_json::from_str::<serde_json::Value>(&row.payload).unwrap()["n"].as_u64().unwrap()
}

fn claim_of<'a>(row: &ClaimedRow, worker: &'a str) -> Claim<'a> {
    Claim { job_id: row.job_id, worker, attempts: row.attempts }
}

#[tokio::test]
async fn jobs_sharing_an_order_key_run_one_at_a_time_in_id_order() {
    // Arrange
    let db = TestDatabase::new().await;
    let store = db.store().await;
    for (n, key) in [(1, "s"), (2, "s"), (3, "t"), (4, "s")] {
        assert!(store.jobs.insert(job("k", None, Some(key), n), at(0)).await.unwrap());
    }
    store.jobs.insert(job("k", None, None, 5), at(0)).await.unwrap();
    // Act
    let first = claim(&store, "w", at(1)).await.unwrap();
    let second = claim(&store, "w", at(1)).await.unwrap();
    let third = claim(&store, "w", at(1)).await.unwrap();
    let blocked = claim(&store, "w", at(1)).await;
    store.jobs.succeed(claim_of(&first, "w"), at(2)).await.unwrap();
    let after_first = claim(&store, "w", at(2)).await.unwrap();
    let blocked_again = claim(&store, "w", at(2)).await;
    // Assert
    assert_eq!([payload_n(&first), payload_n(&second), payload_n(&third)], [1, 3, 5]);
    assert_eq!(blocked, None, "job 2 waits for job 1 of its key, job 4 for both");
    assert_eq!(payload_n(&after_first), 2);
    assert_eq!(blocked_again, None);
    store.close().await;
    db.remove().await;
}

#[tokio::test]
async fn fair_keys_take_turns_whatever_order_their_jobs_were_queued_in() {
    // Arrange: "ann" queued four jobs before "bob" and "cat" queued one each (issue 28: one user's
    // self-approved assets held everybody else's back).
    let db = TestDatabase::new().await;
    let store = db.store().await;
    for n in 1..=4 {
        store.jobs.insert(fair(n, "ann"), at(0)).await.unwrap();
    }
    store.jobs.insert(fair(5, "bob"), at(0)).await.unwrap();
    store.jobs.insert(fair(6, "cat"), at(0)).await.unwrap();
    // Act: one worker claims and finishes, one job at a time.
    let mut order = Vec::new();
    for second in 1..=6 {
        let row = claim(&store, "w", at(second)).await.unwrap();
        order.push(payload_n(&row));
        assert!(store.jobs.succeed(claim_of(&row, "w"), at(second)).await.unwrap());
    }
    // Assert: ann's first, then bob and cat before ann's second; ann's own in the order queued.
    assert_eq!(order, [1, 5, 6, 2, 3, 4]);
}

#[tokio::test]
async fn a_second_job_with_the_same_dedupe_key_is_not_queued_even_after_the_first_finished() {
    // Arrange
    let db = TestDatabase::new().await;
    let store = db.store().await;
    assert!(store.jobs.insert(job("k", Some("analysis:a"), None, 1), at(0)).await.unwrap());
    // Act
    let again = store.jobs.insert(job("k", Some("analysis:a"), None, 2), at(0)).await.unwrap();
    let first = claim(&store, "w", at(1)).await.unwrap();
    store.jobs.succeed(claim_of(&first, "w"), at(1)).await.unwrap();
    let after = store.jobs.insert(job("k", Some("analysis:a"), None, 3), at(2)).await.unwrap();
    let other_key = store.jobs.insert(job("k", Some("analysis:b"), None, 4), at(2)).await.unwrap();
    let without_keys = [
        store.jobs.insert(job("k", None, None, 5), at(2)).await.unwrap(),
        store.jobs.insert(job("k", None, None, 6), at(2)).await.unwrap(),
    ];
    // Assert
    assert!(!again && !after);
    assert!(other_key);
    assert_eq!(without_keys, [true, true], "jobs without a key never collide");
    assert_eq!(payload_n(&first), 1);
    store.close().await;
    db.remove().await;
}

#[tokio::test]
async fn a_running_job_whose_lease_ran_out_is_claimed_again_and_the_old_claim_is_void() {
    // Arrange: worker a claims and then stops sending heartbeats.
    let db = TestDatabase::new().await;
    let store = db.store().await;
    store.jobs.insert(job("k", None, Some("s"), 1), at(0)).await.unwrap();
    store.jobs.insert(job("k", None, Some("s"), 2), at(0)).await.unwrap();
    let first = claim(&store, "a", at(0)).await.unwrap();
    // Act
    let within_lease = claim(&store, "b", at(59)).await;
    let heartbeat = store.jobs.extend_lease(claim_of(&first, "a"), at(50) + LEASE, at(50)).await.unwrap();
    let within_extended = claim(&store, "b", at(100)).await;
    let taken_over = claim(&store, "b", at(111)).await.unwrap();
    let late_success = store.jobs.succeed(claim_of(&first, "a"), at(112)).await.unwrap();
    let late_heartbeat = store.jobs.extend_lease(claim_of(&first, "a"), at(112) + LEASE, at(112)).await.unwrap();
    let next_in_line = claim(&store, "b", at(112)).await;
    let success = store.jobs.succeed(claim_of(&taken_over, "b"), at(113)).await.unwrap();
    // Assert
    assert_eq!(within_lease, None);
    assert!(heartbeat);
    assert_eq!(within_extended, None, "the heartbeat moved the lease to 110 s");
    assert_eq!((taken_over.job_id, taken_over.attempts), (first.job_id, 2));
    assert!(!late_success && !late_heartbeat, "the first claim is void once another worker took the job");
    assert_eq!(next_in_line, None, "the order key's next job waits while its head runs again");
    assert!(success);
    let stored = store.jobs.job(first.job_id).await.unwrap().unwrap();
    assert_eq!((stored.state.as_str(), stored.worker.as_deref(), stored.attempts), ("SUCCEEDED", Some("b"), 2));
    store.close().await;
    db.remove().await;
}

#[tokio::test]
async fn a_failed_job_comes_back_when_due_holding_its_order_key_and_then_fails_for_good() {
    // Arrange
    let db = TestDatabase::new().await;
    let store = db.store().await;
    store.jobs.insert(job("k", None, Some("s"), 1), at(0)).await.unwrap();
    store.jobs.insert(job("k", None, Some("s"), 2), at(0)).await.unwrap();
    let first = claim(&store, "w", at(0)).await.unwrap();
    // Act
    let retried = store.jobs.fail(claim_of(&first, "w"), "database away", Some(at(10)), at(1)).await.unwrap();
    let before_due = claim(&store, "w", at(9)).await;
    let second_attempt = claim(&store, "w", at(10)).await.unwrap();
    let given_up = store.jobs.fail(claim_of(&second_attempt, "w"), "still away", None, at(11)).await.unwrap();
    let next = claim(&store, "w", at(11)).await.unwrap();
    // Assert
    assert!(retried && given_up);
    assert_eq!(before_due, None, "not due yet, and its key's second job waits behind it");
    assert_eq!((second_attempt.job_id, second_attempt.attempts), (first.job_id, 2));
    let stored = store.jobs.job(first.job_id).await.unwrap().unwrap();
    assert_eq!((stored.state.as_str(), stored.last_error.as_deref()), ("FAILED", Some("still away")));
    assert_eq!(payload_n(&next), 2, "a FAILED job no longer holds its key");
    store.jobs.succeed(claim_of(&next, "w"), at(12)).await.unwrap();
    assert_eq!(claim(&store, "w", at(1_000)).await, None, "a FAILED job never runs again");
    store.close().await;
    db.remove().await;
}

#[tokio::test]
async fn an_order_key_holds_at_most_its_bound_of_unfinished_jobs() {
    // Arrange
    let db = TestDatabase::new().await;
    let store = db.store().await;
    let bounded = |n| store.jobs.insert_bounded(job("k", None, Some("s"), n), 2, at(0));
    assert!(bounded(1).await.unwrap());
    assert!(bounded(2).await.unwrap());
    // Act
    let beyond = bounded(3).await.unwrap();
    let elsewhere = store.jobs.insert_bounded(job("k", None, Some("t"), 4), 2, at(0)).await.unwrap();
    let running = claim(&store, "w", at(1)).await.unwrap();
    let while_running = bounded(5).await.unwrap();
    store.jobs.succeed(claim_of(&running, "w"), at(2)).await.unwrap();
    let after = bounded(6).await.unwrap();
    // Assert
    assert!(!beyond && !while_running, "a running job counts as unfinished");
    assert!(elsewhere && after);
    store.close().await;
    db.remove().await;
}

#[tokio::test]
async fn only_the_asked_kinds_are_claimed_and_depth_counts_by_kind_and_state() {
    // Arrange
    let db = TestDatabase::new().await;
    let store = db.store().await;
    store.jobs.insert(job("other", None, None, 1), at(0)).await.unwrap();
    store.jobs.insert(job("k", None, None, 2), at(0)).await.unwrap();
    store.jobs.insert(job("k", None, None, 3), at(0)).await.unwrap();
    // Act
    let claimed = claim(&store, "w", at(1)).await.unwrap();
    let depth = store.jobs.depth().await.unwrap();
    // Assert
    assert_eq!(payload_n(&claimed), 2);
    let counts: Vec<(&str, &str, i64)> = depth.iter().map(|d| (d.kind.as_str(), d.state.as_str(), d.count)).collect();
    assert_eq!(counts, [("k", "QUEUED", 1), ("k", "RUNNING", 1), ("other", "QUEUED", 1)]);
    store.close().await;
    db.remove().await;
}

#[tokio::test]
async fn housekeeping_deletes_only_jobs_that_finished_before_the_cut() {
    // Arrange: one job finished early, one late, one still queued.
    let db = TestDatabase::new().await;
    let store = db.store().await;
    for n in 0..3 {
        store.jobs.insert(job("k", None, None, n), at(0)).await.unwrap();
    }
    let early = claim(&store, "w", at(1)).await.unwrap();
    store.jobs.fail(claim_of(&early, "w"), "broken", None, at(1)).await.unwrap();
    let late = claim(&store, "w", at(1)).await.unwrap();
    store.jobs.succeed(claim_of(&late, "w"), at(100)).await.unwrap();
    // Act
    let deleted = store.jobs.delete_finished_before(at(50)).await.unwrap();
    // Assert
    assert_eq!(deleted, 1);
    assert!(store.jobs.job(early.job_id).await.unwrap().is_none());
    assert!(store.jobs.job(late.job_id).await.unwrap().is_some());
    assert_eq!(store.jobs.depth().await.unwrap().iter().map(|d| d.count).sum::<i64>(), 2);
    store.close().await;
    db.remove().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_claimers_of_two_servers_never_get_the_same_job() {
    // Arrange: two stores over one database, as two servers would have.
    let db = TestDatabase::new().await;
    let servers = [db.store().await, db.store().await];
    const JOBS: u32 = 300;
    for n in 0..JOBS {
        // Every third job shares a key with others, so head-of-line waits happen too.
        let key = (n % 3 == 0).then(|| format!("key{}", n % 7));
        servers[0].jobs.insert(job("k", None, key.as_deref(), n), at(0)).await.unwrap();
    }
    // Act: eight claimers, each finishing what it claimed, until nothing is left.
    let mut tasks = Vec::new();
    for claimer in 0..8 {
        let store = servers[claimer % 2].clone();
        tasks.push(tokio::spawn(async move {
            let worker = format!("w{claimer}");
            let mut claimed = Vec::new();
            let mut idle = 0;
            while idle < 20 {
                match store.jobs.claim(&["k"], &worker, at(1) + LEASE, at(1)).await.unwrap() {
                    Some(row) => {
                        idle = 0;
                        assert!(store.jobs.succeed(claim_of(&row, &worker), at(1)).await.unwrap());
                        claimed.push(payload_n(&row));
                    }
                    None => {
                        idle += 1;
                        tokio::time::sleep(Duration::from_millis(5)).await;
                    }
                }
            }
            claimed
        }));
    }
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await.unwrap());
    }
    // Assert
    let distinct: HashSet<u64> = all.iter().copied().collect();
    assert_eq!(all.len(), JOBS as usize, "each job claimed exactly once");
    assert_eq!(distinct.len(), JOBS as usize);
    for server in &servers {
        server.close().await;
    }
    db.remove().await;
}
