//! The one error type of the HTTP edge and its envelope
//! `{"error": {code, numeric, message, details?, requestId}}`.
//!
//! `ApiError::into_response` only sets the status and headers and stores the body in the response
//! extensions; `http::middleware::render_errors`, which knows the request id, writes the JSON and
//! logs internal causes. That keeps every handler free of request-id plumbing.

use std::borrow::Cow;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::domain::entitlement::Entitlement;
use crate::domain::problems::{Problem, Problems};
use crate::store::StoreError;

/// The contract's error codes (conventions section 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    ValidationFailed,
    Unauthenticated,
    Forbidden,
    EntitlementLimitExceeded,
    NotFound,
    Conflict,
    InvalidTransition,
    LicenseRequired,
    LicenseInvalid,
    PayloadTooLarge,
    UnsupportedMediaType,
    MaxFilesExceeded,
    MediaUnavailable,
    RateLimited,
    PinInvalid,
    FeatureDisabled,
    ModuleFailed,
    PreconditionFailed,
    Internal,
}

impl ErrorCode {
    pub fn numeric(self) -> u16 {
        match self {
            Self::ValidationFailed => 800,
            Self::Unauthenticated => 801,
            Self::Forbidden => 802,
            Self::EntitlementLimitExceeded => 803,
            Self::NotFound => 804,
            Self::Conflict => 805,
            Self::InvalidTransition => 806,
            Self::LicenseRequired => 807,
            Self::LicenseInvalid => 808,
            Self::PayloadTooLarge => 809,
            Self::UnsupportedMediaType => 810,
            Self::MaxFilesExceeded => 811,
            Self::MediaUnavailable => 812,
            Self::RateLimited => 813,
            Self::PinInvalid => 814,
            Self::FeatureDisabled => 815,
            Self::ModuleFailed => 816,
            Self::PreconditionFailed => 817,
            Self::Internal => 899,
        }
    }

    pub fn status(self) -> StatusCode {
        match self {
            Self::ValidationFailed | Self::PinInvalid => StatusCode::BAD_REQUEST,
            Self::Unauthenticated | Self::LicenseRequired => StatusCode::UNAUTHORIZED,
            Self::Forbidden | Self::EntitlementLimitExceeded | Self::LicenseInvalid => StatusCode::FORBIDDEN,
            Self::NotFound | Self::FeatureDisabled => StatusCode::NOT_FOUND,
            Self::Conflict | Self::InvalidTransition | Self::MaxFilesExceeded => StatusCode::CONFLICT,
            Self::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Self::MediaUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            Self::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            Self::ModuleFailed => StatusCode::BAD_GATEWAY,
            Self::PreconditionFailed => StatusCode::PRECONDITION_FAILED,
            Self::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The code a bare status maps to, for responses no handler produced (unknown routes, panics).
    pub fn for_status(status: StatusCode) -> Self {
        match status {
            StatusCode::BAD_REQUEST | StatusCode::UNPROCESSABLE_ENTITY => Self::ValidationFailed,
            StatusCode::UNAUTHORIZED => Self::Unauthenticated,
            StatusCode::FORBIDDEN => Self::Forbidden,
            StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED => Self::NotFound,
            StatusCode::CONFLICT => Self::Conflict,
            StatusCode::PAYLOAD_TOO_LARGE => Self::PayloadTooLarge,
            StatusCode::UNSUPPORTED_MEDIA_TYPE => Self::UnsupportedMediaType,
            StatusCode::TOO_MANY_REQUESTS => Self::RateLimited,
            StatusCode::PRECONDITION_FAILED => Self::PreconditionFailed,
            StatusCode::SERVICE_UNAVAILABLE => Self::MediaUnavailable,
            _ => Self::Internal,
        }
    }
}

/// What a request can fail with. Messages are for people; clients branch on the code.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{message}")]
    Validation { message: String, details: Vec<Problem> },
    #[error("{0}")]
    Unauthenticated(Cow<'static, str>),
    #[error("{0}")]
    Forbidden(Cow<'static, str>),
    #[error("the plan's daily quota {0} is used up")]
    EntitlementExceeded(Entitlement),
    #[error("{0}")]
    NotFound(Cow<'static, str>),
    #[error("{0}")]
    Conflict(Cow<'static, str>),
    #[error("{0}")]
    InvalidTransition(Cow<'static, str>),
    #[error("the X-License-Key header is required")]
    LicenseRequired,
    #[error("{0}")]
    LicenseInvalid(Cow<'static, str>),
    #[error("{0}")]
    PayloadTooLarge(Cow<'static, str>),
    #[error("{0}")]
    UnsupportedMediaType(Cow<'static, str>),
    #[error("{0}")]
    MaxFilesExceeded(Cow<'static, str>),
    #[error("the media store is unavailable")]
    MediaUnavailable { retry_after_seconds: u64 },
    #[error("too many attempts; try again later")]
    RateLimited { retry_after_seconds: u64 },
    #[error("the PIN or token is wrong, expired or used up")]
    PinInvalid,
    #[error("this feature is switched off for this deployment")]
    FeatureDisabled,
    #[error("{0}")]
    ModuleFailed(Cow<'static, str>),
    #[error("the resource changed since the given If-Match")]
    PreconditionFailed,
    /// A refusal with its own code and the problems behind it (uploads: size, type, file count).
    #[error("{message}")]
    Rejected { code: ErrorCode, message: String, details: Vec<Problem> },
    #[error("internal error")]
    Internal(#[source] anyhow::Error),
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Validation { .. } => ErrorCode::ValidationFailed,
            Self::Unauthenticated(_) => ErrorCode::Unauthenticated,
            Self::Forbidden(_) => ErrorCode::Forbidden,
            Self::EntitlementExceeded(_) => ErrorCode::EntitlementLimitExceeded,
            Self::NotFound(_) => ErrorCode::NotFound,
            Self::Conflict(_) => ErrorCode::Conflict,
            Self::InvalidTransition(_) => ErrorCode::InvalidTransition,
            Self::LicenseRequired => ErrorCode::LicenseRequired,
            Self::LicenseInvalid(_) => ErrorCode::LicenseInvalid,
            Self::PayloadTooLarge(_) => ErrorCode::PayloadTooLarge,
            Self::UnsupportedMediaType(_) => ErrorCode::UnsupportedMediaType,
            Self::MaxFilesExceeded(_) => ErrorCode::MaxFilesExceeded,
            Self::MediaUnavailable { .. } => ErrorCode::MediaUnavailable,
            Self::RateLimited { .. } => ErrorCode::RateLimited,
            Self::PinInvalid => ErrorCode::PinInvalid,
            Self::FeatureDisabled => ErrorCode::FeatureDisabled,
            Self::ModuleFailed(_) => ErrorCode::ModuleFailed,
            Self::PreconditionFailed => ErrorCode::PreconditionFailed,
            Self::Rejected { code, .. } => *code,
            Self::Internal(_) => ErrorCode::Internal,
        }
    }

    /// One problem at one place.
    pub fn invalid(path: impl Into<String>, code: &str, message: impl Into<String>) -> Self {
        let mut problems = Problems::new();
        problems.push(path, code, message);
        problems.into()
    }

    /// A refusal with `code` listing `problems` (uploads: too large, wrong type, too many files).
    pub fn rejected(code: ErrorCode, problems: Problems) -> Self {
        let details = problems.into_vec();
        let message = match details.as_slice() {
            [only] => format!("{} {}", only.path, only.message),
            many => format!("{} files break a rule", many.len()),
        };
        Self::Rejected { code, message, details }
    }

    pub fn not_found(what: &'static str) -> Self {
        Self::NotFound(Cow::Owned(format!("{what} not found")))
    }

    pub fn unauthenticated() -> Self {
        Self::Unauthenticated(Cow::Borrowed("a valid session is required"))
    }

    pub fn internal(error: impl Into<anyhow::Error>) -> Self {
        Self::Internal(error.into())
    }
}

impl From<Problems> for ApiError {
    fn from(problems: Problems) -> Self {
        let details = problems.into_vec();
        let message = match details.as_slice() {
            [only] => format!("{} {}", display_path(&only.path), only.message),
            many => format!("the request breaks {} rules", many.len()),
        };
        Self::Validation { message, details }
    }
}

fn display_path(path: &str) -> &str {
    if path.is_empty() { "the body" } else { path }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::NotFound => Self::NotFound(Cow::Borrowed("not found")),
            StoreError::Conflict(_) => Self::Conflict(Cow::Borrowed("a resource with the same identity exists")),
            StoreError::Other(e) => Self::Internal(e),
        }
    }
}

/// Names what a store `Conflict` (a taken unique key, or a revision that moved on) means for the
/// request: `store_call().await.on_conflict("the handle is taken")`.
pub trait OnConflict<T> {
    fn on_conflict(self, message: &'static str) -> ApiResult<T>;
}

impl<T> OnConflict<T> for Result<T, StoreError> {
    fn on_conflict(self, message: &'static str) -> ApiResult<T> {
        self.map_err(|error| match error {
            StoreError::Conflict(_) => ApiError::Conflict(Cow::Borrowed(message)),
            other => other.into(),
        })
    }
}

impl From<anyhow::Error> for ApiError {
    fn from(error: anyhow::Error) -> Self {
        Self::Internal(error)
    }
}

/// The error object as sent; `request_id` is filled in by the rendering middleware.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    pub code: ErrorCode,
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

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let code = self.code();
        let mut response = code.status().into_response();
        let retry_after = match &self {
            Self::RateLimited { retry_after_seconds } | Self::MediaUnavailable { retry_after_seconds } => {
                Some(*retry_after_seconds)
            }
            _ => None,
        };
        if let Some(seconds) = retry_after {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds.max(1)));
        }
        let message = self.to_string();
        let details = match self {
            Self::Validation { details, .. } | Self::Rejected { details, .. } => Some(details),
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
    fn every_code_has_the_contract_numeric_and_status() {
        let table = [
            (ErrorCode::ValidationFailed, 800, 400),
            (ErrorCode::Unauthenticated, 801, 401),
            (ErrorCode::Forbidden, 802, 403),
            (ErrorCode::EntitlementLimitExceeded, 803, 403),
            (ErrorCode::NotFound, 804, 404),
            (ErrorCode::Conflict, 805, 409),
            (ErrorCode::InvalidTransition, 806, 409),
            (ErrorCode::LicenseRequired, 807, 401),
            (ErrorCode::LicenseInvalid, 808, 403),
            (ErrorCode::PayloadTooLarge, 809, 413),
            (ErrorCode::UnsupportedMediaType, 810, 415),
            (ErrorCode::MaxFilesExceeded, 811, 409),
            (ErrorCode::MediaUnavailable, 812, 503),
            (ErrorCode::RateLimited, 813, 429),
            (ErrorCode::PinInvalid, 814, 400),
            (ErrorCode::FeatureDisabled, 815, 404),
            (ErrorCode::ModuleFailed, 816, 502),
            (ErrorCode::PreconditionFailed, 817, 412),
            (ErrorCode::Internal, 899, 500),
        ];
        for (code, numeric, status) in table {
            assert_eq!(code.numeric(), numeric, "{code:?}");
            assert_eq!(code.status().as_u16(), status, "{code:?}");
        }
        assert_eq!(serde_json::to_value(ErrorCode::EntitlementLimitExceeded).unwrap(), "ENTITLEMENT_LIMIT_EXCEEDED");
    }

    #[test]
    fn internal_errors_keep_their_cause_out_of_the_message() {
        let response = ApiError::internal(anyhow::anyhow!("select * from secret_table")).into_response();
        let body = response.extensions().get::<ErrorBody>().unwrap();
        assert_eq!(body.message, "internal error");
        assert!(response.extensions().get::<InternalCause>().unwrap().0.contains("secret_table"));
    }
}
