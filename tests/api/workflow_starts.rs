//! Starting a workflow with the form that asks for it: an instance created or submitted with
//! `integrations.workflowConfigurationId` and its item are stored together or not at all (one
//! transaction), whether the request is cut, raced by other submissions and starts, or refused.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{TestApp, TestUser, assert_error, body, spawn_app};

use crate::support::forms::{
    config_with, created_config, created_form, expected, field, get_ok, patch_form, patched_form, refused,
    sample_payload,
};
use crate::support::messages::all_pages;
use crate::support::workflow::{
    created_workflow, get_item, item_path, put_workflow, read_item, sample_setup, sample_workflow, start, started,
    submitted_form, view_items, wf,
};

/// The sample form naming the sample workflow, in `state`.
fn requesting_the_workflow(state: &str) -> Value {
    let mut wrapper = sample_payload();
    wrapper["payload"]["integrations"] = json!({"workflowConfigurationId": wf::ID});
    wrapper["payload"]["state"] = json!(state);
    wrapper
}

/// Ids of `user`'s instances, and of the items in the sample workflow's intake, sorted.
async fn instances_and_items(app: &TestApp, user: &TestUser) -> (Vec<String>, Vec<String>) {
    let ids = |list: Vec<Value>, key: &str| {
        let mut ids: Vec<String> = list.iter().map(|entry| entry[key].as_str().unwrap().to_owned()).collect();
        ids.sort();
        ids
    };
    let forms = all_pages(app, &user.token, "/v0/forms", 100).await;
    let intake = format!("/v0/workflows/views/{}/items?workflowConfigurationId={}", wf::INTAKE_VIEW, wf::ID);
    let items = all_pages(app, &user.token, &intake, 100).await;
    (ids(forms, "formId"), ids(items, "itemId"))
}

#[tokio::test]
async fn a_form_created_or_submitted_with_a_workflow_id_starts_that_workflow() {
    // Arrange
    let app = spawn_app().await;
    let ann = sample_setup(&app, "ann").await;
    let mut wrapper = sample_payload();
    wrapper["payload"]["integrations"] = json!({"workflowConfigurationId": wf::ID});
    let mut draft = wrapper.clone();
    draft["payload"]["state"] = json!("DRAFT");
    // Act
    let created = created_form(&app, &ann.token, &wrapper).await["formId"].as_str().unwrap().to_owned();
    let drafted = created_form(&app, &ann.token, &draft).await["formId"].as_str().unwrap().to_owned();
    let before = get_item(&app, &ann.token, &drafted, None).await;
    patched_form(&app, &ann.token, &drafted, &json!({"payload": {"state": "SUBMITTED"}})).await;
    // Assert
    assert_eq!(read_item(&app, &ann.token, &created, None).await.1["workbasketId"], wf::INTAKE);
    assert_error(before, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_eq!(read_item(&app, &ann.token, &drafted, None).await.1["workbasketId"], wf::INTAKE);
    let mut listed = view_items(&app, &ann.token, wf::INTAKE_VIEW).await;
    listed.sort();
    let mut both = vec![created, drafted];
    both.sort();
    assert_eq!(listed, both);
}

#[tokio::test]
async fn the_creator_of_the_workflow_an_item_sits_in_may_switch_it_to_another() {
    // Arrange: bob's item sits in ann's workflow.
    let app = spawn_app().await;
    let ann = sample_setup(&app, "ann").await;
    let bob = app.sign_up("bob").await;
    let bobs_item = submitted_form(&app, &bob.token).await;
    started(&app, &bob.token, &bobs_item).await;
    let mut second = sample_workflow();
    second.as_object_mut().unwrap().remove("id");
    let second_id = created_workflow(&app, &ann.token, second).await["id"].as_str().unwrap().to_owned();
    let switch = json!({"workflowConfigurationId": second_id, "itemId": bobs_item, "confirmSwitch": true});
    // Act
    let switched = start(&app, &ann.token, &switch).await;
    // Assert
    assert_eq!(switched.status(), StatusCode::CREATED);
    assert_eq!(body(switched).await["workflowConfigurationId"], second_id.as_str());
}

#[tokio::test]
async fn an_instance_that_requests_a_workflow_is_never_stored_without_its_item() {
    // Arrange: how long a whole create takes here (the median of five), so the cuts fall across all of it.
    let app = spawn_app().await;
    let ann = sample_setup(&app, "ann").await;
    let wrapper = requesting_the_workflow("SUBMITTED");
    let mut whole = Vec::new();
    for _ in 0..5 {
        let began = Instant::now();
        created_form(&app, &ann.token, &wrapper).await;
        whole.push(began.elapsed());
    }
    whole.sort();
    let whole = whole[2];
    const CUTS: u32 = 120;
    // Act: each request is dropped by its client after a point between its start and 1.5 times its length;
    // the server drops a request whose client went away at whatever it was awaiting.
    let mut cut = 0;
    for i in 0..CUTS {
        let after = whole.mul_f64(1.5 * f64::from(i) / f64::from(CUTS)).max(Duration::from_micros(50));
        let sent = app.authed(Method::POST, "/v0/forms", &ann.token).json(&wrapper).timeout(after).send().await;
        if sent.is_err() {
            cut += 1;
        }
    }
    // A write handed to the writer before its request was dropped still commits: let them all land.
    tokio::time::sleep(Duration::from_millis(500)).await;
    // Assert
    let (instances, items) = instances_and_items(&app, &ann).await;
    assert!(cut > 0, "no request was cut (a whole request took {whole:?})");
    assert!(instances.len() >= 5, "{instances:?}");
    assert_eq!(instances, items, "every stored instance sits in the workflow it asked for ({cut} cut)");
}

#[tokio::test]
async fn a_draft_submitted_and_started_many_times_at_once_enters_its_workflow_once() {
    // Arrange
    let app = spawn_app().await;
    let ann = sample_setup(&app, "ann").await;
    let form = created_form(&app, &ann.token, &requesting_the_workflow("DRAFT")).await["formId"].clone();
    let form = form.as_str().unwrap();
    let submit = json!({"payload": {"state": "SUBMITTED"}});
    let explicit = json!({"workflowConfigurationId": wf::ID, "itemId": form});
    // Act: eight submissions and four explicit starts at once.
    let submissions = futures::future::join_all((0..8).map(|_| patch_form(&app, &ann.token, form, &submit)));
    let starts = futures::future::join_all((0..4).map(|_| start(&app, &ann.token, &explicit)));
    let (submissions, starts) = futures::future::join(submissions, starts).await;
    // Assert: a submission applies or loses the race for the revision (409, nothing written); a start
    // finds the form not yet submitted, or already in the workflow its submission started.
    let applied = submissions.iter().filter(|r| r.status() == StatusCode::OK).count();
    for response in submissions.into_iter().filter(|r| r.status() != StatusCode::OK) {
        assert_error(response, StatusCode::CONFLICT, "CONFLICT").await;
    }
    for response in starts {
        let status = response.status();
        let answer = body(response).await;
        let code = answer["error"]["code"].as_str().unwrap_or_default().to_owned();
        let not_submitted = answer["error"]["details"][0]["code"] == "NOT_SUBMITTED";
        assert!(code == "CONFLICT" || (code == "VALIDATION_FAILED" && not_submitted), "{status}: {answer}");
    }
    assert!(applied >= 1);
    let trail = all_pages(&app, &ann.token, &format!("/v0/forms/{form}/history"), 100).await;
    let actions: Vec<&str> = trail.iter().map(|entry| entry["action"].as_str().unwrap()).collect();
    assert_eq!(actions.len(), 1 + applied, "one entry per applied change: {actions:?}");
    assert_eq!(actions.iter().filter(|a| **a == "SUBMITTED").count(), 1, "{actions:?}");
    let history = all_pages(&app, &ann.token, &item_path(form, "/history", None), 100).await;
    let starts: Vec<&Value> = history.iter().filter(|entry| entry["action"] == "STARTED").collect();
    assert_eq!(starts.len(), 1, "{history:?}");
    assert_eq!(read_item(&app, &ann.token, form, None).await.1["workbasketId"], wf::INTAKE);
}

#[tokio::test]
async fn a_submission_whose_workflow_no_longer_takes_the_form_is_refused_and_nothing_changes() {
    // Arrange: a draft names the sample workflow, whose allowlist then takes another form instead.
    let app = spawn_app().await;
    let ann = sample_setup(&app, "ann").await;
    let form = created_form(&app, &ann.token, &requesting_the_workflow("DRAFT")).await["formId"].clone();
    let form = form.as_str().unwrap();
    let other = created_config(&app, &ann.token, config_with(vec![field("name", "text")])).await;
    let mut narrowed = sample_workflow();
    narrowed["integrations"]["forms"]["allowedConfigurationIds"] = json!([other["id"]]);
    for view in narrowed["views"].as_array_mut().unwrap() {
        view["forms"] = json!({});
    }
    let put = put_workflow(&app, &ann.token, wf::ID, &json!({"config": narrowed})).await;
    assert_eq!(put.status(), StatusCode::OK, "{}", body(put).await);
    let before = get_ok(&app, &ann.token, &format!("/v0/forms/{form}")).await;
    // Act
    let submitted = patch_form(&app, &ann.token, form, &json!({"payload": {"state": "SUBMITTED"}})).await;
    // Assert
    let path = "/payload/integrations/workflowConfigurationId";
    assert_eq!(refused(submitted).await, expected(&[(path, "FORM_NOT_ALLOWED")]));
    assert_eq!(get_ok(&app, &ann.token, &format!("/v0/forms/{form}")).await, before);
    assert_error(get_item(&app, &ann.token, form, None).await, StatusCode::NOT_FOUND, "NOT_FOUND").await;
}
