//! The shape of a workflow configuration document as a JSON Schema (draft 2020-12), published
//! in the OpenAPI document and checked here. Rules across the document (ids, references,
//! reachability, form keys) are in code, where their problems get precise codes.

use std::sync::LazyLock;

use jsonschema::Validator;
use jsonschema::error::ValidationErrorKind;
use serde_json::{Map, Value, json};

use super::codes;
use super::limits::MAX_PERMISSION_SLOT;
use crate::domain::document::report::{Report, join};
use crate::domain::document::schema::{DocumentSchema, document_schema, object, texts};
use crate::domain::document::schema_errors::{compile_schema, push_schema_error};

static SCHEMA: LazyLock<Value> = LazyLock::new(build_schema);

static VALIDATOR: LazyLock<Validator> = LazyLock::new(|| compile_schema(&SCHEMA));

/// The JSON Schema of a workflow configuration document (the `config` of the wrapper).
pub fn workflow_schema() -> &'static Value {
    &SCHEMA
}

/// Reports every place where `config` breaks the schema, under `base` (`/config`). A property
/// that is not allowed is reported at its own path as `UNKNOWN_PROPERTY`.
pub(crate) fn check_shape(config: &Value, base: &str, report: &mut Report) {
    for error in VALIDATOR.iter_errors(config) {
        if let ValidationErrorKind::AdditionalProperties { unexpected } = error.kind() {
            let path = format!("{base}{}", error.instance_path().as_str());
            for name in unexpected {
                report.push(join(&path, name), codes::UNKNOWN_PROPERTY, "is not a property here");
            }
        } else {
            push_schema_error(&error, base, report);
        }
    }
}

fn text_map(names: &[&str]) -> Value {
    json!({"type": "object", "additionalProperties": {"type": "object", "properties": texts(names)}})
}

fn build_schema() -> Value {
    let mut defs = object(json!({
        "workbasket": {
            "type": "object",
            "required": ["id", "label", "order", "transitions"],
            "properties": {
                "id": {"$ref": "#/$defs/uuid"},
                "label": {"$ref": "#/$defs/ref"},
                "order": {"type": "number"},
                "terminal": {"type": "boolean", "default": false},
                "transitions": {"type": "array", "items": {"$ref": "#/$defs/transition"},
                                "description": "Empty for a terminal workbasket."}
            }
        },
        "transition": {
            "type": "object",
            "required": ["id", "targetWorkbasketId", "label"],
            "properties": {
                "id": {"$ref": "#/$defs/uuid"},
                "targetWorkbasketId": {"$ref": "#/$defs/uuid"},
                "label": {"$ref": "#/$defs/ref"}
            }
        }
    }));
    defs.extend(view_defs());
    document_schema(DocumentSchema {
        title: "Workflow configuration",
        description: "Contract 1.0.0. Labels and descriptions hold `$.` paths into the active language bundle of \
                      `translations` (e.g. `$.workbaskets.intake.label`); every path must resolve to a string \
                      under `defaultLanguage`. Ids are UUID v4, unique across workbaskets, transitions and views.",
        required: &["network"],
        properties: object(json!({
            "network": {
                "type": "object",
                "required": ["entryWorkbasketId", "workbaskets"],
                "properties": {
                    "entryWorkbasketId": {"$ref": "#/$defs/uuid"},
                    "workbaskets": {"type": "array", "items": {"$ref": "#/$defs/workbasket"}}
                }
            },
            "views": {"type": "array", "items": {"$ref": "#/$defs/view"}, "default": []},
            "integrations": {
                "type": "object",
                "properties": {"forms": {
                    "type": "object",
                    "properties": {"allowedConfigurationIds": {
                        "type": "array", "items": {"$ref": "#/$defs/uuid"}, "default": [],
                        "description": "Only these form configurations may be used with the workflow."
                    }}
                }}
            }
        })),
        bundle: object(json!({
            "workbaskets": text_map(&["label"]),
            "views": text_map(&["label", "description"]),
            "transitions": text_map(&["label"])
        })),
        defs,
        uuid: "A UUID v4.",
        reference: "A `$.` path into the language bundle.",
    })
}

/// A view and what it shows of each form: `view`, `viewForm`, `detailField` and `metadataRule`.
fn view_defs() -> Map<String, Value> {
    let metadata: Map<String, Value> = ["timestamp", "tags", "summary", "location"]
        .iter()
        .map(|name| ((*name).to_owned(), json!({"$ref": "#/$defs/metadataRule"})))
        .collect();
    object(json!({
        "view": {
            "type": "object",
            "required": ["id", "label", "workbasketIds", "permissionSlot"],
            "properties": {
                "id": {"$ref": "#/$defs/uuid"},
                "label": {"$ref": "#/$defs/ref"},
                "description": {"$ref": "#/$defs/ref"},
                "workbasketIds": {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/uuid"}},
                "permissionSlot": {"type": "integer", "minimum": 0, "maximum": MAX_PERMISSION_SLOT,
                                   "description": "Slot of the deployment permission model."},
                "forms": {
                    "type": "object",
                    "description": "Keyed by form configuration id, each in the allowlist.",
                    "additionalProperties": {"$ref": "#/$defs/viewForm"},
                    "default": {}
                }
            }
        },
        "viewForm": {
            "type": "object",
            "properties": {
                "listFields": {"type": "array", "items": {"type": "string"}, "default": [],
                               "description": "Field keys of the form configuration."},
                "detailFields": {"type": "array", "items": {"$ref": "#/$defs/detailField"}, "default": []},
                "metadata": {"type": "object", "properties": metadata, "additionalProperties": false}
            }
        },
        "detailField": {
            "type": "object",
            "required": ["fieldKey"],
            "properties": {
                "fieldKey": {"type": "string"},
                "overrides": {
                    "type": "object",
                    "description": "Set flags win over the form field's own.",
                    "properties": {
                        "editable": {"type": "boolean"},
                        "required": {"type": "boolean"},
                        "visible": {"type": "boolean"}
                    },
                    "additionalProperties": false
                }
            }
        },
        "metadataRule": {
            "type": "object",
            "required": ["visible", "editable"],
            "properties": {"visible": {"type": "boolean"}, "editable": {"type": "boolean"}},
            "additionalProperties": false
        }
    }))
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
        assert_eq!(workflow_schema()["$schema"], "https://json-schema.org/draft/2020-12/schema");
        let minimal = json!({"version": "1.0.0", "translations": {"defaultLanguage": "en"},
                             "network": {"entryWorkbasketId": "x", "workbaskets": []}});
        assert!(VALIDATOR.is_valid(&minimal));
    }

    #[test]
    fn missing_wrong_and_unknown_properties_have_their_codes() {
        let config = json!({
            "version": 1, "translations": {"defaultLanguage": "en", "en": "x"},
            "network": {"workbaskets": [{"id": "a", "order": "1", "terminal": "yes", "transitions": [{}]}]},
            "views": [{"id": "v", "label": "$.x", "workbasketIds": [], "permissionSlot": -1, "forms": {
                "f": {"listFields": [1], "detailFields": [{"fieldKey": "k", "overrides": {"hidden": true, "editable": 1}}],
                      "metadata": {"colour": {}, "tags": {"visible": true}}}
            }}, {"id": "w", "label": "$.y", "workbasketIds": ["a"], "permissionSlot": 1001}]
        });
        let found = problems(&config);
        for (path, code) in [
            ("/config/version", "INVALID_TYPE"),
            ("/config/translations/en", "INVALID_TYPE"),
            ("/config/network/entryWorkbasketId", "REQUIRED"),
            ("/config/network/workbaskets/0/label", "REQUIRED"),
            ("/config/network/workbaskets/0/order", "INVALID_TYPE"),
            ("/config/network/workbaskets/0/terminal", "INVALID_TYPE"),
            ("/config/network/workbaskets/0/transitions/0/targetWorkbasketId", "REQUIRED"),
            ("/config/views/0/workbasketIds", "INVALID_VALUE"),
            ("/config/views/0/permissionSlot", "INVALID_RANGE"),
            ("/config/views/1/permissionSlot", "INVALID_RANGE"),
            ("/config/views/0/forms/f/listFields/0", "INVALID_TYPE"),
            ("/config/views/0/forms/f/detailFields/0/overrides/hidden", "UNKNOWN_PROPERTY"),
            ("/config/views/0/forms/f/detailFields/0/overrides/editable", "INVALID_TYPE"),
            ("/config/views/0/forms/f/metadata/colour", "UNKNOWN_PROPERTY"),
            ("/config/views/0/forms/f/metadata/tags/editable", "REQUIRED"),
        ] {
            assert!(found.contains(&(path.into(), code.into())), "{path} {code} in {found:#?}");
        }
    }
}
