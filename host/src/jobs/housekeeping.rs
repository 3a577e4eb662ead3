//! Drops expired sessions, PIN challenges and PIN failures and long-finished jobs, and forgets
//! recovered rate-limit keys.

use std::time::Duration;

use crate::state::AppState;

const EVERY: Duration = Duration::from_secs(300);

pub async fn run(state: AppState) {
    let mut tick = tokio::time::interval(EVERY);
    loop {
        tick.tick().await;
        state.limits.shrink();
        let now = time::OffsetDateTime::now_utc();
        if let Err(error) = state.store.sessions.delete_expired(now).await {
            tracing::warn!(error = %error, "removing expired sessions failed");
        }
        let forgotten = now - crate::services::accounts::PIN_FAILURE_WINDOW;
        if let Err(error) = state.store.challenges.delete_pin_failures_before(forgotten).await {
            tracing::warn!(error = %error, "removing old PIN failures failed");
        }
        let finished = now - state.config.jobs.keep_finished();
        match state.store.jobs.delete_finished_before(finished).await {
            Ok(0) => {}
            Ok(deleted) => tracing::info!(deleted, "removed finished jobs"),
            Err(error) => tracing::warn!(error = %error, "removing finished jobs failed"),
        }
    }
}
