//! Form configuration routes.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use super::parse_states;
use crate::http::conditional::{IfMatch, Tagged};
use crate::http::error::{ApiResult, ErrorEnvelope};
use crate::http::extract::{ApiJson, AuthUser};
use crate::http::list::{ListEnvelope, ListQuery, Paged, cursor_millis};
use crate::services::form_configurations::{ACTIVE, ARCHIVED, Configuration, ConfigurationScope, FormConfigurations};
use crate::services::licenses::Caller;

/// A stored configuration as clients see it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfigurationView {
    id: String,
    /// `ACTIVE` or `ARCHIVED`.
    #[schema(pattern = "^(ACTIVE|ARCHIVED)$")]
    state: String,
    /// The document, as validated (with its `id`). See the `FormConfigurationDocument` schema.
    #[schema(value_type = Object)]
    config: Value,
    roles: Roles,
    owner_id: String,
    /// Grows by one with every update.
    revision: i64,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    updated_at: OffsetDateTime,
}

#[derive(Serialize, ToSchema)]
pub struct Roles {
    /// Handles that may update the configuration besides its owner.
    editors: Vec<String>,
}

impl From<Configuration> for ConfigurationView {
    fn from(c: Configuration) -> Self {
        Self {
            id: c.stored.configuration_id.clone(),
            state: c.stored.state.clone(),
            config: c.parsed.document().clone(),
            roles: Roles { editors: c.editors },
            owner_id: c.stored.owner_id.clone(),
            revision: c.stored.revision,
            created_at: c.stored.created_at,
            updated_at: c.stored.updated_at,
        }
    }
}

/// The answer of `validate`: the id the document would be stored under and the document with it.
#[derive(Serialize, ToSchema)]
pub struct ValidationResult {
    valid: bool,
    id: String,
    #[schema(value_type = Object)]
    config: Value,
}

/// `{id?, config, roles?: {editors: [handle]}, state?: ACTIVE | ARCHIVED}` (state on PUT only).
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct ConfigurationWrapper {
    id: Option<String>,
    #[schema(value_type = Object)]
    config: Value,
    /// `{editors: [handle, ...]}`: who besides the creator may update it.
    #[schema(value_type = Option<Object>)]
    roles: Option<Value>,
    /// `ACTIVE` or `ARCHIVED`; on PUT only.
    #[schema(nullable = false, pattern = "^(ACTIVE|ARCHIVED)$")]
    state: Option<String>,
}

/// Checks a configuration document and lists every problem; stores nothing.
#[utoipa::path(post, path = "/v0/forms/configurations/validate", operation_id = "validate_form_configuration", tag = "forms", request_body = ConfigurationWrapper,
    security(("session" = [], "license" = [])),
    responses((status = 200, body = ValidationResult), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED with every problem")))]
pub async fn validate_configuration(
    State(form_configurations): State<Arc<FormConfigurations>>,
    _user: AuthUser,
    ApiJson(body): ApiJson<Value>,
) -> ApiResult<Json<ValidationResult>> {
    let parsed = form_configurations.validate(&body).await?;
    Ok(Json(ValidationResult { valid: true, id: parsed.id().to_string(), config: parsed.document().clone() }))
}

/// Stores a new configuration (ACTIVE); the caller becomes its owner.
#[utoipa::path(post, path = "/v0/forms/configurations", operation_id = "create_form_configuration", tag = "forms", request_body = ConfigurationWrapper,
    security(("session" = [], "license" = [])),
    responses((status = 201, body = ConfigurationView), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED"),
        (status = 403, body = ErrorEnvelope, description = "ENTITLEMENT_LIMIT_EXCEEDED: forms.configurations.createPerDay"),
        (status = 409, body = ErrorEnvelope, description = "CONFLICT: the id exists")))]
pub async fn create_configuration(
    State(form_configurations): State<Arc<FormConfigurations>>,
    AuthUser(user): AuthUser,
    caller: Caller,
    ApiJson(body): ApiJson<Value>,
) -> ApiResult<(StatusCode, Json<ConfigurationView>)> {
    let created = form_configurations.create(&user, &caller.plan, &body).await?;
    Ok((StatusCode::CREATED, Json(created.into())))
}

/// Replaces the document (the id stays), the editors when `roles` is sent, the state when `state` is sent.
#[utoipa::path(put, path = "/v0/forms/configurations/{configurationId}", operation_id = "update_form_configuration", tag = "forms", request_body = ConfigurationWrapper,
    params(("configurationId" = String, Path)), security(("session" = [], "license" = [])),
    responses((status = 200, body = ConfigurationView), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: not owner or editor"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND"), (status = 409, body = ErrorEnvelope, description = "CONFLICT: concurrent update")))]
pub async fn update_configuration(
    State(form_configurations): State<Arc<FormConfigurations>>,
    AuthUser(user): AuthUser,
    Path(configuration_id): Path<String>,
    IfMatch(precondition): IfMatch,
    ApiJson(body): ApiJson<Value>,
) -> ApiResult<Tagged<ConfigurationView>> {
    let configuration = form_configurations.update(&user, &configuration_id, &body, &precondition).await?;
    Ok(Tagged(configuration.etag(), configuration.into()))
}

/// One configuration: ACTIVE ones for everyone signed in, ARCHIVED ones for the owner and editors.
#[utoipa::path(get, path = "/v0/forms/configurations/{configurationId}", operation_id = "get_form_configuration", tag = "forms",
    params(("configurationId" = String, Path)), security(("session" = [], "license" = [])),
    responses((status = 200, body = ConfigurationView), (status = 404, body = ErrorEnvelope, description = "NOT_FOUND")))]
pub async fn get_configuration(
    State(form_configurations): State<Arc<FormConfigurations>>,
    AuthUser(user): AuthUser,
    Path(configuration_id): Path<String>,
) -> ApiResult<Tagged<ConfigurationView>> {
    let configuration = form_configurations.readable(&user, &configuration_id).await?;
    Ok(Tagged(configuration.etag(), configuration.into()))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ConfigurationQuery {
    /// Keep configurations holding a translation bundle for this language (at most 35 characters).
    #[param(pattern = "^\\s*[^\\u0000]{0,35}\\s*$")]
    language: Option<String>,
    /// Comma-separated: ACTIVE, ARCHIVED.
    #[param(pattern = "^\\s*(?:(?:ACTIVE|ARCHIVED)\\s*)?(?:,\\s*(?:(?:ACTIVE|ARCHIVED)\\s*)?)*$")]
    states: Option<String>,
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    limit: Option<String>,
    cursor: Option<String>,
}

impl Paged for ConfigurationQuery {
    fn paging(&self) -> (Option<&str>, Option<&str>) {
        (self.limit.as_deref(), self.cursor.as_deref())
    }
}

/// Readable configurations, newest first.
#[utoipa::path(get, path = "/v0/forms/configurations", operation_id = "list_form_configurations", tag = "forms", params(ConfigurationQuery),
    security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<ConfigurationView>), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED")))]
pub async fn list_configurations(
    State(form_configurations): State<Arc<FormConfigurations>>,
    AuthUser(user): AuthUser,
    list: ListQuery<(i64, String), ConfigurationQuery>,
) -> ApiResult<Json<ListEnvelope<ConfigurationView>>> {
    let ListQuery { page, after, params: query, mut problems } = list;
    let states = parse_states(query.states.as_deref(), &[ACTIVE, ARCHIVED], &mut problems);
    let language = query.language.as_deref().map(str::trim).filter(|l| !l.is_empty());
    if language.is_some_and(|l| l.chars().count() > 35) {
        problems.push("query.language", "INVALID_VALUE", "is not a language code");
    }
    problems.finish(())?;
    let scope = ConfigurationScope { language, states: &states };
    let rows = form_configurations.list(&user, &scope, after, page.fetch_limit()).await?;
    Ok(Json(ListEnvelope::from_rows(
        rows,
        &page,
        |c| (cursor_millis(c.stored.created_at), c.stored.configuration_id.clone()),
        ConfigurationView::from,
    )))
}
