//! The owner's side of the marketplace: `/v0/spaces/{spaceId}/settings/marketplace` (the listing
//! preparation) and `/v0/spaces/{spaceId}/users/pending` (registrations awaiting a decision).

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::domain::marketplace::OwnerDecision;
use crate::http::conditional::{IfMatch, Tagged};
use crate::http::error::{ApiResult, ErrorEnvelope};
use crate::http::extract::{ApiBody, ApiJson, AuthUser};
use crate::http::list::{ListEnvelope, ListQuery, PageQuery, cursor_millis};
use crate::http::marketplace::RegistrationView;
use crate::services::marketplace::registrations::PendingRegistration;
use crate::services::marketplace::{Marketplace, Settings};

/// A space's marketplace settings as its owner sees them.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MarketplaceSettingsView {
    space_id: String,
    /// The prepared title (up to 100 characters); prefilled with the space's display name.
    title: String,
    /// The prepared summary (up to 2,000 characters); prefilled with the space's summary.
    summary: String,
    /// Up to 10 distinct categories of up to 40 characters.
    categories: Vec<String>,
    /// `OPEN`, `APPROVAL` (default) or `CLOSED`.
    #[schema(pattern = "^(OPEN|APPROVAL|CLOSED)$")]
    membership: String,
    /// The owner's registration rules, for the deployment's rule module (its configuration schema
    /// is in `GET /v0/modules`); `{}` when none.
    #[schema(value_type = Object)]
    rules: Map<String, Value>,
    /// `DRAFT`, `SUBMITTED`, `APPROVED` or `REJECTED`: where the preparation is.
    #[schema(pattern = "^(DRAFT|SUBMITTED|APPROVED|REJECTED)$")]
    state: String,
    /// The operator's reason of the last decision.
    reason: Option<String>,
    /// Whether the marketplace shows the space: true from the first approval on, with the text
    /// approved last (a changed text waits for approval while the approved one stays listed).
    listed: bool,
    /// `null` until the settings were first saved.
    #[serde(with = "crate::domain::timestamp::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    updated_at: Option<OffsetDateTime>,
}

impl From<Settings> for MarketplaceSettingsView {
    fn from(settings: Settings) -> Self {
        Self {
            space_id: settings.space_id,
            title: settings.text.title,
            summary: settings.text.summary,
            categories: settings.text.categories,
            membership: settings.membership.as_str().to_owned(),
            rules: settings.rules,
            state: settings.state.as_str().to_owned(),
            reason: settings.reason,
            listed: settings.listed,
            updated_at: settings.updated_at,
        }
    }
}

/// What a PUT may send; members left out keep their value. The handler reads the body as a map so it
/// can name every unknown or read-only property; this type documents it.
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct MarketplaceSettingsChange {
    title: Option<String>,
    summary: Option<String>,
    categories: Option<Vec<String>>,
    /// `OPEN`, `APPROVAL` or `CLOSED`; applies at once, without approval.
    #[schema(nullable = false, pattern = "^(OPEN|APPROVAL|CLOSED)$")]
    membership: Option<String>,
    /// The owner's registration rules, checked against the rule module's schema; apply at once.
    #[schema(value_type = Option<Object>)]
    rules: Option<Map<String, Value>>,
    /// `true` sends the listing to the operator (DRAFT or REJECTED to SUBMITTED); it needs a title and
    /// a summary. A changed title, summary or categories of an APPROVED listing go back to DRAFT, or
    /// to SUBMITTED with `submit`; the approved text stays listed meanwhile.
    submit: Option<bool>,
}

/// The space's marketplace settings; owner only.
#[utoipa::path(get, path = "/v0/spaces/{spaceId}/settings/marketplace", operation_id = "get_marketplace_settings", tag = "marketplace",
    params(("spaceId" = String, Path)), security(("session" = [], "license" = [])),
    responses((status = 200, body = MarketplaceSettingsView),
        (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: the caller is a member, not the owner"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such space, or the caller is not a member")))]
pub async fn get_settings(
    State(marketplace): State<Arc<Marketplace>>,
    AuthUser(user): AuthUser,
    Path(space_id): Path<String>,
) -> ApiResult<Tagged<MarketplaceSettingsView>> {
    let settings = marketplace.settings(&user, &space_id).await?;
    Ok(Tagged(settings.etag.clone(), settings.into()))
}

/// Saves the space's marketplace settings, and with `submit: true` sends them to the operator;
/// owner only.
#[utoipa::path(put, path = "/v0/spaces/{spaceId}/settings/marketplace", operation_id = "replace_marketplace_settings", tag = "marketplace",
    params(("spaceId" = String, Path)), request_body = MarketplaceSettingsChange,
    security(("session" = [], "license" = [])),
    responses((status = 200, body = MarketplaceSettingsView),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED with every problem"),
        (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: the caller is a member, not the owner"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such space, or the caller is not a member"),
        (status = 409, body = ErrorEnvelope, description = "CONFLICT: the operator decided meanwhile; read and save again")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
pub async fn put_settings(
    State(marketplace): State<Arc<Marketplace>>,
    AuthUser(user): AuthUser,
    Path(space_id): Path<String>,
    IfMatch(precondition): IfMatch,
    ApiJson(body): ApiJson<Map<String, Value>>,
) -> ApiResult<Tagged<MarketplaceSettingsView>> {
    let settings = marketplace.save_settings(&user, &space_id, &body, &precondition).await?;
    Ok(Tagged(settings.etag.clone(), settings.into()))
}

/// A registration awaiting the owner.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PendingRegistrationView {
    registration_id: String,
    user_id: String,
    handle: String,
    note: String,
    /// What the owner's rules suggest (`REJECT`) when they did not decide; `null` otherwise.
    suggestion: Option<String>,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    created_at: OffsetDateTime,
}

impl From<PendingRegistration> for PendingRegistrationView {
    fn from(row: PendingRegistration) -> Self {
        Self {
            registration_id: row.registration_id,
            user_id: row.user_id,
            handle: row.handle,
            note: row.note,
            suggestion: row.suggestion,
            created_at: row.created_at,
        }
    }
}

/// The space's registrations awaiting a decision, newest first; owner only.
#[utoipa::path(get, path = "/v0/spaces/{spaceId}/users/pending", operation_id = "list_pending_registrations", tag = "marketplace",
    params(("spaceId" = String, Path), PageQuery), security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<PendingRegistrationView>),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: limit or cursor"),
        (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: the caller is a member, not the owner"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such space, or the caller is not a member")))]
pub async fn list_pending(
    State(marketplace): State<Arc<Marketplace>>,
    AuthUser(user): AuthUser,
    Path(space_id): Path<String>,
    list: ListQuery<(i64, String)>,
) -> ApiResult<Json<ListEnvelope<PendingRegistrationView>>> {
    let (page, after) = list.finish()?;
    let rows = marketplace.pending(&user, &space_id, after, page.fetch_limit()).await?;
    Ok(Json(ListEnvelope::from_rows(
        rows,
        &page,
        |r| (cursor_millis(r.created_at), r.registration_id.clone()),
        PendingRegistrationView::from,
    )))
}

/// The owner's decision on a registration. The handler reads the body as a map so it can name
/// every unknown property; this type documents it.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct RegistrationDecision {
    #[schema(format = Uuid)]
    registration_id: String,
    /// `YES` makes the user a member; `NO` declines. Either way the user gets a message from `system`.
    #[schema(pattern = "^(YES|NO)$")]
    approved: String,
}

/// Decides a pending registration; owner only.
#[utoipa::path(post, path = "/v0/spaces/{spaceId}/users/pending", operation_id = "decide_registration", tag = "marketplace",
    params(("spaceId" = String, Path)), request_body = RegistrationDecision,
    security(("session" = [], "license" = [])),
    responses((status = 200, body = RegistrationView),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED with every problem"),
        (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: the caller is a member, not the owner"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such space or registration"),
        (status = 409, body = ErrorEnvelope, description = "INVALID_TRANSITION: the registration is decided already")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
pub async fn decide_pending(
    State(marketplace): State<Arc<Marketplace>>,
    AuthUser(user): AuthUser,
    Path(space_id): Path<String>,
    ApiBody(body): ApiBody<OwnerDecision>,
) -> ApiResult<Json<RegistrationView>> {
    Ok(Json(marketplace.decide_registration(&user, &space_id, body).await?.into()))
}
