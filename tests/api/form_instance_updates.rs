//! Changing and listing form instances: sparse `PATCH /v0/forms/{formId}` with the DRAFT to
//! SUBMITTED move, the audit trail of `GET /v0/forms/{formId}/history`, and `GET /v0/forms`.

use std::collections::BTreeSet;

use reqwest::StatusCode;
use serde_json::{Value, json};
use trellis_tests::{TestApp, TestUser, assert_error, body, spawn_app};

use crate::support::forms::{
    answers_by_key, created_config, created_form, expected, field_ids, get_ok, list_ids, new_id, next_millisecond,
    patch_form, patched_form, refused, rules_config, sample, sample_config, sample_config_without_id, sample_payload,
};

fn form_id(view: &Value) -> String {
    view["formId"].as_str().unwrap().to_owned()
}

/// The sample instance, created by `user` on the sample configuration (which must exist).
async fn sample_form(app: &TestApp, user: &TestUser, state: &str) -> Value {
    let mut wrapper = sample_payload();
    wrapper["payload"]["state"] = json!(state);
    created_form(app, &user.token, &wrapper).await
}

#[tokio::test]
async fn patch_changes_only_the_sent_answers_and_bumps_the_revision() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let created = sample_form(&app, &ann, "SUBMITTED").await;
    let id = form_id(&created);
    // Act
    let patched =
        patched_form(&app, &ann.token, &id, &json!({"payload": {"fields": {sample::CITY: "Bern", sample::PHOTO: []}}}))
            .await;
    // Assert
    let mut wanted = created["fields"].clone();
    wanted[sample::CITY] = json!("Bern");
    assert_eq!(patched["fields"], wanted);
    assert_eq!(patched["metadata"], created["metadata"]);
    assert_eq!(patched["language"], "de");
    assert_eq!(patched["state"], "SUBMITTED");
    assert_eq!(patched["revision"], 2);
    assert_eq!(patched["createdAt"], created["createdAt"]);
    assert_eq!(get_ok(&app, &ann.token, &format!("/v0/forms/{id}")).await, patched);
}

#[tokio::test]
async fn patch_may_change_the_language_and_single_metadata_properties() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let created = sample_form(&app, &ann, "SUBMITTED").await;
    // Act
    let patched = patched_form(
        &app,
        &ann.token,
        &form_id(&created),
        &json!({"payload": {"language": "en", "metadata": {"summary": "Changed", "location": null}}}),
    )
    .await;
    // Assert
    assert_eq!(patched["language"], "en");
    let mut wanted = created["metadata"].clone();
    wanted["summary"] = json!("Changed");
    wanted.as_object_mut().unwrap().remove("location");
    assert_eq!(patched["metadata"], wanted);
    assert_eq!(patched["fields"], created["fields"]);
}

#[tokio::test]
async fn patch_checks_the_sent_answers_and_changes_nothing_when_it_refuses() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let created = sample_form(&app, &ann, "SUBMITTED").await;
    let id = form_id(&created);
    let unknown = new_id();
    let patch = json!({"payload": {
        "language": "it",
        "fields": {sample::BIRTH_DATE: "1990-02-30", sample::POSTCODE: "80O1", sample::CITY: "Bern", unknown.clone(): "x"}
    }});
    // Act
    let found = refused(patch_form(&app, &ann.token, &id, &patch).await).await;
    // Assert
    assert_eq!(
        found,
        expected(&[
            ("/payload/language", "INVALID_LANGUAGE"),
            (&format!("/payload/fields/{}", sample::BIRTH_DATE), "INVALID_DATE"),
            (&format!("/payload/fields/{}", sample::POSTCODE), "PATTERN_MISMATCH"),
            (&format!("/payload/fields/{unknown}"), "UNKNOWN_FIELD"),
        ])
    );
    assert_eq!(get_ok(&app, &ann.token, &format!("/v0/forms/{id}")).await, created);
}

#[tokio::test]
async fn patch_naming_another_configuration_is_400_at_configuration_id() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let other = created_config(&app, &ann.token, sample_config_without_id()).await;
    let created = sample_form(&app, &ann, "SUBMITTED").await;
    // Act
    let patch = json!({"payload": {"configurationId": other["id"], "fields": {sample::CITY: "Bern"}}});
    let found = refused(patch_form(&app, &ann.token, &form_id(&created), &patch).await).await;
    // Assert
    assert_eq!(found, expected(&[("/payload/configurationId", "CONFIGURATION_MISMATCH")]));
}

#[tokio::test]
async fn patch_from_draft_to_submitted_enforces_required_on_the_merged_answers() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let config = created_config(&app, &ann.token, rules_config()).await;
    let mut draft = answers_by_key(&config, &[("code", json!("AB12"))]);
    draft["payload"]["state"] = json!("DRAFT");
    let id = form_id(&created_form(&app, &ann.token, &draft).await);
    let name_id = field_ids(&config)["name"].clone();
    // Act
    let incomplete = patch_form(&app, &ann.token, &id, &json!({"payload": {"state": "SUBMITTED"}})).await;
    let draft_edit = patched_form(&app, &ann.token, &id, &json!({"payload": {"fields": {&name_id: "Ann"}}})).await;
    let submitted = patched_form(&app, &ann.token, &id, &json!({"payload": {"state": "SUBMITTED"}})).await;
    // Assert
    assert_eq!(refused(incomplete).await, expected(&[(&format!("/payload/fields/{name_id}"), "REQUIRED")]));
    assert_eq!(draft_edit["state"], "DRAFT");
    assert_eq!(draft_edit["revision"], 2, "the refused PATCH stored nothing");
    assert_eq!(submitted["state"], "SUBMITTED");
    assert_eq!(submitted["fields"][&name_id], "Ann");
    assert_eq!(submitted["fields"][&field_ids(&config)["code"]], "AB12");
}

#[tokio::test]
async fn a_draft_may_clear_a_required_answer_but_a_submitted_instance_may_not() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let config = created_config(&app, &ann.token, rules_config()).await;
    let name_id = field_ids(&config)["name"].clone();
    let mut draft = answers_by_key(&config, &[("name", json!("Ann"))]);
    draft["payload"]["state"] = json!("DRAFT");
    let draft_id = form_id(&created_form(&app, &ann.token, &draft).await);
    let submitted_id =
        form_id(&created_form(&app, &ann.token, &answers_by_key(&config, &[("name", json!("Ann"))])).await);
    for cleared in [json!(""), Value::Null] {
        let patch = json!({"payload": {"fields": {&name_id: cleared}}});
        // Act
        let in_draft = patch_form(&app, &ann.token, &draft_id, &patch).await;
        let in_submitted = patch_form(&app, &ann.token, &submitted_id, &patch).await;
        // Assert
        assert_eq!(in_draft.status(), StatusCode::OK, "{cleared}");
        let answered = body(in_draft).await;
        let answer = &answered["fields"][&name_id];
        assert!(answer.is_null() || *answer == "", "the draft's answer is cleared ({cleared}): {answered}");
        assert_eq!(answered["state"], "DRAFT");
        assert_eq!(get_ok(&app, &ann.token, &format!("/v0/forms/{draft_id}")).await, answered);
        assert_eq!(refused(in_submitted).await, expected(&[(&format!("/payload/fields/{name_id}"), "REQUIRED")]));
    }
    let read = get_ok(&app, &ann.token, &format!("/v0/forms/{submitted_id}")).await;
    assert_eq!(read["fields"][&name_id], "Ann");
}

#[tokio::test]
async fn patch_from_submitted_back_to_draft_is_409_invalid_transition() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let created = sample_form(&app, &ann, "SUBMITTED").await;
    let id = form_id(&created);
    // Act
    let response =
        patch_form(&app, &ann.token, &id, &json!({"payload": {"state": "DRAFT", "fields": {sample::CITY: "Bern"}}}))
            .await;
    // Assert
    assert_error(response, StatusCode::CONFLICT, "INVALID_TRANSITION").await;
    assert_eq!(get_ok(&app, &ann.token, &format!("/v0/forms/{id}")).await, created);
    let same_state = patched_form(&app, &ann.token, &id, &json!({"payload": {"state": "SUBMITTED"}})).await;
    assert_eq!(same_state["state"], "SUBMITTED");
    let bogus = patch_form(&app, &ann.token, &id, &json!({"payload": {"state": "ARCHIVED"}})).await;
    assert_eq!(refused(bogus).await, expected(&[("/payload/state", "INVALID_VALUE")]));
}

/// The history entries of a form, following every `nextCursor` with pages of `limit`.
async fn history(app: &TestApp, token: &str, form_id: &str, limit: usize) -> Vec<Value> {
    let mut entries = Vec::new();
    let mut path = format!("/v0/forms/{form_id}/history?limit={limit}");
    loop {
        let page = get_ok(app, token, &path).await;
        entries.extend(page["items"].as_array().unwrap().iter().cloned());
        match page["nextCursor"].as_str() {
            Some(cursor) => path = format!("/v0/forms/{form_id}/history?limit={limit}&cursor={cursor}"),
            None => return entries,
        }
    }
}

fn set(values: &Value) -> BTreeSet<String> {
    values.as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn history_records_who_changed_which_fields_oldest_first_when_logging_is_on() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let mut draft = sample_payload();
    draft["payload"]["state"] = json!("DRAFT");
    draft["payload"]["fields"].as_object_mut().unwrap().remove(sample::COMMENTS);
    let created = created_form(&app, &ann.token, &draft).await;
    let id = form_id(&created);
    patched_form(
        &app,
        &ann.token,
        &id,
        &json!({"payload": {"fields": {sample::CITY: "Bern", sample::FULL_NAME: "Ada Lovelace"}}}),
    )
    .await;
    patched_form(
        &app,
        &ann.token,
        &id,
        &json!({"payload": {"state": "SUBMITTED", "fields": {sample::NOTES: "Done."}}}),
    )
    .await;
    // Act
    let entries = history(&app, &ann.token, &id, 1).await;
    // Assert
    assert_eq!(entries.len(), 3, "{entries:?}");
    let actions: Vec<&str> = entries.iter().map(|e| e["action"].as_str().unwrap()).collect();
    assert_eq!(actions, ["CREATED", "UPDATED", "SUBMITTED"]);
    let states: Vec<&str> = entries.iter().map(|e| e["state"].as_str().unwrap()).collect();
    assert_eq!(states, ["DRAFT", "DRAFT", "SUBMITTED"]);
    for entry in &entries {
        assert_eq!(entry["actor"], json!({"userId": ann.user_id, "handle": "ann"}));
        assert!(uuid::Uuid::parse_str(entry["eventId"].as_str().unwrap()).is_ok(), "{entry}");
        assert!(entry["at"].is_string(), "{entry}");
    }
    let answered: BTreeSet<String> = draft["payload"]["fields"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, value)| value.is_string())
        .map(|(id, _)| id.clone())
        .collect();
    assert_eq!(set(&entries[0]["changedFields"]), answered);
    assert_eq!(
        set(&entries[1]["changedFields"]),
        BTreeSet::from([sample::CITY.to_owned()]),
        "the unchanged name is not listed"
    );
    assert_eq!(set(&entries[2]["changedFields"]), BTreeSet::from([sample::NOTES.to_owned()]));
    let ats: Vec<&str> = entries.iter().map(|e| e["at"].as_str().unwrap()).collect();
    let parsed: Vec<time::OffsetDateTime> = ats
        .iter()
        .map(|at| time::OffsetDateTime::parse(at, &time::format_description::well_known::Rfc3339).unwrap())
        .collect();
    assert!(parsed.windows(2).all(|pair| pair[0] <= pair[1]), "{ats:?}");
}

#[tokio::test]
async fn history_stays_empty_when_the_configuration_does_not_enable_logging() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let config = created_config(&app, &ann.token, rules_config()).await;
    let created = created_form(&app, &ann.token, &answers_by_key(&config, &[("name", json!("Ann"))])).await;
    let id = form_id(&created);
    let code_id = field_ids(&config)["code"].clone();
    patched_form(&app, &ann.token, &id, &json!({"payload": {"fields": {code_id: "AB12"}}})).await;
    // Act
    let page = get_ok(&app, &ann.token, &format!("/v0/forms/{id}/history")).await;
    // Assert
    assert_eq!(page, json!({"items": [], "nextCursor": null}));
}

#[tokio::test]
async fn the_list_shows_only_the_own_instances_newest_first() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    created_config(&app, &ann.token, sample_config()).await;
    let first = form_id(&sample_form(&app, &ann, "SUBMITTED").await);
    next_millisecond().await;
    let bobs = form_id(&sample_form(&app, &bob, "SUBMITTED").await);
    next_millisecond().await;
    let second = form_id(&sample_form(&app, &ann, "DRAFT").await);
    // Act
    let page = get_ok(&app, &ann.token, "/v0/forms").await;
    // Assert
    assert_eq!(list_ids(&app, &ann.token, "/v0/forms", "formId").await, [second.clone(), first]);
    assert_eq!(list_ids(&app, &bob.token, "/v0/forms", "formId").await, [bobs]);
    assert_eq!(page["nextCursor"], Value::Null);
    let newest = &page["items"][0];
    assert_eq!(newest["formId"], second.as_str());
    assert_eq!(newest["configurationId"], sample::CONFIG_ID);
    assert_eq!(newest["state"], "DRAFT");
    assert_eq!(newest["language"], "de");
}

#[tokio::test]
async fn the_list_filters_by_configuration_id_and_states() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let rules = created_config(&app, &ann.token, rules_config()).await;
    let sample_submitted = form_id(&sample_form(&app, &ann, "SUBMITTED").await);
    next_millisecond().await;
    let sample_draft = form_id(&sample_form(&app, &ann, "DRAFT").await);
    next_millisecond().await;
    let rules_submitted =
        form_id(&created_form(&app, &ann.token, &answers_by_key(&rules, &[("name", json!("Ann"))])).await);
    let list = |query: String| format!("/v0/forms?{query}");
    let rules_id = rules["id"].as_str().unwrap();
    // Act
    let of_sample = list_ids(&app, &ann.token, &list(format!("configurationId={}", sample::CONFIG_ID)), "formId").await;
    let of_rules = list_ids(&app, &ann.token, &list(format!("configurationId={rules_id}")), "formId").await;
    let drafts = list_ids(&app, &ann.token, &list("states=DRAFT".into()), "formId").await;
    let submitted = list_ids(&app, &ann.token, &list("states=SUBMITTED".into()), "formId").await;
    let both = list_ids(&app, &ann.token, &list("states=SUBMITTED,DRAFT".into()), "formId").await;
    // As generated clients send a list: the key repeated.
    let both_repeated =
        list_ids(&app, &ann.token, &list("states=SUBMITTED&limit=50&states=DRAFT".into()), "formId").await;
    let sample_submitted_only =
        list_ids(&app, &ann.token, &list(format!("configurationId={}&states=SUBMITTED", sample::CONFIG_ID)), "formId")
            .await;
    let unknown = list_ids(&app, &ann.token, &list(format!("configurationId={}", new_id())), "formId").await;
    // Assert
    assert_eq!(of_sample, [sample_draft.clone(), sample_submitted.clone()]);
    assert_eq!(of_rules, std::slice::from_ref(&rules_submitted));
    assert_eq!(drafts, std::slice::from_ref(&sample_draft));
    assert_eq!(submitted, [rules_submitted.clone(), sample_submitted.clone()]);
    assert_eq!(both, [rules_submitted, sample_draft, sample_submitted.clone()]);
    assert_eq!(both_repeated, both);
    assert_eq!(sample_submitted_only, [sample_submitted]);
    assert!(unknown.is_empty());
}

#[tokio::test]
async fn the_list_pages_with_limit_and_next_cursor() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let mut created = Vec::new();
    for _ in 0..5 {
        created.push(form_id(&sample_form(&app, &ann, "SUBMITTED").await));
        next_millisecond().await;
    }
    created.reverse();
    // Act
    let mut seen = Vec::new();
    let mut sizes = Vec::new();
    let mut path = "/v0/forms?limit=2".to_owned();
    loop {
        let page = get_ok(&app, &ann.token, &path).await;
        let ids: Vec<String> =
            page["items"].as_array().unwrap().iter().map(|i| i["formId"].as_str().unwrap().to_owned()).collect();
        sizes.push(ids.len());
        seen.extend(ids);
        match page["nextCursor"].as_str() {
            Some(cursor) => path = format!("/v0/forms?limit=2&cursor={cursor}"),
            None => break,
        }
    }
    // Assert
    assert_eq!(sizes, [2, 2, 1]);
    assert_eq!(seen, created);
}

#[tokio::test]
async fn a_bad_list_query_is_400_with_every_query_path() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let response =
        app.get_authed("/v0/forms?states=BOGUS&limit=0&configurationId=nope&spaceId=x&cursor=zz", &ann.token).await;
    // Assert
    let paths: Vec<String> = refused(response).await.into_iter().map(|(path, _)| path).collect();
    assert_eq!(paths, ["query.configurationId", "query.cursor", "query.limit", "query.spaceId", "query.states"]);
    let history = app.get_authed(&format!("/v0/forms/{}/history?limit=0", new_id()), &ann.token).await;
    let paths: Vec<String> = refused(history).await.into_iter().map(|(path, _)| path).collect();
    assert_eq!(paths, ["query.limit"]);
    let ok = body(app.get_authed("/v0/forms?limit=200&states=DRAFT", &ann.token).await).await;
    assert_eq!(ok, json!({"items": [], "nextCursor": null}));
}
