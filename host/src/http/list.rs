//! The list envelope `{items, nextCursor}` and `limit`/`cursor` paging shared by every list route.
//! Lists page by key: the cursor is the opaque, encoded sort key of the last item shown.

use axum::extract::{FromRef, FromRequestParts, OriginalUri};
use axum::http::request::Parts;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::IntoParams;

use crate::domain::problems::Problems;
use crate::http::error::Error;
use crate::http::extract::{ApiQuery, AuthUser};
use crate::state::AppState;

pub const DEFAULT_LIMIT: usize = 50;
pub const MAX_LIMIT: usize = 200;

/// `limit` and `cursor` of a list route, as query parameters (parsed by [`Page::parse`]).
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    #[param(value_type = Option<u32>, minimum = 1, maximum = 200)]
    pub limit: Option<String>,
    pub cursor: Option<String>,
}

/// A route's query parameters that carry `limit` and `cursor` beside its own filters.
pub trait Paged {
    /// The raw `limit` and `cursor`.
    fn paging(&self) -> (Option<&str>, Option<&str>);
}

impl Paged for PageQuery {
    fn paging(&self) -> (Option<&str>, Option<&str>) {
        (self.limit.as_deref(), self.cursor.as_deref())
    }
}

/// The one extractor of every list route: the query string read as `Q` (as [`ApiQuery`] reads
/// it), the page asked for and the sort key `K` its cursor names. `problems` holds those of
/// `query.limit` and `query.cursor`, first, so a route adds its filters' problems after them.
pub struct ListQuery<K, Q = PageQuery> {
    pub page: Page,
    pub after: Option<K>,
    pub params: Q,
    pub problems: Problems,
}

impl<K, Q> ListQuery<K, Q> {
    /// The page and its key, or VALIDATION_FAILED when a paging problem was found.
    pub fn finish(self) -> Result<(Page, Option<K>), Error> {
        Ok(self.problems.finish((self.page, self.after))?)
    }
}

impl<S, K, Q> FromRequestParts<S> for ListQuery<K, Q>
where
    S: Send + Sync,
    AppState: FromRef<S>,
    K: DeserializeOwned,
    Q: DeserializeOwned + Paged,
{
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        // A cursor pages the list it came from, for the user it was given to: the path (with its
        // ids) and the signed-in user, if any (public lists have none; a refused session is the
        // handler's to answer).
        let user = AuthUser::from_request_parts(parts, state).await.ok().map(|AuthUser(user)| user.user_id);
        // Nested routers see their path without the prefix (`/configurations` under `/forms` and
        // under `/workflows` alike): the scope takes the path the client sent.
        let path = parts.extensions.get::<OriginalUri>().map_or(parts.uri.path(), |OriginalUri(uri)| uri.path());
        let scope = Scope::of(path, user.as_deref());
        let ApiQuery(params) = ApiQuery::<Q>::from_request_parts(parts, state).await?;
        let mut problems = Problems::new();
        let (limit, cursor) = params.paging();
        let page = Page::parse(limit, cursor, &mut problems).within(scope);
        let after = page.after(&mut problems);
        Ok(Self { page, after, params, problems })
    }
}

/// The list and reader a cursor belongs to, as a short digest (a cursor is opaque, not secret:
/// this only makes a cursor from another list or user a refusal instead of a wrong page).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scope(String);

impl Scope {
    pub fn of(path: &str, user_id: Option<&str>) -> Self {
        let digest =
            Sha256::new().chain_update(path).chain_update([0u8]).chain_update(user_id.unwrap_or("")).finalize();
        Self(digest[..6].iter().map(|b| format!("{b:02x}")).collect())
    }
}

/// A validated page request.
#[derive(Clone, Debug)]
pub struct Page {
    pub limit: usize,
    cursor: Option<String>,
    scope: Scope,
}

impl Page {
    /// Reads `limit` (1 to 200, default 50) and `cursor`, adding problems at `query.limit` and
    /// `query.cursor`.
    pub fn parse(limit: Option<&str>, cursor: Option<&str>, problems: &mut Problems) -> Page {
        let limit = match limit {
            None => DEFAULT_LIMIT,
            Some(raw) => match raw.trim().parse::<i128>() {
                Ok(n) if (1..=MAX_LIMIT as i128).contains(&n) => n as usize,
                Ok(_) => {
                    problems.push("query.limit", "OUT_OF_RANGE", format!("must be from 1 to {MAX_LIMIT}"));
                    DEFAULT_LIMIT
                }
                // Not a number at all is a type problem, as a mistyped body member is.
                Err(_) => {
                    problems.push(
                        "query.limit",
                        "INVALID_TYPE",
                        format!("must be a whole number from 1 to {MAX_LIMIT}"),
                    );
                    DEFAULT_LIMIT
                }
            },
        };
        Page { limit, cursor: cursor.filter(|c| !c.is_empty()).map(str::to_owned), scope: Scope::default() }
    }

    /// The page, its cursors bound to `scope`.
    pub fn within(self, scope: Scope) -> Page {
        Page { scope, ..self }
    }

    /// The sort key the previous page ended at, decoded; problems at `query.cursor`.
    pub fn after<K: DeserializeOwned>(&self, problems: &mut Problems) -> Option<K> {
        let raw = self.cursor.as_deref()?;
        let decoded = URL_SAFE_NO_PAD
            .decode(raw)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<(Scope, K)>(&bytes).ok())
            .filter(|(scope, _)| *scope == self.scope);
        if decoded.is_none() {
            problems.push("query.cursor", "INVALID_CURSOR", "is not a cursor this list gave out to this user");
        }
        decoded.map(|(_, key)| key)
    }

    /// How many rows to fetch: one more than shown, to learn whether a next page exists.
    pub fn fetch_limit(&self) -> i64 {
        self.limit as i64 + 1
    }
}

/// `{"items": [...], "nextCursor": "..." | null}`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListEnvelope<T> {
    pub items: Vec<T>,
    pub next_cursor: Option<String>,
}

impl<T> ListEnvelope<T> {
    /// Builds a page from up to `page.limit + 1` rows in list order.
    pub fn from_rows<R, K: Serialize>(
        mut rows: Vec<R>,
        page: &Page,
        key: impl Fn(&R) -> K,
        view: impl FnMut(R) -> T,
    ) -> Self {
        let more = rows.len() > page.limit;
        rows.truncate(page.limit);
        let next_cursor = if more { rows.last().map(|last| encode_cursor(&page.scope, &key(last))) } else { None };
        Self { items: rows.into_iter().map(view).collect(), next_cursor }
    }
}

/// A time as a cursor key: milliseconds since the epoch, the order lists sort by.
pub fn cursor_millis(at: time::OffsetDateTime) -> i64 {
    (at.unix_timestamp_nanos() / 1_000_000) as i64
}

fn encode_cursor<K: Serialize>(scope: &Scope, key: &K) -> String {
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(&(scope, key)).expect("cursor keys serialize"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_outside_one_to_two_hundred_are_refused() {
        for bad in ["0", "201", "-1", "x", ""] {
            let mut problems = Problems::new();
            Page::parse(Some(bad), None, &mut problems);
            assert_eq!(problems.into_vec()[0].path, "query.limit", "{bad}");
        }
        let mut problems = Problems::new();
        assert_eq!(Page::parse(None, None, &mut problems).limit, 50);
        assert_eq!(Page::parse(Some("200"), None, &mut problems).limit, 200);
        assert!(problems.is_empty());
    }

    #[test]
    fn cursors_round_trip_and_foreign_cursors_are_refused() {
        let page = Page::parse(Some("2"), None, &mut Problems::new());
        let list = ListEnvelope::from_rows(vec!["a", "b", "c"], &page, |r| r.to_string(), |r| r);
        assert_eq!(list.items, ["a", "b"]);
        let cursor = list.next_cursor.unwrap();
        let mut problems = Problems::new();
        let next = Page::parse(None, Some(&cursor), &mut problems);
        assert_eq!(next.after::<String>(&mut problems).as_deref(), Some("b"));
        let forged = Page::parse(None, Some("!!"), &mut problems);
        assert!(forged.after::<String>(&mut problems).is_none());
        assert_eq!(problems.into_vec().len(), 1);
    }

    #[test]
    fn a_cursor_pages_only_the_list_and_user_it_was_given_to() {
        let scope = Scope::of("/v0/spaces", Some("ann"));
        let page = Page::parse(Some("1"), None, &mut Problems::new()).within(scope.clone());
        let cursor = ListEnvelope::from_rows(vec!["a", "b"], &page, |r| r.to_string(), |r| r).next_cursor.unwrap();
        for (path, user, accepted) in
            [("/v0/spaces", "ann", true), ("/v0/spaces", "bob", false), ("/v0/channels", "ann", false)]
        {
            let mut problems = Problems::new();
            let next = Page::parse(None, Some(&cursor), &mut problems).within(Scope::of(path, Some(user)));
            assert_eq!(next.after::<String>(&mut problems).is_some(), accepted, "{path} {user}");
        }
    }
}
