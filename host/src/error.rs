//! What a use case can fail with, in the contract's terms and free of any transport.
//!
//! Services and background workers return [`Error`]; only the HTTP edge (`http::error`) knows
//! statuses, headers and the envelope. Problem paths are relative to what the use case was given:
//! a JSON Pointer into a body it received (`/payload/state`), or the bare name of a parameter it
//! received (`fieldId`), which the edge turns into the wire location (`query.fieldId`).

use std::borrow::Cow;

use serde::Serialize;

use crate::domain::entitlement::Entitlement;
use crate::domain::precondition::{EntityTag, Precondition};
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
    /// The database cannot be reached for a moment (not in the conventions' table: their one 503,
    /// MEDIA_UNAVAILABLE, names the media store; this names the database the same way).
    ServiceUnavailable,
    /// A method the path does not take; the answer carries `Allow`.
    MethodNotAllowed,
    /// A resumable upload past its `Upload-Expires`.
    UploadExpired,
    Internal,
}

impl ErrorCode {
    /// Every code, in the order of the conventions' table.
    pub const ALL: [ErrorCode; 22] = [
        Self::ValidationFailed,
        Self::Unauthenticated,
        Self::Forbidden,
        Self::EntitlementLimitExceeded,
        Self::NotFound,
        Self::Conflict,
        Self::InvalidTransition,
        Self::LicenseRequired,
        Self::LicenseInvalid,
        Self::PayloadTooLarge,
        Self::UnsupportedMediaType,
        Self::MaxFilesExceeded,
        Self::MediaUnavailable,
        Self::RateLimited,
        Self::PinInvalid,
        Self::FeatureDisabled,
        Self::ModuleFailed,
        Self::PreconditionFailed,
        Self::ServiceUnavailable,
        Self::MethodNotAllowed,
        Self::UploadExpired,
        Self::Internal,
    ];

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
            Self::ServiceUnavailable => 818,
            Self::MethodNotAllowed => 819,
            Self::UploadExpired => 820,
            Self::Internal => 899,
        }
    }
}

/// What a request can fail with. Messages are for people; clients branch on the code.
#[derive(Debug, thiserror::Error)]
pub enum Error {
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
    #[error("the database is unavailable for a moment; try again")]
    ServiceUnavailable { retry_after_seconds: u64 },
    #[error("too many attempts; try again later")]
    RateLimited { retry_after_seconds: u64 },
    /// A request refused at one of the server's bounds (a module host's, a user's open uploads); the
    /// message names the setting.
    #[error("{message}")]
    AtBound { retry_after_seconds: u64, message: Cow<'static, str> },
    /// A conflict that ends once others have finished (a module call that kept losing races on a
    /// shared key): CONFLICT, with when to try again.
    #[error("{message}")]
    Contended { retry_after_seconds: u64, message: Cow<'static, str> },
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

/// What a client is told to wait while the database is away: a restart takes seconds.
pub const DATABASE_RETRY_AFTER_SECONDS: u64 = 2;

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Validation { .. } => ErrorCode::ValidationFailed,
            Self::Unauthenticated(_) => ErrorCode::Unauthenticated,
            Self::Forbidden(_) => ErrorCode::Forbidden,
            Self::EntitlementExceeded(_) => ErrorCode::EntitlementLimitExceeded,
            Self::NotFound(_) => ErrorCode::NotFound,
            Self::Conflict(_) | Self::Contended { .. } => ErrorCode::Conflict,
            Self::InvalidTransition(_) => ErrorCode::InvalidTransition,
            Self::LicenseRequired => ErrorCode::LicenseRequired,
            Self::LicenseInvalid(_) => ErrorCode::LicenseInvalid,
            Self::PayloadTooLarge(_) => ErrorCode::PayloadTooLarge,
            Self::UnsupportedMediaType(_) => ErrorCode::UnsupportedMediaType,
            Self::MaxFilesExceeded(_) => ErrorCode::MaxFilesExceeded,
            Self::MediaUnavailable { .. } => ErrorCode::MediaUnavailable,
            Self::ServiceUnavailable { .. } => ErrorCode::ServiceUnavailable,
            Self::RateLimited { .. } | Self::AtBound { .. } => ErrorCode::RateLimited,
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

impl From<Problems> for Error {
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

impl From<StoreError> for Error {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::NotFound => Self::NotFound(Cow::Borrowed("not found")),
            StoreError::Conflict(_) => Self::Conflict(Cow::Borrowed("a resource with the same identity exists")),
            StoreError::Unavailable(cause) => {
                tracing::warn!(%cause, "the database is unavailable");
                Self::ServiceUnavailable { retry_after_seconds: DATABASE_RETRY_AFTER_SECONDS }
            }
            StoreError::Other(e) => Self::Internal(e),
        }
    }
}

/// Names what a store `Conflict` (a taken unique key, or a revision that moved on) means for the
/// request: `store_call().await.on_conflict("the handle is taken")`.
pub trait OnConflict<T> {
    fn on_conflict(self, message: &'static str) -> Result<T>;
}

impl<T> OnConflict<T> for Result<T, StoreError> {
    fn on_conflict(self, message: &'static str) -> Result<T> {
        self.map_err(|error| match error {
            StoreError::Conflict(_) => Error::Conflict(Cow::Borrowed(message)),
            other => other.into(),
        })
    }
}

/// Checks an update's `If-Match` against the resource's current tag: 412 when it does not hold.
/// The write must then still name the state checked (a revision in its `WHERE`), so that a change
/// in between fails it; [`OnStale`] turns that failure into 412 for a request that asked.
pub fn check_precondition(precondition: &Precondition, current: &EntityTag) -> Result<()> {
    if precondition.admits(current) { Ok(()) } else { Err(Error::PreconditionFailed) }
}

/// A stale write (CONFLICT: the revision moved on after the check) is 412 PRECONDITION_FAILED for
/// a request that sent `If-Match`, as if its tag had been stale from the start.
pub trait OnStale<T> {
    fn on_stale(self, precondition: &Precondition) -> Result<T>;
}

impl<T> OnStale<T> for Result<T> {
    fn on_stale(self, precondition: &Precondition) -> Result<T> {
        self.map_err(|error| match error {
            Error::Conflict(_) if precondition.is_given() => Error::PreconditionFailed,
            other => other,
        })
    }
}

impl From<anyhow::Error> for Error {
    fn from(error: anyhow::Error) -> Self {
        Self::Internal(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_the_contract_numeric() {
        let table = [
            (ErrorCode::ValidationFailed, 800),
            (ErrorCode::Unauthenticated, 801),
            (ErrorCode::Forbidden, 802),
            (ErrorCode::EntitlementLimitExceeded, 803),
            (ErrorCode::NotFound, 804),
            (ErrorCode::Conflict, 805),
            (ErrorCode::InvalidTransition, 806),
            (ErrorCode::LicenseRequired, 807),
            (ErrorCode::LicenseInvalid, 808),
            (ErrorCode::PayloadTooLarge, 809),
            (ErrorCode::UnsupportedMediaType, 810),
            (ErrorCode::MaxFilesExceeded, 811),
            (ErrorCode::MediaUnavailable, 812),
            (ErrorCode::RateLimited, 813),
            (ErrorCode::PinInvalid, 814),
            (ErrorCode::FeatureDisabled, 815),
            (ErrorCode::ModuleFailed, 816),
            (ErrorCode::PreconditionFailed, 817),
            (ErrorCode::ServiceUnavailable, 818),
            (ErrorCode::MethodNotAllowed, 819),
            (ErrorCode::Internal, 899),
        ];
        for (code, numeric) in table {
            assert_eq!(code.numeric(), numeric, "{code:?}");
        }
        assert_eq!(serde_json::to_value(ErrorCode::EntitlementLimitExceeded).unwrap(), "ENTITLEMENT_LIMIT_EXCEEDED");
    }
}
