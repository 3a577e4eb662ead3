//! Trellis: a form, workflow and collaboration service. The binary (`main.rs`) parses the command
//! line; everything else lives here so tests and benchmarks can start the real server in-process.

pub mod bundled;
pub mod cli;
pub mod config;
pub mod domain;
pub mod error;
pub mod http;
pub mod infra;
pub mod jobs;
pub mod services;
pub mod state;
pub mod store;

use anyhow::Context;
use std::future::Future;
use tokio::net::TcpListener;

use crate::config::Config;
use crate::state::AppState;
use crate::store::Store;

/// Opens and migrates the database, issues the first license key of an empty deployment and
/// builds the shared state.
pub async fn prepare(config: Config) -> anyhow::Result<AppState> {
    infra::private_files::private_dir(config.data_dir())
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
    let jobs = jobs::start(state.job_deps());
    let metrics = match state.config.metrics.listen {
        Some(address) => Some(serve_metrics(&state, address).await?),
        None => None,
    };
    let limits = http::server::ConnectionLimits::from(&state.config.http);
    tracing::info!(address = %listener.local_addr()?, "serving");
    // Open event streams never end by themselves: they end when shutdown begins.
    let live = state.live.clone();
    let shutdown = async move {
        shutdown.await;
        live.close();
    };
    let result =
        http::server::serve(http::router(state.clone()), listener, limits, shutdown).await.context("serving HTTP");
    if let Some(metrics) = metrics {
        metrics.abort();
    }
    jobs.stop();
    let _ = state.store.checkpoint().await;
    state.store.close().await;
    result
}

/// Serves `/metrics` alone on its own address (`metrics.listen`) until aborted.
async fn serve_metrics(state: &AppState, address: std::net::SocketAddr) -> anyhow::Result<tokio::task::JoinHandle<()>> {
    let listener =
        TcpListener::bind(address).await.with_context(|| format!("binding the metrics listener {address}"))?;
    tracing::info!(address = %listener.local_addr()?, "serving metrics");
    let limits = http::server::ConnectionLimits::from(&state.config.http);
    let router = http::metrics::listener_router(state.clone());
    Ok(tokio::spawn(async move {
        if let Err(error) = http::server::serve(router, listener, limits, std::future::pending()).await {
            tracing::error!(%error, "the metrics listener stopped");
        }
    }))
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
