//! The `[jobs]` table: the durable job queue's workers, leases, retries and housekeeping.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::domain::jobs::RetryPolicy;

/// Settings of the background job queue.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct JobsConfig {
    /// Seconds a claimed job stays this worker's without a heartbeat; a job whose server died
    /// is taken again by another worker this long after the last heartbeat.
    pub lease_seconds: u64,
    /// Milliseconds an idle worker waits before it looks for jobs again (jobs queued by other
    /// servers, retries come due); jobs queued by this server wake it at once.
    pub poll_ms: u64,
    /// Seconds before the first retry of a failed job; each further retry waits up to twice as long.
    pub retry_base_seconds: u64,
    /// Seconds a retry waits at most.
    pub retry_cap_seconds: u64,
    /// Attempts of a job before it is FAILED (a worker that died counts as one).
    pub max_attempts: u32,
    /// Days a finished (SUCCEEDED or FAILED) job is kept before housekeeping deletes it.
    pub keep_finished_days: u64,
    /// Workers delivering space events to modules; each space's events still go one at a time.
    /// 0 leaves this server's events queued for the other servers on the database.
    pub event_workers: usize,
}

impl Default for JobsConfig {
    fn default() -> Self {
        Self {
            lease_seconds: 60,
            poll_ms: 1_000,
            retry_base_seconds: 5,
            retry_cap_seconds: 600,
            max_attempts: 5,
            keep_finished_days: 7,
            event_workers: 2,
        }
    }
}

impl JobsConfig {
    pub fn lease(&self) -> Duration {
        Duration::from_secs(self.lease_seconds.max(1))
    }

    pub fn poll(&self) -> Duration {
        Duration::from_millis(self.poll_ms.max(10))
    }

    pub fn retry_policy(&self) -> RetryPolicy {
        RetryPolicy::new(
            Duration::from_secs(self.retry_base_seconds),
            Duration::from_secs(self.retry_cap_seconds),
            self.max_attempts,
        )
    }

    pub fn keep_finished(&self) -> Duration {
        Duration::from_secs(self.keep_finished_days.saturating_mul(24 * 3600))
    }
}
