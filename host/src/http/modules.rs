//! `/v0/modules`: the modules this deployment enables; `/v0/admin/modules/refused`: the entries of
//! `[modules] enable` the host could not load at start (operators only).

use std::sync::Arc;

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;
use utoipa::ToSchema;

use super::extract::AuthUser;
use super::list::{ListEnvelope, ListQuery, PageQuery};
use crate::http::error::{ApiResult, ErrorEnvelope};
use crate::services::modules::Modules;
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
    /// The version of the module WIT the component targets: `0.1.0`, `0.2.0` or `0.3.0`. Every earlier
    /// 0.x version keeps running, adapted (see the compatibility policy in docs/modules.md).
    #[schema(example = "0.3.0")]
    wit_version: String,
}

/// The modules this deployment enables, in configuration order (a list route: `limit`, `cursor`).
#[utoipa::path(get, path = "/v0/modules", tag = "modules", params(PageQuery), security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<ModuleView>),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: limit or cursor"),
        (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED")))]
#[tracing::instrument(skip_all)]
pub async fn list_modules(
    State(modules): State<Arc<Modules>>,
    _user: AuthUser,
    list: ListQuery<usize>,
) -> ApiResult<Json<ListEnvelope<ModuleView>>> {
    // The key is the module's position in the configuration.
    let (page, after) = list.finish()?;
    let first = after.map_or(0, |last| last + 1);
    let rows: Vec<_> = modules.catalogue().into_iter().enumerate().skip(first).take(page.limit + 1).collect();
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
            wit_version: m.wit_version.as_str().to_owned(),
        },
    )))
}

/// An entry of `[modules] enable` the host refused at start; the server runs without it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefusedModuleView {
    /// The entry as configured: `bundled module "tags"` or `module file /srv/m/poll.wasm`.
    entry: String,
    /// The id of a bundled entry; null for a file entry.
    id: Option<String>,
    /// Why it was refused, with every cause (also logged at start as an error).
    reason: String,
}

/// Entries of `[modules] enable` refused at start (unreadable, invalid, not granted what they must import,
/// enabled twice), with the reason.
#[utoipa::path(get, path = "/v0/admin/modules/refused", operation_id = "list_refused_modules", tag = "admin", security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<RefusedModuleView>, description = "The refusals in configuration order, in one page"),
        (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: the caller is not a platform operator")))]
#[tracing::instrument(skip_all)]
pub async fn refused_modules(
    State(modules): State<Arc<Modules>>,
    AuthUser(user): AuthUser,
) -> ApiResult<Json<ListEnvelope<RefusedModuleView>>> {
    let items = modules
        .refused(&user)
        .await?
        .into_iter()
        .map(|r| RefusedModuleView { entry: r.entry, id: r.id, reason: r.reason })
        .collect();
    Ok(Json(ListEnvelope { items, next_cursor: None }))
}
