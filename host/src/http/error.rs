//! The HTTP face of [`Error`]: the status of each contract code, the envelope
//! `{"error": {code, numeric, message, details?, requestId}}` and the wire location of each problem.
//!
//! `Error::into_response` only sets the status and headers and stores the body in the response
//! extensions; `http::middleware::render_errors`, which knows the request id, writes the JSON and
//! logs internal causes. That keeps every handler free of request-id plumbing.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::domain::problems::Problem;
pub use crate::error::{Error, ErrorCode};

/// What handlers answer: a value, or an [`Error`] rendered as the contract's envelope.
pub type ApiResult<T> = Result<T, Error>;

/// The HTTP status of each code (conventions section 2).
pub fn status_of(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::ValidationFailed | ErrorCode::PinInvalid => StatusCode::BAD_REQUEST,
        ErrorCode::Unauthenticated | ErrorCode::LicenseRequired => StatusCode::UNAUTHORIZED,
        ErrorCode::Forbidden | ErrorCode::EntitlementLimitExceeded | ErrorCode::LicenseInvalid => StatusCode::FORBIDDEN,
        ErrorCode::NotFound | ErrorCode::FeatureDisabled => StatusCode::NOT_FOUND,
        ErrorCode::Conflict | ErrorCode::InvalidTransition | ErrorCode::MaxFilesExceeded => StatusCode::CONFLICT,
        ErrorCode::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ErrorCode::MediaUnavailable | ErrorCode::ServiceUnavailable => StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::RateLimited => StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::ModuleFailed => StatusCode::BAD_GATEWAY,
        ErrorCode::PreconditionFailed => StatusCode::PRECONDITION_FAILED,
        ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        ErrorCode::UploadExpired => StatusCode::GONE,
        ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// The code a bare status maps to, for responses no handler produced (unknown routes, panics).
pub fn code_for_status(status: StatusCode) -> ErrorCode {
    match status {
        StatusCode::BAD_REQUEST | StatusCode::UNPROCESSABLE_ENTITY => ErrorCode::ValidationFailed,
        StatusCode::UNAUTHORIZED => ErrorCode::Unauthenticated,
        StatusCode::FORBIDDEN => ErrorCode::Forbidden,
        StatusCode::NOT_FOUND => ErrorCode::NotFound,
        StatusCode::METHOD_NOT_ALLOWED => ErrorCode::MethodNotAllowed,
        StatusCode::GONE => ErrorCode::UploadExpired,
        StatusCode::CONFLICT => ErrorCode::Conflict,
        StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::PayloadTooLarge,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ErrorCode::UnsupportedMediaType,
        StatusCode::TOO_MANY_REQUESTS => ErrorCode::RateLimited,
        StatusCode::PRECONDITION_FAILED => ErrorCode::PreconditionFailed,
        StatusCode::SERVICE_UNAVAILABLE => ErrorCode::MediaUnavailable,
        _ => ErrorCode::Internal,
    }
}

/// Where a problem sits on the wire. Use cases name a body place with a JSON Pointer and a
/// parameter by its bare name; every parameter a use case checks arrives in the query string.
/// Paths the edge wrote itself (`query` for the whole query string, `header.range`) and qualified
/// names (an entitlement such as `messaging.perDay`) stay.
fn wire_path(path: String) -> String {
    let located = path.is_empty() || path.starts_with('/') || path.contains('.') || path == "query";
    if located { path } else { format!("query.{path}") }
}

/// The error object as sent; `request_id` is filled in by the rendering middleware.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    pub code: ErrorCode,
    /// The code's number (conventions section 2).
    #[schema(minimum = 800, maximum = 899)]
    pub numeric: u16,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Vec<Problem>>,
    pub request_id: String,
}

/// The envelope, for the OpenAPI document.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ErrorEnvelope {
    pub error: ErrorBody,
}

/// The cause of an internal error, kept for the log line and never sent.
#[derive(Clone, Debug)]
pub struct InternalCause(pub String);

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        let code = self.code();
        let mut response = status_of(code).into_response();
        let retry_after = match &self {
            Self::RateLimited { retry_after_seconds }
            | Self::AtBound { retry_after_seconds, .. }
            | Self::Contended { retry_after_seconds, .. }
            | Self::MediaUnavailable { retry_after_seconds }
            | Self::ServiceUnavailable { retry_after_seconds } => Some(*retry_after_seconds),
            _ => None,
        };
        if let Some(seconds) = retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds.max(1)));
        }
        let mut message = self.to_string();
        let details = match self {
            Self::Validation { details, .. } | Self::Rejected { details, .. } => {
                let details: Vec<Problem> =
                    details.into_iter().map(|problem| Problem { path: wire_path(problem.path), ..problem }).collect();
                // A one-problem message names the problem's place; name it as the client sees it.
                if let [only] = details.as_slice()
                    && only.path.starts_with("query.")
                {
                    message = format!("{} {}", only.path, only.message);
                }
                Some(details)
            }
            Self::EntitlementExceeded(entitlement) => Some(vec![Problem {
                path: entitlement.name().to_owned(),
                code: "QUOTA_EXCEEDED".into(),
                message: "the daily quota of the plan is used up".into(),
            }]),
            Self::Internal(cause) => {
                response.extensions_mut().insert(InternalCause(format!("{cause:#}")));
                None
            }
            _ => None,
        };
        response.extensions_mut().insert(ErrorBody {
            code,
            numeric: code.numeric(),
            message,
            details,
            request_id: String::new(),
        });
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_the_contract_status() {
        let table = [
            (ErrorCode::ValidationFailed, 400),
            (ErrorCode::Unauthenticated, 401),
            (ErrorCode::Forbidden, 403),
            (ErrorCode::EntitlementLimitExceeded, 403),
            (ErrorCode::NotFound, 404),
            (ErrorCode::Conflict, 409),
            (ErrorCode::InvalidTransition, 409),
            (ErrorCode::LicenseRequired, 401),
            (ErrorCode::LicenseInvalid, 403),
            (ErrorCode::PayloadTooLarge, 413),
            (ErrorCode::UnsupportedMediaType, 415),
            (ErrorCode::MaxFilesExceeded, 409),
            (ErrorCode::MediaUnavailable, 503),
            (ErrorCode::ServiceUnavailable, 503),
            (ErrorCode::RateLimited, 429),
            (ErrorCode::PinInvalid, 400),
            (ErrorCode::FeatureDisabled, 404),
            (ErrorCode::ModuleFailed, 502),
            (ErrorCode::PreconditionFailed, 412),
            (ErrorCode::MethodNotAllowed, 405),
            (ErrorCode::UploadExpired, 410),
            (ErrorCode::Internal, 500),
        ];
        for (code, status) in table {
            assert_eq!(status_of(code).as_u16(), status, "{code:?}");
        }
    }

    #[test]
    fn internal_errors_keep_their_cause_out_of_the_message() {
        let response = Error::internal(anyhow::anyhow!("select * from secret_table")).into_response();
        let body = response.extensions().get::<ErrorBody>().unwrap();
        assert_eq!(body.message, "internal error");
        assert!(response.extensions().get::<InternalCause>().unwrap().0.contains("secret_table"));
    }

    #[test]
    fn parameter_problems_are_answered_at_their_query_location() {
        let response = Error::invalid("fieldId", "REQUIRED", "names the field").into_response();
        let body = response.extensions().get::<ErrorBody>().unwrap();
        let details = body.details.as_ref().unwrap();
        assert_eq!(details[0].path, "query.fieldId");
        assert_eq!(body.message, "query.fieldId names the field");
        let body_problem = Error::invalid("/payload/state", "INVALID_VALUE", "x").into_response();
        let body = body_problem.extensions().get::<ErrorBody>().unwrap();
        assert_eq!(body.details.as_ref().unwrap()[0].path, "/payload/state");
    }
}
