//! Configuration rules, one test (or pair) per rule.

use serde_json::{Value, json};
use uuid::Uuid;

use super::*;
use crate::domain::forms::{AcceptEntry, FieldType, config_schema, limits};

fn with(mut config: Value, pointer: &str, value: Value) -> Value {
    *config.pointer_mut(pointer).unwrap_or_else(|| panic!("no {pointer}")) = value;
    config
}

fn without(mut config: Value, pointer: &str, name: &str) -> Value {
    config.pointer_mut(pointer).and_then(Value::as_object_mut).expect("object").remove(name);
    config
}

fn field(p: usize, f: usize) -> String {
    format!("/pages/{p}/fields/{f}")
}

#[test]
fn sample_configuration_is_valid_and_parsed() {
    // Arrange
    let document = sample_config();

    // Act
    let config = sample();

    // Assert
    assert_eq!(config.id().to_string(), document["id"]);
    assert_eq!(config.version(), "1.0.0");
    assert_eq!(config.default_language(), "en");
    assert_eq!(config.languages(), ["de", "en"]);
    let flags = config.flags();
    assert!(flags.enable_logging && flags.capture_timestamp && flags.capture_tags && flags.capture_summary);
    assert!(flags.capture_location && flags.allow_space_associations && flags.allow_workflow_starts);
    assert_eq!(config.pages().len(), 3);
    assert_eq!(config.fields().count(), 20);
    let email = config.field_by_key("p1_email").unwrap();
    assert_eq!(config.field(&email.id).unwrap().key, "p1_email");
    assert_eq!(email.page_key, "p1");
    assert!(email.validation.as_ref().unwrap().is_match("ada@example.org"));
    assert_eq!(email.texts.label.as_deref(), Some("$.pages.p1.fields.p1_email.label"));
    let reference = config.field_by_key("p1_reference").unwrap();
    assert!(!reference.editable && !reference.visible);
    assert_eq!(reference.default_value, "REF-2024");
    assert_eq!(config.field_by_key("p3_signed_on").unwrap().format.as_ref().unwrap().as_str(), "YYYY-MM-DD");
    let documents = config.field_by_key("p3_documents").unwrap();
    assert_eq!(documents.kind, FieldType::File);
    let file = documents.file.as_ref().unwrap();
    assert_eq!(file.max_attachments(), Some(5));
    assert!(file.accept.contains(&AcceptEntry::Extension(".pdf".into())));
    assert_eq!(config.field_by_key("p2_priority").unwrap().options.len(), 3);
    assert_eq!(config.document(), &document);
}

#[test]
fn the_published_schema_accepts_the_sample() {
    let validator = jsonschema::validator_for(config_schema()).unwrap();
    assert!(validator.is_valid(&sample_config()));
}

#[test]
fn ids_follow_the_wrapper_and_config_rules() {
    let document = sample_config();
    let inner: Uuid = document["id"].as_str().unwrap().parse().unwrap();
    let other = Uuid::new_v4();

    // Both agree, only config.id, only wrapper id, neither.
    assert_eq!(validate_config(Some(&inner.to_string()), &document, other).unwrap().id(), inner);
    assert_eq!(validate_config(None, &document, other).unwrap().id(), inner);
    let bare = without(document.clone(), "", "id");
    let from_wrapper = validate_config(Some(&other.to_string()), &bare, Uuid::new_v4()).unwrap();
    assert_eq!(from_wrapper.id(), other);
    assert_eq!(from_wrapper.document()["id"], other.to_string());
    assert_eq!(validate_config(None, &bare, other).unwrap().id(), other);

    // Disagreeing and malformed ids.
    let found = pairs(validate_config(Some(&other.to_string()), &document, other).unwrap_err());
    assert_eq!(found, [("/id".to_owned(), "ID_MISMATCH".to_owned())]);
    let found = pairs(validate_config(Some("42"), &document, other).unwrap_err());
    assert_eq!(found, [("/id".to_owned(), "INVALID_UUID".to_owned())]);
}

#[test]
fn version_must_be_semver_with_major_one() {
    for version in ["1.0.0", "1.2.3", "1.0.0-beta.1+build.5"] {
        assert!(config_problems(&with(sample_config(), "/version", json!(version))).is_empty(), "{version}");
    }
    for (version, code) in [
        ("2.0.0", "UNSUPPORTED_VERSION"),
        ("0.9.0", "UNSUPPORTED_VERSION"),
        ("1.0", "INVALID_VERSION"),
        ("01.0.0", "INVALID_VERSION"),
    ] {
        assert_has(&config_problems(&with(sample_config(), "/version", json!(version))), "/config/version", code);
    }
}

#[test]
fn ids_must_be_uuid_v4_and_unique_in_the_document() {
    let config = sample_config();
    let config_id = config["id"].clone();
    let first_field = config.pointer(&format!("{}/id", field(0, 0))).unwrap().clone();
    let config = with(config, "/pages/0/id", json!("6f1c6a3e-2b7d-1c1e-9f0a-3d2b1c4e5f60"));
    let config = with(config, &format!("{}/id", field(1, 0)), first_field);
    let config = with(config, &format!("{}/options/0/id", field(0, 4)), config_id);
    let found = config_problems(&config);
    assert_has(&found, "/config/pages/0/id", "INVALID_UUID");
    assert_has(&found, &format!("{}/id", field_path(1, 0)), "DUPLICATE_ID");
    assert_has(&found, &format!("{}/options/0/id", field_path(0, 4)), "DUPLICATE_ID");
    assert_eq!(found.len(), 3, "{found:#?}");
}

#[test]
fn page_and_field_keys_are_unique_in_the_document() {
    let config = with(sample_config(), "/pages/1/key", json!("p1"));
    let config = with(config, &format!("{}/key", field(2, 0)), json!("p1_email"));
    let config = with(config, &format!("{}/key", field(2, 1)), json!("a.b"));
    let found = config_problems(&config);
    assert_has(&found, "/config/pages/1/key", "DUPLICATE_KEY");
    assert_has(&found, &format!("{}/key", field_path(2, 0)), "DUPLICATE_KEY");
    assert_has(&found, &format!("{}/key", field_path(2, 1)), "INVALID_KEY");
}

#[test]
fn option_keys_and_values_are_unique_per_dropdown() {
    let config = with(sample_config(), &format!("{}/options/1/key", field(0, 4)), json!("ch"));
    let config = with(config, &format!("{}/options/2/value", field(0, 4)), json!("CH"));
    let config = with(config, &format!("{}/options/3/value", field(0, 4)), json!(""));
    let found = config_problems(&config);
    let base = format!("{}/options", field_path(0, 4));
    assert_has(&found, &format!("{base}/1/key"), "DUPLICATE_KEY");
    assert_has(&found, &format!("{base}/2/value"), "DUPLICATE_VALUE");
    assert_has(&found, &format!("{base}/3/value"), "INVALID_VALUE");

    // The same key and value in another dropdown is fine.
    let config = with(sample_config(), &format!("{}/options/0/key", field(2, 5)), json!("yes"));
    let config = with(config, &format!("{}/options/0/value", field(2, 5)), json!("YES"));
    let config = with(
        config,
        &format!("{}/options/0/label", field(2, 5)),
        json!("$.pages.p3.fields.p3_consent.options.yes.label"),
    );
    assert!(config_problems(&config).is_empty());
}

#[test]
fn field_type_must_be_one_of_five() {
    let found = config_problems(&with(sample_config(), &format!("{}/type", field(0, 0)), json!("number")));
    assert_has(&found, &format!("{}/type", field_path(0, 0)), "INVALID_VALUE");
}

#[test]
fn structural_texts_must_be_resolving_dollar_paths() {
    let config = with(sample_config(), &format!("{}/label", field(0, 0)), json!("Full name"));
    let config = with(config, &format!("{}/tooltip", field(0, 1)), json!("$.pages.p1.fields.nope.tooltip"));
    let config = with(config, "/pages/1/title", json!("$.pages.p2"));
    let config = with(config, "/pages/2/description", json!("$."));
    let config = with(config, &format!("{}/options/0/label", field(0, 4)), json!("Switzerland"));
    let found = config_problems(&config);
    assert_has(&found, &format!("{}/label", field_path(0, 0)), "LITERAL_TEXT");
    assert_has(&found, &format!("{}/tooltip", field_path(0, 1)), "UNRESOLVED_REFERENCE");
    assert_has(&found, "/config/pages/1/title", "UNRESOLVED_REFERENCE");
    assert_has(&found, "/config/pages/2/description", "UNRESOLVED_REFERENCE");
    assert_has(&found, &format!("{}/options/0/label", field_path(0, 4)), "LITERAL_TEXT");
    assert_eq!(found.len(), 5, "{found:#?}");
}

#[test]
fn references_resolve_against_the_default_language_only() {
    // "de" lacks most texts: partial bundles are fine while "en" is the default...
    assert!(config_problems(&sample_config()).is_empty());
    // ...but with "de" as default, paths it lacks are unresolved.
    let found = config_problems(&with(sample_config(), "/translations/defaultLanguage", json!("de")));
    assert_has(&found, &format!("{}/tooltip", field_path(0, 0)), "UNRESOLVED_REFERENCE");
}

#[test]
fn default_language_must_be_a_sibling_and_codes_well_formed() {
    let found = config_problems(&with(sample_config(), "/translations/defaultLanguage", json!("fr")));
    assert_has(&found, "/config/translations/defaultLanguage", "INVALID_LANGUAGE");
    let mut config = sample_config();
    config["translations"]["not a code"] = json!({});
    assert_has(&config_problems(&config), "/config/translations/not a code", "INVALID_LANGUAGE");
}

#[test]
fn validation_must_compile_and_suit_the_field() {
    let config = with(sample_config(), &format!("{}/validation", field(0, 2)), json!("([0-9]"));
    let config = with(config, &format!("{}/validation", field(1, 3)), json!("a".repeat(limits::MAX_PATTERN_CHARS + 1)));
    let config = with(config, &format!("{}/validation", field(1, 6)), json!(r"\w{1,500}"));
    let mut config = config;
    config["pages"][2]["fields"][0]["validation"] = json!(".*");
    let found = config_problems(&config);
    assert_has(&found, &format!("{}/validation", field_path(0, 2)), "INVALID_REGEX");
    assert_has(&found, &format!("{}/validation", field_path(1, 3)), "INVALID_REGEX");
    assert_has(&found, &format!("{}/validation", field_path(1, 6)), "INVALID_REGEX");
    assert_has(&found, &format!("{}/validation", field_path(2, 0)), "NOT_ALLOWED");
}

#[test]
fn length_bounds_are_ordered_whole_numbers_on_text_fields() {
    let config = with(sample_config(), &format!("{}/minLength", field(0, 0)), json!(100));
    let config = with(config, &format!("{}/maxLength", field(0, 5)), json!(-1));
    let mut config = config;
    config["pages"][0]["fields"][3]["maxLength"] = json!(10);
    config["pages"][0]["fields"][4]["minLength"] = json!(1);
    let found = config_problems(&config);
    assert_has(&found, &format!("{}/minLength", field_path(0, 0)), "INVALID_RANGE");
    assert_has(&found, &format!("{}/maxLength", field_path(0, 5)), "INVALID_RANGE");
    assert_has(&found, &format!("{}/maxLength", field_path(0, 3)), "NOT_ALLOWED");
    assert_has(&found, &format!("{}/minLength", field_path(0, 4)), "NOT_ALLOWED");

    let config = with(sample_config(), &format!("{}/maxLength", field(0, 0)), json!(80.0));
    assert_eq!(valid_config(&config).field_by_key("p1_full_name").unwrap().max_length, Some(80));
}

#[test]
fn format_belongs_to_date_fields_and_uses_the_tokens() {
    let mut config = with(sample_config(), &format!("{}/format", field(1, 0)), json!("DD/MM/YY"));
    config["pages"][0]["fields"][0]["format"] = json!("YYYY-MM-DD");
    let found = config_problems(&config);
    assert_has(&found, &format!("{}/format", field_path(1, 0)), "INVALID_FORMAT");
    assert_has(&found, &format!("{}/format", field_path(0, 0)), "NOT_ALLOWED");
}

#[test]
fn options_belong_to_dropdowns_which_need_them() {
    let options = sample_config()["pages"][0]["fields"][4]["options"].clone();
    let mut config = without(sample_config(), &field(1, 2), "options");
    config["pages"][2]["fields"][5]["options"] = json!([]);
    config["pages"][0]["fields"][0]["options"] = options;
    let found = config_problems(&config);
    assert_has(&found, &format!("{}/options", field_path(1, 2)), "REQUIRED");
    assert_has(&found, &format!("{}/options", field_path(2, 5)), "REQUIRED");
    assert_has(&found, &format!("{}/options", field_path(0, 0)), "NOT_ALLOWED");
}

#[test]
fn dropdown_default_is_an_option_value_not_a_key() {
    let found = config_problems(&with(sample_config(), &format!("{}/value", field(0, 4)), json!("ch")));
    assert_has(&found, &format!("{}/value", field_path(0, 4)), "INVALID_OPTION");
    assert!(config_problems(&with(sample_config(), &format!("{}/value", field(0, 4)), json!("CH"))).is_empty());
}

#[test]
fn file_object_rules() {
    let mut config = sample_config();
    config["pages"][0]["fields"][0]["file"] = json!({"maxBytes": 10});
    config["pages"][2]["fields"][0]["file"] = json!({"accept": "image/*, pdf", "maxBytes": 0, "maxFiles": 2});
    config["pages"][2]["fields"][1]["file"] = json!({"accept": [".pdf", "text/"], "multiple": true, "maxFiles": 0});
    config["pages"][2]["fields"][0]["value"] = json!("x.png");
    let found = config_problems(&config);
    assert_has(&found, &format!("{}/file", field_path(0, 0)), "NOT_ALLOWED");
    let photo = field_path(2, 0);
    assert_has(&found, &format!("{photo}/file/accept"), "INVALID_VALUE");
    assert_has(&found, &format!("{photo}/file/maxBytes"), "INVALID_RANGE");
    assert_has(&found, &format!("{photo}/file/maxFiles"), "NOT_ALLOWED");
    assert_has(&found, &format!("{photo}/value"), "NOT_ALLOWED");
    let documents = field_path(2, 1);
    assert_has(&found, &format!("{documents}/file/accept/1"), "INVALID_VALUE");
    assert_has(&found, &format!("{documents}/file/maxFiles"), "INVALID_RANGE");
}

#[test]
fn accept_may_be_a_comma_separated_string_and_file_may_be_left_out() {
    let mut config = sample_config();
    config["pages"][2]["fields"][0]["file"] = json!({"accept": "image/*, .HEIC", "multiple": true});
    config["pages"][2]["fields"][1].as_object_mut().unwrap().remove("file");
    let config = valid_config(&config);
    let photo = config.field_by_key("p3_photo").unwrap().file.clone().unwrap();
    assert_eq!(photo.accept, [AcceptEntry::MimeType("image/*".into()), AcceptEntry::Extension(".heic".into())]);
    assert_eq!(photo.max_attachments(), None);
    assert_eq!(config.field_by_key("p3_documents").unwrap().file.clone().unwrap().max_attachments(), Some(1));
}

#[test]
fn defaults_must_pass_their_own_field_rules() {
    let config = with(sample_config(), &format!("{}/value", field(0, 0)), json!("x".repeat(81)));
    let config = with(config, &format!("{}/value", field(0, 1)), json!("not an address"));
    let config = with(config, &format!("{}/value", field(0, 3)), json!("2023-02-29"));
    let found = config_problems(&config);
    assert_has(&found, &format!("{}/value", field_path(0, 0)), "TOO_LONG");
    assert_has(&found, &format!("{}/value", field_path(0, 1)), "PATTERN_MISMATCH");
    assert_has(&found, &format!("{}/value", field_path(0, 3)), "INVALID_DATE");
}

#[test]
fn every_problem_of_a_document_is_listed_at_once() {
    // Arrange: six unrelated mistakes across the document.
    let config = with(sample_config(), "/version", json!("3.0.0"));
    let config = without(config, "/pages/0", "key");
    let config = with(config, &format!("{}/validation", field(0, 1)), json!("(("));
    let config = with(config, &format!("{}/label", field(1, 1)), json!("Department"));
    let config = with(config, &format!("{}/type", field(1, 4)), json!(7));
    let config = with(config, "/integrations/allowWorkflowStarts", json!("yes"));

    // Act
    let found = config_problems(&config);

    // Assert
    assert_has(&found, "/config/version", "UNSUPPORTED_VERSION");
    assert_has(&found, "/config/pages/0/key", "REQUIRED");
    assert_has(&found, &format!("{}/validation", field_path(0, 1)), "INVALID_REGEX");
    assert_has(&found, &format!("{}/label", field_path(1, 1)), "LITERAL_TEXT");
    assert_has(&found, &format!("{}/type", field_path(1, 4)), "INVALID_VALUE");
    assert_has(&found, "/config/integrations/allowWorkflowStarts", "INVALID_TYPE");
}

#[test]
fn missing_top_level_parts_are_required() {
    let found = config_problems(&json!({}));
    for name in ["version", "translations", "pages"] {
        assert_has(&found, &format!("/config/{name}"), "REQUIRED");
    }
    assert_has(&config_problems(&json!([1, 2])), "/config", "INVALID_TYPE");
}

#[test]
fn absurd_documents_are_refused_before_any_other_check() {
    // Too many fields.
    let mut config = sample_config();
    let one = config["pages"][0]["fields"][0].clone();
    config["pages"][0]["fields"] = Value::Array(vec![one; limits::MAX_FIELDS + 1]);
    let found = config_problems(&config);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].1, "TOO_LARGE");

    // A huge string.
    let found = config_problems(&with(sample_config(), "/translations/en/details/title", json!("x".repeat(70_000))));
    assert_eq!(found, [("/config/translations/en/details/title".to_owned(), "TOO_LARGE".to_owned())]);
}
