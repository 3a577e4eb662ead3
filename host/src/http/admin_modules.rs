//! `GET /v0/admin/modules/metrics`: each enabled module's call metrics since start, for the operator.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use utoipa::ToSchema;

use super::extract::AuthUser;
use super::list::ListEnvelope;
use crate::http::error::{ApiResult, ErrorEnvelope};
use crate::services::modules::Modules;

/// One module's call metrics since the server started.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModuleMetricsView {
    pub module_id: String,
    /// Invocations that ran, successful or not.
    pub calls: u64,
    /// Failures by kind: `deadline`, `memoryCap`, `trap`, `moduleError`, `invalidAnswer`, `host`.
    pub failures: BTreeMap<&'static str, u64>,
    /// Calls refused at once because the module or its space was at a bound.
    pub busy: u64,
    /// Median call duration in microseconds (a bucket's upper bound, ~6 %); null before the first call.
    pub p50_micros: Option<u64>,
    /// 99th percentile call duration in microseconds, likewise.
    pub p99_micros: Option<u64>,
    /// The most linear memory one instance reached, in bytes.
    pub memory_high_water_bytes: u64,
}

/// Every enabled module's metrics, in the order of the configuration (one page: modules are a bounded set).
#[utoipa::path(get, path = "/v0/admin/modules/metrics", operation_id = "list_module_metrics", tag = "admin",
    security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<ModuleMetricsView>),
        (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: the caller is not a platform operator")))]
pub async fn module_metrics(
    State(modules): State<Arc<Modules>>,
    AuthUser(user): AuthUser,
) -> ApiResult<Json<ListEnvelope<ModuleMetricsView>>> {
    let items = modules
        .metrics(&user)
        .await?
        .into_iter()
        .map(|m| ModuleMetricsView {
            failures: BTreeMap::from([
                ("deadline", m.failures.deadline),
                ("memoryCap", m.failures.memory_cap),
                ("trap", m.failures.trap),
                ("moduleError", m.failures.module_error),
                ("invalidAnswer", m.failures.invalid_answer),
                ("host", m.failures.host),
            ]),
            module_id: m.module_id,
            calls: m.calls,
            busy: m.busy,
            p50_micros: m.p50_micros,
            p99_micros: m.p99_micros,
            memory_high_water_bytes: m.memory_high_water_bytes,
        })
        .collect();
    Ok(Json(ListEnvelope { items, next_cursor: None }))
}
