//! Cross-cutting request handling: the license check, the refusal of text no id or parameter can
//! hold, and the rendering of error bodies.

use axum::body::Body;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::domain::problems::Problems;
use crate::http::error::{Error, ErrorBody, ErrorCode, InternalCause, code_for_status, status_of};
use crate::state::AppState;

pub const REQUEST_ID: &str = "x-request-id";
pub const LICENSE_KEY: &str = "x-license-key";

/// Every /v0 route needs a license: a valid `X-License-Key`, or, in gateway mode, the gateway's
/// proxy secret. The resulting [`Caller`](crate::services::licenses::Caller) rides on the request.
pub async fn require_license(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    match caller_of(&state, request.headers()).await {
        Ok((caller, _)) => {
            request.extensions_mut().insert(caller);
            next.run(request).await
        }
        Err(error) => error.into_response(),
    }
}

/// The license-side identity of a request's headers, with the digest of the license key when a
/// key (not a gateway) admitted it.
pub async fn caller_of(
    state: &AppState,
    headers: &axum::http::HeaderMap,
) -> Result<(crate::services::licenses::Caller, Option<String>), Error> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    let gateway = &state.config.gateway;
    match (state.licenses.gateway_enabled(), text(&gateway.secret_header)) {
        (true, Some(secret)) => state
            .licenses
            .authorize_gateway(secret, text(&gateway.user_header), text(&gateway.plan_header))
            .map(|caller| (caller, None)),
        _ => match text(LICENSE_KEY) {
            None | Some("") => Err(Error::LicenseRequired),
            Some(key) => {
                let key = key.to_owned();
                let caller = state.licenses.authorize_key(&key).await?;
                Ok((caller, Some(crate::domain::secret::digest(&key))))
            }
        },
    }
}

/// Counts and times every request by method, route template and final status, for `/metrics`.
/// Runs inside routing (it is a `Router::layer`), so the matched template is known; answers no
/// route matched count as `unmatched`, so clients cannot grow the label set.
pub async fn track_requests(request: Request, next: Next) -> Response {
    let started = std::time::Instant::now();
    // `MatchedPath` is a shared string: cloning it allocates nothing.
    let route = request.extensions().get::<MatchedPath>().cloned();
    let method = request.method().clone();
    let response = next.run(request).await;
    let method = match method.as_str() {
        "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD" | "OPTIONS" => method.as_str(),
        _ => "OTHER",
    };
    let route = route.as_ref().map_or("unmatched", |path| path.as_str());
    crate::infra::metrics::request(method, route, response.status().as_u16(), started.elapsed());
    response
}

/// No id and no query parameter of this service holds a NUL character, and PostgreSQL text cannot
/// store one: a path with one names nothing (404), a query parameter with one is malformed (400),
/// both before any handler or query runs. (Bodies are checked by `ApiJson`, file names cleaned.)
pub async fn refuse_nul(request: Request, next: Next) -> Response {
    let uri = request.uri();
    if contains_encoded_nul(uri.path()) {
        return Error::not_found("resource").into_response();
    }
    if let Some(query) = uri.query().filter(|q| contains_encoded_nul(q)) {
        let mut problems = Problems::new();
        let pairs: Vec<(String, String)> = serde_urlencoded::from_str(query).unwrap_or_default();
        for (name, value) in pairs {
            if name.contains('\0') || value.contains('\0') {
                let name: String = name.chars().filter(|c| *c != '\0').take(64).collect();
                problems.push(format!("query.{name}"), "NUL_CHARACTER", "must not contain a NUL character");
            }
        }
        if problems.is_empty() {
            problems.push("query", "NUL_CHARACTER", "must not contain a NUL character");
        }
        return Error::from(problems).into_response();
    }
    next.run(request).await
}

/// A URI can carry NUL only percent-encoded.
fn contains_encoded_nul(text: &str) -> bool {
    text.as_bytes().windows(3).any(|w| w == b"%00")
}

/// Writes the error envelope of every non-2xx answer, with the request id, and logs internal
/// causes. Answers no handler made (unknown routes, panics) get an envelope too.
pub async fn render_errors(request: Request, next: Next) -> Response {
    let request_id = request.headers().get(REQUEST_ID).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let mut response = next.run(request).await;
    let status = response.status();
    if status.is_success() || status.is_informational() || status.is_redirection() {
        return response;
    }
    let mut body = match response.extensions_mut().remove::<ErrorBody>() {
        Some(body) => body,
        None => {
            let code = code_for_status(status);
            let message = match code {
                ErrorCode::NotFound => "no such route".to_owned(),
                _ => status.canonical_reason().unwrap_or("error").to_lowercase(),
            };
            ErrorBody { code, numeric: code.numeric(), message, details: None, request_id: String::new() }
        }
    };
    body.request_id = request_id;
    if let Some(InternalCause(cause)) = response.extensions_mut().remove::<InternalCause>() {
        tracing::error!(request_id = %body.request_id, %method, %path, cause, "internal error");
    } else if status.is_server_error() {
        tracing::warn!(request_id = %body.request_id, %method, %path, code = ?body.code, "server error");
    }
    // Unknown routes answer as the table says: 404 NOT_FOUND (a feature switched off too).
    let status = if body.code == ErrorCode::NotFound { status_of(body.code) } else { status };
    let json = serde_json::to_vec(&serde_json::json!({ "error": body })).expect("error bodies serialize");
    let (mut parts, _) = response.into_parts();
    parts.status = status;
    let headers = &mut parts.headers;
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.remove(header::CONTENT_LENGTH);
    if status != StatusCode::METHOD_NOT_ALLOWED {
        headers.remove(header::ALLOW);
    }
    if status == StatusCode::UNAUTHORIZED && !headers.contains_key(header::WWW_AUTHENTICATE) {
        headers.insert(header::WWW_AUTHENTICATE, challenge(body.code));
    }
    if matches!(status, StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE)
        && !headers.contains_key(header::RETRY_AFTER)
    {
        headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    // A refused body is left unread, so hyper cannot keep the connection: say so, or a pooled
    // client sends its next request into a closed connection.
    if status == StatusCode::PAYLOAD_TOO_LARGE {
        headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    Response::from_parts(parts, Body::from(json))
}

/// What a 401 asks for (RFC 9110 section 11.6.1): the license key when it is missing, else a session.
fn challenge(code: ErrorCode) -> HeaderValue {
    match code {
        ErrorCode::LicenseRequired => HeaderValue::from_static("X-License-Key realm=\"trellis\""),
        _ => HeaderValue::from_static("Bearer realm=\"trellis\""),
    }
}
