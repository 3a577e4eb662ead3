//! Keeps the SQLite write-ahead log short, off the request path: a checkpoint fsyncs, and inside
//! whichever request's commit crossed the threshold it cost ~300 ms. A no-op on PostgreSQL.

use std::time::Duration;

use crate::store::Store;

const EVERY: Duration = Duration::from_secs(1);

pub async fn run(store: Store) {
    let mut tick = tokio::time::interval(EVERY);
    loop {
        tick.tick().await;
        if let Err(error) = store.checkpoint().await {
            tracing::warn!(error = %error, "checkpoint failed");
        }
    }
}
