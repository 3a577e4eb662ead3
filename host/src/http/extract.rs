//! Extractors whose rejections answer with the contract's error envelope.

use std::borrow::Cow;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, FromRef, FromRequest, FromRequestParts, Request};
use axum::http::header;
use axum::http::request::Parts;
use bytes::Bytes;
use serde::de::DeserializeOwned;

use crate::domain::account::SessionUser;
use crate::domain::problems::{FromBody, Parsed, Problems};
use crate::http::error::Error;
use crate::services::licenses::Caller;
use crate::state::AppState;

/// A JSON body. Wrong content type: 415; too large: 413; malformed or mistyped: 400 with the
/// JSON Pointer of the offending value.
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = Error;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        if !is_json(req.headers()) {
            return Err(Error::UnsupportedMediaType(Cow::Borrowed("the body must be application/json")));
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| match rejection {
            BytesRejection::FailedToBufferBody(_) if is_length_limit(&rejection) => {
                Error::PayloadTooLarge(Cow::Borrowed("the body is larger than this deployment accepts"))
            }
            other => Error::invalid("", "UNREADABLE_BODY", other.body_text()),
        })?;
        parse_json(&bytes).map(ApiJson)
    }
}

/// A JSON object body read into a typed request by the domain ([`FromBody`]). Refusals of the JSON
/// itself are those of [`ApiJson`]; the domain's problems travel with the request, for the use case
/// to answer where it checks the body (after its access checks, as before).
pub struct ApiBody<T>(pub Parsed<T>);

impl<S, T> FromRequest<S> for ApiBody<T>
where
    S: Send + Sync,
    T: FromBody,
{
    type Rejection = Error;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let ApiJson(body) = ApiJson::<serde_json::Map<String, serde_json::Value>>::from_request(req, state).await?;
        Ok(Self(T::from_body(&body)))
    }
}

fn is_length_limit(rejection: &BytesRejection) -> bool {
    rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE
}

pub fn is_json(headers: &axum::http::HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|mime| {
            let mime = mime.trim().to_ascii_lowercase();
            mime == "application/json" || (mime.starts_with("application/") && mime.ends_with("+json"))
        })
        .unwrap_or(false)
}

/// Parses JSON, naming the place of the first problem as a JSON Pointer. Strings holding a NUL
/// character are refused at their places: no field of this service means one, and PostgreSQL
/// text cannot store it.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Error> {
    // In JSON a NUL can only be written as this escape; the walk runs only when it appears.
    if memchr::memmem::find(bytes, b"\\u0000").is_some()
        && let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes)
    {
        let mut problems = Problems::new();
        find_nul(&value, &mut String::new(), &mut problems);
        problems.finish(())?;
    }
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
        let pointer = pointer_of(error.path());
        let inner = error.into_inner();
        let code = match inner.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => "INVALID_JSON",
            // A body type that refuses members it does not know (`deny_unknown_fields`).
            _ if inner.to_string().starts_with("unknown field") => "UNKNOWN_FIELD",
            _ => "INVALID_TYPE",
        };
        Error::invalid(pointer, code, inner.to_string())
    })?;
    deserializer.end().map_err(|e| Error::invalid("", "INVALID_JSON", e.to_string()))?;
    Ok(value)
}

/// Every string (key or value) below `value` that holds a NUL, by JSON Pointer.
fn find_nul(value: &serde_json::Value, pointer: &mut String, problems: &mut Problems) {
    use serde_json::Value;
    let at = pointer.len();
    match value {
        Value::String(text) if text.contains('\0') => {
            problems.push(pointer.clone(), "NUL_CHARACTER", "must not contain a NUL character");
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                pointer.push_str(&format!("/{index}"));
                find_nul(item, pointer, problems);
                pointer.truncate(at);
            }
        }
        Value::Object(members) => {
            for (key, item) in members {
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1").replace('\0', ""));
                if key.contains('\0') {
                    problems.push(pointer.clone(), "NUL_CHARACTER", "must not contain a NUL character");
                } else {
                    find_nul(item, pointer, problems);
                }
                pointer.truncate(at);
            }
        }
        _ => {}
    }
}

fn pointer_of(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut pointer = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => pointer.push_str(&format!("/{index}")),
            Segment::Map { key } => {
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
            }
            Segment::Enum { variant } => {
                pointer.push('/');
                pointer.push_str(variant);
            }
            Segment::Unknown => {}
        }
    }
    pointer
}

/// The bearer token of the request, unchecked.
pub struct BearerToken(pub String);

impl<S: Send + Sync> FromRequestParts<S> for BearerToken {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let value = parts.headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok());
        Self::parse(value).ok_or_else(Error::unauthenticated)
    }
}

impl BearerToken {
    /// The token of an `Authorization: Bearer ...` value.
    pub fn parse(authorization: Option<&str>) -> Option<Self> {
        let token = authorization
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim())
            .filter(|token| !token.is_empty());
        token.map(|t| BearerToken(t.to_owned()))
    }
}

/// The signed-in user of a request: a live session named by `Authorization: Bearer`.
#[derive(Clone, Debug)]
pub struct AuthUser(pub SessionUser);

impl<S> FromRequestParts<S> for AuthUser
where
    S: Send + Sync,
    AppState: FromRef<S>,
{
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        if let Some(user) = parts.extensions.get::<AuthUser>() {
            return Ok(user.clone());
        }
        let BearerToken(token) = BearerToken::from_request_parts(parts, state).await?;
        let state = AppState::from_ref(state);
        let user = AuthUser(state.accounts.session(&token).await?);
        parts.extensions.insert(user.clone());
        Ok(user)
    }
}

/// The license-side identity the license middleware put on the request.
impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        parts.extensions.get::<Caller>().cloned().ok_or(Error::LicenseRequired)
    }
}

/// The client's address: the peer, or, when the peer is one of `http.trusted_proxies`, the
/// rightmost `X-Forwarded-For` entry that is not (`http/forwarded.rs`).
pub struct ClientAddress(pub IpAddr);

impl<S> FromRequestParts<S> for ClientAddress
where
    S: Send + Sync,
    AppState: FromRef<S>,
{
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let state = AppState::from_ref(state);
        let peer = parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
        let peer = peer.unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED));
        let values = parts.headers.get_all("x-forwarded-for").iter().filter_map(|v| v.to_str().ok());
        Ok(Self(state.trusted_proxies.client(peer, values)))
    }
}

/// Query parameters; each must be given at most once, but for the lists (below), and parsing problems name
/// `query.<name>`.
pub struct ApiQuery<T>(pub T);

/// The query parameters that are lists. The contract writes a list comma-separated (`states=DRAFT,SUBMITTED`),
/// while generated clients send one as its key repeated (`states=DRAFT&states=SUBMITTED`): both are read.
const LIST_PARAMETERS: &[&str] = &["states"];

/// The query with each list's repeated values joined by commas, as one parameter.
fn with_lists_joined(query: &str) -> Result<Cow<'_, str>, Error> {
    let repeated = |name: &str| query.split('&').filter(|pair| pair.split('=').next() == Some(name)).count() > 1;
    if !LIST_PARAMETERS.iter().any(|name| repeated(name)) {
        return Ok(Cow::Borrowed(query));
    }
    let invalid = |e: &dyn std::fmt::Display| Error::invalid("query", "INVALID_QUERY", e.to_string());
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query).map_err(|e| invalid(&e))?;
    let mut joined: Vec<(String, String)> = Vec::with_capacity(pairs.len());
    for (key, value) in pairs {
        let list = LIST_PARAMETERS.contains(&key.as_str());
        match joined.iter_mut().find(|(seen, _)| list && *seen == key) {
            Some((_, values)) => {
                values.push(',');
                values.push_str(&value);
            }
            None => joined.push((key, value)),
        }
    }
    serde_urlencoded::to_string(joined).map(Cow::Owned).map_err(|e| invalid(&e))
}

impl<S, T> FromRequestParts<S> for ApiQuery<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let query = with_lists_joined(parts.uri.query().unwrap_or_default())?;
        serde_urlencoded::from_str(&query)
            .map(ApiQuery)
            .map_err(|e| Error::invalid("query", "INVALID_QUERY", e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_sent_as_a_repeated_key_reads_as_one_comma_separated_parameter() {
        let joined = with_lists_joined("states=DRAFT&limit=2&states=SUBMITTED").unwrap();
        assert_eq!(joined, "states=DRAFT%2CSUBMITTED&limit=2");
        let read: Vec<(String, String)> = serde_urlencoded::from_str(&joined).unwrap();
        assert_eq!(read[0], ("states".to_owned(), "DRAFT,SUBMITTED".to_owned()));
        // Without a repeated list the query is read as it came; other repeated keys stay an error there.
        assert!(matches!(with_lists_joined("states=DRAFT,SUBMITTED").unwrap(), Cow::Borrowed(_)));
        assert!(matches!(with_lists_joined("limit=1&limit=2").unwrap(), Cow::Borrowed(_)));
    }
}
