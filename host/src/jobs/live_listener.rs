//! Wakes this server's live-event dispatcher when a sequencer (of any server sharing the PostgreSQL
//! database) has numbered committed events (`NOTIFY` on `store::live::CHANNEL`, which carries the
//! newest number only; the dispatcher reads the events themselves in that order). While the
//! connection is down the dispatcher's one-second tick still finds every event, later. SQLite is
//! one server's database: its own commits wake it.

use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::PgListener;
use tokio::task::JoinHandle;

use crate::services::live::Live;
use crate::store::live::CHANNEL;

/// Starts listening when the database (`url`) is PostgreSQL.
pub fn start(url: String, live: Arc<Live>) -> Option<JoinHandle<()>> {
    if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
        return None;
    }
    Some(tokio::spawn(async move { listen(live, url).await }))
}

async fn listen(live: Arc<Live>, url: String) {
    loop {
        match connect(&url).await {
            Ok(mut listener) => loop {
                match listener.try_recv().await {
                    // Whatever the payload, the dispatcher reads from where it stopped.
                    Ok(_) => live.wake(),
                    Err(error) => {
                        tracing::warn!(%error, "listening for live events failed; reconnecting");
                        break;
                    }
                }
            },
            Err(error) => tracing::warn!(%error, "cannot listen for live events; retrying"),
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

async fn connect(url: &str) -> Result<PgListener, sqlx::Error> {
    let mut listener = PgListener::connect(url).await?;
    listener.listen(CHANNEL).await?;
    Ok(listener)
}
