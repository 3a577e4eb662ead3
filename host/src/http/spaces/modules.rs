//! `/v0/spaces/{spaceId}/modules`: the connected set, and the routes of each connected module.

use std::borrow::Cow;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{OriginalUri, Path, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use trellis_modules::ModuleResponse;
use utoipa::ToSchema;

use crate::domain::problems::Problem;
use crate::http::conditional::{IfMatch, Tagged};
use crate::http::error::{ApiResult, Error, ErrorBody, ErrorCode, ErrorEnvelope, code_for_status, status_of};
use crate::http::extract::{ApiJson, AuthUser};
use crate::services::modules::{Connected, MAX_REQUEST_BODY_BYTES, Modules, RouteRequest};

/// One connected module and the configuration the space gave it.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConnectedModule {
    module_id: String,
    /// Checked against the module's `configSchema`; missing or `null` means `{}`.
    #[schema(value_type = Object)]
    config: Value,
}

/// `{modules: [{moduleId, config}]}`: what `GET` answers and `PUT` takes.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct ConnectedModules {
    modules: Vec<ConnectedModule>,
}

impl From<Vec<Connected>> for ConnectedModules {
    fn from(modules: Vec<Connected>) -> Self {
        let modules =
            modules.into_iter().map(|m| ConnectedModule { module_id: m.module_id, config: m.config }).collect();
        Self { modules }
    }
}

/// The modules connected to the space, with their configuration; the owner and members read
/// them, a channel's reader may not.
#[utoipa::path(get, path = "/v0/spaces/{spaceId}/modules", operation_id = "get_space_modules", tag = "modules", params(("spaceId" = String, Path)),
    security(("session" = [], "license" = [])),
    responses((status = 200, body = ConnectedModules),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: a reader through a channel"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such space, or the caller is not a member")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
pub async fn get_modules(
    State(modules): State<Arc<Modules>>,
    AuthUser(user): AuthUser,
    Path(space_id): Path<String>,
) -> ApiResult<Tagged<ConnectedModules>> {
    let (etag, connected) = modules.connected(&user, &space_id).await?;
    Ok(Tagged(etag, connected.into()))
}

/// Replaces the connected set; only the owner may. Each `config` is checked against its module's
/// schema, and every problem is listed.
#[utoipa::path(put, path = "/v0/spaces/{spaceId}/modules", operation_id = "replace_space_modules", tag = "modules", params(("spaceId" = String, Path)),
    request_body = ConnectedModules, security(("session" = [], "license" = [])),
    responses((status = 200, body = ConnectedModules),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED: UNKNOWN_MODULE, DUPLICATE_MODULE at /modules/{i}/moduleId; INVALID_CONFIG at /modules/{i}/config/..."),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: a member who is not the owner"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such space, or the caller is not a member")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
pub async fn replace_modules(
    State(modules): State<Arc<Modules>>,
    AuthUser(user): AuthUser,
    Path(space_id): Path<String>,
    IfMatch(precondition): IfMatch,
    ApiJson(body): ApiJson<Map<String, Value>>,
) -> ApiResult<Tagged<ConnectedModules>> {
    let (etag, connected) = modules.replace(&user, &space_id, &body, &precondition).await?;
    Ok(Tagged(etag, connected.into()))
}

/// A module's own route: the method, the path after the module id, the query and the body (at
/// most 1 MiB) reach the module with the caller's id, handle and role; its status and JSON body
/// come back. Error answers of the module are put in the contract's error envelope.
#[utoipa::path(get, path = "/v0/spaces/{spaceId}/modules/{moduleId}/{path}", operation_id = "call_module_route", tag = "modules",
    params(("spaceId" = String, Path), ("moduleId" = String, Path), ("path" = String, Path, description = "the rest of the path; the module defines it")),
    security(("session" = [], "license" = [])),
    responses((status = 200, description = "the module's JSON answer (any status it chooses; also POST, PUT, PATCH, DELETE)"),
        (status = 403, body = ErrorEnvelope, description = "FORBIDDEN: the caller reads the space through a channel (module routes may write)"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: not a member, or the module is not connected to the space"),
        (status = 409, body = ErrorEnvelope, description = "CONFLICT: the module's own answer, or (with Retry-After) other calls kept changing a key this call compared-and-swapped, also when it ran again in its turn, and nothing it wrote was kept"),
        (status = 413, body = ErrorEnvelope, description = "PAYLOAD_TOO_LARGE"),
        (status = 429, body = ErrorEnvelope, description = "RATE_LIMITED, with Retry-After: the module or the space has as many calls running as it may, or the space has spent its guest time"),
        (status = 502, body = ErrorEnvelope, description = "MODULE_FAILED: the module trapped, ran out of time or memory, or answered something invalid")))]
#[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id, module_id))]
pub async fn module_route(
    State(modules): State<Arc<Modules>>,
    AuthUser(user): AuthUser,
    request: Request,
) -> ApiResult<Response> {
    // The raw path, not the decoded captures: the module decodes its own segments, and an encoded
    // `/` inside one must not become a separator.
    let full = request.extensions().get::<OriginalUri>().map_or_else(|| request.uri().clone(), |o| o.0.clone());
    let mut segments = full.path().trim_start_matches('/').splitn(6, '/').skip(2);
    let (space_id, _, module_id) = (segments.next(), segments.next(), segments.next());
    let (space_id, module_id) = (space_id.unwrap_or_default().to_owned(), module_id.unwrap_or_default().to_owned());
    let path = format!("/{}", segments.next().unwrap_or_default());
    let method = request.method().as_str().to_owned();
    let query = full.query().unwrap_or_default().to_owned();
    let body = axum::body::to_bytes(request.into_body(), MAX_REQUEST_BODY_BYTES)
        .await
        .map_err(|_| Error::PayloadTooLarge(Cow::Borrowed("a module route takes at most 1 MiB")))?;
    let route = RouteRequest { method: &method, path, query: &query, body: body.to_vec() };
    let answer = modules.request(&user, &space_id, &module_id, route).await?;
    Ok(into_response(answer))
}

/// The module's answer as sent: a JSON body (or none) with its status; an error status gets the
/// contract's envelope, keeping the module's code when it is one of the contract's codes.
fn into_response(answer: ModuleResponse) -> Response {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::BAD_GATEWAY);
    if status.is_client_error() || status.is_server_error() {
        let mut response = status.into_response();
        response.extensions_mut().insert(error_body(status, &answer.body_json_text));
        return response;
    }
    if answer.body_json_text.is_empty() {
        return status.into_response();
    }
    let mut response = (status, Body::from(answer.body_json_text)).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// The envelope for a module's error answer. Its code, message and details are kept when the body is
/// the envelope (the code only when the contract gives it this status); a body of another shape still
/// lends its text, from `{"error": "text"}` or `{"message": "text"}`, so a hand-written answer reads well.
fn error_body(status: StatusCode, body: &str) -> ErrorBody {
    let body = serde_json::from_str::<Value>(body).unwrap_or_default();
    let error = body.get("error");
    let code = error
        .and_then(|e| e.get("code"))
        .and_then(|c| serde_json::from_value::<ErrorCode>(c.clone()).ok())
        .filter(|code| status_of(*code) == status)
        .unwrap_or_else(|| code_for_status(status));
    let message = [error.and_then(|e| e.get("message")), error, body.get("message")]
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .find(|m| !m.trim().is_empty())
        .map(|m| m.chars().take(500).collect())
        .unwrap_or_else(|| status.canonical_reason().unwrap_or("error").to_lowercase());
    let details = error.and_then(|e| e.get("details")).and_then(Value::as_array).map(|details| {
        let text = |d: &Value, key: &str| d.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
        details
            .iter()
            .map(|d| Problem { path: text(d, "path"), code: text(d, "code"), message: text(d, "message") })
            .collect()
    });
    ErrorBody { code, numeric: code.numeric(), message, details, request_id: String::new() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(status: u16, body: &str) -> (ErrorCode, String, Option<Vec<Problem>>) {
        let error = error_body(StatusCode::from_u16(status).unwrap(), body);
        (error.code, error.message, error.details)
    }

    #[test]
    fn the_contract_s_envelope_keeps_its_code_message_and_details() {
        let body = r#"{"error": {"code": "VALIDATION_FAILED", "message": "choice is not an option",
            "details": [{"path": "/choice", "code": "NOT_AN_OPTION", "message": "not one of a, b"}]}}"#;
        let detail =
            Problem { path: "/choice".into(), code: "NOT_AN_OPTION".into(), message: "not one of a, b".into() };
        assert_eq!(
            sent(400, body),
            (ErrorCode::ValidationFailed, "choice is not an option".into(), Some(vec![detail]))
        );
        // A code the contract gives another status yields to the status's own code.
        let body = r#"{"error": {"code": "NOT_FOUND", "message": "taken"}}"#;
        assert_eq!(sent(409, body), (ErrorCode::Conflict, "taken".into(), None));
    }

    #[test]
    fn a_bare_error_or_message_text_becomes_the_message_under_the_status_s_code() {
        assert_eq!(sent(400, r#"{"error": "choice must be a string"}"#).1, "choice must be a string");
        assert_eq!(sent(400, r#"{"error": "x"}"#).0, ErrorCode::ValidationFailed);
        assert_eq!(sent(409, r#"{"message": "already voted"}"#), (ErrorCode::Conflict, "already voted".into(), None));
    }

    #[test]
    fn a_body_without_text_answers_the_status_s_reason() {
        assert_eq!(sent(400, r#"{"reason": 1}"#).1, "bad request");
        assert_eq!(sent(404, "").1, "not found");
        assert_eq!(sent(403, r#"{"error": ""}"#).1, "forbidden");
        assert_eq!(sent(400, r#"{"error": {"code": "VALIDATION_FAILED"}}"#).1, "bad request");
    }
}
