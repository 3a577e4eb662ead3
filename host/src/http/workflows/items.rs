//! Workflow instance and item routes.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use crate::domain::workflows::DetailField;
use crate::http::conditional::{IfMatch, Tagged};
use crate::http::error::{ApiResult, Error, ErrorEnvelope};
use crate::http::extract::{ApiJson, ApiQuery, AuthUser};
use crate::http::list::{ListEnvelope, ListQuery, Paged, cursor_millis};
use crate::services::workflow_items::WorkflowItems;
use crate::services::workflow_items::{self as items, Access, ITEM_TYPE_FORM, Item, ItemPlace, StartRequest};

/// Where an item stands.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ItemState {
    item_id: String,
    item_type: String,
    workflow_configuration_id: String,
    workbasket_id: String,
}

impl From<ItemPlace> for ItemState {
    fn from(item: ItemPlace) -> Self {
        Self {
            item_id: item.item_id,
            item_type: item.item_type,
            workflow_configuration_id: item.workflow_configuration_id,
            workbasket_id: item.workbasket_id,
        }
    }
}

/// `{workflowConfigurationId, itemType?, itemId, confirmSwitch?}`.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartWorkflow {
    // Read as options so that each one missing is named at its pointer.
    #[schema(required = true, nullable = false)]
    workflow_configuration_id: Option<String>,
    /// Only `FORM` items exist.
    #[schema(pattern = "^FORM$")]
    item_type: Option<String>,
    #[schema(required = true, nullable = false)]
    item_id: Option<String>,
    /// Move an item that is in another workflow: without it, such an item is 409.
    confirm_switch: Option<bool>,
}

/// Starts a workflow on an item: it enters the entry workbasket.
#[utoipa::path(post, path = "/v0/workflows/instances", tag = "workflows", request_body = StartWorkflow,
    security(("session" = [], "license" = [])),
    responses((status = 201, body = ItemState), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: not allowed, not submitted"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND"), (status = 409, body = ErrorEnvelope, description = "CONFLICT: already in a workflow")))]
pub async fn start_workflow(
    State(workflow_items): State<Arc<WorkflowItems>>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<StartWorkflow>,
) -> ApiResult<(StatusCode, Json<ItemState>)> {
    let request = StartRequest {
        workflow_configuration_id: body.workflow_configuration_id.as_deref(),
        item_type: body.item_type.as_deref(),
        item_id: body.item_id.as_deref(),
        confirm_switch: body.confirm_switch.unwrap_or(false),
    };
    Ok((StatusCode::CREATED, Json(workflow_items.start(&user, request).await?.into())))
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ItemQuery {
    workflow_configuration_id: Option<String>,
    /// The view the caller acts through; without one only the workflow's creator may act.
    view_id: Option<String>,
    /// FORM, the default.
    #[param(pattern = "^FORM$")]
    item_type: Option<String>,
    /// Language of labels; the default language fills gaps.
    language: Option<String>,
}

impl ItemQuery {
    fn access(&self) -> ApiResult<Access<'_>> {
        if self.item_type.as_deref().is_some_and(|t| t != ITEM_TYPE_FORM) {
            return Err(Error::invalid("query.itemType", "INVALID_VALUE", "only FORM items exist"));
        }
        Ok(Access {
            workflow_configuration_id: self.workflow_configuration_id.as_deref(),
            view_id: self.view_id.as_deref(),
        })
    }
}

/// An item through a view: detail fields, the payload the view shows, and the moves available.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ItemDetail {
    item_id: String,
    item_type: String,
    workflow_configuration_id: String,
    workbasket_id: String,
    /// `{fieldId, key, type, label, value, editable, required}`, overrides applied.
    #[schema(value_type = Vec<Object>)]
    fields: Vec<DetailField>,
    #[schema(value_type = Object)]
    payload: Value,
    transitions: Vec<AvailableTransition>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AvailableTransition {
    transition_id: String,
    label: Option<String>,
    target_workbasket_id: String,
}

impl From<items::ItemDetail> for ItemDetail {
    fn from(detail: items::ItemDetail) -> Self {
        let transitions = detail
            .transitions
            .into_iter()
            .map(|t| AvailableTransition {
                transition_id: t.transition_id,
                label: t.label,
                target_workbasket_id: t.target_workbasket_id,
            })
            .collect();
        Self {
            item_id: detail.place.item_id,
            item_type: detail.place.item_type,
            workflow_configuration_id: detail.place.workflow_configuration_id,
            workbasket_id: detail.place.workbasket_id,
            fields: detail.fields,
            payload: detail.payload,
            transitions,
        }
    }
}

fn item_response(item: Item, language: Option<&str>) -> Tagged<ItemDetail> {
    let detail = item.detail(language);
    Tagged(detail.etag.clone(), ItemDetail::from(detail))
}

/// An item through a view (or as the workflow's creator); carries an `ETag`.
#[utoipa::path(get, path = "/v0/workflows/items/{itemId}", tag = "workflows", params(("itemId" = String, Path), ItemQuery),
    security(("session" = [], "license" = [])),
    responses((status = 200, body = ItemDetail), (status = 404, body = ErrorEnvelope, description = "NOT_FOUND")))]
pub async fn get_item(
    State(workflow_items): State<Arc<WorkflowItems>>,
    AuthUser(user): AuthUser,
    Path(item_id): Path<String>,
    ApiQuery(query): ApiQuery<ItemQuery>,
) -> ApiResult<Tagged<ItemDetail>> {
    let item = workflow_items.reach(&user, &item_id, query.access()?).await?;
    Ok(item_response(item, query.language.as_deref()))
}

/// Changes fields the view makes editable: `{payload: {fields: {fieldId: value}}}`.
#[utoipa::path(patch, path = "/v0/workflows/items/{itemId}", tag = "workflows", params(("itemId" = String, Path), ItemQuery),
    request_body = crate::http::forms::instances::PayloadWrapper, security(("session" = [], "license" = [])),
    responses((status = 200, body = ItemDetail), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: not editable or invalid"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND"), (status = 412, body = ErrorEnvelope, description = "PRECONDITION_FAILED")))]
pub async fn update_item(
    State(workflow_items): State<Arc<WorkflowItems>>,
    AuthUser(user): AuthUser,
    Path(item_id): Path<String>,
    ApiQuery(query): ApiQuery<ItemQuery>,
    IfMatch(precondition): IfMatch,
    ApiJson(body): ApiJson<Value>,
) -> ApiResult<Tagged<ItemDetail>> {
    let item = workflow_items.patch(&user, &item_id, query.access()?, &body, &precondition).await?;
    Ok(item_response(item, query.language.as_deref()))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TransitionRequest {
    /// One of the item's `transitions[].transitionId`.
    #[schema(required = true, nullable = false, format = Uuid)]
    transition_id: Option<String>,
}

/// Moves the item along one of its available transitions.
#[utoipa::path(post, path = "/v0/workflows/items/{itemId}/transitions", tag = "workflows", params(("itemId" = String, Path), ItemQuery),
    request_body = TransitionRequest, security(("session" = [], "license" = [])),
    responses((status = 200, body = ItemDetail), (status = 404, body = ErrorEnvelope, description = "NOT_FOUND"),
        (status = 409, body = ErrorEnvelope, description = "INVALID_TRANSITION"), (status = 412, body = ErrorEnvelope, description = "PRECONDITION_FAILED")))]
pub async fn transition_item(
    State(workflow_items): State<Arc<WorkflowItems>>,
    AuthUser(user): AuthUser,
    Path(item_id): Path<String>,
    ApiQuery(query): ApiQuery<ItemQuery>,
    IfMatch(precondition): IfMatch,
    ApiJson(body): ApiJson<TransitionRequest>,
) -> ApiResult<Tagged<ItemDetail>> {
    let item = workflow_items
        .transition(&user, &item_id, query.access()?, body.transition_id.as_deref(), &precondition)
        .await?;
    // The view may no longer show the item in its new workbasket; the answer still shows where it went.
    Ok(item_response(item, query.language.as_deref()))
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ViewItemsQuery {
    #[param(required = true, nullable = false, min_length = 1)]
    workflow_configuration_id: Option<String>,
    /// Only this workbasket of the view.
    workbasket_id: Option<String>,
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    limit: Option<String>,
    cursor: Option<String>,
}

impl Paged for ViewItemsQuery {
    fn paging(&self) -> (Option<&str>, Option<&str>) {
        (self.limit.as_deref(), self.cursor.as_deref())
    }
}

/// An item in a view listing: its `listFields` by field key.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViewItem {
    item_id: String,
    item_type: String,
    workbasket_id: String,
    configuration_id: String,
    #[schema(value_type = Object)]
    fields: Map<String, Value>,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    updated_at: OffsetDateTime,
}

/// Items in the view's workbaskets, newest first, showing the view's list fields.
#[utoipa::path(get, path = "/v0/workflows/views/{viewId}/items", tag = "workflows", params(("viewId" = String, Path), ViewItemsQuery),
    security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<ViewItem>), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND")))]
pub async fn list_view_items(
    State(workflow_items): State<Arc<WorkflowItems>>,
    AuthUser(user): AuthUser,
    Path(view_id): Path<String>,
    list: ListQuery<(i64, String), ViewItemsQuery>,
) -> ApiResult<Json<ListEnvelope<ViewItem>>> {
    let ListQuery { page, after, params: query, mut problems } = list;
    let workflow_id = problems.required("query.workflowConfigurationId", query.workflow_configuration_id.as_deref());
    problems.finish(())?;
    let workflow_id = workflow_id.unwrap_or_default();
    let rows = workflow_items
        .list_view(&user, workflow_id, &view_id, query.workbasket_id.as_deref(), after, page.fetch_limit())
        .await?;
    Ok(Json(ListEnvelope::from_rows(
        rows,
        &page,
        |row| (cursor_millis(row.created_at), row.item_id.clone()),
        |row| ViewItem {
            item_id: row.item_id,
            item_type: row.item_type,
            workbasket_id: row.workbasket_id,
            configuration_id: row.configuration_id,
            fields: row.fields,
            created_at: row.created_at,
            updated_at: row.updated_at,
        },
    )))
}

/// One entry of an item's workflow audit trail.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkflowHistoryEntry {
    event_id: String,
    /// STARTED, MOVED or PATCHED.
    #[schema(pattern = "^(STARTED|MOVED|PATCHED)$")]
    action: String,
    actor: crate::http::forms::instances::Actor,
    from_workbasket_id: Option<String>,
    to_workbasket_id: Option<String>,
    transition_id: Option<String>,
    changed_fields: Vec<String>,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    at: OffsetDateTime,
}

impl From<items::WorkflowHistoryEntry> for WorkflowHistoryEntry {
    fn from(e: items::WorkflowHistoryEntry) -> Self {
        Self {
            event_id: e.event_id,
            action: e.action,
            actor: crate::http::forms::instances::Actor::new(e.actor_id, e.actor_handle),
            from_workbasket_id: e.from_workbasket_id,
            to_workbasket_id: e.to_workbasket_id,
            transition_id: e.transition_id,
            changed_fields: e.changed_fields,
            at: e.at,
        }
    }
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct HistoryQuery {
    workflow_configuration_id: Option<String>,
    view_id: Option<String>,
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    limit: Option<String>,
    cursor: Option<String>,
}

impl Paged for HistoryQuery {
    fn paging(&self) -> (Option<&str>, Option<&str>) {
        (self.limit.as_deref(), self.cursor.as_deref())
    }
}

/// Starts, moves and patches of an item, oldest first (kept while `controls.enableLogging`).
#[utoipa::path(get, path = "/v0/workflows/items/{itemId}/history", operation_id = "get_item_history", tag = "workflows", params(("itemId" = String, Path), HistoryQuery),
    security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<WorkflowHistoryEntry>), (status = 404, body = ErrorEnvelope, description = "NOT_FOUND")))]
pub async fn item_history(
    State(workflow_items): State<Arc<WorkflowItems>>,
    AuthUser(user): AuthUser,
    Path(item_id): Path<String>,
    list: ListQuery<(i64, String), HistoryQuery>,
) -> ApiResult<Json<ListEnvelope<WorkflowHistoryEntry>>> {
    let ListQuery { page, after, params: query, problems } = list;
    problems.finish(())?;
    let access = Access {
        workflow_configuration_id: query.workflow_configuration_id.as_deref(),
        view_id: query.view_id.as_deref(),
    };
    let events = workflow_items.history(&user, &item_id, access, after, page.fetch_limit()).await?;
    Ok(Json(ListEnvelope::from_rows(
        events,
        &page,
        |e| (cursor_millis(e.at), e.event_id.clone()),
        WorkflowHistoryEntry::from,
    )))
}
