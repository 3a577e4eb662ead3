//! The error answers every route can give, added to each operation of the document where its
//! annotation did not already describe them: a client (or a fuzzer) must find every status it can
//! meet documented, with the envelope's schema, without each handler repeating the same list.

use serde_json::{Map, Value, json};

/// The operations' HTTP methods, as OpenAPI names them.
const METHODS: [&str; 8] = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/// Adds the shared error responses to `components.responses` and refers to them from every
/// operation that can give them.
pub fn complete(document: &mut Value) {
    let components = document.pointer_mut("/components").and_then(Value::as_object_mut).expect("components exist");
    components.insert("responses".into(), shared_responses());
    let Some(paths) = document.pointer_mut("/paths").and_then(Value::as_object_mut) else { return };
    let mut used = std::collections::BTreeSet::new();
    for (path, item) in paths.iter_mut() {
        let Some(item) = item.as_object_mut() else { continue };
        let path_parameters = item.get("parameters").and_then(Value::as_array).is_some_and(|p| !p.is_empty());
        for method in METHODS {
            if let Some(operation) = item.get_mut(method).and_then(Value::as_object_mut) {
                complete_operation(path, method, operation, path_parameters);
                retry_after_on_own(operation);
                if method == "get" && path.starts_with("/v0/media/") {
                    bytes_of_downloads(operation);
                }
                used.extend(shared_names(operation));
            }
        }
    }
    // A shared answer every operation describes in its own words is left out.
    if let Some(shared) = document.pointer_mut("/components/responses").and_then(Value::as_object_mut) {
        shared.retain(|name, _| used.contains(name));
    }
}

/// The shared responses an operation refers to.
fn shared_names(operation: &Map<String, Value>) -> Vec<String> {
    let responses = operation.get("responses").and_then(Value::as_object).into_iter().flat_map(|r| r.values());
    responses
        .filter_map(|response| response.get("$ref").and_then(Value::as_str))
        .filter_map(|reference| reference.strip_prefix("#/components/responses/"))
        .map(str::to_owned)
        .collect()
}

fn complete_operation(path: &str, method: &str, operation: &mut Map<String, Value>, path_parameters: bool) {
    let Some(route) = path.strip_prefix("/v0/") else { return };
    if route == "openapi.json" {
        return;
    }
    let takes_input = path_parameters
        || operation.get("parameters").and_then(Value::as_array).is_some_and(|p| !p.is_empty())
        || operation.contains_key("requestBody");
    let has_body = operation.contains_key("requestBody");
    let rate_limited = route.starts_with("auth/") || (method == "post" && route.ends_with("/comments"));
    let responses = operation.entry("responses").or_insert_with(|| json!({}));
    let Some(responses) = responses.as_object_mut() else { return };
    let mut add = |status: &str, name: &str| {
        responses.entry(status).or_insert_with(|| json!({ "$ref": format!("#/components/responses/{name}") }));
    };
    if takes_input {
        add("400", "ValidationFailed");
    }
    add("401", "Unauthenticated");
    add("403", "Forbidden");
    if path.contains('{') {
        add("404", "NotFound");
    }
    if has_body {
        add("413", "PayloadTooLarge");
        add("415", "UnsupportedMediaType");
    }
    if rate_limited {
        add("429", "RateLimited");
    }
    add("500", "Internal");
    add("503", "Unavailable");
}

/// An operation's own 429 or 503 carries `Retry-After` as the shared ones do (conventions 2), on
/// every route: the error rendering sends it with each.
fn retry_after_on_own(operation: &mut Map<String, Value>) {
    let Some(responses) = operation.get_mut("responses").and_then(Value::as_object_mut) else { return };
    for status in ["429", "503"] {
        if let Some(own) = responses.get_mut(status).filter(|r| r.get("$ref").is_none()) {
            let headers = own.as_object_mut().expect("a response").entry("headers").or_insert_with(|| json!({}));
            if headers.get("Retry-After").is_none() {
                headers["Retry-After"] = retry_after();
            }
        }
    }
}

/// A download's 200 and 206 carry the file's bytes, of the type the file was stored with: any
/// media type, as binary (generators then hand the caller bytes or a blob, not parsed JSON).
fn bytes_of_downloads(operation: &mut Map<String, Value>) {
    let Some(responses) = operation.get_mut("responses").and_then(Value::as_object_mut) else { return };
    for status in ["200", "206"] {
        if let Some(response) = responses.get_mut(status).and_then(Value::as_object_mut) {
            response
                .entry("content")
                .or_insert_with(|| json!({ "*/*": { "schema": { "type": "string", "format": "binary" } } }));
        }
    }
}

fn envelope(description: &str) -> Value {
    json!({
        "description": description,
        "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ErrorEnvelope" } } },
    })
}

fn with_retry_after(mut response: Value) -> Value {
    response["headers"] = json!({ "Retry-After": retry_after() });
    response
}

fn retry_after() -> Value {
    json!({ "description": "Seconds to wait before trying again", "schema": { "type": "integer", "minimum": 1 } })
}

fn shared_responses() -> Value {
    json!({
        "ValidationFailed": envelope(
            "VALIDATION_FAILED: the body, a parameter or the query breaks a rule; `details` lists every problem"),
        "Unauthenticated": envelope(
            "LICENSE_REQUIRED: no `X-License-Key`; or UNAUTHENTICATED: no, malformed, expired or revoked session"),
        "Forbidden": envelope(
            "LICENSE_INVALID: an unknown or revoked license key (or a wrong gateway secret); FORBIDDEN: signed in \
             but not allowed; or ENTITLEMENT_LIMIT_EXCEEDED: a daily quota of the plan is used up"),
        "NotFound": envelope(
            "NOT_FOUND: no such resource, or one the caller may not see; FEATURE_DISABLED: the route is switched \
             off in this deployment"),
        "PayloadTooLarge": envelope("PAYLOAD_TOO_LARGE: the body is over the deployment's limit"),
        "UnsupportedMediaType": envelope("UNSUPPORTED_MEDIA_TYPE: the body is not of a content type the route takes"),
        "RateLimited": with_retry_after(envelope("RATE_LIMITED: too many attempts; `Retry-After` says when to try again")),
        "Internal": envelope("INTERNAL: an unexpected failure; the body carries no detail of it, the log does"),
        "Unavailable": with_retry_after(envelope(
            "MEDIA_UNAVAILABLE: the media store is unavailable, or SERVICE_UNAVAILABLE: the database is, for a moment; `Retry-After` says when to try again")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_errors_are_added_where_an_operation_can_give_them_and_never_replace_its_own() {
        let mut document = json!({
            "components": { "schemas": {} },
            "paths": {
                "/v0/spaces/{spaceId}": {
                    "patch": { "requestBody": {}, "responses": { "403": { "description": "own" } } },
                    "post": { "responses": { "429": { "description": "own limit" } } }
                },
                "/v0/openapi.json": { "get": { "responses": {} } },
                "/healthz": { "get": { "responses": {} } }
            }
        });
        complete(&mut document);
        let patch = &document["paths"]["/v0/spaces/{spaceId}"]["patch"]["responses"];
        for status in ["400", "401", "404", "413", "415", "500", "503"] {
            assert!(patch[status]["$ref"].is_string(), "{status}: {patch}");
        }
        assert_eq!(patch["403"]["description"], "own");
        assert!(patch.get("429").is_none());
        let own = &document["paths"]["/v0/spaces/{spaceId}"]["post"]["responses"]["429"];
        assert!(own["headers"]["Retry-After"].is_object(), "{own}");
        assert_eq!(document["paths"]["/v0/openapi.json"]["get"]["responses"], json!({}));
        assert_eq!(document["paths"]["/healthz"]["get"]["responses"], json!({}));
        assert!(document["components"]["responses"]["Unavailable"]["headers"]["Retry-After"].is_object());
        // Shared answers no operation refers to are left out.
        assert!(document["components"]["responses"].get("RateLimited").is_none());
    }
}
