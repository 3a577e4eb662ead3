//! Liveness and readiness probes, outside `/v0` and free of license checks.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/healthz", get(healthz)).route("/readyz", get(readyz))
}

/// The process is up.
#[utoipa::path(get, path = "/healthz", tag = "operations", security(()), responses((status = 200)))]
pub async fn healthz() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}

/// The process can serve: the database and the media store answer.
#[utoipa::path(get, path = "/readyz", tag = "operations", security(()), responses((status = 200), (status = 503)))]
pub async fn readyz(State(state): State<AppState>) -> (StatusCode, Json<Value>) {
    if let Err(error) = state.store.ping().await {
        tracing::warn!(error = %error, "readiness check failed");
        return (StatusCode::SERVICE_UNAVAILABLE, Json(json!({ "status": "database unavailable" })));
    }
    if state.media.check().await.is_err() {
        return (StatusCode::SERVICE_UNAVAILABLE, Json(json!({ "status": "media store unavailable" })));
    }
    (StatusCode::OK, Json(json!({ "status": "ready" })))
}
