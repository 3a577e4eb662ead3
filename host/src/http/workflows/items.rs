//! Workflow instance and item routes.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::domain::forms::FormConfig;
use crate::domain::problems::Problems;
use crate::domain::workflows::{self, DetailField, DetailRule, MetadataRule, View, ViewForm};
use crate::http::error::{ApiResult, Error, ErrorEnvelope};
use crate::http::extract::{ApiJson, ApiQuery, AuthUser};
use crate::http::list::{ListEnvelope, Page, cursor_millis};
use crate::services::workflow_items::{Access, ITEM_TYPE_FORM, Item, StartRequest};
use crate::services::workflow_items::{StoredItem, WorkflowEvent};
use crate::state::AppState;

/// Where an item stands.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ItemState {
    item_id: String,
    item_type: String,
    workflow_configuration_id: String,
    workbasket_id: String,
}

impl From<StoredItem> for ItemState {
    fn from(item: StoredItem) -> Self {
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
    workflow_configuration_id: Option<String>,
    item_type: Option<String>,
    item_id: Option<String>,
    confirm_switch: Option<bool>,
}

/// Starts a workflow on an item: it enters the entry workbasket.
#[utoipa::path(post, path = "/v0/workflows/instances", tag = "workflows", request_body = StartWorkflow,
    security(("session" = [], "license" = [])),
    responses((status = 201, body = ItemState), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: not allowed, not submitted"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND"), (status = 409, body = ErrorEnvelope, description = "CONFLICT: already in a workflow")))]
pub async fn start_workflow(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<StartWorkflow>,
) -> ApiResult<(StatusCode, Json<ItemState>)> {
    let request = StartRequest {
        workflow_configuration_id: body.workflow_configuration_id.as_deref(),
        item_type: body.item_type.as_deref(),
        item_id: body.item_id.as_deref(),
        confirm_switch: body.confirm_switch.unwrap_or(false),
    };
    Ok((StatusCode::CREATED, Json(state.workflow_items.start(&user, request).await?.into())))
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

/// Without a view, the creator sees every field of the form, as the form itself rules.
fn creator_view(form: &FormConfig) -> View {
    let metadata = ["timestamp", "tags", "summary", "location"]
        .into_iter()
        .map(|name| (name.to_owned(), MetadataRule { visible: true, editable: true }))
        .collect();
    let detail_fields =
        form.fields().map(|f| DetailRule { field_key: f.key.clone(), ..DetailRule::default() }).collect();
    View {
        id: Uuid::nil(),
        label: String::new(),
        description: None,
        workbasket_ids: Vec::new(),
        permission_slot: 0,
        forms: BTreeMap::from([(form.id(), ViewForm { list_fields: Vec::new(), detail_fields, metadata })]),
    }
}

fn item_response(item: Item, language: Option<&str>) -> Response {
    let etag = item.etag();
    let form = &item.instance.configuration.parsed;
    let view = item.view.clone().unwrap_or_else(|| creator_view(form));
    let language = language.unwrap_or(form.default_language());
    let answers = item.instance.answers();
    let fields = workflows::detail_fields(&view, form, &answers, language);
    let shown: Map<String, Value> = fields
        .iter()
        .map(|f| (f.field_id.to_string(), answers.get(&f.field_id.to_string()).cloned().unwrap_or(Value::Null)))
        .collect();
    let payload = serde_json::json!({
        "configurationId": item.instance.stored.configuration_id,
        "language": item.instance.stored.language,
        "state": item.instance.stored.state,
        "fields": shown,
        "metadata": workflows::visible_metadata(&view, &form.id(), &item.instance.metadata()),
    });
    let workflow = &item.workflow.parsed;
    let wf_language = language;
    let transitions = workflow
        .transitions_from(&item.workbasket_id())
        .iter()
        .map(|t| AvailableTransition {
            transition_id: t.id.to_string(),
            label: workflow.label(&t.label, wf_language),
            target_workbasket_id: t.target_workbasket_id.to_string(),
        })
        .collect();
    let detail = ItemDetail {
        item_id: item.item.item_id,
        item_type: item.item.item_type,
        workflow_configuration_id: item.item.workflow_configuration_id,
        workbasket_id: item.item.workbasket_id,
        fields,
        payload,
        transitions,
    };
    let mut response = Json(detail).into_response();
    if let Ok(value) = HeaderValue::from_str(&etag) {
        response.headers_mut().insert(header::ETAG, value);
    }
    response
}

fn if_match(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::IF_MATCH).and_then(|v| v.to_str().ok())
}

/// An item through a view (or as the workflow's creator); carries an `ETag`.
#[utoipa::path(get, path = "/v0/workflows/items/{itemId}", tag = "workflows", params(("itemId" = String, Path), ItemQuery),
    security(("session" = [], "license" = [])),
    responses((status = 200, body = ItemDetail), (status = 404, body = ErrorEnvelope, description = "NOT_FOUND")))]
pub async fn get_item(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    Path(item_id): Path<String>,
    ApiQuery(query): ApiQuery<ItemQuery>,
) -> ApiResult<Response> {
    let item = state.workflow_items.reach(&user, &item_id, query.access()?).await?;
    Ok(item_response(item, query.language.as_deref()))
}

/// Changes fields the view makes editable: `{payload: {fields: {fieldId: value}}}`.
#[utoipa::path(patch, path = "/v0/workflows/items/{itemId}", tag = "workflows", params(("itemId" = String, Path), ItemQuery),
    request_body = crate::http::forms::instances::PayloadWrapper, security(("session" = [], "license" = [])),
    responses((status = 200, body = ItemDetail), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: not editable or invalid"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND"), (status = 412, body = ErrorEnvelope, description = "PRECONDITION_FAILED")))]
pub async fn update_item(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    Path(item_id): Path<String>,
    ApiQuery(query): ApiQuery<ItemQuery>,
    headers: HeaderMap,
    ApiJson(body): ApiJson<Value>,
) -> ApiResult<Response> {
    let item = state.workflow_items.patch(&user, &item_id, query.access()?, &body, if_match(&headers)).await?;
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
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    Path(item_id): Path<String>,
    ApiQuery(query): ApiQuery<ItemQuery>,
    headers: HeaderMap,
    ApiJson(body): ApiJson<TransitionRequest>,
) -> ApiResult<Response> {
    let item = state
        .workflow_items
        .transition(&user, &item_id, query.access()?, body.transition_id.as_deref(), if_match(&headers))
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
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    updated_at: OffsetDateTime,
}

/// Items in the view's workbaskets, newest first, showing the view's list fields.
#[utoipa::path(get, path = "/v0/workflows/views/{viewId}/items", tag = "workflows", params(("viewId" = String, Path), ViewItemsQuery),
    security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<ViewItem>), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND")))]
pub async fn list_view_items(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    Path(view_id): Path<String>,
    ApiQuery(query): ApiQuery<ViewItemsQuery>,
) -> ApiResult<Json<ListEnvelope<ViewItem>>> {
    let mut problems = Problems::new();
    let page = Page::parse(query.limit.as_deref(), query.cursor.as_deref(), &mut problems);
    let after: Option<(i64, String)> = page.after(&mut problems);
    let workflow_id = problems.required("query.workflowConfigurationId", query.workflow_configuration_id.as_deref());
    problems.finish(())?;
    let workflow_id = workflow_id.unwrap_or_default();
    let (_, view, rows) = state
        .workflow_items
        .list_view(&user, workflow_id, &view_id, query.workbasket_id.as_deref(), after, page.fetch_limit())
        .await?;
    let mut forms: BTreeMap<String, Option<FormConfig>> = BTreeMap::new();
    for row in &rows {
        if !forms.contains_key(&row.configuration_id) {
            let form = state.form_configurations.load(&row.configuration_id).await?.map(|c| c.parsed);
            forms.insert(row.configuration_id.clone(), form);
        }
    }
    Ok(Json(ListEnvelope::from_rows(
        rows,
        &page,
        |row| (cursor_millis(row.item.created_at), row.item.item_id.clone()),
        |row| {
            let fields = match forms.get(&row.configuration_id) {
                Some(Some(form)) => workflows::list_fields(&view, form, &listed_answers(&view, form, &row.answers)),
                _ => Map::new(),
            };
            ViewItem {
                item_id: row.item.item_id,
                item_type: row.item.item_type,
                workbasket_id: row.item.workbasket_id,
                configuration_id: row.configuration_id,
                fields,
                created_at: row.item.created_at,
                updated_at: row.item.updated_at,
            }
        },
    )))
}

/// The answers a listing shows, parsed out of the stored answers without building the rest:
/// a page of 50 items otherwise spends most of its time materialising answers nobody sees.
fn listed_answers(view: &View, form: &FormConfig, stored: &str) -> Map<String, Value> {
    let Some(rules) = view.form(&form.id()) else { return Map::new() };
    let Ok(raw) = serde_json::from_str::<std::collections::HashMap<&str, &serde_json::value::RawValue>>(stored) else {
        return Map::new();
    };
    rules
        .list_fields
        .iter()
        .filter_map(|key| form.field_by_key(key))
        .filter_map(|field| {
            let id = field.id.to_string();
            let value = serde_json::from_str(raw.get(id.as_str())?.get()).ok()?;
            Some((id, value))
        })
        .collect()
}

/// One entry of an item's workflow audit trail.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkflowHistoryEntry {
    event_id: String,
    /// STARTED, MOVED or PATCHED.
    action: String,
    actor: crate::http::forms::instances::Actor,
    from_workbasket_id: Option<String>,
    to_workbasket_id: Option<String>,
    transition_id: Option<String>,
    changed_fields: Vec<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    at: OffsetDateTime,
}

impl From<WorkflowEvent> for WorkflowHistoryEntry {
    fn from(e: WorkflowEvent) -> Self {
        Self {
            event_id: e.event_id,
            action: e.action,
            actor: crate::http::forms::instances::Actor::new(e.actor_id, e.actor_handle),
            from_workbasket_id: e.from_workbasket_id,
            to_workbasket_id: e.to_workbasket_id,
            transition_id: e.transition_id,
            changed_fields: serde_json::from_str(&e.changed_fields).unwrap_or_default(),
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

/// Starts, moves and patches of an item, oldest first (kept while `controls.enableLogging`).
#[utoipa::path(get, path = "/v0/workflows/items/{itemId}/history", tag = "workflows", params(("itemId" = String, Path), HistoryQuery),
    security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<WorkflowHistoryEntry>), (status = 404, body = ErrorEnvelope, description = "NOT_FOUND")))]
pub async fn item_history(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    Path(item_id): Path<String>,
    ApiQuery(query): ApiQuery<HistoryQuery>,
) -> ApiResult<Json<ListEnvelope<WorkflowHistoryEntry>>> {
    let mut problems = Problems::new();
    let page = Page::parse(query.limit.as_deref(), query.cursor.as_deref(), &mut problems);
    let after: Option<(i64, String)> = page.after(&mut problems);
    problems.finish(())?;
    let access = Access {
        workflow_configuration_id: query.workflow_configuration_id.as_deref(),
        view_id: query.view_id.as_deref(),
    };
    let events = state.workflow_items.history(&user, &item_id, access, after, page.fetch_limit()).await?;
    Ok(Json(ListEnvelope::from_rows(
        events,
        &page,
        |e| (cursor_millis(e.at), e.event_id.clone()),
        WorkflowHistoryEntry::from,
    )))
}
