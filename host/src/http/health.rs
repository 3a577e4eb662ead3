//! Liveness and readiness probes, outside `/v0` and free of license checks.

use std::sync::Arc;

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::http::error::{ApiResult, ErrorEnvelope};
use crate::services::readiness::Readiness;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/healthz", get(healthz)).route("/readyz", get(readyz))
}

/// The process is up.
#[utoipa::path(get, path = "/healthz", operation_id = "get_health", tag = "operations", security(()), responses((status = 200)))]
pub async fn healthz() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}

/// The process can serve: the database and the media store answer. When one does not, 503 with
/// the error envelope naming which (SERVICE_UNAVAILABLE: the database; MEDIA_UNAVAILABLE: the
/// media store) and `Retry-After`. One check, bounded in time, answers every caller for a second.
#[utoipa::path(get, path = "/readyz", operation_id = "get_readiness", tag = "operations", security(()), responses((status = 200),
    (status = 503, body = ErrorEnvelope, description = "SERVICE_UNAVAILABLE (the database) or MEDIA_UNAVAILABLE (the media store)")))]
pub async fn readyz(State(readiness): State<Arc<Readiness>>) -> ApiResult<Json<Value>> {
    readiness.check().await?;
    Ok(Json(json!({ "status": "ready" })))
}
