//! `/v0/marketplace`: the trending list and listings (a license, no session needed) and
//! registrations (signed in). The operator's routes are in `http/admin.rs`, the owner's in
//! `http/spaces/marketplace.rs`.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::extract::{ApiBody, AuthUser};
use super::list::{ListEnvelope, ListQuery, PageQuery};
use crate::domain::marketplace::RegistrationNote;
use crate::http::error::{ApiResult, ErrorEnvelope};
use crate::services::marketplace::Marketplace;
use crate::services::marketplace::registrations::RegistrationAnswer;
use crate::services::marketplace::{PublicListing, ranking::Ranked};
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/trending", get(trending))
        .route("/listings/{space_id}", get(get_listing))
        .route("/listings/{space_id}/registration", post(register))
}

/// A listed space as the marketplace shows it: the text the operator approved and public counts;
/// never members, e-mail addresses or anything else private.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListingView {
    space_id: String,
    title: String,
    summary: String,
    categories: Vec<String>,
    /// `OPEN` (registrations approved at once), `APPROVAL` (the owner decides) or `CLOSED`.
    #[schema(pattern = "^(OPEN|APPROVAL|CLOSED)$")]
    membership: String,
    /// Members, the owner included.
    members: i64,
    /// Published (APPROVED or ENABLED) assets.
    assets: i64,
    /// When the listing was first approved.
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    listed_at: OffsetDateTime,
}

impl From<&PublicListing> for ListingView {
    fn from(listing: &PublicListing) -> Self {
        Self {
            space_id: listing.space_id.clone(),
            title: listing.text.title.clone(),
            summary: listing.text.summary.clone(),
            categories: listing.text.categories.clone(),
            membership: listing.membership.clone(),
            members: listing.members,
            assets: listing.assets,
            listed_at: listing.listed_at,
        }
    }
}

/// A listing in the trending list, with its place (1 is the top).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrendingView {
    rank: usize,
    #[serde(flatten)]
    listing: ListingView,
}

impl From<&Ranked> for TrendingView {
    fn from(ranked: &Ranked) -> Self {
        Self { rank: ranked.rank, listing: ListingView::from(&ranked.listing) }
    }
}

/// The trending listings, best first, as the last good ranking put them (rankings run in the
/// background: at start, on a schedule and soon after relevant changes). `ETag` names the ranking
/// and `Last-Modified` says when it was made; a cursor continues at the next place of the ranking in
/// place (compare the `ETag`s of two pages to learn whether the ranking changed between them).
#[utoipa::path(get, path = "/v0/marketplace/trending", operation_id = "list_trending_listings", tag = "marketplace", params(PageQuery),
    security(("license" = [])),
    responses((status = 200, body = ListEnvelope<TrendingView>,
            headers(("ETag" = String, description = "the ranking"), ("Last-Modified" = String, description = "when it was made"))),
        (status = 304, description = "Not modified: If-None-Match named this ranking"),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: limit or cursor")))]
pub async fn trending(
    State(marketplace): State<Arc<Marketplace>>,
    headers: HeaderMap,
    list: ListQuery<usize>,
) -> ApiResult<Response> {
    // The cursor is the rank the previous page ended at.
    let (page, after) = list.finish()?;
    let trending = marketplace.ranking().current();
    // The ranking's time, not its generation alone: a restarted server counts generations anew.
    let made = trending.ranked_at.map_or(0, |at| at.unix_timestamp_nanos());
    let etag = format!("\"r{}-{made}\"", trending.generation);
    if headers.get(header::IF_NONE_MATCH).is_some_and(|v| v.as_bytes() == etag.as_bytes()) {
        return Ok((StatusCode::NOT_MODIFIED, [(header::ETAG, etag)]).into_response());
    }
    let start = after.unwrap_or(0).min(trending.items.len());
    let end = (start + page.limit + 1).min(trending.items.len());
    let rows: Vec<&Ranked> = trending.items[start..end].iter().collect();
    let envelope = ListEnvelope::from_rows(rows, &page, |r| r.rank, TrendingView::from);
    let mut response = Json(envelope).into_response();
    let headers = response.headers_mut();
    headers.insert(header::ETAG, HeaderValue::from_str(&etag).expect("an ETag is ASCII"));
    if let Some(at) = trending.ranked_at
        && let Ok(text) = at.format(&time::format_description::well_known::Rfc2822)
        && let Ok(value) = HeaderValue::from_str(&text.replace("+0000", "GMT"))
    {
        headers.insert(header::LAST_MODIFIED, value);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(response)
}

/// A listed space: its approved listing and public counts. A space without an approved listing
/// answers 404, whoever asks.
#[utoipa::path(get, path = "/v0/marketplace/listings/{spaceId}", tag = "marketplace",
    params(("spaceId" = String, Path)), security(("license" = [])),
    responses((status = 200, body = ListingView),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such space, or its listing is not approved")))]
pub async fn get_listing(
    State(marketplace): State<Arc<Marketplace>>,
    Path(space_id): Path<String>,
) -> ApiResult<Json<ListingView>> {
    let listing = marketplace.listing(&space_id).await?;
    Ok(Json(ListingView::from(&listing)))
}

/// A registration: an optional note for the owner. The handler reads the body as a map so it can
/// name every unknown property; this type documents it.
#[derive(Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct NewRegistration {
    /// At most 1,000 characters, for the owner.
    note: Option<String>,
}

/// A registration's state.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegistrationView {
    /// `null` for the space's owner, who never registered.
    registration_id: Option<String>,
    /// `PENDING`, `APPROVED` or `REJECTED`.
    #[schema(pattern = "^(PENDING|APPROVED|REJECTED)$")]
    state: String,
}

impl From<RegistrationAnswer> for RegistrationView {
    fn from(answer: RegistrationAnswer) -> Self {
        Self { registration_id: answer.registration_id, state: answer.state.as_str().to_owned() }
    }
}

/// Registers the caller with a listed space. OPEN membership approves at once (the caller becomes a
/// member, 201 `APPROVED`); APPROVAL lists it for the owner (201 `PENDING`) unless the owner's
/// rules, run by the deployment's rule module, let the caller in at once; CLOSED refuses (403). A
/// registration while one is pending answers the pending one (200), as does a member's (200
/// `APPROVED`).
#[utoipa::path(post, path = "/v0/marketplace/listings/{spaceId}/registration", operation_id = "register_for_listing", tag = "marketplace",
    params(("spaceId" = String, Path)), request_body = NewRegistration, security(("session" = [], "license" = [])),
    responses((status = 201, body = RegistrationView, description = "a new registration"),
        (status = 200, body = RegistrationView, description = "the caller's pending registration or membership"),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED with every problem"),
        (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: the space's membership is CLOSED"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such space, or its listing is not approved"),
        (status = 409, body = ErrorEnvelope, description = "CONFLICT: too many registrations awaiting a decision (per space or per user)")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
pub async fn register(
    State(marketplace): State<Arc<Marketplace>>,
    AuthUser(user): AuthUser,
    Path(space_id): Path<String>,
    ApiBody(body): ApiBody<RegistrationNote>,
) -> ApiResult<(StatusCode, Json<RegistrationView>)> {
    let answer = marketplace.register(&user, &space_id, body).await?;
    let status = if answer.created { StatusCode::CREATED } else { StatusCode::OK };
    Ok((status, Json(RegistrationView::from(answer))))
}
