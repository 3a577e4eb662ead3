//! Trellis: a form, workflow and collaboration service. The binary (`main.rs`) parses the command
//! line; everything else lives here so tests and benchmarks can start the real server in-process.

pub mod bundled;
pub mod cli;
pub mod config;
pub mod domain;
pub mod error;
pub mod http;
pub mod media;
pub mod services;
pub mod state;
pub mod store;

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use anyhow::Context;
use tokio::net::TcpListener;

use crate::config::Config;
use crate::state::AppState;
use crate::store::Store;

/// Opens and migrates the database, issues the first license key of an empty deployment and
/// builds the shared state.
pub async fn prepare(config: Config) -> anyhow::Result<AppState> {
    std::fs::create_dir_all(config.data_dir())
        .with_context(|| format!("creating the data directory {}", config.data_dir().display()))?;
    let store = Store::connect(&config.database_url(), config.database.max_connections).await?;
    store.migrate().await?;
    let state = AppState::new(config, store)?;
    state.licenses.ensure_first_key(state.config.data_dir()).await?;
    Ok(state)
}

/// Serves on a bound listener until `shutdown` completes, then lets in-flight requests finish.
pub async fn serve(
    state: AppState,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let housekeeping = tokio::spawn(housekeeping(state.clone()));
    let checkpoints = tokio::spawn(checkpoints(state.store.clone()));
    let sweeper = tokio::spawn(sweep_media(state.clone()));
    let app = http::router(state.clone()).into_make_service_with_connect_info::<SocketAddr>();
    tracing::info!(address = %listener.local_addr()?, "serving");
    let result = axum::serve(listener, app).with_graceful_shutdown(shutdown).await.context("serving HTTP");
    housekeeping.abort();
    checkpoints.abort();
    sweeper.abort();
    let _ = state.store.checkpoint().await;
    state.store.close().await;
    result
}

/// Drops expired sessions and PIN challenges and forgets recovered rate-limit keys.
async fn housekeeping(state: AppState) {
    let mut tick = tokio::time::interval(Duration::from_secs(300));
    loop {
        tick.tick().await;
        state.limits.shrink();
        if let Err(error) = state.store.delete_expired(time::OffsetDateTime::now_utc()).await {
            tracing::warn!(error = %error, "removing expired sessions failed");
        }
    }
}

/// Removes media bytes whose database row never committed (or was deleted), at start and then
/// every `media.sweep_interval_seconds`.
async fn sweep_media(state: AppState) {
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

/// Keeps the SQLite write-ahead log short, off the request path.
async fn checkpoints(store: Store) {
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    loop {
        tick.tick().await;
        if let Err(error) = store.checkpoint().await {
            tracing::warn!(error = %error, "checkpoint failed");
        }
    }
}

/// Completes on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down");
}
