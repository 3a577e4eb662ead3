//! The shape of a configuration document as a JSON Schema (draft 2020-12), published in the
//! OpenAPI document and checked here. Rules across the document (references, uniqueness, which
//! property suits which field type) are in code, where their problems get precise codes.

use std::sync::LazyLock;

use jsonschema::Validator;
use serde_json::{Value, json};

use crate::domain::document::report::Report;
use crate::domain::document::schema::{DocumentSchema, document_schema, flags, object, texts};
use crate::domain::document::schema_errors::{compile_schema, push_schema_error};

static SCHEMA: LazyLock<Value> = LazyLock::new(build_schema);

static VALIDATOR: LazyLock<Validator> = LazyLock::new(|| compile_schema(&SCHEMA));

/// The JSON Schema of a form configuration document (the `config` of the wrapper).
pub fn config_schema() -> &'static Value {
    &SCHEMA
}

/// Reports every place where `config` breaks the schema, under `base` (`/config`).
pub(crate) fn check_shape(config: &Value, base: &str, report: &mut Report) {
    for error in VALIDATOR.iter_errors(config) {
        push_schema_error(&error, base, report);
    }
}

fn build_schema() -> Value {
    let mut field_texts = texts(&["label", "placeholder", "tooltip", "description"]);
    field_texts.insert(
        "options".into(),
        json!({"type": "object", "additionalProperties": {"type": "object", "properties": {"label": {"type": "string"}}}}),
    );
    let mut page_texts = texts(&["title", "description"]);
    page_texts
        .insert("fields".into(), json!({"type": "object", "additionalProperties": {"$ref": "#/$defs/fieldTexts"}}));
    let mut defs = object(json!({
        "key": {"type": "string", "description": "A structural key, used in translation paths; no dots."},
        "order": {"type": "number"},
        "pageTexts": {"type": "object", "properties": page_texts},
        "fieldTexts": {"type": "object", "properties": field_texts},
        "page": {
            "type": "object",
            "required": ["id", "key", "order", "fields"],
            "properties": {
                "id": {"$ref": "#/$defs/uuid"},
                "key": {"$ref": "#/$defs/key"},
                "order": {"$ref": "#/$defs/order"},
                "title": {"$ref": "#/$defs/ref"},
                "description": {"$ref": "#/$defs/ref"},
                "fields": {"type": "array", "items": {"$ref": "#/$defs/field"}}
            }
        },
        "option": {
            "type": "object",
            "required": ["id", "key", "order", "value"],
            "properties": {
                "id": {"$ref": "#/$defs/uuid"},
                "key": {"$ref": "#/$defs/key"},
                "order": {"$ref": "#/$defs/order"},
                "value": {"type": "string"},
                "label": {"$ref": "#/$defs/ref"}
            }
        }
    }));
    defs.insert("field".into(), field_schema());
    defs.insert("file".into(), file_schema());
    document_schema(DocumentSchema {
        title: "Form configuration",
        description: "Contract 1.0.0. Structural text properties hold `$.` paths into the active language bundle \
                      of `translations`; every path must resolve to a string under `defaultLanguage`.",
        required: &["pages"],
        properties: object(json!({
            "metadata": flags(&["captureTimestamp", "captureTags", "captureSummary", "captureLocation"]),
            "integrations": flags(&["allowSpaceAssociations", "allowWorkflowStarts"]),
            "pages": {"type": "array", "items": {"$ref": "#/$defs/page"}}
        })),
        bundle: object(json!({
            "common": {"type": "object", "properties": {
                "buttons": {"type": "object", "properties": texts(&["next", "back", "submit"])}
            }},
            "pages": {"type": "object", "additionalProperties": {"$ref": "#/$defs/pageTexts"}}
        })),
        defs,
        uuid: "A UUID v4, unique in the document.",
        reference: "A `$.` path into the language bundle, e.g. `$.pages.p1.title`.",
    })
}

/// A field of a page: its type, texts, rules and, for a file field, its `file` rule.
fn field_schema() -> Value {
    json!({
        "type": "object",
        "required": ["id", "key", "order", "type"],
        "properties": {
            "id": {"$ref": "#/$defs/uuid"},
            "key": {"$ref": "#/$defs/key"},
            "order": {"$ref": "#/$defs/order"},
            "type": {"enum": ["text", "textarea", "date", "dropdown", "file"]},
            "value": {"type": "string", "description": "Default answer; for a dropdown an option value."},
            "label": {"$ref": "#/$defs/ref"},
            "placeholder": {"$ref": "#/$defs/ref"},
            "tooltip": {"$ref": "#/$defs/ref"},
            "description": {"$ref": "#/$defs/ref"},
            "validation": {"type": "string", "description": "Rust regex syntax, matched against the whole answer."},
            "minLength": {"type": "integer", "minimum": 0, "description": "Text and textarea only."},
            "maxLength": {"type": "integer", "minimum": 0, "description": "Text and textarea only."},
            "format": {"type": "string", "description": "Date only: tokens YYYY MM DD HH mm ss and separators.",
                       "default": "YYYY-MM-DD"},
            "visible": {"type": "boolean", "default": true},
            "editable": {"type": "boolean", "default": true},
            "required": {"type": "boolean", "default": false},
            "options": {"type": "array", "items": {"$ref": "#/$defs/option"}, "description": "Dropdown only."},
            "file": {"$ref": "#/$defs/file"}
        }
    })
}

/// The `file` rule of a file field.
fn file_schema() -> Value {
    json!({
        "type": "object",
        "description": "File fields only.",
        "properties": {
            "accept": {
                "description": "MIME types (image/* allowed) and/or .extensions; a string may list several, comma-separated.",
                "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]
            },
            "maxBytes": {"type": "integer", "minimum": 1},
            "multiple": {"type": "boolean", "default": false},
            "maxFiles": {"type": "integer", "minimum": 1, "description": "Only with multiple: true."}
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(config: &Value) -> Vec<(String, String)> {
        let mut report = Report::default();
        check_shape(config, "/config", &mut report);
        report.into_problems().into_vec().into_iter().map(|p| (p.path, p.code)).collect()
    }

    #[test]
    fn the_schema_is_draft_2020_12_and_compiles() {
        assert_eq!(config_schema()["$schema"], "https://json-schema.org/draft/2020-12/schema");
        assert!(
            VALIDATOR.is_valid(&json!({"version": "1.0.0", "translations": {"defaultLanguage": "en"}, "pages": []}))
        );
    }

    #[test]
    fn missing_properties_are_reported_at_their_own_path() {
        let found = problems(&json!({"pages": [{"id": "x", "fields": [{}]}]}));
        for path in [
            "/config/version",
            "/config/translations",
            "/config/pages/0/key",
            "/config/pages/0/order",
            "/config/pages/0/fields/0/type",
        ] {
            assert!(found.contains(&(path.into(), "REQUIRED".into())), "{path} in {found:?}");
        }
    }

    #[test]
    fn wrong_types_enums_and_ranges_have_their_codes() {
        let config = json!({
            "version": 1, "translations": {"defaultLanguage": "en", "en": "x"},
            "pages": [{"id": "a", "key": "p", "order": "1", "fields": [
                {"id": "b", "key": "k", "order": 1, "type": "number", "minLength": -1, "maxLength": 1.5,
                 "file": {"accept": 3, "maxBytes": 0}}
            ]}]
        });
        let found = problems(&config);
        for (path, code) in [
            ("/config/version", "INVALID_TYPE"),
            ("/config/translations/en", "INVALID_TYPE"),
            ("/config/pages/0/order", "INVALID_TYPE"),
            ("/config/pages/0/fields/0/type", "INVALID_VALUE"),
            ("/config/pages/0/fields/0/minLength", "INVALID_RANGE"),
            ("/config/pages/0/fields/0/maxLength", "INVALID_TYPE"),
            ("/config/pages/0/fields/0/file/accept", "INVALID_TYPE"),
            ("/config/pages/0/fields/0/file/maxBytes", "INVALID_RANGE"),
        ] {
            assert!(found.contains(&(path.into(), code.into())), "{path} {code} in {found:?}");
        }
    }

    #[test]
    fn uuid_format_is_left_to_the_rules() {
        let config = json!({"version": "1.0.0", "id": "nope", "translations": {"defaultLanguage": "en"}, "pages": []});
        assert!(problems(&config).is_empty());
    }
}
