//! Conditional requests (conventions section 1), once for every route: [`IfMatch`] hands an update's
//! use case the [`Precondition`] it checks atomically with its write; [`Tagged`] answers a read with
//! the strong `ETag` of the state it shows; [`not_modified`] tags every other JSON read by its bytes
//! and turns a read whose `ETag` the client's `If-None-Match` names into 304 with no body.

use axum::Json;
use axum::body::Body;
use axum::extract::{FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::domain::precondition::{EntityTag, Precondition, none_match_names};
use crate::http::error::Error;

/// The `If-Match` of an update, read into the precondition its use case checks.
pub struct IfMatch(pub Precondition);

impl<S: Send + Sync> FromRequestParts<S> for IfMatch {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Self(precondition(&parts.headers)))
    }
}

/// The precondition of `If-Match` (several field lines are one list). A value that is not text
/// names no tag this service gives out, so it matches nothing.
pub fn precondition(headers: &HeaderMap) -> Precondition {
    let mut values = headers.get_all(header::IF_MATCH).iter().peekable();
    if values.peek().is_none() {
        return Precondition::None;
    }
    let texts: Option<Vec<&str>> = values.map(|v| v.to_str().ok()).collect();
    match texts {
        Some(texts) => Precondition::if_match(Some(&texts.join(", "))),
        None => Precondition::OneOf(Vec::new()),
    }
}

/// A read's JSON answer with the strong tag of the state it shows.
pub struct Tagged<T>(pub EntityTag, pub T);

impl<T: Serialize> IntoResponse for Tagged<T> {
    fn into_response(self) -> Response {
        let mut response = Json(self.1).into_response();
        if let Ok(value) = HeaderValue::from_str(self.0.as_str()) {
            response.headers_mut().insert(header::ETAG, value);
        }
        response
    }
}

/// A `GET` or `HEAD` whose `If-None-Match` names the `ETag` its answer carries is answered 304 with
/// that tag and no body (RFC 9110 13.1.2), whichever route made the answer. A JSON read whose route
/// has no revision to name (a channel, an asset, a message) gets a strong tag
/// of its bytes: identical bytes, identical tag.
pub async fn not_modified(request: Request, next: Next) -> Response {
    let is_get = request.method() == Method::GET;
    let asked = match *request.method() {
        Method::GET | Method::HEAD => request.headers().get(header::IF_NONE_MATCH).cloned(),
        _ => None,
    };
    let mut response = next.run(request).await;
    if is_get
        && response.status() == StatusCode::OK
        && !response.headers().contains_key(header::ETAG)
        && is_json(&response)
    {
        response = tagged_by_content(response).await;
    }
    let Some(asked) = asked.and_then(|v| v.to_str().ok().map(str::to_owned)) else { return response };
    if !matches!(response.status(), StatusCode::OK | StatusCode::PARTIAL_CONTENT) {
        return response;
    }
    let Some(etag) = response.headers().get(header::ETAG).and_then(|v| v.to_str().ok()) else { return response };
    if !none_match_names(&asked, etag) {
        return response;
    }
    let (mut parts, _) = response.into_parts();
    parts.status = StatusCode::NOT_MODIFIED;
    for name in [header::CONTENT_LENGTH, header::CONTENT_TYPE, header::CONTENT_RANGE, header::CONTENT_DISPOSITION] {
        parts.headers.remove(name);
    }
    Response::from_parts(parts, Body::empty())
}

fn is_json(response: &Response) -> bool {
    response.headers().get(header::CONTENT_TYPE).is_some_and(|v| v.as_bytes() == b"application/json")
}

/// The answer with the strong tag of its bytes (a JSON answer is in memory already).
async fn tagged_by_content(response: Response) -> Response {
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return (StatusCode::INTERNAL_SERVER_ERROR, "the answer could not be read").into_response();
    };
    let digest = Sha256::digest(&bytes);
    let tag: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
    if let Ok(value) = HeaderValue::from_str(&format!("\"h{tag}\"")) {
        parts.headers.insert(header::ETAG, value);
    }
    Response::from_parts(parts, Body::from(bytes))
}
