//! Document rules: ids, version, labels, views, forms and sizes.

use std::cell::RefCell;

use serde_json::{Value, json};
use uuid::Uuid;

use super::*;
use crate::domain::workflows::limits::{MAX_VIEWS, MAX_WORKBASKETS};
use crate::domain::workflows::workflow_schema;

#[test]
fn the_sample_is_valid_and_reads_back() {
    let config = sample();
    assert_eq!(config.id(), uuid("7b036b63-712b-4ee1-833a-6dfb2b1371f1"));
    assert_eq!(config.version(), "1.0.0");
    assert_eq!(config.default_language(), "en");
    assert_eq!(config.languages(), ["de", "en"]);
    assert!(config.has_language("de") && !config.has_language("fr"));
    assert!(config.enable_logging());
    assert_eq!(config.entry_workbasket_id(), uuid(INTAKE));
    assert_eq!(config.workbaskets().len(), 4);
    let review = config.workbasket(&uuid(REVIEW)).expect("review");
    assert_eq!((review.label.as_str(), review.order, review.terminal), ("$.workbaskets.review.label", 2.0, false));
    let targets: Vec<_> = config.transitions_from(&uuid(REVIEW)).iter().map(|t| t.target_workbasket_id).collect();
    assert_eq!(targets, [uuid(APPROVED), uuid(REJECTED), uuid(INTAKE)]);
    assert!(config.workbasket(&uuid(APPROVED)).expect("approved").terminal);
    assert!(config.transitions_from(&uuid(APPROVED)).is_empty());
    assert!(config.transitions_from(&Uuid::new_v4()).is_empty());
    assert_eq!(config.transition(&uuid(REVIEW), &uuid(RETURN)).map(|t| t.target_workbasket_id), Some(uuid(INTAKE)));
    assert!(config.transition(&uuid(INTAKE), &uuid(RETURN)).is_none());
    assert_eq!(config.slots().into_iter().collect::<Vec<_>>(), [1, 2]);
    let view = config.view(&uuid(REVIEW_VIEW)).expect("review view");
    assert_eq!(view.workbasket_ids, [uuid(REVIEW)]);
    assert_eq!(view.description.as_deref(), Some("$.views.review.description"));
    assert!(view.shows_workbasket(&uuid(REVIEW)) && !view.shows_workbasket(&uuid(INTAKE)));
    let form = view.form(&uuid(FORM_ID)).expect("the form");
    assert_eq!(form.list_fields, ["p1_full_name", "p2_department", "p2_priority"]);
    assert_eq!(form.detail_fields[0].overrides.editable, Some(false));
    assert_eq!(form.detail_fields[1].overrides.editable, Some(true));
    assert!(form.metadata["summary"].editable && !form.metadata["location"].visible);
    assert!(config.allows_form(&uuid(FORM_ID)) && !config.allows_form(&Uuid::new_v4()));
    assert_eq!(config.allowed_form_ids(), [uuid(FORM_ID)]);
    assert_eq!(config.document()["id"], json!(config.id().to_string()));
}

#[test]
fn labels_resolve_in_the_language_with_the_default_as_fallback() {
    let config = sample();
    assert_eq!(config.label("$.workbaskets.review.label", "de").as_deref(), Some("Prüfung"));
    assert_eq!(config.label("$.workbaskets.review.label", "en").as_deref(), Some("Review"));
    assert_eq!(config.label("$.transitions.return.label", "de").as_deref(), Some("Return to intake"));
    assert_eq!(config.label("$.views.intake.description", "fr").as_deref(), Some("New applications."));
    assert_eq!(config.label("$.workbaskets.nowhere.label", "en"), None);
    assert_eq!(config.label("Review", "en"), None);
}

#[test]
fn the_id_comes_from_the_wrapper_the_document_or_the_server() {
    let doc = sample_doc();
    let id = "7b036b63-712b-4ee1-833a-6dfb2b1371f1";
    assert!(validate_workflow(Some(id), &doc, Uuid::new_v4(), &known_forms).is_ok());
    let other = Uuid::new_v4();
    let found = pairs(validate_workflow(Some(&other.to_string()), &doc, Uuid::new_v4(), &known_forms).unwrap_err());
    assert_only(&found, &[("/id", "ID_MISMATCH")]);
    let found = pairs(validate_workflow(Some("nope"), &doc, Uuid::new_v4(), &known_forms).unwrap_err());
    assert_only(&found, &[("/id", "INVALID_UUID")]);

    let bare = edited(&[("/id", Value::Null)]);
    let fresh = Uuid::new_v4();
    assert_eq!(validate_workflow(None, &bare, fresh, &known_forms).map(|c| c.id()).ok(), Some(fresh));
    assert_eq!(validate_workflow(Some(id), &bare, fresh, &known_forms).map(|c| c.id()).ok(), Some(uuid(id)));
}

#[test]
fn version_must_be_semver_with_major_one() {
    assert!(problems(&edited(&[("/version", json!("1.2.3-beta.1"))])).is_empty());
    assert_only(&problems(&edited(&[("/version", json!("2.0.0"))])), &[("/config/version", "UNSUPPORTED_VERSION")]);
    assert_only(&problems(&edited(&[("/version", json!("1.0"))])), &[("/config/version", "INVALID_VERSION")]);
}

#[test]
fn ids_are_uuid_v4_and_unique_across_workbaskets_transitions_and_views() {
    let transition = sample_doc()["network"]["workbaskets"][1]["transitions"][0]["id"].clone();
    let found = problems(&edited(&[
        ("/id", json!("6f1c6a3e-2b7d-1c1e-9f0a-3d2b1c4e5f60")),
        ("/views/0/id", transition),
        ("/network/workbaskets/1/transitions/2/id", json!(INTAKE)),
    ]));
    assert_only(
        &found,
        &[
            ("/config/id", "INVALID_UUID"),
            ("/config/network/workbaskets/1/transitions/2/id", "DUPLICATE_ID"),
            ("/config/views/0/id", "DUPLICATE_ID"),
        ],
    );
}

#[test]
fn a_duplicate_workbasket_id_is_reported_once() {
    let found = problems(&edited(&[("/network/workbaskets/3/id", json!(APPROVED))]));
    // The rejected workbasket's id is gone, so the transition to it leads nowhere.
    let target = format!("{WB}/1/transitions/1/targetWorkbasketId");
    assert_only(&found, &[(&format!("{WB}/3/id"), "DUPLICATE_ID"), (&target, "UNKNOWN_WORKBASKET")]);
}

#[test]
fn labels_are_paths_that_resolve_under_the_default_language() {
    let found = problems(&edited(&[
        ("/network/workbaskets/0/label", json!("Intake")),
        ("/network/workbaskets/1/transitions/0/label", json!("$.transitions.nope.label")),
        ("/views/0/label", json!("")),
        ("/views/0/description", json!("$.views.intake")),
        ("/views/1/description", Value::Null),
    ]));
    assert_only(
        &found,
        &[
            (&format!("{WB}/0/label"), "LITERAL_TEXT"),
            (&format!("{WB}/1/transitions/0/label"), "UNRESOLVED_REFERENCE"),
            ("/config/views/0/label", "REQUIRED"),
            ("/config/views/0/description", "UNRESOLVED_REFERENCE"),
        ],
    );
    // A path only the second language has does not resolve.
    let mut doc = edited(&[("/network/workbaskets/0/label", json!("$.workbaskets.extra.label"))]);
    doc["translations"]["de"]["workbaskets"]["extra"] = json!({"label": "Extra"});
    let found = problems(&doc);
    assert_only(&found, &[(&format!("{WB}/0/label"), "UNRESOLVED_REFERENCE")]);
}

#[test]
fn the_default_language_must_be_a_bundle() {
    let found = problems(&edited(&[("/translations/defaultLanguage", json!("fr"))]));
    assert_has(&found, "/config/translations/defaultLanguage", "INVALID_LANGUAGE");
    let found = problems(&edited(&[("/translations/en", Value::Null)]));
    assert_has(&found, "/config/translations/defaultLanguage", "INVALID_LANGUAGE");
}

#[test]
fn view_workbaskets_must_exist_once_each() {
    let found = problems(&edited(&[
        ("/views/0/workbasketIds", json!([INTAKE, INTAKE, Uuid::new_v4().to_string(), "x"])),
        ("/views/1/workbasketIds", json!([])),
    ]));
    assert_only(
        &found,
        &[
            ("/config/views/0/workbasketIds/1", "DUPLICATE_ID"),
            ("/config/views/0/workbasketIds/2", "UNKNOWN_WORKBASKET"),
            ("/config/views/0/workbasketIds/3", "INVALID_UUID"),
            ("/config/views/1/workbasketIds", "INVALID_VALUE"),
        ],
    );
}

#[test]
fn permission_slots_are_bounded_integers() {
    for ok in [json!(0), json!(1000), json!(7.0)] {
        assert!(problems(&edited(&[("/views/0/permissionSlot", ok.clone())])).is_empty(), "{ok}");
    }
    for (bad, code) in [
        (json!(-1), "INVALID_RANGE"),
        (json!(1001), "INVALID_RANGE"),
        (json!(1.5), "INVALID_TYPE"),
        (json!("1"), "INVALID_TYPE"),
    ] {
        assert_only(
            &problems(&edited(&[("/views/0/permissionSlot", bad)])),
            &[("/config/views/0/permissionSlot", code)],
        );
    }
    let found = problems(&edited(&[("/views/0/permissionSlot", Value::Null)]));
    assert_only(&found, &[("/config/views/0/permissionSlot", "REQUIRED")]);
}

#[test]
fn view_forms_must_be_allowlisted_existing_configurations() {
    let stranger = Uuid::new_v4().to_string();
    let entry = json!({"listFields": ["p1_full_name"]});
    let found = problems(&edited(&[
        ("/views/0/forms", json!({FORM_ID: {}, "not-a-uuid": {}, stranger.clone(): entry})),
        ("/integrations/forms/allowedConfigurationIds", json!([FORM_ID, stranger.clone()])),
    ]));
    let here = format!("/config/views/0/forms/{stranger}");
    assert_only(&found, &[("/config/views/0/forms/not-a-uuid", "INVALID_UUID"), (&here, "UNKNOWN_FORM_CONFIGURATION")]);

    let found = problems(&edited(&[("/integrations/forms/allowedConfigurationIds", json!([]))]));
    let here = |v: usize| format!("/config/views/{v}/forms/{FORM_ID}");
    assert_only(&found, &[(&here(0), "NOT_ALLOWLISTED"), (&here(1), "NOT_ALLOWLISTED")]);

    let found = problems_with(&sample_doc(), &|_| None);
    assert_only(&found, &[(&here(0), "UNKNOWN_FORM_CONFIGURATION"), (&here(1), "UNKNOWN_FORM_CONFIGURATION")]);
}

#[test]
fn the_form_callback_is_asked_once_per_id() {
    let asked = RefCell::new(Vec::new());
    let lookup = |id: Uuid| {
        asked.borrow_mut().push(id);
        known_forms(id)
    };
    assert!(problems_with(&sample_doc(), &lookup).is_empty());
    assert_eq!(*asked.borrow(), [uuid(FORM_ID)]);
}

#[test]
fn allowlist_entries_are_unique_uuids() {
    let found =
        problems(&edited(&[("/integrations/forms/allowedConfigurationIds", json!([FORM_ID, "x", FORM_ID, 3]))]));
    let base = "/config/integrations/forms/allowedConfigurationIds";
    assert_only(
        &found,
        &[
            (&format!("{base}/1"), "INVALID_UUID"),
            (&format!("{base}/2"), "DUPLICATE_ID"),
            (&format!("{base}/3"), "INVALID_TYPE"),
        ],
    );
}

#[test]
fn field_keys_must_be_keys_of_the_form_and_listed_once() {
    let base = format!("/views/1/forms/{FORM_ID}");
    let found = problems(&edited(&[
        (&format!("{base}/listFields"), json!(["p1_full_name", "nope", "p1_full_name"])),
        (&format!("{base}/detailFields/0/fieldKey"), json!("9531985d-5d9d-49f8-9818-e811892f902b")),
        (&format!("{base}/detailFields/2/fieldKey"), json!("p1_reference")),
    ]));
    let at = |rest: &str| format!("/config{base}/{rest}");
    assert_only(
        &found,
        &[
            (&at("listFields/1"), "UNKNOWN_FIELD_KEY"),
            (&at("listFields/2"), "DUPLICATE_KEY"),
            (&at("detailFields/0/fieldKey"), "UNKNOWN_FIELD_KEY"),
            (&at("detailFields/2/fieldKey"), "DUPLICATE_KEY"),
        ],
    );
}

#[test]
fn overrides_take_only_editable_required_and_visible_booleans() {
    let pointer = format!("/views/1/forms/{FORM_ID}/detailFields/0/overrides");
    let found = problems(&edited(&[(&pointer, json!({"editable": "no", "hidden": true, "required": true}))]));
    let at = |rest: &str| format!("/config{pointer}/{rest}");
    assert_only(&found, &[(&at("editable"), "INVALID_TYPE"), (&at("hidden"), "UNKNOWN_PROPERTY")]);
}

#[test]
fn view_metadata_is_known_well_formed_and_captured_by_the_form() {
    let pointer = format!("/views/1/forms/{FORM_ID}/metadata");
    let found = problems(&edited(&[(
        &pointer,
        json!({"colour": {"visible": true, "editable": true}, "tags": {"visible": true}, "summary": {"visible": 1, "editable": false}}),
    )]));
    let at = |rest: &str| format!("/config{pointer}/{rest}");
    assert_only(
        &found,
        &[
            (&at("colour"), "UNKNOWN_PROPERTY"),
            (&at("tags/editable"), "REQUIRED"),
            (&at("summary/visible"), "INVALID_TYPE"),
        ],
    );

    let uncaptured = form_with(|doc| {
        doc["metadata"]["captureSummary"] = json!(false);
        doc["metadata"]["captureLocation"] = json!(false);
    });
    let found = problems_with(&sample_doc(), &|id| (id == uncaptured.id()).then(|| uncaptured.clone()));
    assert_only(&found, &[(&at("summary"), "NOT_CAPTURED"), (&at("location"), "NOT_CAPTURED")]);
}

#[test]
fn one_document_with_many_problems_lists_them_all() {
    let stranger = Uuid::new_v4().to_string();
    let doc = edited(&[
        ("/version", json!("3.0.0")),
        ("/network/entryWorkbasketId", json!(Uuid::new_v4().to_string())),
        ("/network/workbaskets/0/label", json!("Intake")),
        ("/network/workbaskets/1/transitions/0/targetWorkbasketId", json!(Uuid::new_v4().to_string())),
        (
            "/network/workbaskets/2/transitions",
            json!([{"id": Uuid::new_v4().to_string(), "targetWorkbasketId": INTAKE, "label": "$.transitions.approve.label"}]),
        ),
        ("/views/0/permissionSlot", json!(-3)),
        ("/views/0/workbasketIds", json!(["x"])),
        ("/views/1/forms", json!({stranger.clone(): {}})),
        ("/integrations/forms/allowedConfigurationIds", json!([FORM_ID, FORM_ID])),
    ]);
    let found = problems(&doc);
    let expected: Vec<(String, &str)> = vec![
        ("/config/version".into(), "UNSUPPORTED_VERSION"),
        ("/config/network/entryWorkbasketId".into(), "UNKNOWN_WORKBASKET"),
        (format!("{WB}/0/label"), "LITERAL_TEXT"),
        (format!("{WB}/1/transitions/0/targetWorkbasketId"), "UNKNOWN_WORKBASKET"),
        (format!("{WB}/2/transitions"), "TERMINAL_HAS_TRANSITIONS"),
        ("/config/views/0/permissionSlot".into(), "INVALID_RANGE"),
        ("/config/views/0/workbasketIds/0".into(), "INVALID_UUID"),
        (format!("/config/views/1/forms/{stranger}"), "NOT_ALLOWLISTED"),
        (format!("/config/views/1/forms/{stranger}"), "UNKNOWN_FORM_CONFIGURATION"),
        ("/config/integrations/forms/allowedConfigurationIds/1".into(), "DUPLICATE_ID"),
    ];
    assert_only(&found, &expected.iter().map(|(p, c)| (p.as_str(), *c)).collect::<Vec<_>>());
}

#[test]
fn sizes_are_bounded_before_anything_else() {
    let many = vec![json!({}); MAX_WORKBASKETS + 1];
    let found = problems(&edited(&[("/network/workbaskets", Value::Array(many))]));
    assert_only(&found, &[(WB, "TOO_LARGE")]);
    let found = problems(&edited(&[("/views", Value::Array(vec![json!({}); MAX_VIEWS + 1]))]));
    assert_only(&found, &[("/config/views", "TOO_LARGE")]);
    assert_only(&problems(&json!([1])), &[("/config", "INVALID_TYPE")]);
    assert_only(&problems(&json!("x".repeat(70_000))), &[("/config", "TOO_LARGE")]);
}

#[test]
fn the_schema_is_published() {
    assert_eq!(workflow_schema()["title"], "Workflow configuration");
    assert!(workflow_schema()["$defs"]["view"]["properties"]["permissionSlot"]["maximum"].is_number());
}
