//! Removes media bytes whose database row never committed (or was deleted), at start and then
//! every `media.sweep_interval_seconds`.

use std::time::Duration;

use crate::state::AppState;

pub async fn run(state: AppState) {
    let mut tick = tokio::time::interval(Duration::from_secs(state.config.media.sweep_interval_seconds.max(1)));
    loop {
        tick.tick().await;
        match state.media.sweep().await {
            Ok(0) => {}
            Ok(removed) => tracing::info!(removed, "swept unreferenced media"),
            Err(error) => tracing::warn!(error = %error, "sweeping media failed"),
        }
    }
}
