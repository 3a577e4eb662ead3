//! Drops expired sessions, PIN challenges and PIN failures and long-finished jobs, and forgets
//! recovered rate-limit keys.

use std::sync::Arc;
use std::time::Duration;

use crate::domain::account::PIN_FAILURE_WINDOW;
use crate::infra::rate_limits::RateLimits;
use crate::store::Store;

const EVERY: Duration = Duration::from_secs(300);

/// Runs every five minutes; jobs finished longer than `keep_finished` ago are deleted.
pub async fn run(store: Store, limits: Arc<RateLimits>, keep_finished: Duration) {
    let mut tick = tokio::time::interval(EVERY);
    loop {
        tick.tick().await;
        limits.shrink();
        let now = time::OffsetDateTime::now_utc();
        if let Err(error) = store.sessions.delete_expired(now).await {
            tracing::warn!(error = %error, "removing expired sessions failed");
        }
        let forgotten = now - PIN_FAILURE_WINDOW;
        if let Err(error) = store.challenges.delete_pin_failures_before(forgotten).await {
            tracing::warn!(error = %error, "removing old PIN failures failed");
        }
        let finished = now - keep_finished;
        match store.jobs.delete_finished_before(finished).await {
            Ok(0) => {}
            Ok(deleted) => tracing::info!(deleted, "removed finished jobs"),
            Err(error) => tracing::warn!(error = %error, "removing finished jobs failed"),
        }
    }
}
