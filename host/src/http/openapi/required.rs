//! Every member of an answer is sent, `null` when it has no value: the answers' types are
//! serialized as they are (no member is skipped when empty, save an error's `details`), so every
//! property of an answer's schema is `required`. Generators then type `nextCursor` as
//! `string | null`, not as "maybe absent". Schemas that requests use too keep their own list: a
//! request may leave out what has a default. For the same reason an answer's member has no
//! `default` (utoipa copies one from a type's `Default`, e.g. `""` for a state). A free-form object in
//! an answer (form answers, a payload) says it maps text to any JSON: generators read a bare
//! `type: object` as an object without members (openapi-typescript: `Record<string, never>`).

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::strict::{JSON_VALUE, closure, is_type, referenced};

/// Answer schemas with members that are left out when empty (a live event without an `id:` line).
const SKIPS_EMPTY: [&str; 2] = ["ErrorBody", "LiveEventData"];

pub fn complete(document: &mut Value) {
    let mut answers = BTreeSet::new();
    let mut requests = BTreeSet::new();
    for operation in operations(document) {
        if let Some(body) = operation.get("requestBody") {
            referenced(body, &mut requests);
        }
        for parameter in operation.get("parameters").and_then(Value::as_array).into_iter().flatten() {
            referenced(parameter, &mut requests);
        }
        if let Some(responses) = operation.get("responses") {
            referenced(responses, &mut answers);
        }
    }
    let schemas = document.pointer("/components/schemas").cloned().unwrap_or_else(|| json!({}));
    let answers = closure(&schemas, answers);
    let requests = closure(&schemas, requests);
    if let Some(schemas) = document.pointer_mut("/components/schemas").and_then(Value::as_object_mut) {
        for name in answers.difference(&requests) {
            if SKIPS_EMPTY.contains(&name.as_str()) || super::is_configuration_document(name) {
                continue;
            }
            if let Some(schema) = schemas.get_mut(name) {
                require_all(schema);
            }
        }
    }
    // Answers described inline, in the operation itself.
    let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) else { return };
    for item in paths.values_mut().filter_map(Value::as_object_mut) {
        for operation in item.values_mut().filter_map(Value::as_object_mut) {
            for response in operation.get_mut("responses").and_then(Value::as_object_mut).into_iter().flatten() {
                for media in response.1.get_mut("content").and_then(Value::as_object_mut).into_iter().flatten() {
                    if let Some(schema) = media.1.get_mut("schema") {
                        require_all(schema);
                    }
                }
            }
        }
    }
}

fn operations(document: &Value) -> impl Iterator<Item = &Value> {
    document
        .get("paths")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|paths| paths.values())
        .filter_map(Value::as_object)
        .flat_map(|item| item.values())
}

/// Makes every property of `schema` and of the objects it holds inline required, and their free-form
/// objects maps of any JSON.
fn require_all(schema: &mut Value) {
    let Some(map) = schema.as_object_mut() else { return };
    if map.contains_key("$ref") {
        return;
    }
    if is_type(map, "object") && !map.contains_key("properties") && !map.contains_key("additionalProperties") {
        map.insert("additionalProperties".into(), json!({ "$ref": format!("#/components/schemas/{JSON_VALUE}") }));
    }
    if let Some(properties) = map.get("properties").and_then(Value::as_object) {
        let names: Vec<Value> = properties.keys().cloned().map(Value::String).collect();
        map.insert("required".into(), Value::Array(names));
    }
    if let Some(properties) = map.get_mut("properties").and_then(Value::as_object_mut) {
        for property in properties.values_mut() {
            if let Some(property) = property.as_object_mut() {
                property.remove("default");
            }
            require_all(property);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = map.get_mut(key) {
            require_all(child);
        }
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(children) = map.get_mut(key).and_then(Value::as_array_mut) {
            children.iter_mut().for_each(require_all);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_member_of_an_answer_is_required_but_not_of_what_requests_share() {
        let mut document = json!({
            "components": { "schemas": {
                "Page": { "type": "object", "required": ["items"], "properties": {
                    "items": { "type": "array", "items": { "$ref": "#/components/schemas/Thing" } },
                    "nextCursor": { "type": ["string", "null"] } } },
                "Thing": { "type": "object", "properties": { "avatar": { "type": ["object", "null"], "default": null,
                    "properties": { "url": { "type": "string" } } }, "fields": { "type": "object" } } },
                "Shared": { "type": "object", "properties": { "note": { "type": "string" } } },
                "ErrorBody": { "type": "object", "required": ["code"], "properties": { "code": {}, "details": {} } }
            } },
            "paths": { "/v0/things": {
                "get": { "responses": { "200": { "content": { "application/json": {
                    "schema": { "$ref": "#/components/schemas/Page" } } } },
                    "400": { "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ErrorBody" } } } } } },
                "post": {
                    "requestBody": { "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Shared" } } } },
                    "responses": { "201": { "content": { "application/json": { "schema": { "type": "object", "properties": {
                        "shared": { "$ref": "#/components/schemas/Shared" }, "at": { "type": "string" } } } } } } } }
            } }
        });
        complete(&mut document);
        fn required(schema: &Value) -> Vec<&str> {
            let mut names: Vec<&str> =
                schema["required"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
            names.sort();
            names
        }
        let schemas = &document["components"]["schemas"];
        assert_eq!(required(&schemas["Page"]), ["items", "nextCursor"]);
        assert_eq!(required(&schemas["Thing"]), ["avatar", "fields"]);
        // A free-form object maps text to any JSON.
        assert_eq!(
            schemas["Thing"]["properties"]["fields"]["additionalProperties"],
            json!({ "$ref": "#/components/schemas/JsonValue" })
        );
        assert!(schemas["Thing"]["properties"]["avatar"].get("additionalProperties").is_none());
        assert_eq!(required(&schemas["Thing"]["properties"]["avatar"]), ["url"]);
        assert!(schemas["Thing"]["properties"]["avatar"].get("default").is_none());
        assert!(schemas["Shared"].get("required").is_none());
        assert_eq!(required(&schemas["ErrorBody"]), ["code"]);
        let inline =
            &document["paths"]["/v0/things"]["post"]["responses"]["201"]["content"]["application/json"]["schema"];
        assert_eq!(required(inline), ["at", "shared"]);
    }
}
