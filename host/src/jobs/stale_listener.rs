//! Applies the cache announcements of every server sharing the PostgreSQL database (`stale.rs`):
//! one `LISTEN`ing connection per server. While that connection is down, announcements are missed,
//! so each time it (re)connects every cache is emptied first; the caches' time to live bounds the
//! rest. SQLite is one server's database: nothing to listen to.

use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::PgListener;
use tokio::task::JoinHandle;

use crate::infra::stale::{CHANNEL, Caches, Stale};

/// Starts listening when the database (`url`) is PostgreSQL.
pub fn start(url: String, caches: Arc<dyn Caches>) -> Option<JoinHandle<()>> {
    if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
        return None;
    }
    Some(tokio::spawn(async move { listen(caches, url).await }))
}

async fn listen(state: Arc<dyn Caches>, url: String) {
    loop {
        match connect(&url).await {
            Ok(mut listener) => {
                // Whatever was announced while nobody here listened is unknown.
                state.forget_all();
                loop {
                    match listener.try_recv().await {
                        Ok(Some(notification)) => match Stale::decode(notification.payload()) {
                            Some(stale) => state.forget(&stale),
                            None => tracing::debug!(payload = notification.payload(), "ignoring an announcement"),
                        },
                        // The connection dropped and the listener reconnected: something may be lost.
                        Ok(None) => state.forget_all(),
                        Err(error) => {
                            tracing::warn!(%error, "listening for cache announcements failed; reconnecting");
                            break;
                        }
                    }
                }
            }
            Err(error) => tracing::warn!(%error, "cannot listen for cache announcements; retrying"),
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

async fn connect(url: &str) -> Result<PgListener, sqlx::Error> {
    let mut listener = PgListener::connect(url).await?;
    listener.listen(CHANNEL).await?;
    Ok(listener)
}
