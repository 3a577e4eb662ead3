//! Two rules every request obeys, written once into the document rather than on each type:
//! - a request body object takes no member it does not document (each handler names an unknown
//!   member `UNKNOWN_FIELD`), so its schemas get `additionalProperties: false`;
//! - no text in a request holds a NUL character (PostgreSQL text cannot store one, and no id, name
//!   or parameter of this service has one), so its strings and free-form keys get a pattern saying so.
//!
//! The configuration documents' own JSON Schemas (and their definitions) are published as they are checked
//! and left alone.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

/// Any text without NUL.
pub const NO_NUL: &str = "^[^\\u0000]*$";

/// The schema of free-form JSON in a request (module configuration, form answers): any JSON
/// whose strings and keys hold no NUL, at any depth.
pub(super) const JSON_VALUE: &str = "JsonValue";

/// Free JSON, said in words rather than as a recursive `anyOf`: client generators cannot type a recursive
/// union (openapi-python-client drops the operations that use one), and the server names a NUL
/// at its pointer all the same.
fn json_value_schema() -> Value {
    json!({ "description": "Any JSON value; no string or key holds a NUL character." })
}

pub fn complete(document: &mut Value) {
    let mut names = BTreeSet::new();
    if let Some(paths) = document.get("paths").and_then(Value::as_object) {
        for item in paths.values().filter_map(Value::as_object) {
            for operation in item.values().filter_map(Value::as_object) {
                if let Some(body) = operation.get("requestBody") {
                    referenced(body, &mut names);
                }
            }
        }
    }
    let names = closure(document.pointer("/components/schemas").unwrap_or(&Value::Null), names);
    if let Some(schemas) = document.pointer_mut("/components/schemas").and_then(Value::as_object_mut) {
        schemas.insert(JSON_VALUE.into(), json_value_schema());
        for name in names.iter().filter(|name| !super::is_configuration_document(name)) {
            if let Some(schema) = schemas.get_mut(name) {
                tighten(schema);
            }
        }
    }
    let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) else { return };
    for item in paths.values_mut().filter_map(Value::as_object_mut) {
        for operation in item.values_mut().filter_map(Value::as_object_mut) {
            if let Some(content) = operation.get_mut("requestBody").and_then(|b| b.get_mut("content")) {
                for media in content.as_object_mut().into_iter().flat_map(|c| c.values_mut()) {
                    if let Some(schema) = media.get_mut("schema") {
                        tighten(schema);
                    }
                }
            }
            for parameter in operation.get_mut("parameters").and_then(Value::as_array_mut).into_iter().flatten() {
                if parameter.get("in").and_then(Value::as_str) == Some("query")
                    && let Some(schema) = parameter.get_mut("schema")
                {
                    tighten(schema);
                }
            }
        }
    }
}

/// `names` and every schema they refer to, at any depth (`schemas` is `components.schemas`).
pub(super) fn closure(schemas: &Value, names: BTreeSet<String>) -> BTreeSet<String> {
    let mut all = names.clone();
    let mut pending: Vec<String> = names.into_iter().collect();
    while let Some(name) = pending.pop() {
        let mut inner = BTreeSet::new();
        if let Some(schema) = schemas.get(&name) {
            referenced(schema, &mut inner);
        }
        pending.extend(inner.into_iter().filter(|found| all.insert(found.clone())));
    }
    all
}

/// The component names `value` refers to (`#/components/schemas/<name>`), at any depth.
pub(super) fn referenced(value: &Value, names: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            if let Some(name) =
                map.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                names.insert(name.to_owned());
            }
            map.values().for_each(|v| referenced(v, names));
        }
        Value::Array(items) => items.iter().for_each(|v| referenced(v, names)),
        _ => {}
    }
}

pub(super) fn is_type(schema: &Map<String, Value>, name: &str) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == name,
        Some(Value::Array(types)) => types.iter().any(|t| t == name),
        _ => false,
    }
}

/// Applies both rules to `schema` and everything it holds inline.
fn tighten(schema: &mut Value) {
    let Some(map) = schema.as_object_mut() else { return };
    if map.contains_key("$ref") {
        return;
    }
    if is_type(map, "string") && !["pattern", "enum", "const", "format"].iter().any(|k| map.contains_key(*k)) {
        map.insert("pattern".into(), json!(NO_NUL));
    }
    if is_type(map, "object") {
        if map.contains_key("properties") {
            map.entry("additionalProperties").or_insert(json!(false));
        } else if !matches!(map.get("additionalProperties"), Some(Value::Bool(false))) {
            // A free-form map: its keys are text too, and its values any NUL-free JSON unless typed.
            map.entry("propertyNames").or_insert(json!({ "pattern": NO_NUL }));
            let untyped = match map.get("additionalProperties") {
                None | Some(Value::Bool(true)) => true,
                Some(Value::Object(schema)) => schema.is_empty(),
                _ => false,
            };
            if untyped {
                map.insert(
                    "additionalProperties".into(),
                    json!({ "$ref": format!("#/components/schemas/{JSON_VALUE}") }),
                );
                return;
            }
        }
    }
    for key in ["properties", "patternProperties", "$defs"] {
        if let Some(children) = map.get_mut(key).and_then(Value::as_object_mut) {
            children.values_mut().for_each(tighten);
        }
    }
    for key in ["items", "additionalProperties", "not", "propertyNames"] {
        if let Some(child) = map.get_mut(key) {
            tighten(child);
        }
    }
    for key in ["allOf", "anyOf", "oneOf", "prefixItems"] {
        if let Some(children) = map.get_mut(key).and_then(Value::as_array_mut) {
            children.iter_mut().for_each(tighten);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_bodies_and_what_they_hold_refuse_unknown_members_and_nul() {
        let mut document = json!({
            "components": { "schemas": {
                "NewThing": { "type": "object", "properties": {
                    "name": { "type": "string" },
                    "inner": { "$ref": "#/components/schemas/Inner" },
                    "state": { "type": "string", "enum": ["A"] },
                    "fields": { "type": "object", "additionalProperties": {} }
                } },
                "Inner": { "type": "object", "properties": { "x": { "type": ["string", "null"] } } },
                "FormConfigurationDocument": { "type": "object", "properties": {} },
                "AnswerOnly": { "type": "object", "properties": {} }
            } },
            "paths": { "/v0/things": { "post": {
                "parameters": [{ "in": "query", "name": "q", "schema": { "type": "string" } }],
                "requestBody": { "content": { "application/json": { "schema": {
                    "allOf": [{ "$ref": "#/components/schemas/NewThing" }, { "$ref": "#/components/schemas/FormConfigurationDocument" }]
                } } } }
            } } }
        });
        complete(&mut document);
        let schemas = &document["components"]["schemas"];
        assert_eq!(schemas["NewThing"]["additionalProperties"], false);
        assert_eq!(schemas["NewThing"]["properties"]["name"]["pattern"], NO_NUL);
        assert!(schemas["NewThing"]["properties"]["state"].get("pattern").is_none());
        assert_eq!(schemas["NewThing"]["properties"]["fields"]["propertyNames"]["pattern"], NO_NUL);
        assert_eq!(
            schemas["NewThing"]["properties"]["fields"]["additionalProperties"]["$ref"],
            "#/components/schemas/JsonValue"
        );
        assert!(schemas["JsonValue"]["description"].is_string());
        assert_eq!(schemas["Inner"]["additionalProperties"], false);
        assert_eq!(schemas["Inner"]["properties"]["x"]["pattern"], NO_NUL);
        assert!(schemas["FormConfigurationDocument"].get("additionalProperties").is_none());
        assert!(schemas["AnswerOnly"].get("additionalProperties").is_none());
        assert_eq!(document["paths"]["/v0/things"]["post"]["parameters"][0]["schema"]["pattern"], NO_NUL);
    }
}
