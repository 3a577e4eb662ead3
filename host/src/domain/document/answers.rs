//! Reading one sent answer, the same way wherever answers are sent (instance bodies and item
//! PATCHes): what counts as missing, what an answer's text is, and what a file field takes.
//! What a field's rules make of the text is the field's own business (`forms::Field`).

use serde_json::Value;

use super::codes;
use super::report::Report;

/// `""`, `null` and no answer at all are the same: nothing answered.
pub(crate) fn is_missing(answer: Option<&Value>) -> bool {
    match answer {
        None | Some(Value::Null) => true,
        Some(Value::String(text)) => text.is_empty(),
        Some(_) => false,
    }
}

/// The text of a non-file answer: a string, or `""` for `null`. Any other JSON type is reported
/// at `path`.
pub(crate) fn answer_text<'v>(value: &'v Value, path: &str, report: &mut Report) -> Option<&'v str> {
    match value {
        Value::Null => Some(""),
        Value::String(text) => Some(text.as_str()),
        _ => {
            report.push(path, codes::INVALID_TYPE, "must be a string");
            None
        }
    }
}

/// A file field's answer holds no files (they are uploaded through the media routes), so it must
/// be `[]`; anything else is reported at `path`.
pub(crate) fn check_file_answer(value: &Value, path: &str, report: &mut Report) {
    if !value.as_array().is_some_and(Vec::is_empty) {
        report.push(
            path,
            codes::INVALID_VALUE,
            "file fields are sent as an empty array; files are uploaded through the media routes",
        );
    }
}
