//! Checking a document against its JSON Schema and turning each schema error into a problem with
//! a stable code, so both documents map the same kind of error to the same code.

use jsonschema::error::ValidationErrorKind;
use jsonschema::{Draft, ValidationError, Validator};
use serde_json::Value;

use super::codes;
use super::report::{Report, join};

/// Compiles a published document schema (draft 2020-12). `format` is not checked by the schema:
/// the rules check ids themselves, with a finer code.
pub(crate) fn compile_schema(schema: &Value) -> Validator {
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .should_validate_formats(false)
        .build(schema)
        .expect("a document schema compiles")
}

/// Reports one schema error under `base`, with the code its kind maps to.
pub(crate) fn push_schema_error(error: &ValidationError<'_>, base: &str, report: &mut Report) {
    let path = format!("{base}{}", error.instance_path().as_str());
    let message = error.masked_with("value").to_string();
    match error.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            report.push(join(&path, name), codes::REQUIRED, "is required");
        }
        ValidationErrorKind::Type { .. } | ValidationErrorKind::AnyOf { .. } => {
            report.push(path, codes::INVALID_TYPE, message);
        }
        ValidationErrorKind::Minimum { .. }
        | ValidationErrorKind::Maximum { .. }
        | ValidationErrorKind::ExclusiveMinimum { .. }
        | ValidationErrorKind::ExclusiveMaximum { .. } => report.push(path, codes::INVALID_RANGE, message),
        _ => report.push(path, codes::INVALID_VALUE, message),
    }
}
