//! `/v0/admin`: the platform operator's routes (conventions 6). An operator is a user granted the
//! role with `trellis admin grant-operator HANDLE`; anybody else gets 403 (these are not another
//! user's private resources, so nothing is hidden by a 404).

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::{IntoParams, ToSchema};

use super::extract::{ApiBody, AuthUser};
use super::list::{ListEnvelope, ListQuery, Paged, cursor_millis};
use crate::domain::marketplace::{self, parse_states};
use crate::http::error::{ApiResult, ErrorEnvelope};
use crate::services::marketplace::{Marketplace, QueuedListing};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/marketplace/listings", get(listings))
        .route("/marketplace/listings/{space_id}/decision", post(decide))
        .route("/modules/refused", get(super::modules::refused_modules))
        .route("/modules/metrics", get(super::admin_modules::module_metrics))
}

/// A listing preparation as the operator reviews it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReviewedListingView {
    space_id: String,
    /// The space's unique name.
    space_name: String,
    owner_handle: String,
    title: String,
    summary: String,
    categories: Vec<String>,
    /// `OPEN`, `APPROVAL` or `CLOSED`.
    #[schema(pattern = "^(OPEN|APPROVAL|CLOSED)$")]
    membership: String,
    /// `DRAFT`, `SUBMITTED`, `APPROVED` or `REJECTED`.
    #[schema(pattern = "^(DRAFT|SUBMITTED|APPROVED|REJECTED)$")]
    state: String,
    /// The reason of the last decision.
    reason: Option<String>,
    /// Whether the marketplace shows the space (with the text approved last).
    listed: bool,
    #[serde(with = "crate::domain::timestamp::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    submitted_at: Option<OffsetDateTime>,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    updated_at: OffsetDateTime,
}

impl From<QueuedListing> for ReviewedListingView {
    fn from(queued: QueuedListing) -> Self {
        let settings = queued.settings;
        Self {
            space_id: settings.space_id,
            space_name: queued.space_name,
            owner_handle: queued.owner_handle,
            title: settings.text.title,
            summary: settings.text.summary,
            categories: settings.text.categories,
            membership: settings.membership.as_str().to_owned(),
            state: settings.state.as_str().to_owned(),
            reason: settings.reason,
            listed: settings.listed,
            submitted_at: queued.submitted_at,
            updated_at: settings.updated_at.unwrap_or(OffsetDateTime::UNIX_EPOCH),
        }
    }
}

/// Paging and the `states` filter of the operator's queue.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct QueueQuery {
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    limit: Option<String>,
    cursor: Option<String>,
    /// Comma-separated states, e.g. `SUBMITTED`; all states when left out.
    #[param(
        pattern = "^\\s*(?:(?:DRAFT|SUBMITTED|APPROVED|REJECTED)\\s*)?(?:,\\s*(?:(?:DRAFT|SUBMITTED|APPROVED|REJECTED)\\s*)?)*$"
    )]
    states: Option<String>,
}

impl Paged for QueueQuery {
    fn paging(&self) -> (Option<&str>, Option<&str>) {
        (self.limit.as_deref(), self.cursor.as_deref())
    }
}

/// Listing preparations, newest change first; `states=SUBMITTED` is the queue awaiting a decision.
#[utoipa::path(get, path = "/v0/admin/marketplace/listings", operation_id = "list_listings_for_review", tag = "admin", params(QueueQuery),
    security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<ReviewedListingView>),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: limit, cursor or states"),
        (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: the caller is not a platform operator")))]
pub async fn listings(
    State(marketplace): State<Arc<Marketplace>>,
    AuthUser(user): AuthUser,
    list: ListQuery<(i64, String), QueueQuery>,
) -> ApiResult<Json<ListEnvelope<ReviewedListingView>>> {
    let ListQuery { page, after, params: query, mut problems } = list;
    let states = query.states.as_deref().map(|raw| parse_states(raw, &mut problems)).unwrap_or_default();
    problems.finish(())?;
    let rows = marketplace.queue(&user, &states, after, page.fetch_limit()).await?;
    Ok(Json(ListEnvelope::from_rows(
        rows,
        &page,
        |r| (cursor_millis(r.settings.updated_at.unwrap_or(OffsetDateTime::UNIX_EPOCH)), r.settings.space_id.clone()),
        ReviewedListingView::from,
    )))
}

/// The operator's decision. The handler reads the body as a map so it can name every unknown
/// property; this type documents it.
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct ListingDecision {
    /// `YES` lists the space with the submitted text; `NO` rejects it.
    #[schema(pattern = "^(YES|NO)$")]
    approved: String,
    /// Required with `NO` (the owner reads it); up to 2,000 characters.
    reason: Option<String>,
}

/// Decides a SUBMITTED listing, or with `approved: "NO"` takes a listed space off the marketplace
/// (REJECTED, no longer listed); the owner is told by a message from `system`.
#[utoipa::path(post, path = "/v0/admin/marketplace/listings/{spaceId}/decision", operation_id = "decide_listing", tag = "admin",
    params(("spaceId" = String, Path)), request_body = ListingDecision, security(("session" = [], "license" = [])),
    responses((status = 200, body = ReviewedListingView),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED with every problem"),
        (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: the caller is not a platform operator"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: the space has no listing"),
        (status = 409, body = ErrorEnvelope, description = "INVALID_TRANSITION: the listing is not SUBMITTED, and not listed or approved again")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
pub async fn decide(
    State(marketplace): State<Arc<Marketplace>>,
    AuthUser(user): AuthUser,
    Path(space_id): Path<String>,
    ApiBody(body): ApiBody<marketplace::ListingDecision>,
) -> ApiResult<Json<ReviewedListingView>> {
    Ok(Json(marketplace.decide(&user, &space_id, body).await?.into()))
}
