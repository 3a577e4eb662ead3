//! One example per error code on every error answer, each that code with its own number: a
//! client reading `/docs` (or a generator's fixtures) sees what a 409 of this route really says,
//! not one invented envelope for every status. An answer whose description names codes shows
//! those; otherwise every code of its status. An operation that needs the license key may also
//! answer its 401 with LICENSE_REQUIRED and its 403 with LICENSE_INVALID, so those show too.

use axum::http::StatusCode;
use serde_json::{Map, Value, json};

use crate::http::error::{ErrorCode, status_of};

const REQUEST_ID: &str = "5d1f9a0e-8c2b-4f7e-9a3d-6b4c2e1f0a97";

pub fn complete(document: &mut Value) {
    if let Some(shared) = document.pointer_mut("/components/responses").and_then(Value::as_object_mut) {
        for response in shared.values_mut() {
            // A shared answer serves several statuses of one kind; its codes are those it names.
            exemplify(response, None, false);
        }
    }
    // An operation without `security` of its own has the document's.
    let licensed_by_default = asks_license(document.get("security"));
    let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) else { return };
    for item in paths.values_mut().filter_map(Value::as_object_mut) {
        for operation in item.values_mut().filter_map(Value::as_object_mut) {
            let licensed = match operation.get("security") {
                Some(own) => asks_license(Some(own)),
                None => licensed_by_default,
            };
            let Some(responses) = operation.get_mut("responses").and_then(Value::as_object_mut) else { continue };
            for (status, response) in responses.iter_mut() {
                let status = status.parse::<u16>().ok().and_then(|s| StatusCode::from_u16(s).ok());
                if status.is_some_and(|s| s.as_u16() >= 400) {
                    exemplify(response, status, licensed);
                }
            }
        }
    }
}

/// Whether any of the security alternatives asks for the license key.
fn asks_license(security: Option<&Value>) -> bool {
    let alternatives = security.and_then(Value::as_array);
    alternatives.is_some_and(|all| all.iter().any(|alternative| alternative.get("license").is_some()))
}

/// Adds `examples` to an error answer carrying the envelope, unless it has its own. `licensed`: the
/// license key's own refusals of the answer's status are possible too.
fn exemplify(response: &mut Value, status: Option<StatusCode>, licensed: bool) {
    let description = response.get("description").and_then(Value::as_str).unwrap_or_default().to_owned();
    let Some(media) = response.pointer_mut("/content/application~1json").and_then(Value::as_object_mut) else {
        return;
    };
    let envelope = media.get("schema").and_then(|s| s.get("$ref")).and_then(Value::as_str)
        == Some("#/components/schemas/ErrorEnvelope");
    if !envelope || media.contains_key("example") || media.contains_key("examples") {
        return;
    }
    let named: Vec<ErrorCode> = ErrorCode::ALL
        .into_iter()
        .filter(|code| status.is_none_or(|s| status_of(*code) == s))
        .filter(|code| mentions(&description, &wire_name(*code)))
        .collect();
    let codes = match (named.is_empty(), status) {
        (false, Some(status)) if licensed => {
            let license = [ErrorCode::LicenseRequired, ErrorCode::LicenseInvalid];
            let extra: Vec<ErrorCode> =
                license.into_iter().filter(|code| status_of(*code) == status && !named.contains(code)).collect();
            named.into_iter().chain(extra).collect()
        }
        (false, _) => named,
        (true, Some(status)) => ErrorCode::ALL.into_iter().filter(|code| status_of(*code) == status).collect(),
        (true, None) => return,
    };
    let examples: Map<String, Value> =
        codes.into_iter().map(|code| (wire_name(code), json!({ "value": envelope_of(code) }))).collect();
    if !examples.is_empty() {
        media.insert("examples".into(), Value::Object(examples));
    }
}

/// Whether `text` names `code` as a word (`CONFLICT` is not named by `CONFLICTS`).
fn mentions(text: &str, code: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_uppercase() || c == '_')).any(|word| word == code)
}

fn wire_name(code: ErrorCode) -> String {
    match serde_json::to_value(code) {
        Ok(Value::String(name)) => name,
        _ => unreachable!("an error code serializes as its name"),
    }
}

fn envelope_of(code: ErrorCode) -> Value {
    let (message, details) = match code {
        ErrorCode::ValidationFailed => (
            "the request has 1 problem",
            Some(json!([{ "path": "/name", "code": "REQUIRED", "message": "name is required" }])),
        ),
        ErrorCode::Unauthenticated => ("sign in first: no session token was given", None),
        ErrorCode::Forbidden => ("only the space's owner may do this", None),
        ErrorCode::EntitlementLimitExceeded => ("the plan's daily quota messaging.perDay is used up", None),
        ErrorCode::NotFound => ("no such resource", None),
        ErrorCode::Conflict => ("the name is taken", None),
        ErrorCode::InvalidTransition => ("the item is not in a workbasket this transition leaves", None),
        ErrorCode::LicenseRequired => ("an X-License-Key header is required", None),
        ErrorCode::LicenseInvalid => ("the license key is unknown or revoked", None),
        ErrorCode::PayloadTooLarge => ("the body is over the limit of 10485760 bytes", None),
        ErrorCode::UnsupportedMediaType => ("the body must be application/json", None),
        ErrorCode::MaxFilesExceeded => ("the field takes at most 1 file", None),
        ErrorCode::MediaUnavailable => ("the media store is unavailable; try again shortly", None),
        ErrorCode::RateLimited => ("too many attempts; try again later", None),
        ErrorCode::PinInvalid => ("the PIN is wrong or expired", None),
        ErrorCode::FeatureDisabled => ("this feature is switched off in this deployment", None),
        ErrorCode::ModuleFailed => ("module \"tags\" failed to answer", None),
        ErrorCode::PreconditionFailed => ("the resource changed since the tag given in If-Match", None),
        ErrorCode::ServiceUnavailable => ("the database is unavailable for a moment; try again shortly", None),
        ErrorCode::MethodNotAllowed => ("this path does not take that method", None),
        ErrorCode::UploadExpired => ("the upload expired; start a new one", None),
        ErrorCode::Internal => ("an unexpected error; the request id names it in the server's log", None),
    };
    let mut error = json!({ "code": code, "numeric": code.numeric(), "message": message, "requestId": REQUEST_ID });
    if let Some(details) = details {
        error["details"] = details;
    }
    json!({ "error": error })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_error_answer_shows_the_codes_it_names_or_else_every_code_of_its_status() {
        let envelope = json!({ "application/json": { "schema": { "$ref": "#/components/schemas/ErrorEnvelope" } } });
        let mut document = json!({
            "components": { "responses": {
                "Unauthenticated": { "description": "LICENSE_REQUIRED: no key; or UNAUTHENTICATED: no session", "content": envelope }
            } },
            "paths": { "/v0/x": { "post": { "security": [{ "session": [], "license": [] }], "responses": {
                "401": { "description": "UNAUTHENTICATED", "content": envelope },
                "409": { "description": "CONFLICT: the name is taken", "content": envelope },
                "404": { "description": "gone", "content": envelope },
                "400": { "description": "own", "content": { "application/json": {
                    "schema": { "$ref": "#/components/schemas/ErrorEnvelope" }, "example": {} } } },
                "201": { "description": "made", "content": envelope }
            } } } }
        });
        complete(&mut document);
        let keys = |pointer: &str| -> Vec<String> {
            let mut keys: Vec<String> = document
                .pointer(pointer)
                .and_then(Value::as_object)
                .map(|m| m.keys().cloned().collect())
                .unwrap_or_default();
            keys.sort();
            keys
        };
        let media = "/content/application~1json/examples";
        assert_eq!(
            keys(&format!("/components/responses/Unauthenticated{media}")),
            ["LICENSE_REQUIRED", "UNAUTHENTICATED"]
        );
        assert_eq!(keys(&format!("/paths/~1v0~1x/post/responses/409{media}")), ["CONFLICT"]);
        assert_eq!(
            keys(&format!("/paths/~1v0~1x/post/responses/401{media}")),
            ["LICENSE_REQUIRED", "UNAUTHENTICATED"],
            "a licensed route may also miss its key"
        );
        assert_eq!(keys(&format!("/paths/~1v0~1x/post/responses/404{media}")), ["FEATURE_DISABLED", "NOT_FOUND"]);
        assert!(keys(&format!("/paths/~1v0~1x/post/responses/400{media}")).is_empty());
        assert!(keys(&format!("/paths/~1v0~1x/post/responses/201{media}")).is_empty());
        let conflict = &document.pointer(&format!("/paths/~1v0~1x/post/responses/409{media}/CONFLICT/value")).unwrap();
        assert_eq!(conflict["error"]["numeric"], 805);
    }
}
