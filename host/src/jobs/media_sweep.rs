//! Removes media bytes whose database row never committed (or was deleted), and resumable uploads
//! that expired unused, at start and then every `media.sweep_interval_seconds`.

use std::time::Duration;

use std::sync::Arc;

use crate::infra::media::objects::MediaObjects;
use crate::services::resumable::ResumableUploads;

pub async fn run(media: MediaObjects, uploads: Arc<ResumableUploads>, interval_seconds: u64) {
    let mut tick = tokio::time::interval(Duration::from_secs(interval_seconds.max(1)));
    loop {
        tick.tick().await;
        match media.sweep().await {
            Ok(0) => {}
            Ok(removed) => tracing::info!(removed, "swept unreferenced media"),
            Err(error) => tracing::warn!(error = %error, "sweeping media failed"),
        }
        match uploads.sweep().await {
            Ok(0) => {}
            Ok(removed) => tracing::info!(removed, "removed expired resumable uploads"),
            Err(error) => tracing::warn!(error = %error, "removing expired uploads failed"),
        }
    }
}
