//! Gives committed live events their public ids on PostgreSQL (see `store::live`): woken by this
//! server's commits that wrote events (each waits for the next pass, so one pass numbers what many
//! requests wrote), and every second for events whose process stopped before they were numbered.
//! Every server runs one; their passes take turns under a lock. SQLite needs none: its row ids
//! follow commit order.

use std::time::Duration;

use crate::store::Store;

/// How long to wait for a wake before looking anyway.
const TICK: Duration = Duration::from_secs(1);

/// Starts the sequencer when the database needs one.
pub fn start(store: Store) -> Option<tokio::task::JoinHandle<()>> {
    if !store.live.needs_sequencer() {
        return None;
    }
    store.live.sequencer_started();
    Some(tokio::spawn(run(store)))
}

async fn run(store: Store) {
    loop {
        let wake = store.live.sequencer_wake().notified();
        if let Err(error) = store.live.sequencer_pass().await {
            tracing::warn!(%error, "live events: numbering committed events failed; retrying");
            tokio::time::sleep(TICK).await;
            continue;
        }
        let _ = tokio::time::timeout(TICK, wake).await;
    }
}
