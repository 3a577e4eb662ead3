//! The conditional-request headers (conventions section 1) written into the operations that honour
//! them: reads of one resource answer a strong `ETag` and 304 to a matching `If-None-Match`; updates
//! of one resource take `If-Match` and answer 412 when it is stale. One list, so the document and
//! `http::conditional` cannot drift apart route by route.

use serde_json::{Value, json};

/// Reads of one resource: each answers an `ETag` (and 304 to `If-None-Match`). Those with an update
/// route name a revision; the others are tagged by their bytes (`http::conditional`).
pub const READS: [&str; 13] = [
    "/v0/forms/configurations/{configurationId}",
    "/v0/forms/{formId}",
    "/v0/workflows/configurations/{configurationId}",
    "/v0/workflows/configurations/{configurationId}/permissions",
    "/v0/workflows/items/{itemId}",
    "/v0/spaces/{spaceId}/settings/general",
    "/v0/spaces/{spaceId}/settings/marketplace",
    "/v0/spaces/{spaceId}/assets/{assetId}",
    "/v0/spaces/{spaceId}/modules",
    "/v0/channels/{channelId}",
    "/v0/messages/threads/{threadId}/messages/{messageId}",
    "/v0/users/me",
    "/v0/marketplace/listings/{spaceId}",
];

/// Updates that take `If-Match`, as (method, path); they answer the new `ETag`.
pub const UPDATES: [(&str, &str); 11] = [
    ("put", "/v0/forms/configurations/{configurationId}"),
    ("patch", "/v0/forms/{formId}"),
    ("put", "/v0/workflows/configurations/{configurationId}"),
    ("patch", "/v0/workflows/items/{itemId}"),
    ("post", "/v0/workflows/items/{itemId}/transitions"),
    ("patch", "/v0/spaces/{spaceId}/settings/general"),
    ("put", "/v0/spaces/{spaceId}/settings/marketplace"),
    ("patch", "/v0/users/me"),
    ("put", "/v0/spaces/{spaceId}/modules"),
    ("put", "/v0/channels/{channelId}/spaces"),
    ("put", "/v0/workflows/configurations/{configurationId}/permissions"),
];

pub fn complete(document: &mut Value) {
    let components = document.pointer_mut("/components/responses").and_then(Value::as_object_mut);
    components.expect("shared responses exist").insert("PreconditionFailed".into(), precondition_failed());
    for path in READS {
        let operation = operation(document, "get", path);
        parameter(operation, "If-None-Match", "An `ETag` this read gave before: 304 with no body while it is current");
        etag_on_success(operation);
        operation["responses"]["304"] = json!({
            "description": "Not Modified: `If-None-Match` names the current `ETag`; no body",
            "headers": { "ETag": etag_header() },
        });
    }
    for (method, path) in UPDATES {
        let operation = operation(document, method, path);
        parameter(
            operation,
            "If-Match",
            "The `ETag` of the state this change was made from: 412 when the resource changed since. A weak \
             tag (`W/`) never matches; `*` matches any state",
        );
        etag_on_success(operation);
        operation["responses"]["412"] = json!({ "$ref": "#/components/responses/PreconditionFailed" });
    }
}

fn operation<'a>(document: &'a mut Value, method: &str, path: &str) -> &'a mut Value {
    super::operation_mut(document, method, path, "conditional")
}

fn parameter(operation: &mut Value, name: &str, description: &str) {
    let parameters = operation.as_object_mut().expect("an operation").entry("parameters").or_insert_with(|| json!([]));
    let parameters = parameters.as_array_mut().expect("a parameter list");
    if !parameters.iter().any(|p| p["name"] == name && p["in"] == "header") {
        parameters.push(json!({
            "name": name, "in": "header", "required": false, "description": description,
            "schema": { "type": "string" },
        }));
    }
}

fn etag_on_success(operation: &mut Value) {
    if let Some(ok) = operation.pointer_mut("/responses/200").and_then(Value::as_object_mut) {
        let headers = ok.entry("headers").or_insert_with(|| json!({}));
        headers["ETag"] = etag_header();
    }
}

fn etag_header() -> Value {
    json!({ "description": "The strong entity tag of the state shown", "schema": { "type": "string" } })
}

fn precondition_failed() -> Value {
    json!({
        "description": "PRECONDITION_FAILED: `If-Match` names no current state of the resource (it changed since, or the tag is weak)",
        "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ErrorEnvelope" } } },
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn conditional_routes_carry_their_headers_in_the_document() {
        let document = super::super::DOCUMENT.clone();
        let get = &document["paths"]["/v0/forms/{formId}"]["get"];
        assert!(get["responses"]["200"]["headers"]["ETag"].is_object(), "{get}");
        assert!(get["responses"]["304"].is_object());
        assert!(get["parameters"].as_array().unwrap().iter().any(|p| p["name"] == "If-None-Match"));
        let patch = &document["paths"]["/v0/forms/{formId}"]["patch"];
        assert!(patch["parameters"].as_array().unwrap().iter().any(|p| p["name"] == "If-Match"));
        assert_eq!(patch["responses"]["412"]["$ref"], "#/components/responses/PreconditionFailed");
    }
}
