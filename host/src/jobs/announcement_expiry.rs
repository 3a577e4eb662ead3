//! Rejects announced assets whose upload never came within `media.asset_upload_window_seconds`
//! (conventions section 12), every `media.sweep_interval_seconds`: an abandoned announcement
//! leaves its proposer's and the owner's queues by itself.

use std::sync::Arc;
use std::time::Duration;

use crate::services::assets::Assets;

pub async fn run(assets: Arc<Assets>, interval_seconds: u64) {
    let mut tick = tokio::time::interval(Duration::from_secs(interval_seconds.max(1)));
    loop {
        tick.tick().await;
        match assets.expire_announcements().await {
            Ok(0) => {}
            Ok(expired) => tracing::info!(expired, "rejected announcements whose upload never came"),
            Err(error) => tracing::warn!(error = %error, "rejecting expired announcements failed"),
        }
    }
}
