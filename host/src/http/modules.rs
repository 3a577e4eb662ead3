//! `/v0/modules`: the modules this deployment enables.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;
use utoipa::ToSchema;

use super::extract::{ApiQuery, AuthUser};
use super::list::{ListEnvelope, Page, PageQuery};
use crate::domain::problems::Problems;
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

/// The modules this deployment enables, in configuration order (a list route: `limit`, `cursor`).
#[utoipa::path(get, path = "/v0/modules", tag = "modules", params(PageQuery), security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<ModuleView>),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: limit or cursor"),
        (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED")))]
#[tracing::instrument(skip_all)]
pub async fn list_modules(
    State(state): State<AppState>,
    _user: AuthUser,
    ApiQuery(query): ApiQuery<PageQuery>,
) -> ApiResult<Json<ListEnvelope<ModuleView>>> {
    let mut problems = Problems::new();
    let page = Page::parse(query.limit.as_deref(), query.cursor.as_deref(), &mut problems);
    // The key is the module's position in the configuration.
    let after: Option<usize> = page.after(&mut problems);
    problems.finish(())?;
    let first = after.map_or(0, |last| last + 1);
    let rows: Vec<_> = state.modules.catalogue().into_iter().enumerate().skip(first).take(page.limit + 1).collect();
    Ok(Json(ListEnvelope::from_rows(
        rows,
        &page,
        |(position, _)| *position,
        |(_, m)| ModuleView {
            id: m.id,
            name: m.name,
            version: m.version,
            kind: m.kind.as_str().to_owned(),
            description: m.description,
            config_schema: m.config_schema,
            permissions: m.permissions,
        },
    )))
}
