//! The settings as a JSON Schema, generated from the configuration types and their doc comments:
//! which keys exist, their types and meanings. The layers are checked against it before they are
//! read, and `trellis config defaults` is written from it.

use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::Config;

/// The schema of [`Config`], every table inlined.
pub fn settings() -> Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            let generator = schemars::generate::SchemaSettings::draft2020_12()
                .with(|settings| settings.inline_subschemas = true)
                .into_generator();
            generator.into_root_schema_for::<Config>().to_value()
        })
        .clone()
}

/// A schema that takes anything (free JSON such as a module's configuration).
static ANY: Value = Value::Bool(true);

/// One place in the schema.
#[derive(Clone, Copy)]
pub struct Node<'a>(&'a Value);

impl<'a> Node<'a> {
    pub fn new(schema: &'a Value) -> Self {
        Self(schema).variant()
    }

    /// An optional value's schema is "this or null": the "this".
    fn variant(self) -> Self {
        for keyword in ["anyOf", "oneOf"] {
            if let Some(Value::Array(variants)) = self.0.get(keyword)
                && let Some(variant) = variants.iter().find(|v| v.get("type").and_then(Value::as_str) != Some("null"))
            {
                return Node(variant).variant();
            }
        }
        self
    }

    /// The meaning of `key` in this table: its doc comment.
    pub fn description_of(self, key: &str) -> Option<&'a str> {
        let schema = self.properties()?.get(key)?;
        let own = |schema: &'a Value| schema.get("description").and_then(Value::as_str);
        own(schema).or_else(|| own(Node::new(schema).0))
    }

    /// A table with named keys (a configuration struct), not an open map.
    pub fn properties(self) -> Option<&'a Map<String, Value>> {
        self.0.get("properties").and_then(Value::as_object)
    }

    /// The schema of `key` inside this table and the key's own spelling, or `None` when the table
    /// has no such key (or this is no table). Environment variables arrive upper-cased, so they
    /// match case-insensitively.
    pub fn child(self, key: &str, any_case: bool) -> Option<(String, Node<'a>)> {
        if self.0 == &Value::Bool(true) || self.0.as_object().is_some_and(Map::is_empty) {
            return Some((key.to_owned(), Node(&ANY)));
        }
        if let Some(properties) = self.properties() {
            let found =
                properties.iter().find(|(name, _)| *name == key || (any_case && name.eq_ignore_ascii_case(key)));
            if let Some((name, schema)) = found {
                return Some((name.clone(), Node::new(schema)));
            }
        }
        match self.0.get("additionalProperties") {
            Some(Value::Bool(false)) => None,
            Some(schema @ Value::Object(_)) => Some((key.to_owned(), Node::new(schema))),
            Some(_) => Some((key.to_owned(), Node(&ANY))),
            None if self.types().contains(&"object") => Some((key.to_owned(), Node(&ANY))),
            None => None,
        }
    }

    fn items(self) -> Node<'a> {
        self.0.get("items").map_or(Node(&ANY), Node::new)
    }

    /// The JSON types this place takes.
    fn types(self) -> Vec<&'a str> {
        match self.0.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        }
    }

    /// Collects the paths of keys in `value` that the schema does not know.
    pub fn unknown_keys(self, value: &Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        match value {
            Value::Object(table) => {
                for (key, child) in table {
                    path.push(key.clone());
                    match self.child(key, false) {
                        Some((_, schema)) => schema.unknown_keys(child, path, out),
                        None => out.push(path.clone()),
                    }
                    path.pop();
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter().enumerate() {
                    path.push(index.to_string());
                    self.items().unknown_keys(item, path, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }

    /// Follows lower-cased `segments` (an environment variable's name) down the schema: the setting's
    /// spelled-out path and its schema, or `None` when they name no setting.
    pub fn resolve(self, segments: &[String]) -> Option<(Vec<String>, Node<'a>)> {
        let mut node = self;
        let mut path = Vec::with_capacity(segments.len());
        for segment in segments {
            let (key, child) = node.child(segment, true)?;
            path.push(key);
            node = child;
        }
        (!path.is_empty()).then_some((path, node))
    }

    /// An environment variable's text as the value this place takes: text for a text setting, else
    /// read as a TOML value (`8080`, `true`, `[80, 443]`, `{ a = 1 }`), else the text itself (which the
    /// type check then reports).
    pub fn parse_text(self, raw: &str) -> Value {
        let types = self.types();
        if types.contains(&"string") && !types.iter().any(|t| ["array", "object"].contains(t)) {
            return Value::String(raw.to_owned());
        }
        toml::from_str::<toml::Table>(&format!("v = {raw}"))
            .ok()
            .and_then(|mut table| table.remove("v"))
            .and_then(|value| serde_json::to_value(value).ok())
            .unwrap_or_else(|| Value::String(raw.to_owned()))
    }
}

/// Values of the wrong type or out of range, with their paths (unknown keys are reported apart).
pub fn type_errors(schema: &Value, instance: &Value) -> Vec<(Vec<String>, String)> {
    use jsonschema::error::ValidationErrorKind;
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema)
        .expect("the settings schema compiles");
    validator
        .iter_errors(instance)
        .filter(|error| !matches!(error.kind(), ValidationErrorKind::AdditionalProperties { .. }))
        .map(|error| {
            let pointer = error.instance_path().as_str().to_owned();
            let path = pointer.split('/').skip(1).map(|s| s.replace("~1", "/").replace("~0", "~")).collect();
            (path, error.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every setting is documented: `trellis config defaults` prints each one's meaning.
    #[test]
    fn every_setting_has_a_description() {
        fn walk(node: Node, path: &mut Vec<String>, missing: &mut Vec<String>) {
            let Some(properties) = node.properties() else { return };
            for (key, schema) in properties {
                path.push(key.clone());
                if node.description_of(key).is_none() {
                    missing.push(path.join("."));
                }
                walk(Node::new(schema), path, missing);
                path.pop();
            }
        }
        let schema = settings();
        let mut missing = Vec::new();
        walk(Node::new(&schema), &mut Vec::new(), &mut missing);
        assert!(missing.is_empty(), "settings without a doc comment: {missing:?}");
    }

    #[test]
    fn the_defaults_fit_the_schema() {
        let defaults = serde_json::to_value(Config::default()).unwrap();
        assert_eq!(type_errors(&settings(), &defaults), Vec::<(Vec<String>, String)>::new());
    }
}
