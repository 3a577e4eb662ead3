//! The `{payload: {...}}` envelope of instance and item bodies, opened the same way for both:
//! size first, then the object itself, before any rule looks inside.

use serde_json::{Map, Value};

use super::PAYLOAD_PATH;
use super::codes;
use super::limits::{PAYLOAD_BOUNDS, check_size};
use super::report::Report;

/// The `payload` object of `body`, or `None` once the reason is in `report`: a body over the
/// payload bounds (nothing else is checked then), or a `payload` that is missing or no object.
pub(crate) fn open_payload<'b>(body: &'b Value, report: &mut Report) -> Option<&'b Map<String, Value>> {
    if let Err(exceeded) = check_size(body, "", &PAYLOAD_BOUNDS) {
        report.push(exceeded.path, codes::TOO_LARGE, exceeded.message);
        return None;
    }
    match body.get("payload") {
        Some(Value::Object(payload)) => Some(payload),
        Some(_) => {
            report.push(PAYLOAD_PATH, codes::INVALID_TYPE, "must be an object");
            None
        }
        None => {
            report.push(PAYLOAD_PATH, codes::REQUIRED, "is required");
            None
        }
    }
}
