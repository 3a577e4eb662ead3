//! The start-up step that moves bytes stored before content addressing to it
//! (`media::addressing`); retried every `media.sweep_interval_seconds` until it has run through.

use std::time::Duration;

use crate::infra::media::addressing::address_stored;
use crate::infra::media::objects::MediaObjects;
use crate::store::Store;

pub async fn run(store: Store, media: MediaObjects, retry_seconds: u64) {
    loop {
        match address_stored(&store, &media).await {
            Ok(done) => {
                if done.addressed > 0 || done.missing > 0 {
                    tracing::info!(
                        addressed = done.addressed,
                        merged = done.merged,
                        missing = done.missing,
                        "addressed media stored before content addressing"
                    );
                }
                return;
            }
            Err(error) => tracing::warn!(%error, "addressing stored media failed; retrying"),
        }
        tokio::time::sleep(Duration::from_secs(retry_seconds.max(1))).await;
    }
}
