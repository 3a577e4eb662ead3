//! `/v0/modules`: the modules this deployment enables.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;
use utoipa::ToSchema;

use super::extract::AuthUser;
use crate::http::error::{ApiResult, ErrorEnvelope};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/", get(list_modules))
}

/// One enabled module.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModuleView {
    id: String,
    name: String,
    version: String,
    /// `space`, `marketplace-rule` or `analysis-step`.
    kind: String,
    description: String,
    /// JSON Schema (2020-12) of the configuration a space gives the module.
    #[schema(value_type = Object)]
    config_schema: serde_json::Value,
    /// What the deployment grants it: `key-value`, `logging`, `item-read`, `asset-read`,
    /// `outbound-http:HOST`.
    permissions: Vec<String>,
}

/// `{modules: [...]}`.
#[derive(Serialize, ToSchema)]
pub struct Catalogue {
    modules: Vec<ModuleView>,
}

/// The modules this deployment enables, in configuration order.
#[utoipa::path(get, path = "/v0/modules", tag = "modules", security(("session" = [], "license" = [])),
    responses((status = 200, body = Catalogue), (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED")))]
#[tracing::instrument(skip_all)]
pub async fn list_modules(State(state): State<AppState>, _user: AuthUser) -> ApiResult<Json<Catalogue>> {
    let modules = state
        .modules
        .catalogue()
        .into_iter()
        .map(|m| ModuleView {
            id: m.id,
            name: m.name,
            version: m.version,
            kind: m.kind.as_str().to_owned(),
            description: m.description,
            config_schema: m.config_schema,
            permissions: m.permissions,
        })
        .collect();
    Ok(Json(Catalogue { modules }))
}
