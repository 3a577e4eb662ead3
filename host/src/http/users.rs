//! `/v0/users`: the own profile and handle search.

use std::sync::Arc;

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use super::conditional::{IfMatch, Tagged};
use super::extract::{ApiBody, AuthUser, BearerToken};
use super::list::{ListEnvelope, ListQuery, Paged};
use super::views::{Profile, UserSummary};
use crate::http::error::{ApiResult, ErrorEnvelope};
use crate::services::accounts::Accounts;
use crate::services::avatars::Avatars;
use crate::services::users::Users;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new().route("/me", get(get_me).patch(update_me)).route("/search", get(search_users))
}

/// The own profile.
#[utoipa::path(get, path = "/v0/users/me", tag = "users", security(("session" = [], "license" = [])),
    responses((status = 200, body = Profile), (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED")))]
#[tracing::instrument(skip_all)]
pub async fn get_me(
    State(accounts): State<Arc<Accounts>>,
    State(avatars): State<Arc<Avatars>>,
    BearerToken(token): BearerToken,
) -> ApiResult<Tagged<Profile>> {
    // Session check and profile read in one query: this is the hottest authenticated route.
    let account = accounts.session_profile(&token).await?;
    Ok(Tagged(account.etag(), Profile::from(account).in_shard(avatars.db_hash())))
}

/// Fields `PATCH /v0/users/me` changes; the handle and e-mail are read-only. The handler reads
/// the body as a map so it can name every unknown or read-only field; this type documents it.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct UpdateProfile {
    #[schema(nullable = false)]
    display_name: Option<String>,
    #[schema(nullable = false)]
    full_name: Option<String>,
}

/// Changes `displayName` and `fullName`; any other field is refused with its path.
#[utoipa::path(patch, path = "/v0/users/me", tag = "users", security(("session" = [], "license" = [])),
    request_body(content = UpdateProfile),
    responses((status = 200, body = Profile), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED"),
        (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
pub async fn update_me(
    State(users): State<Arc<Users>>,
    State(avatars): State<Arc<Avatars>>,
    AuthUser(user): AuthUser,
    IfMatch(precondition): IfMatch,
    ApiBody(body): ApiBody<crate::domain::account::ProfileChange>,
) -> ApiResult<Tagged<Profile>> {
    let updated = users.update_profile(&user, body, &precondition).await?;
    Ok(Tagged(updated.etag(), Profile::from(updated).in_shard(avatars.db_hash())))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SearchQuery {
    /// Handle prefix, case-insensitive; a leading `@` is ignored; at most 30 characters.
    #[param(
        required = true,
        nullable = false,
        pattern = "^\\s*@*[^\\s@\\u0000](?:[^\\u0000]{0,28}[^\\s\\u0000])?\\s*$"
    )]
    q: Option<String>,
    /// 1 to 200, default 50.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    limit: Option<String>,
    /// `nextCursor` of the previous page.
    cursor: Option<String>,
}

impl Paged for SearchQuery {
    fn paging(&self) -> (Option<&str>, Option<&str>) {
        (self.limit.as_deref(), self.cursor.as_deref())
    }
}

/// Users whose handle starts with `q`, in handle order.
#[utoipa::path(get, path = "/v0/users/search", tag = "users", params(SearchQuery), security(("session" = [], "license" = [])),
    responses((status = 200, body = ListEnvelope<UserSummary>), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED"),
        (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED")))]
#[tracing::instrument(skip_all)]
pub async fn search_users(
    State(users): State<Arc<Users>>,
    State(avatars): State<Arc<Avatars>>,
    _user: AuthUser,
    list: ListQuery<String, SearchQuery>,
) -> ApiResult<Json<ListEnvelope<UserSummary>>> {
    let ListQuery { page, after, params: query, problems } = list;
    let rows = users.search(query.q.as_deref(), after.as_deref(), page.fetch_limit(), problems).await?;
    let db_hash = avatars.db_hash();
    Ok(Json(ListEnvelope::from_rows(rows, &page, |u| u.handle.clone(), |u| UserSummary::from(u).in_shard(db_hash))))
}
