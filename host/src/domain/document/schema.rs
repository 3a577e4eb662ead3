//! What the JSON Schema of every configuration document shares: the draft, `version`, `id`, `controls`
//! and `translations` at the top, and the `$defs` of UUIDs, `$.` references, the translations and the
//! language bundle with its `details`. Each document adds its own properties, bundle texts and `$defs`.

use serde_json::{Map, Value, json};

use super::translations::translations_schema;

/// One document's own parts of its schema.
pub(crate) struct DocumentSchema<'a> {
    pub title: &'a str,
    pub description: &'a str,
    /// Required at the top besides `version` and `translations`.
    pub required: &'a [&'a str],
    /// Top-level properties besides `version`, `id`, `controls` and `translations`.
    pub properties: Map<String, Value>,
    /// The language bundle's text groups besides `details`.
    pub bundle: Map<String, Value>,
    /// `$defs` besides `uuid`, `ref`, `translations` and `bundle`.
    pub defs: Map<String, Value>,
    /// How the document's UUIDs are described.
    pub uuid: &'a str,
    /// How the document's `$.` references are described.
    pub reference: &'a str,
}

/// The whole schema: the shared parts with `parts` added.
pub(crate) fn document_schema(parts: DocumentSchema<'_>) -> Value {
    let mut required = vec!["version", "translations"];
    required.extend(parts.required);
    let mut properties = Map::new();
    properties.insert(
        "version".into(),
        json!({"type": "string", "description": "Semver with major 1; 1.0.0 is current.", "examples": ["1.0.0"]}),
    );
    properties.insert("id".into(), json!({"$ref": "#/$defs/uuid"}));
    properties.insert("controls".into(), flags(&["enableLogging"]));
    properties.insert("translations".into(), json!({"$ref": "#/$defs/translations"}));
    properties.extend(parts.properties);
    let mut bundle = Map::new();
    bundle.insert("details".into(), json!({"type": "object", "properties": texts(&["title", "description"])}));
    bundle.extend(parts.bundle);
    let mut defs = Map::new();
    defs.insert("uuid".into(), json!({"type": "string", "format": "uuid", "description": parts.uuid}));
    defs.insert("ref".into(), json!({"type": "string", "description": parts.reference}));
    defs.insert("translations".into(), translations_schema());
    defs.insert(
        "bundle".into(),
        json!({
            "type": "object",
            "description": "One language's texts; partial bundles fall back to the default language.",
            "properties": bundle
        }),
    );
    defs.extend(parts.defs);
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": parts.title,
        "description": parts.description,
        "type": "object",
        "required": required,
        "properties": properties,
        "$defs": defs
    })
}

/// An object of string properties with these names.
pub(crate) fn texts(names: &[&str]) -> Map<String, Value> {
    names.iter().map(|name| ((*name).to_owned(), json!({"type": "string"}))).collect()
}

/// An object of boolean flags with these names, each `false` unless set.
pub(crate) fn flags(names: &[&str]) -> Value {
    let properties: Map<String, Value> =
        names.iter().map(|name| ((*name).to_owned(), json!({"type": "boolean", "default": false}))).collect();
    json!({"type": "object", "properties": properties})
}

/// A JSON object literal as a map (for the parts above).
pub(crate) fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}
