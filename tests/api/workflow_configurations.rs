//! Workflow configurations (`/v0/workflows/configurations`): validating, storing, reading and
//! updating the document, every rule across the network and the views, and who may see, change
//! and grant slots of a workflow.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{TestApp, assert_error, body, spawn_app};

use crate::support::forms::{config_with, created_config, expected, field, get_ok, new_id, refused, sample, send};
use crate::support::workflow::{
    create_workflow, created_workflow, grant, put_workflow, sample_setup, sample_workflow, validate_workflow, wf,
};

/// A form configuration with one text field `name`, capturing no metadata, that allows workflow
/// starts; answers its id.
async fn plain_form(app: &TestApp, token: &str) -> String {
    let mut config = config_with(vec![field("name", "text")]);
    config["integrations"]["allowWorkflowStarts"] = json!(true);
    created_config(app, token, config).await["id"].as_str().unwrap().to_owned()
}

fn config_path(id: &str) -> String {
    format!("/v0/workflows/configurations/{id}")
}

fn workbasket(label: &str, order: u32, transitions: Vec<Value>) -> (String, Value) {
    let id = new_id();
    let value = json!({"id": id, "label": label, "order": order, "transitions": transitions});
    (id, value)
}

fn transition_to(target: &str, label: &str) -> Value {
    json!({"id": new_id(), "targetWorkbasketId": target, "label": label})
}

#[tokio::test]
async fn validate_answers_the_document_with_its_id_and_stores_nothing() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, crate::support::forms::sample_config()).await;
    // Act
    let response = validate_workflow(&app, &ann.token, &json!({"config": sample_workflow()})).await;
    // Assert
    assert_eq!(response.status(), StatusCode::OK);
    let answer = body(response).await;
    assert_eq!(answer["valid"], true);
    assert_eq!(answer["id"], wf::ID);
    assert_eq!(answer["config"], sample_workflow());
    assert_error(app.get_authed(&config_path(wf::ID), &ann.token).await, StatusCode::NOT_FOUND, "NOT_FOUND").await;
}

#[tokio::test]
async fn create_answers_201_and_the_creator_reads_it_alone_and_in_the_list() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, crate::support::forms::sample_config()).await;
    // Act
    let created = created_workflow(&app, &ann.token, sample_workflow()).await;
    // Assert
    assert_eq!(created["id"], wf::ID);
    assert_eq!(created["config"], sample_workflow());
    assert_eq!(created["ownerId"], ann.user_id.as_str());
    assert_eq!(created["revision"], 1);
    assert!(created["createdAt"].is_string() && created["updatedAt"].is_string());
    assert_eq!(get_ok(&app, &ann.token, &config_path(wf::ID)).await, created);
    let list = get_ok(&app, &ann.token, "/v0/workflows/configurations").await;
    assert_eq!(list["items"], json!([created]));
    assert_eq!(list["nextCursor"], Value::Null);
    let again = create_workflow(&app, &ann.token, &json!({"config": sample_workflow()})).await;
    assert_error(again, StatusCode::CONFLICT, "CONFLICT").await;
}

#[tokio::test]
async fn one_document_with_many_problems_lists_every_problem_at_its_path() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, crate::support::forms::sample_config()).await;
    let bare = plain_form(&app, &ann.token).await; // not in the allowlist
    let plain = plain_form(&app, &ann.token).await; // in the allowlist, captures no summary
    let ghost = new_id(); // in the allowlist, no such form configuration
    let mut doc = sample_workflow();
    let baskets = &mut doc["network"]["workbaskets"];
    // A terminal workbasket with a transition.
    baskets[2]["transitions"] = json!([transition_to(wf::INTAKE, "$.transitions.submit.label")]);
    // A workbasket nothing leads to (it reaches a terminal).
    let (_, orphan) =
        workbasket("$.workbaskets.intake.label", 5, vec![transition_to(wf::REJECTED, "$.transitions.reject.label")]);
    // A reachable workbasket that only leads to itself.
    let (loop_id, mut looping) = workbasket("$.workbaskets.review.label", 6, vec![]);
    looping["transitions"] = json!([transition_to(&loop_id, "$.transitions.return.label")]);
    baskets[1]["transitions"].as_array_mut().unwrap().push(transition_to(&loop_id, "$.transitions.return.label"));
    baskets.as_array_mut().unwrap().extend([orphan, looping]);
    // Labels: literal text and a reference to no text.
    baskets[1]["label"] = json!("Review");
    baskets[0]["transitions"][0]["label"] = json!("$.transitions.missing.label");
    doc["views"][0]["label"] = json!("Intake");
    // A view naming a workbasket the network does not have.
    doc["views"][1]["workbasketIds"].as_array_mut().unwrap().push(json!(new_id()));
    // View forms: not allowlisted, unknown, unknown field keys, metadata not captured.
    let intake_form = &mut doc["views"][0]["forms"][sample::CONFIG_ID];
    intake_form["listFields"].as_array_mut().unwrap().push(json!("nope"));
    intake_form["detailFields"].as_array_mut().unwrap().push(json!({"fieldKey": "missing"}));
    doc["views"][0]["forms"][&bare] = json!({"listFields": ["name"], "detailFields": [{"fieldKey": "name"}]});
    doc["views"][1]["forms"][&ghost] = json!({"listFields": [], "detailFields": []});
    doc["views"][1]["forms"][&plain] =
        json!({"listFields": ["name"], "metadata": {"summary": {"visible": true, "editable": false}}});
    doc["integrations"]["forms"]["allowedConfigurationIds"] = json!([sample::CONFIG_ID, ghost, plain]);
    let form = |view: usize, id: &str, rest: &str| format!("/config/views/{view}/forms/{id}{rest}");
    let want = expected(&[
        ("/config/network/workbaskets/2/transitions", "TERMINAL_HAS_TRANSITIONS"),
        ("/config/network/workbaskets/4", "UNREACHABLE"),
        ("/config/network/workbaskets/5", "NO_TERMINAL_REACHABLE"),
        ("/config/network/workbaskets/1/label", "LITERAL_TEXT"),
        ("/config/network/workbaskets/0/transitions/0/label", "UNRESOLVED_REFERENCE"),
        ("/config/views/0/label", "LITERAL_TEXT"),
        ("/config/views/1/workbasketIds/1", "UNKNOWN_WORKBASKET"),
        (&form(0, sample::CONFIG_ID, "/listFields/3"), "UNKNOWN_FIELD_KEY"),
        (&form(0, sample::CONFIG_ID, "/detailFields/5/fieldKey"), "UNKNOWN_FIELD_KEY"),
        (&form(0, &bare, ""), "NOT_ALLOWLISTED"),
        (&form(1, &ghost, ""), "UNKNOWN_FORM_CONFIGURATION"),
        (&form(1, &plain, "/metadata/summary"), "NOT_CAPTURED"),
    ]);
    let wrapper = json!({"config": doc});
    // Act
    let validated = refused(validate_workflow(&app, &ann.token, &wrapper).await).await;
    let created = refused(create_workflow(&app, &ann.token, &wrapper).await).await;
    // Assert
    assert_eq!(validated, want);
    assert_eq!(created, want);
    let list = get_ok(&app, &ann.token, "/v0/workflows/configurations").await;
    assert_eq!(list["items"], json!([]));
}

#[tokio::test]
async fn the_entry_and_transition_targets_must_name_workbaskets_of_the_network() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, crate::support::forms::sample_config()).await;
    let mut doc = sample_workflow();
    doc["network"]["entryWorkbasketId"] = json!(new_id());
    doc["network"]["workbaskets"][1]["transitions"][2]["targetWorkbasketId"] = json!(new_id());
    // Act
    let found = refused(validate_workflow(&app, &ann.token, &json!({"config": doc})).await).await;
    // Assert
    assert_eq!(
        found,
        expected(&[
            ("/config/network/entryWorkbasketId", "UNKNOWN_WORKBASKET"),
            ("/config/network/workbaskets/1/transitions/2/targetWorkbasketId", "UNKNOWN_WORKBASKET"),
        ])
    );
}

#[tokio::test]
async fn a_network_without_a_terminal_workbasket_is_refused() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, crate::support::forms::sample_config()).await;
    let mut doc = sample_workflow();
    doc["network"]["workbaskets"][2]["terminal"] = json!(false);
    doc["network"]["workbaskets"][3].as_object_mut().unwrap().remove("terminal");
    // Act
    let found = refused(validate_workflow(&app, &ann.token, &json!({"config": doc})).await).await;
    // Assert
    assert_eq!(found, expected(&[("/config/network/workbaskets", "NO_TERMINAL")]));
}

#[tokio::test]
async fn only_the_creator_may_update_slot_holders_get_403_and_others_404() {
    // Arrange
    let app = spawn_app().await;
    let ann = sample_setup(&app, "ann").await;
    let bob = app.sign_up("bob").await;
    let eve = app.sign_up("eve").await;
    grant(&app, &ann.token, json!([{"handle": "bob", "slots": [2]}])).await;
    let mut doc = sample_workflow();
    doc["translations"]["en"]["details"]["title"] = json!("Renamed review");
    let wrapper = json!({"config": doc});
    // Act
    let by_holder = put_workflow(&app, &bob.token, wf::ID, &wrapper).await;
    let by_stranger = put_workflow(&app, &eve.token, wf::ID, &wrapper).await;
    let by_creator = put_workflow(&app, &ann.token, wf::ID, &wrapper).await;
    // Assert
    assert_error(by_holder, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    assert_error(by_stranger, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_eq!(by_creator.status(), StatusCode::OK);
    let updated = body(by_creator).await;
    assert_eq!(updated["revision"], 2);
    assert_eq!(updated["config"]["translations"]["en"]["details"]["title"], "Renamed review");
    assert_eq!(get_ok(&app, &bob.token, &config_path(wf::ID)).await, updated);
}

#[tokio::test]
async fn an_update_follows_the_same_rules() {
    // Arrange
    let app = spawn_app().await;
    let ann = sample_setup(&app, "ann").await;
    let mut doc = sample_workflow();
    doc["views"][0]["workbasketIds"] = json!([new_id()]);
    // Act
    let found = refused(put_workflow(&app, &ann.token, wf::ID, &json!({"config": doc})).await).await;
    // Assert
    assert_eq!(found, expected(&[("/config/views/0/workbasketIds/0", "UNKNOWN_WORKBASKET")]));
    assert_eq!(get_ok(&app, &ann.token, &config_path(wf::ID)).await["revision"], 1);
}

#[tokio::test]
async fn slot_holders_see_the_workflow_and_others_do_not() {
    // Arrange
    let app = spawn_app().await;
    let ann = sample_setup(&app, "ann").await;
    let bob = app.sign_up("bob").await;
    let eve = app.sign_up("eve").await;
    grant(&app, &ann.token, json!([{"handle": "bob", "slots": [2]}])).await;
    // Act
    let holder_read = get_ok(&app, &bob.token, &config_path(wf::ID)).await;
    let holder_list = get_ok(&app, &bob.token, "/v0/workflows/configurations").await;
    let stranger_read = app.get_authed(&config_path(wf::ID), &eve.token).await;
    let stranger_list = get_ok(&app, &eve.token, "/v0/workflows/configurations").await;
    // Assert
    assert_eq!(holder_read["id"], wf::ID);
    assert_eq!(holder_list["items"][0]["id"], wf::ID);
    assert_error(stranger_read, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_eq!(stranger_list["items"], json!([]));
}

#[tokio::test]
async fn permissions_are_replaced_as_a_whole_by_the_creator() {
    // Arrange
    let app = spawn_app().await;
    let ann = sample_setup(&app, "ann").await;
    let bob = app.sign_up("bob").await;
    app.sign_up("cat").await;
    let path = format!("{}/permissions", config_path(wf::ID));
    // Act
    let empty = get_ok(&app, &ann.token, &path).await;
    grant(&app, &ann.token, json!([{"handle": "bob", "slots": [1, 2]}])).await;
    let first = get_ok(&app, &ann.token, &path).await;
    grant(&app, &ann.token, json!([{"handle": "cat", "slots": [2]}])).await;
    let second = get_ok(&app, &ann.token, &path).await;
    // Assert
    assert_eq!(empty, json!({"grants": []}));
    assert_eq!(first, json!({"grants": [{"handle": "bob", "slots": [1, 2]}]}));
    assert_eq!(second, json!({"grants": [{"handle": "cat", "slots": [2]}]}));
    assert_error(app.get_authed(&config_path(wf::ID), &bob.token).await, StatusCode::NOT_FOUND, "NOT_FOUND").await;
}

#[tokio::test]
async fn only_the_creator_grants_and_slots_and_handles_must_exist() {
    // Arrange
    let app = spawn_app().await;
    let ann = sample_setup(&app, "ann").await;
    let bob = app.sign_up("bob").await;
    let eve = app.sign_up("eve").await;
    grant(&app, &ann.token, json!([{"handle": "bob", "slots": [2]}])).await;
    let path = format!("{}/permissions", config_path(wf::ID));
    let wanted = json!({"grants": [{"handle": "eve", "slots": [1]}]});
    // Act
    let by_holder = send(&app, Method::PUT, &path, &bob.token, &wanted).await;
    let by_stranger = send(&app, Method::PUT, &path, &eve.token, &wanted).await;
    let stranger_read = app.get_authed(&path, &eve.token).await;
    let bad = json!({"grants": [{"handle": "bob", "slots": [2, 7]}, {"handle": "nobody", "slots": [1]}]});
    let found = refused(send(&app, Method::PUT, &path, &ann.token, &bad).await).await;
    // Assert
    assert_error(by_holder, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    assert_error(by_stranger, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(stranger_read, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_eq!(found, expected(&[("/grants/0/slots/1", "UNKNOWN_SLOT"), ("/grants/1/handle", "UNKNOWN_USER")]));
    let kept = get_ok(&app, &ann.token, &path).await;
    assert_eq!(kept, json!({"grants": [{"handle": "bob", "slots": [2]}]}));
}
