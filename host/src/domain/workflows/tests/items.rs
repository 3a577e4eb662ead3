//! Item projection and item PATCH through a view.

use serde_json::{Map, Value, json};
use uuid::Uuid;

use super::*;
use crate::domain::forms::{FieldType, InstanceState};
use crate::domain::workflows::{View, check_item_patch, detail_fields, list_fields, visible_metadata};

const FULL_NAME: &str = "9531985d-5d9d-49f8-9818-e811892f902b";
const EMAIL: &str = "36f675cc-81e7-4ef5-a8e2-5d940ed90475";
const REFERENCE: &str = "92276658-1e27-41c0-8a6a-63ec24ede6a4";
const PRIORITY: &str = "ec66a787-95e7-41d1-b731-af10506bf2ef";
const COMMENTS: &str = "830e07bc-1e39-4f10-92bd-4acefaecbd38";
const PHOTO: &str = "13deef86-ab10-41d0-b646-e1f40a097c97";
const DEPARTMENT: &str = "18f135d2-5f55-4203-b018-50c5a38fd547";

fn view(id: &str) -> View {
    sample().view(&uuid(id)).expect("the view").clone()
}

fn answers() -> Map<String, Value> {
    let answers = json!({FULL_NAME: "Ada Lovelace", EMAIL: "ada@example.org", PRIORITY: "2", REFERENCE: "REF-2024", DEPARTMENT: "sales"});
    answers.as_object().expect("an object").clone()
}

fn patch(view_id: &str, fields: Value, state: InstanceState) -> Result<Map<String, Value>, Vec<(String, String)>> {
    check_item_patch(&view(view_id), &sample_form(), &json!({"payload": {"fields": fields}}), state)
        .map(|patch| patch.fields)
        .map_err(pairs)
}

fn field_path(id: &str) -> String {
    format!("/payload/fields/{id}")
}

#[test]
fn detail_fields_apply_overrides_and_resolve_labels() {
    let form = sample_form();
    let fields = detail_fields(&view(INTAKE_VIEW), &form, &answers(), "de");
    let keys: Vec<_> = fields.iter().map(|f| f.key.as_str()).collect();
    assert_eq!(keys, ["p1_full_name", "p1_email", "p2_priority", "p1_reference", "p2_comments"]);
    let name = &fields[0];
    assert_eq!(
        (name.field_id, name.kind, name.label.as_deref()),
        (uuid(FULL_NAME), FieldType::Text, Some("Full name (de)"))
    );
    assert_eq!((name.value.clone(), name.editable, name.required), (json!("Ada Lovelace"), true, true));
    // Shown by an override, but the form field's own editable: false stands.
    let reference = &fields[3];
    assert_eq!((reference.editable, reference.value.clone()), (false, json!("REF-2024")));
    assert_eq!(fields[4].value, Value::Null);

    let fields = detail_fields(&view(REVIEW_VIEW), &form, &answers(), "fr");
    let flags: Vec<_> = fields.iter().map(|f| (f.key.as_str(), f.editable, f.required)).collect();
    assert_eq!(
        flags,
        [
            ("p1_full_name", false, true),
            ("p1_reference", true, false),
            ("p2_priority", true, false),
            ("p2_comments", true, true),
            ("p3_photo", true, false),
        ]
    );
    assert_eq!(fields[0].label.as_deref(), Some("Full name"));
    assert_eq!(fields[4].kind, FieldType::File);
}

#[test]
fn a_detail_field_hidden_by_the_view_or_the_form_is_left_out() {
    let mut doc = sample_doc();
    doc["views"][0]["forms"][FORM_ID]["detailFields"][1]["overrides"] = json!({"visible": false, "editable": true});
    doc["views"][0]["forms"][FORM_ID]["detailFields"][3]["overrides"] = json!({});
    let config = valid(&doc);
    let view = config.view(&uuid(INTAKE_VIEW)).expect("the view");
    let keys: Vec<_> = detail_fields(view, &sample_form(), &answers(), "en").into_iter().map(|f| f.key).collect();
    assert_eq!(keys, ["p1_full_name", "p2_priority", "p2_comments"]);
}

#[test]
fn detail_fields_serialize_as_the_item_answer_shows_them() {
    let fields = detail_fields(&view(INTAKE_VIEW), &sample_form(), &answers(), "en");
    let shown = serde_json::to_value(&fields[0]).expect("serializes");
    assert_eq!(
        shown,
        json!({"fieldId": FULL_NAME, "key": "p1_full_name", "type": "text", "label": "Full name",
               "value": "Ada Lovelace", "editable": true, "required": true})
    );
}

#[test]
fn list_fields_map_keys_to_answers() {
    let listed = list_fields(&view(REVIEW_VIEW), &sample_form(), &answers());
    assert_eq!(
        Value::Object(listed),
        json!({"p1_full_name": "Ada Lovelace", "p2_department": "sales", "p2_priority": "2"})
    );
    let other = form_with(|doc| doc["id"] = json!(Uuid::new_v4().to_string()));
    assert!(list_fields(&view(REVIEW_VIEW), &other, &answers()).is_empty());
    assert!(detail_fields(&view(REVIEW_VIEW), &other, &answers(), "en").is_empty());
}

#[test]
fn only_visible_metadata_is_kept() {
    let metadata = json!({"timestamp": 1_700_000_000, "tags": "a,b", "summary": "s", "location": {"longitude": "1", "latitude": "2"}});
    let metadata = metadata.as_object().expect("an object");
    let review = visible_metadata(&view(REVIEW_VIEW), &uuid(FORM_ID), metadata);
    assert_eq!(review.keys().collect::<Vec<_>>(), ["summary", "timestamp"]);
    let intake = visible_metadata(&view(INTAKE_VIEW), &uuid(FORM_ID), metadata);
    assert_eq!(intake.keys().collect::<Vec<_>>(), ["tags", "timestamp"]);
    assert!(visible_metadata(&view(INTAKE_VIEW), &Uuid::new_v4(), metadata).is_empty());
}

#[test]
fn a_patch_of_editable_fields_is_accepted() {
    let fields = patch(REVIEW_VIEW, json!({REFERENCE: "REF-9", COMMENTS: "fine", PHOTO: []}), InstanceState::Submitted);
    assert_eq!(Value::Object(fields.expect("accepted")), json!({REFERENCE: "REF-9", COMMENTS: "fine"}));
    let upper = FULL_NAME.to_uppercase();
    let fields = patch(INTAKE_VIEW, json!({upper: "Grace Hopper"}), InstanceState::Draft).expect("accepted");
    assert_eq!(Value::Object(fields), json!({FULL_NAME: "Grace Hopper"}));
}

#[test]
fn fields_the_view_does_not_make_editable_are_refused_at_their_path() {
    let found = patch(
        REVIEW_VIEW,
        json!({FULL_NAME: "Grace", EMAIL: "g@example.org", "p1_email": "x", Uuid::new_v4().to_string(): "y"}),
        InstanceState::Draft,
    )
    .unwrap_err();
    let stranger = found.iter().find(|(p, _)| !p.contains(FULL_NAME) && !p.contains(EMAIL) && !p.ends_with("p1_email"));
    assert_eq!(stranger.map(|(_, c)| c.as_str()), Some("UNKNOWN_FIELD"));
    assert_has(&found, &field_path(FULL_NAME), "NOT_EDITABLE");
    assert_has(&found, &field_path(EMAIL), "NOT_EDITABLE");
    assert_has(&found, "/payload/fields/p1_email", "UNKNOWN_FIELD");
    assert_eq!(found.len(), 4);
    // The form field is not editable and the intake view does not override it.
    let found = patch(INTAKE_VIEW, json!({REFERENCE: "REF-2024"}), InstanceState::Draft).unwrap_err();
    assert_only(&found, &[(&field_path(REFERENCE), "NOT_EDITABLE")]);
}

#[test]
fn answers_follow_the_form_rules() {
    let found = patch(
        INTAKE_VIEW,
        json!({FULL_NAME: "A", EMAIL: "not-an-email", PRIORITY: "high", COMMENTS: 3}),
        InstanceState::Draft,
    )
    .unwrap_err();
    assert_only(
        &found,
        &[
            (&field_path(FULL_NAME), "TOO_SHORT"),
            (&field_path(EMAIL), "PATTERN_MISMATCH"),
            (&field_path(PRIORITY), "INVALID_OPTION"),
            (&field_path(COMMENTS), "INVALID_TYPE"),
        ],
    );
    let found = patch(REVIEW_VIEW, json!({PHOTO: [{"name": "x"}]}), InstanceState::Draft).unwrap_err();
    assert_only(&found, &[(&field_path(PHOTO), "INVALID_VALUE")]);
}

#[test]
fn required_follows_the_view_when_submitted() {
    // Required by the form, cleared in a draft: fine.
    assert!(patch(INTAKE_VIEW, json!({PRIORITY: ""}), InstanceState::Draft).is_ok());
    let found = patch(INTAKE_VIEW, json!({PRIORITY: null}), InstanceState::Submitted).unwrap_err();
    assert_only(&found, &[(&field_path(PRIORITY), "REQUIRED")]);
    // The review view makes priority optional and comments required.
    assert!(patch(REVIEW_VIEW, json!({PRIORITY: ""}), InstanceState::Submitted).is_ok());
    let found = patch(REVIEW_VIEW, json!({COMMENTS: ""}), InstanceState::Submitted).unwrap_err();
    assert_only(&found, &[(&field_path(COMMENTS), "REQUIRED")]);
}

#[test]
fn editable_metadata_is_checked_by_the_form_rules() {
    let check = |view_id: &str, metadata: Value| {
        check_item_patch(
            &view(view_id),
            &sample_form(),
            &json!({"payload": {"metadata": metadata}}),
            InstanceState::Submitted,
        )
    };
    let patch = check(REVIEW_VIEW, json!({"summary": "ok"})).expect("accepted");
    assert_eq!(Value::Object(patch.metadata), json!({"summary": "ok"}));
    assert!(patch.fields.is_empty());
    let found = pairs(check(REVIEW_VIEW, json!({"summary": 3, "timestamp": 1, "tags": "a"})).unwrap_err());
    assert_only(
        &found,
        &[
            ("/payload/metadata/summary", "INVALID_TYPE"),
            ("/payload/metadata/timestamp", "NOT_EDITABLE"),
            ("/payload/metadata/tags", "NOT_EDITABLE"),
        ],
    );
}

#[test]
fn the_body_must_be_a_payload_of_fields_and_metadata() {
    let form = sample_form();
    let run =
        |body: Value| pairs(check_item_patch(&view(REVIEW_VIEW), &form, &body, InstanceState::Draft).unwrap_err());
    assert_only(&run(json!({})), &[("/payload", "REQUIRED")]);
    assert_only(&run(json!({"payload": []})), &[("/payload", "INVALID_TYPE")]);
    assert_only(
        &run(json!({"payload": {"fields": [], "state": "DRAFT"}})),
        &[("/payload/fields", "INVALID_TYPE"), ("/payload/state", "UNKNOWN_PROPERTY")],
    );
    let mut deep = json!(1);
    for _ in 0..40 {
        deep = json!([deep]);
    }
    let found = run(json!({"payload": {"fields": {COMMENTS: deep}}}));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].1, "TOO_LARGE");
}
