//! Instance payload rules, one test (or pair) per rule.

use serde_json::{Map, Value, json};

use super::*;
use crate::domain::forms::{InstanceState, changed_fields, merge_patch, next_state, payload_configuration_id};

const DRAFT: Mode = Mode::Patch { current: InstanceState::Draft };
const SUBMITTED: Mode = Mode::Patch { current: InstanceState::Submitted };

/// The sample payload with `fields.<id of key>` set to `value`.
fn answering(config: &FormConfig, key: &str, value: Value) -> Value {
    let mut body = sample_payload();
    body["payload"]["fields"][field_id(config, key)] = value;
    body
}

fn answer_path(config: &FormConfig, key: &str) -> String {
    format!("/payload/fields/{}", field_id(config, key))
}

fn sparse(fields: Value) -> Value {
    json!({"payload": {"fields": fields}})
}

#[test]
fn sample_payload_is_valid_and_normalized() {
    // Arrange
    let config = sample();

    // Act
    let checked = checked(&config, &sample_payload(), Mode::Create);

    // Assert
    assert_eq!(checked.configuration_id, config.id());
    assert_eq!(checked.language.as_deref(), Some("de"));
    assert_eq!(checked.state, InstanceState::Submitted);
    assert_eq!(checked.fields.len(), 18, "file fields are not stored as answers");
    assert_eq!(checked.fields[&field_id(&config, "p2_city")], "Zürich");
    assert_eq!(checked.metadata.len(), 4);
    assert!(checked.space_id().is_some() && checked.workflow_configuration_id().is_some());
}

#[test]
fn create_defaults_state_and_language() {
    let config = sample();
    let mut body = sample_payload();
    let payload = body["payload"].as_object_mut().unwrap();
    payload.remove("state");
    payload.remove("language");
    let checked = checked(&config, &body, Mode::Create);
    assert_eq!(checked.state, InstanceState::Submitted);
    assert_eq!(checked.language.as_deref(), Some("en"));
}

#[test]
fn configuration_id_is_required_on_create_and_must_match() {
    let config = sample();
    let mut body = sample_payload();
    body["payload"].as_object_mut().unwrap().remove("configurationId");
    assert_has(&payload_problems(&config, &body, Mode::Create), "/payload/configurationId", "REQUIRED");
    assert!(payload_problems(&config, &body, DRAFT).is_empty());

    body["payload"]["configurationId"] = json!(uuid::Uuid::new_v4().to_string());
    assert_has(&payload_problems(&config, &body, Mode::Create), "/payload/configurationId", "CONFIGURATION_MISMATCH");
    body["payload"]["configurationId"] = json!("x");
    assert_has(&payload_problems(&config, &body, Mode::Create), "/payload/configurationId", "INVALID_UUID");
}

#[test]
fn payload_configuration_id_reads_the_id_first() {
    let config = sample();
    assert_eq!(payload_configuration_id(&sample_payload()).unwrap(), config.id());
    let found = pairs(payload_configuration_id(&json!({"payload": {}})).unwrap_err());
    assert_eq!(found, [("/payload/configurationId".to_owned(), "REQUIRED".to_owned())]);
}

#[test]
fn language_must_be_one_of_the_configuration() {
    let config = sample();
    let mut body = sample_payload();
    body["payload"]["language"] = json!("fr");
    assert_has(&payload_problems(&config, &body, Mode::Create), "/payload/language", "INVALID_LANGUAGE");
}

#[test]
fn answers_are_keyed_by_known_field_ids() {
    let config = sample();
    let mut body = sample_payload();
    body["payload"]["fields"]["p1_email"] = json!("a@b.ch");
    body["payload"]["fields"][uuid::Uuid::new_v4().to_string()] = json!("x");
    let found = payload_problems(&config, &body, Mode::Create);
    assert_has(&found, "/payload/fields/p1_email", "UNKNOWN_FIELD");
    assert_eq!(found.iter().filter(|(_, code)| code == "UNKNOWN_FIELD").count(), 2);
}

#[test]
fn file_fields_are_empty_arrays_and_others_strings() {
    let config = sample();
    let body = answering(&config, "p3_photo", json!(["x.png"]));
    assert_has(&payload_problems(&config, &body, Mode::Create), &answer_path(&config, "p3_photo"), "INVALID_VALUE");
    let body = answering(&config, "p2_city", json!(42));
    assert_has(&payload_problems(&config, &body, Mode::Create), &answer_path(&config, "p2_city"), "INVALID_TYPE");
}

#[test]
fn validation_applies_to_non_empty_answers_only() {
    let config = sample();
    let body = answering(&config, "p2_postcode", json!("80a1"));
    assert_has(
        &payload_problems(&config, &body, Mode::Create),
        &answer_path(&config, "p2_postcode"),
        "PATTERN_MISMATCH",
    );
    let body = answering(&config, "p2_postcode", json!(""));
    assert!(payload_problems(&config, &body, Mode::Create).is_empty());
    let body = answering(&config, "p2_postcode", json!("prefix 8001"));
    assert_has(
        &payload_problems(&config, &body, Mode::Create),
        &answer_path(&config, "p2_postcode"),
        "PATTERN_MISMATCH",
    );
}

#[test]
fn lengths_count_unicode_characters() {
    let config = sample();
    let path = answer_path(&config, "p1_full_name");
    assert_has(
        &payload_problems(&config, &answering(&config, "p1_full_name", json!("A")), Mode::Create),
        &path,
        "TOO_SHORT",
    );
    let long = "é".repeat(81);
    assert_has(
        &payload_problems(&config, &answering(&config, "p1_full_name", json!(long)), Mode::Create),
        &path,
        "TOO_LONG",
    );
    let fits = "é".repeat(80);
    assert!(payload_problems(&config, &answering(&config, "p1_full_name", json!(fits)), Mode::Create).is_empty());
}

#[test]
fn required_is_enforced_only_when_submitted() {
    let config = sample();
    let mut body = sample_payload();
    let fields = body["payload"]["fields"].as_object_mut().unwrap();
    fields.insert(field_id(&config, "p1_full_name"), json!(""));
    fields.insert(field_id(&config, "p1_email"), Value::Null);
    fields.remove(&field_id(&config, "p2_priority"));
    let found = payload_problems(&config, &body, Mode::Create);
    for key in ["p1_full_name", "p1_email", "p2_priority"] {
        assert_has(&found, &answer_path(&config, key), "REQUIRED");
    }
    assert_eq!(found.len(), 3, "{found:#?}");

    body["payload"]["state"] = json!("DRAFT");
    let draft = checked(&config, &body, Mode::Create);
    assert_eq!(draft.state, InstanceState::Draft);
    assert_eq!(draft.fields[&field_id(&config, "p1_email")], "");
}

#[test]
fn dropdown_answers_are_option_values() {
    let config = sample();
    let path = answer_path(&config, "p2_priority");
    let found = payload_problems(&config, &answering(&config, "p2_priority", json!("high")), Mode::Create);
    assert_has(&found, &path, "INVALID_OPTION");
    assert!(payload_problems(&config, &answering(&config, "p2_priority", json!("3")), Mode::Create).is_empty());
}

#[test]
fn dates_follow_the_format_and_the_calendar() {
    let config = sample();
    for (key, value) in
        [("p1_birth_date", "10.12.1990"), ("p1_birth_date", "1990-02-30"), ("p2_appointment", "15.03.2025")]
    {
        let found = payload_problems(&config, &answering(&config, key, json!(value)), Mode::Create);
        assert_has(&found, &answer_path(&config, key), "INVALID_DATE");
    }
    let body = answering(&config, "p2_appointment", json!("29.02.2024 23:59"));
    assert!(payload_problems(&config, &body, Mode::Create).is_empty());
}

#[test]
fn fields_that_are_not_editable_keep_their_default() {
    let config = sample();
    let path = answer_path(&config, "p1_reference");
    let found = payload_problems(&config, &answering(&config, "p1_reference", json!("REF-1")), Mode::Create);
    assert_has(&found, &path, "NOT_EDITABLE");
    let mut body = sample_payload();
    body["payload"]["fields"].as_object_mut().unwrap().remove(&field_id(&config, "p1_reference"));
    assert_eq!(checked(&config, &body, Mode::Create).fields[&field_id(&config, "p1_reference")], "REF-2024");
    let patch = sparse(json!({field_id(&config, "p1_reference"): ""}));
    assert_has(&payload_problems(&config, &patch, DRAFT), &path, "NOT_EDITABLE");
}

#[test]
fn metadata_and_integrations_need_their_flags() {
    // Arrange: the sample with every flag off.
    let mut document = sample_config();
    for (group, name) in [
        ("metadata", "captureTimestamp"),
        ("metadata", "captureTags"),
        ("metadata", "captureSummary"),
        ("metadata", "captureLocation"),
        ("integrations", "allowSpaceAssociations"),
        ("integrations", "allowWorkflowStarts"),
    ] {
        document[group][name] = json!(false);
    }
    let config = valid_config(&document);

    // Act
    let found = payload_problems(&config, &sample_payload(), Mode::Create);

    // Assert
    for path in [
        "/payload/metadata/timestamp",
        "/payload/metadata/tags",
        "/payload/metadata/summary",
        "/payload/metadata/location",
        "/payload/integrations/spaceId",
        "/payload/integrations/workflowConfigurationId",
    ] {
        assert_has(&found, path, "NOT_ENABLED");
    }
    assert_eq!(found.len(), 6, "{found:#?}");
}

#[test]
fn metadata_values_are_checked() {
    let config = sample();
    let mut body = sample_payload();
    body["payload"]["metadata"] = json!({
        "timestamp": -5, "tags": ["a"], "summary": 3,
        "location": {"longitude": "181", "latitude": "north", "altitude": 12, "speed": "1"},
        "weather": "sunny"
    });
    body["payload"]["integrations"] = json!({"spaceId": "space-1", "workflowConfigurationId": 9});
    let found = payload_problems(&config, &body, Mode::Create);
    for (path, code) in [
        ("/payload/metadata/timestamp", "INVALID_RANGE"),
        ("/payload/metadata/tags", "INVALID_TYPE"),
        ("/payload/metadata/summary", "INVALID_TYPE"),
        ("/payload/metadata/location/longitude", "INVALID_RANGE"),
        ("/payload/metadata/location/latitude", "INVALID_VALUE"),
        ("/payload/metadata/location/altitude", "INVALID_TYPE"),
        ("/payload/metadata/location/speed", "UNKNOWN_PROPERTY"),
        ("/payload/metadata/weather", "UNKNOWN_PROPERTY"),
        ("/payload/integrations/spaceId", "INVALID_UUID"),
        ("/payload/integrations/workflowConfigurationId", "INVALID_TYPE"),
    ] {
        assert_has(&found, path, code);
    }
    body["payload"]["metadata"] = json!({"location": {"altitude": "1"}});
    body["payload"]["integrations"] = json!({});
    let found = payload_problems(&config, &body, Mode::Create);
    assert_has(&found, "/payload/metadata/location/longitude", "REQUIRED");
    assert_has(&found, "/payload/metadata/location/latitude", "REQUIRED");
}

#[test]
fn the_body_must_wrap_a_known_payload() {
    let config = sample();
    assert_has(&payload_problems(&config, &json!({}), Mode::Create), "/payload", "REQUIRED");
    assert_has(&payload_problems(&config, &json!({"payload": []}), Mode::Create), "/payload", "INVALID_TYPE");
    let mut body = sample_payload();
    body["payload"]["extras"] = json!({});
    assert_has(&payload_problems(&config, &body, Mode::Create), "/payload/extras", "UNKNOWN_PROPERTY");
}

#[test]
fn every_problem_of_a_payload_is_listed_at_once() {
    let config = sample();
    let mut body = answering(&config, "p1_phone", json!("call me"));
    body["payload"]["fields"][field_id(&config, "p1_nationality")] = json!("ch");
    body["payload"]["language"] = json!("xx");
    body["payload"]["state"] = json!("DONE");
    body["payload"]["metadata"]["timestamp"] = json!("yesterday");
    let found = payload_problems(&config, &body, Mode::Create);
    assert_has(&found, &answer_path(&config, "p1_phone"), "PATTERN_MISMATCH");
    assert_has(&found, &answer_path(&config, "p1_nationality"), "INVALID_OPTION");
    assert_has(&found, "/payload/language", "INVALID_LANGUAGE");
    assert_has(&found, "/payload/state", "INVALID_VALUE");
    assert_has(&found, "/payload/metadata/timestamp", "INVALID_TYPE");
    assert_eq!(found.len(), 5, "{found:#?}");
}

#[test]
fn state_moves_only_from_draft_to_submitted() {
    assert_eq!(next_state(InstanceState::Draft, InstanceState::Submitted), Some(InstanceState::Submitted));
    assert_eq!(next_state(InstanceState::Submitted, InstanceState::Submitted), Some(InstanceState::Submitted));
    assert_eq!(next_state(InstanceState::Submitted, InstanceState::Draft), None);

    let config = sample();
    let back = json!({"payload": {"state": "DRAFT"}});
    assert_eq!(
        payload_problems(&config, &back, SUBMITTED),
        [("/payload/state".to_owned(), "INVALID_TRANSITION".to_owned())]
    );
    assert_eq!(checked(&config, &json!({"payload": {}}), SUBMITTED).state, InstanceState::Submitted);
    assert_eq!(checked(&config, &json!({"payload": {}}), DRAFT).state, InstanceState::Draft);
}

#[test]
fn a_patch_is_sparse_and_required_is_checked_after_merging() {
    // Arrange: a stored draft lacking a required answer.
    let config = sample();
    let mut body = sample_payload();
    body["payload"]["state"] = json!("DRAFT");
    body["payload"]["fields"][field_id(&config, "p2_priority")] = json!("");
    let stored = checked(&config, &body, Mode::Create);

    // Act: a patch that submits without the answer, then one that brings it.
    let submit = json!({"payload": {"state": "SUBMITTED", "metadata": {"summary": null}}});
    let patch = checked(&config, &submit, DRAFT);
    let refused = pairs(merge_patch(&config, &stored, patch).unwrap_err());
    let fix = json!({"payload": {"state": "SUBMITTED", "fields": {field_id(&config, "p2_priority"): "1"}, "metadata": {"summary": null}}});
    let patch = checked(&config, &fix, DRAFT);
    assert_eq!(patch.fields.len(), 1, "a patch carries only the sent answers");
    let merged = merge_patch(&config, &stored, patch).unwrap();

    // Assert
    assert_eq!(refused, [(answer_path(&config, "p2_priority"), "REQUIRED".to_owned())]);
    assert_eq!(merged.state, InstanceState::Submitted);
    assert_eq!(merged.fields[&field_id(&config, "p2_priority")], "1");
    assert_eq!(merged.fields.len(), stored.fields.len());
    assert_eq!(merged.language.as_deref(), Some("de"));
    assert!(!merged.metadata.contains_key("summary"));
    assert_eq!(changed_fields(&stored.fields, &merged.fields), [field_id(&config, "p2_priority")]);
}

#[test]
fn changed_fields_treats_missing_null_and_empty_alike() {
    let before: Map<String, Value> =
        serde_json::from_value(json!({"a": "", "b": "x", "c": null, "d": "same"})).unwrap();
    let after: Map<String, Value> =
        serde_json::from_value(json!({"b": "y", "c": "", "d": "same", "e": "new"})).unwrap();
    assert_eq!(changed_fields(&before, &after), ["b", "e"]);
}
