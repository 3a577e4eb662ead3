//! Form instance routes.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use super::parse_states;
use crate::domain::problems::Problems;
use crate::http::conditional::{IfMatch, Tagged};
use crate::http::error::{ApiResult, ErrorEnvelope};
use crate::http::extract::{ApiJson, AuthUser};
use crate::http::list::{ListEnvelope, ListQuery, Paged, cursor_millis};
use crate::http::media::AttachmentDescriptor;
use crate::services::form_instances::FormInstances;
use crate::services::form_instances::{self as instances, FormRecord, InstanceQuery};
use crate::services::instance_access::InstanceAccess;

/// A form instance. `fields` holds the answers by field id; file fields hold their attachment
/// descriptors.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstanceView {
    form_id: String,
    configuration_id: String,
    /// `DRAFT` or `SUBMITTED`.
    #[schema(pattern = "^(DRAFT|SUBMITTED)$")]
    state: String,
    language: String,
    #[schema(value_type = Object)]
    fields: Map<String, Value>,
    #[schema(value_type = Object)]
    metadata: Map<String, Value>,
    #[schema(value_type = Object)]
    integrations: Map<String, Value>,
    revision: i64,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    updated_at: OffsetDateTime,
}

impl From<FormRecord> for InstanceView {
    /// The file fields the record shows hold their attachment descriptors.
    fn from(record: FormRecord) -> Self {
        let mut fields = record.fields;
        for attachment in record.attachments {
            if let Some(Value::Array(files)) = fields.get_mut(&attachment.field_id) {
                files.push(serde_json::to_value(AttachmentDescriptor::from(attachment)).unwrap_or_default());
            }
        }
        Self {
            form_id: record.form_id,
            configuration_id: record.configuration_id,
            state: record.state,
            language: record.language,
            fields,
            metadata: record.metadata,
            integrations: record.integrations,
            revision: record.revision,
            created_at: record.created_at,
            updated_at: record.updated_at,
        }
    }
}

/// A list entry: the instance without its answers.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstanceSummary {
    form_id: String,
    configuration_id: String,
    #[schema(pattern = "^(DRAFT|SUBMITTED)$")]
    state: String,
    language: String,
    space_id: Option<String>,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    updated_at: OffsetDateTime,
}

impl From<instances::InstanceSummary> for InstanceSummary {
    fn from(s: instances::InstanceSummary) -> Self {
        Self {
            form_id: s.form_id,
            configuration_id: s.configuration_id,
            state: s.state,
            language: s.language,
            space_id: s.space_id,
            created_at: s.created_at,
            updated_at: s.updated_at,
        }
    }
}

/// `{payload: {configurationId, language, state?, fields, metadata?, integrations?}}`.
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct PayloadWrapper {
    payload: FormPayload,
}

/// An instance's payload. The configuration decides the rest: which field ids `fields` takes and
/// what each answer must be, which `metadata` and `integrations` members it enables. A member given
/// as `null` counts as left out (in a patch, a `metadata` or `integrations` member set to `null` is removed).
/// An item PATCH through a workflow view takes `fields` and `metadata` only.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct FormPayload {
    /// The configuration's id: required to create, and a patch that gives it must name the same one.
    configuration_id: Option<String>,
    /// One of the configuration's languages; to create, its default when left out.
    language: Option<String>,
    /// `DRAFT` or `SUBMITTED` (the default to create); a patch may move DRAFT to SUBMITTED only.
    #[schema(pattern = "^(DRAFT|SUBMITTED)$")]
    state: Option<String>,
    /// Answers keyed by the configuration's field ids.
    #[schema(value_type = Option<Object>)]
    fields: Option<Value>,
    metadata: Option<FormMetadata>,
    integrations: Option<FormIntegrations>,
}

/// The metadata a configuration's flags enable (`captureTimestamp`, `captureTags`, `captureSummary`,
/// `captureLocation`).
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct FormMetadata {
    timestamp: Option<Value>,
    tags: Option<Value>,
    summary: Option<Value>,
    location: Option<Value>,
}

/// The integrations a configuration's flags enable: a space of the caller's, a workflow to start.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct FormIntegrations {
    space_id: Option<Value>,
    workflow_configuration_id: Option<Value>,
}

/// Fills in a form: answers keyed by field id, checked against the configuration.
#[utoipa::path(post, path = "/v0/forms", tag = "forms", request_body = PayloadWrapper, security(("session" = [], "license" = [])),
    responses((status = 201, body = InstanceView), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED with every problem"),
        (status = 409, body = ErrorEnvelope, description = "CONFLICT: the configuration is archived")))]
pub async fn create_form(
    State(form_instances): State<Arc<FormInstances>>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<Value>,
) -> ApiResult<(StatusCode, Json<InstanceView>)> {
    Ok((StatusCode::CREATED, Json(form_instances.create(&user, &body).await?.into())))
}

/// An instance the caller created, or sees through a workflow (its creator; view holders see what their views show).
#[utoipa::path(get, path = "/v0/forms/{formId}", tag = "forms", params(("formId" = String, Path)),
    security(("session" = [], "license" = [])),
    responses((status = 200, body = InstanceView), (status = 404, body = ErrorEnvelope, description = "NOT_FOUND")))]
pub async fn get_form(
    State(instance_access): State<Arc<InstanceAccess>>,
    AuthUser(user): AuthUser,
    Path(form_id): Path<String>,
) -> ApiResult<Tagged<InstanceView>> {
    let record = instance_access.read_form(&user, &form_id).await?;
    Ok(Tagged(record.etag.clone(), record.into()))
}

/// Sparse update: only the sent slices change; `payload.state` may move DRAFT to SUBMITTED.
#[utoipa::path(patch, path = "/v0/forms/{formId}", tag = "forms", params(("formId" = String, Path)), request_body = PayloadWrapper,
    security(("session" = [], "license" = [])),
    responses((status = 200, body = InstanceView), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND"), (status = 409, body = ErrorEnvelope, description = "CONFLICT: concurrent update")))]
pub async fn update_form(
    State(form_instances): State<Arc<FormInstances>>,
    AuthUser(user): AuthUser,
    Path(form_id): Path<String>,
    IfMatch(precondition): IfMatch,
    ApiJson(body): ApiJson<Value>,
) -> ApiResult<Tagged<InstanceView>> {
    let record = form_instances.update(&user, &form_id, &body, &precondition).await?;
    Ok(Tagged(record.etag.clone(), record.into()))
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct FormQuery {
    /// A UUID; blank is the same as left out.
    #[param(pattern = "^\\s*(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})?\\s*$")]
    configuration_id: Option<String>,
    /// A UUID; blank is the same as left out.
    #[param(pattern = "^\\s*(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})?\\s*$")]
    space_id: Option<String>,
    /// Comma-separated: DRAFT, SUBMITTED.
    #[param(pattern = "^\\s*(?:(?:DRAFT|SUBMITTED)\\s*)?(?:,\\s*(?:(?:DRAFT|SUBMITTED)\\s*)?)*$")]
    states: Option<String>,
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    limit: Option<String>,
    cursor: Option<String>,
}

impl Paged for FormQuery {
    fn paging(&self) -> (Option<&str>, Option<&str>) {
        (self.limit.as_deref(), self.cursor.as_deref())
    }
}

/// The caller's instances, newest first.
#[utoipa::path(get, path = "/v0/forms", tag = "forms", params(FormQuery), security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<InstanceSummary>), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED")))]
pub async fn list_forms(
    State(form_instances): State<Arc<FormInstances>>,
    AuthUser(user): AuthUser,
    list: ListQuery<(i64, String), FormQuery>,
) -> ApiResult<Json<ListEnvelope<InstanceSummary>>> {
    let ListQuery { page, after, params: query, mut problems } = list;
    let states = parse_states(query.states.as_deref(), &["DRAFT", "SUBMITTED"], &mut problems);
    let configuration_id = id_filter(query.configuration_id.as_deref(), "query.configurationId", &mut problems);
    let space_id = id_filter(query.space_id.as_deref(), "query.spaceId", &mut problems);
    problems.finish(())?;
    let narrowed =
        InstanceQuery { configuration_id: configuration_id.as_deref(), space_id: space_id.as_deref(), states: &states };
    let rows = form_instances.list(&user, &narrowed, after, page.fetch_limit()).await?;
    Ok(Json(ListEnvelope::from_rows(
        rows,
        &page,
        |s| (cursor_millis(s.created_at), s.form_id.clone()),
        InstanceSummary::from,
    )))
}

pub(crate) fn id_filter(raw: Option<&str>, path: &str, problems: &mut Problems) -> Option<String> {
    let raw = raw.map(str::trim).filter(|r| !r.is_empty())?;
    match crate::domain::document::ids::parse_hyphenated_uuid(raw) {
        Some(id) => Some(id.to_string()),
        None => {
            problems.push(path, "INVALID_UUID", "must be a UUID");
            None
        }
    }
}

/// One entry of an instance's audit trail.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoryEntry {
    event_id: String,
    /// CREATED, UPDATED or SUBMITTED.
    #[schema(pattern = "^(CREATED|UPDATED|SUBMITTED)$")]
    action: String,
    actor: Actor,
    /// Field ids whose answers changed.
    changed_fields: Vec<String>,
    /// The instance's state after the change.
    #[schema(pattern = "^(DRAFT|SUBMITTED)$")]
    state: String,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    at: OffsetDateTime,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Actor {
    user_id: String,
    handle: String,
}

impl Actor {
    pub fn new(user_id: String, handle: String) -> Self {
        Self { user_id, handle }
    }
}

impl From<instances::HistoryEntry> for HistoryEntry {
    fn from(e: instances::HistoryEntry) -> Self {
        Self {
            event_id: e.event_id,
            action: e.action,
            actor: Actor { user_id: e.actor_id, handle: e.actor_handle },
            changed_fields: e.changed_fields,
            state: e.state,
            at: e.at,
        }
    }
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HistoryQuery {
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    limit: Option<String>,
    cursor: Option<String>,
}

impl Paged for HistoryQuery {
    fn paging(&self) -> (Option<&str>, Option<&str>) {
        (self.limit.as_deref(), self.cursor.as_deref())
    }
}

/// The audit trail, oldest first; kept only while the configuration enables `controls.enableLogging`.
#[utoipa::path(get, path = "/v0/forms/{formId}/history", operation_id = "get_form_history", tag = "forms", params(("formId" = String, Path), HistoryQuery),
    security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<HistoryEntry>), (status = 404, body = ErrorEnvelope, description = "NOT_FOUND")))]
pub async fn form_history(
    State(form_instances): State<Arc<FormInstances>>,
    AuthUser(user): AuthUser,
    Path(form_id): Path<String>,
    list: ListQuery<(i64, String), HistoryQuery>,
) -> ApiResult<Json<ListEnvelope<HistoryEntry>>> {
    let (page, after) = list.finish()?;
    let events = form_instances.history(&user, &form_id, after, page.fetch_limit()).await?;
    Ok(Json(ListEnvelope::from_rows(events, &page, |e| (cursor_millis(e.at), e.event_id.clone()), HistoryEntry::from)))
}
