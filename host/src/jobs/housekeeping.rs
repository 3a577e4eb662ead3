//! Drops expired sessions and PIN challenges and forgets recovered rate-limit keys.

use std::time::Duration;

use crate::state::AppState;

const EVERY: Duration = Duration::from_secs(300);

pub async fn run(state: AppState) {
    let mut tick = tokio::time::interval(EVERY);
    loop {
        tick.tick().await;
        state.limits.shrink();
        if let Err(error) = state.store.sessions.delete_expired(time::OffsetDateTime::now_utc()).await {
            tracing::warn!(error = %error, "removing expired sessions failed");
        }
    }
}
