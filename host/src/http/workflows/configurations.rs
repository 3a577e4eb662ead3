//! Workflow configuration and permission routes.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::http::conditional::{IfMatch, Tagged};
use crate::http::error::{ApiResult, ErrorEnvelope};
use crate::http::extract::{ApiJson, AuthUser};
use crate::http::list::{ListEnvelope, ListQuery, PageQuery, cursor_millis};
use crate::services::workflow_configurations::{SlotHolder, Workflow, WorkflowConfigurations};

/// A stored workflow configuration.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkflowView {
    id: String,
    /// The document as validated (with its `id`); see the `WorkflowConfigurationDocument` schema.
    #[schema(value_type = Object)]
    config: Value,
    owner_id: String,
    revision: i64,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    updated_at: OffsetDateTime,
}

impl From<Workflow> for WorkflowView {
    fn from(w: Workflow) -> Self {
        Self {
            id: w.stored.workflow_configuration_id.clone(),
            config: w.parsed.document().clone(),
            owner_id: w.stored.owner_id.clone(),
            revision: w.stored.revision,
            created_at: w.stored.created_at,
            updated_at: w.stored.updated_at,
        }
    }
}

/// `{id?, config}`.
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct WorkflowWrapper {
    id: Option<String>,
    #[schema(value_type = Object)]
    config: Value,
}

#[derive(Serialize, ToSchema)]
pub struct WorkflowValidation {
    valid: bool,
    id: String,
    #[schema(value_type = Object)]
    config: Value,
}

/// Checks a workflow document against its rules and the form configurations it names.
#[utoipa::path(post, path = "/v0/workflows/configurations/validate", operation_id = "validate_workflow_configuration", tag = "workflows", request_body = WorkflowWrapper,
    security(("session" = [], "license" = [])),
    responses((status = 200, body = WorkflowValidation), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED with every problem")))]
pub async fn validate_workflow(
    State(workflows): State<Arc<WorkflowConfigurations>>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<Value>,
) -> ApiResult<Json<WorkflowValidation>> {
    let parsed = workflows.validate(&user, &body).await?;
    Ok(Json(WorkflowValidation { valid: true, id: parsed.id().to_string(), config: parsed.document().clone() }))
}

/// Stores a workflow configuration; the caller becomes its creator and holds every slot.
#[utoipa::path(post, path = "/v0/workflows/configurations", operation_id = "create_workflow_configuration", tag = "workflows", request_body = WorkflowWrapper,
    security(("session" = [], "license" = [])),
    responses((status = 201, body = WorkflowView), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED"),
        (status = 409, body = ErrorEnvelope, description = "CONFLICT: the id exists")))]
pub async fn create_workflow(
    State(workflows): State<Arc<WorkflowConfigurations>>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<Value>,
) -> ApiResult<(StatusCode, Json<WorkflowView>)> {
    Ok((StatusCode::CREATED, Json(workflows.create(&user, &body).await?.into())))
}

/// Replaces the document; creator only.
#[utoipa::path(put, path = "/v0/workflows/configurations/{configurationId}", operation_id = "update_workflow_configuration", tag = "workflows", request_body = WorkflowWrapper,
    params(("configurationId" = String, Path)), security(("session" = [], "license" = [])),
    responses((status = 200, body = WorkflowView), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN"), (status = 404, body = ErrorEnvelope, description = "NOT_FOUND")))]
pub async fn update_workflow(
    State(workflows): State<Arc<WorkflowConfigurations>>,
    AuthUser(user): AuthUser,
    Path(configuration_id): Path<String>,
    IfMatch(precondition): IfMatch,
    ApiJson(body): ApiJson<Value>,
) -> ApiResult<Tagged<WorkflowView>> {
    let workflow = workflows.update(&user, &configuration_id, &body, &precondition).await?;
    Ok(Tagged(workflow.etag(), workflow.into()))
}

/// One configuration, for its creator and holders of any of its slots.
#[utoipa::path(get, path = "/v0/workflows/configurations/{configurationId}", operation_id = "get_workflow_configuration", tag = "workflows",
    params(("configurationId" = String, Path)), security(("session" = [], "license" = [])),
    responses((status = 200, body = WorkflowView), (status = 404, body = ErrorEnvelope, description = "NOT_FOUND")))]
pub async fn get_workflow(
    State(workflows): State<Arc<WorkflowConfigurations>>,
    AuthUser(user): AuthUser,
    Path(configuration_id): Path<String>,
) -> ApiResult<Tagged<WorkflowView>> {
    let workflow = workflows.visible(&user, &configuration_id, false).await?;
    Ok(Tagged(workflow.etag(), workflow.into()))
}

/// Configurations the caller created or holds a slot of, newest first.
#[utoipa::path(get, path = "/v0/workflows/configurations", operation_id = "list_workflow_configurations", tag = "workflows", params(PageQuery),
    security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<WorkflowView>), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED")))]
pub async fn list_workflows(
    State(workflows): State<Arc<WorkflowConfigurations>>,
    AuthUser(user): AuthUser,
    list: ListQuery<(i64, String)>,
) -> ApiResult<Json<ListEnvelope<WorkflowView>>> {
    let (page, after) = list.finish()?;
    let rows = workflows.list(&user, after, page.fetch_limit()).await?;
    Ok(Json(ListEnvelope::from_rows(
        rows,
        &page,
        |w| (cursor_millis(w.stored.created_at), w.stored.workflow_configuration_id.clone()),
        WorkflowView::from,
    )))
}

/// `{grants: [{handle, slots}]}`.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct Permissions {
    grants: Vec<GrantView>,
}

#[derive(Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrantView {
    handle: String,
    slots: Vec<i64>,
}

impl From<Vec<SlotHolder>> for Permissions {
    fn from(grants: Vec<SlotHolder>) -> Self {
        Self { grants: grants.into_iter().map(|g| GrantView { handle: g.handle, slots: g.slots }).collect() }
    }
}

/// Who holds which permission slots (the creator holds all without being listed).
#[utoipa::path(get, path = "/v0/workflows/configurations/{configurationId}/permissions", operation_id = "get_workflow_permissions", tag = "workflows",
    params(("configurationId" = String, Path)), security(("session" = [], "license" = [])),
    responses((status = 200, body = Permissions), (status = 404, body = ErrorEnvelope, description = "NOT_FOUND")))]
pub async fn get_permissions(
    State(workflows): State<Arc<WorkflowConfigurations>>,
    AuthUser(user): AuthUser,
    Path(configuration_id): Path<String>,
) -> ApiResult<Tagged<Permissions>> {
    let (etag, grants) = workflows.grants(&user, &configuration_id).await?;
    Ok(Tagged(etag, grants.into()))
}

/// Replaces every grant; creator only. Slots must be used by a view of the workflow.
#[utoipa::path(put, path = "/v0/workflows/configurations/{configurationId}/permissions", operation_id = "replace_workflow_permissions", tag = "workflows",
    params(("configurationId" = String, Path)), request_body = Permissions, security(("session" = [], "license" = [])),
    responses((status = 200, body = Permissions), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN"), (status = 404, body = ErrorEnvelope, description = "NOT_FOUND")))]
pub async fn replace_permissions(
    State(workflows): State<Arc<WorkflowConfigurations>>,
    AuthUser(user): AuthUser,
    Path(configuration_id): Path<String>,
    IfMatch(precondition): IfMatch,
    ApiJson(body): ApiJson<Value>,
) -> ApiResult<Tagged<Permissions>> {
    let (etag, grants) = workflows.replace_grants(&user, &configuration_id, &body, &precondition).await?;
    Ok(Tagged(etag, grants.into()))
}
