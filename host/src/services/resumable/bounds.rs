//! What unused resumable uploads may hold (Security III, finding 7): they reserve room outside
//! every plan quota until used, ended or expired, so they are bounded per user, per license key
//! (or gateway subscriber) and on the whole server, by the `media.max_open_*` settings.

use std::borrow::Cow;

use crate::config::media::MediaConfig;
use crate::error::Error;
use crate::store::{OpenUploadBounds, OpenUploadRefusal};

/// `Retry-After` of a refusal at the open-upload bounds: room comes back when an upload is
/// finished or ended, which the server cannot foresee.
const OPEN_UPLOADS_RETRY_AFTER: u64 = 60;

pub(super) fn from_config(config: &MediaConfig) -> OpenUploadBounds {
    let bound = |value: u64| i64::try_from(value).unwrap_or(i64::MAX);
    OpenUploadBounds {
        per_user: bound(config.max_open_uploads_per_user),
        bytes_per_user: bound(config.max_open_upload_bytes_per_user),
        bytes_per_subject: bound(config.max_open_upload_bytes_per_license),
        bytes_in_all: bound(config.max_open_upload_bytes),
    }
}

/// The answer to a creation refused at a bound: 429 for the caller's own bounds (their user or
/// key holds too much), 503 when the server as a whole holds as much as it may.
pub(super) fn refused(refusal: OpenUploadRefusal, bounds: &OpenUploadBounds) -> Error {
    let message = match refusal {
        OpenUploadRefusal::UserCount(held) => {
            format!("you hold {held} unused uploads, the most media.max_open_uploads_per_user allows")
        }
        OpenUploadRefusal::UserBytes => format!(
            "your unused uploads would pass media.max_open_upload_bytes_per_user ({} bytes)",
            bounds.bytes_per_user
        ),
        OpenUploadRefusal::SubjectBytes => format!(
            "the unused uploads made with this license key would pass media.max_open_upload_bytes_per_license ({} bytes)",
            bounds.bytes_per_subject
        ),
        OpenUploadRefusal::AllBytes => {
            return Error::ServiceUnavailable { retry_after_seconds: OPEN_UPLOADS_RETRY_AFTER };
        }
    };
    Error::AtBound { retry_after_seconds: OPEN_UPLOADS_RETRY_AFTER, message: Cow::Owned(message) }
}
