//! Workflow items: starting a workflow on a form instance, reading and patching it through views,
//! moving it along transitions to a terminal workbasket, the race between concurrent moves,
//! `ETag`/`If-Match`, history, and who may reach an item and its form instance.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{TestApp, assert_error, body, spawn_app};

use crate::support::forms::{
    config_with, created_config, created_form, expected, field, get_ok, new_id, refused, sample, sample_payload,
};
use crate::support::workflow::{
    created_workflow, get_item, grant, item_path, moved, patch_item, read_item, sample_setup, sample_workflow, sorted,
    start, started, submitted_form, transition, transition_ids, view_items, view_list, wf,
};

/// `ann` owns the sample workflow and has one item in intake; `bob` holds slot 2 (review).
async fn two_users(app: &TestApp) -> (trellis_tests::TestUser, trellis_tests::TestUser, String) {
    let ann = sample_setup(app, "ann").await;
    let bob = app.sign_up("bob").await;
    grant(app, &ann.token, json!([{"handle": "bob", "slots": [2]}])).await;
    let item = submitted_form(app, &ann.token).await;
    started(app, &ann.token, &item).await;
    (ann, bob, item)
}

fn field_path(id: &str) -> String {
    format!("/payload/fields/{id}")
}

#[tokio::test]
async fn a_process_runs_from_intake_to_a_terminal_workbasket_through_two_views_held_by_two_users() {
    // Arrange
    let app = spawn_app().await;
    let ann = sample_setup(&app, "ann").await;
    let bob = app.sign_up("bob").await;
    grant(&app, &ann.token, json!([{"handle": "bob", "slots": [2]}])).await;
    let item = submitted_form(&app, &ann.token).await;
    // Act: start, then intake (ann, view 1) sends it to review (bob, view 2), who approves it.
    let state = started(&app, &ann.token, &item).await;
    let bob_intake_list = view_list(&app, &bob.token, wf::INTAKE_VIEW, "").await;
    let bob_intake_read = get_item(&app, &bob.token, &item, Some(wf::INTAKE_VIEW)).await;
    let intake_list = get_ok(
        &app,
        &ann.token,
        &format!("/v0/workflows/views/{}/items?workflowConfigurationId={}", wf::INTAKE_VIEW, wf::ID),
    )
    .await;
    let (_, at_intake) = read_item(&app, &ann.token, &item, Some(wf::INTAKE_VIEW)).await;
    let german =
        get_ok(&app, &ann.token, &format!("{}&language=de", item_path(&item, "", Some(wf::INTAKE_VIEW)))).await;
    let sent = moved(&app, &ann.token, &item, Some(wf::INTAKE_VIEW), wf::SUBMIT).await;
    let review_ids = view_items(&app, &bob.token, wf::REVIEW_VIEW).await;
    let (_, at_review) = read_item(&app, &bob.token, &item, Some(wf::REVIEW_VIEW)).await;
    let approved = moved(&app, &bob.token, &item, Some(wf::REVIEW_VIEW), wf::APPROVE).await;
    let (_, at_end) = read_item(&app, &ann.token, &item, None).await;
    // Assert
    assert_eq!(
        state,
        json!({"itemId": item, "itemType": "FORM", "workflowConfigurationId": wf::ID, "workbasketId": wf::INTAKE})
    );
    assert_error(bob_intake_list, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(bob_intake_read, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    let listed = &intake_list["items"][0];
    assert_eq!(listed["itemId"], item.as_str());
    assert_eq!(listed["workbasketId"], wf::INTAKE);
    assert_eq!(
        listed["fields"],
        json!({"p1_full_name": "Ada Lovelace", "p1_email": "ada@example.org", "p2_priority": "2"})
    );
    assert_eq!(at_intake["workbasketId"], wf::INTAKE);
    assert_eq!(
        at_intake["transitions"],
        json!([{"transitionId": wf::SUBMIT, "label": "Send to review", "targetWorkbasketId": wf::REVIEW}])
    );
    let keys: Vec<&str> = at_intake["fields"].as_array().unwrap().iter().map(|f| f["key"].as_str().unwrap()).collect();
    assert_eq!(keys, ["p1_full_name", "p1_email", "p2_priority", "p1_reference", "p2_comments"]);
    assert_eq!(at_intake["fields"][0]["fieldId"], wf::FULL_NAME);
    assert_eq!(at_intake["fields"][0]["value"], "Ada Lovelace");
    assert_eq!(at_intake["fields"][0]["type"], "text");
    assert_eq!(at_intake["fields"][3]["editable"], false, "p1_reference is not editable in the form");
    assert_eq!(at_intake["payload"]["metadata"], json!({"timestamp": 1735689600, "tags": "membership,2025"}));
    assert!(at_intake["payload"]["fields"].get(wf::DEPARTMENT).is_none(), "{}", at_intake["payload"]);
    assert_eq!(german["transitions"][0]["label"], "Zur Prüfung");
    assert_eq!(sent["workbasketId"], wf::REVIEW);
    assert_eq!(review_ids, std::slice::from_ref(&item));
    assert_eq!(at_review["workbasketId"], wf::REVIEW);
    assert_eq!(transition_ids(&at_review), sorted(&[wf::APPROVE, wf::REJECT, wf::RETURN]));
    let full_name = &at_review["fields"][0];
    assert_eq!((&full_name["key"], &full_name["editable"]), (&json!("p1_full_name"), &json!(false)));
    let comments = at_review["fields"].as_array().unwrap().iter().find(|f| f["key"] == "p2_comments").unwrap();
    assert_eq!(comments["required"], true);
    assert_eq!(approved["workbasketId"], wf::APPROVED);
    assert_eq!(approved["transitions"], json!([]));
    assert_eq!(at_end["workbasketId"], wf::APPROVED);
    assert_eq!(at_end["transitions"], json!([]));
    assert!(view_items(&app, &bob.token, wf::REVIEW_VIEW).await.is_empty());
    let after_end = get_item(&app, &bob.token, &item, Some(wf::REVIEW_VIEW)).await;
    assert_error(after_end, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    let from_terminal = transition(&app, &ann.token, &item, None, wf::APPROVE, None).await;
    assert_error(from_terminal, StatusCode::CONFLICT, "INVALID_TRANSITION").await;
}

#[tokio::test]
async fn a_transition_not_available_in_the_current_workbasket_is_invalid() {
    // Arrange
    let app = spawn_app().await;
    let (ann, _, item) = two_users(&app).await;
    // Act
    let approve_from_intake = transition(&app, &ann.token, &item, Some(wf::INTAKE_VIEW), wf::APPROVE, None).await;
    let unknown = transition(&app, &ann.token, &item, None, &new_id(), None).await;
    let missing = app
        .authed(Method::POST, &item_path(&item, "/transitions", None), &ann.token)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    // Assert
    assert_error(approve_from_intake, StatusCode::CONFLICT, "INVALID_TRANSITION").await;
    assert_error(unknown, StatusCode::CONFLICT, "INVALID_TRANSITION").await;
    assert_eq!(refused(missing).await, expected(&[("/transitionId", "REQUIRED")]));
    assert_eq!(read_item(&app, &ann.token, &item, None).await.1["workbasketId"], wf::INTAKE);
}

#[tokio::test]
async fn a_transition_id_that_is_no_uuid_is_a_validation_failure() {
    // Arrange
    let app = spawn_app().await;
    let (ann, _, item) = two_users(&app).await;
    // Act
    let malformed = transition(&app, &ann.token, &item, None, "approve-please", None).await;
    // Assert
    assert_eq!(refused(malformed).await, expected(&[("/transitionId", "INVALID_UUID")]));
    assert_eq!(read_item(&app, &ann.token, &item, None).await.1["workbasketId"], wf::INTAKE);
}

#[tokio::test]
async fn of_concurrent_moves_from_the_same_workbasket_exactly_one_wins() {
    // Arrange
    let app = spawn_app().await;
    let (ann, bob, item) = two_users(&app).await;
    moved(&app, &ann.token, &item, Some(wf::INTAKE_VIEW), wf::SUBMIT).await;
    // Act: eight approvals at once, half through bob's view, half as the creator without one.
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let (token, view) = if i % 2 == 0 { (&bob.token, Some(wf::REVIEW_VIEW)) } else { (&ann.token, None) };
            let request = app
                .authed(Method::POST, &item_path(&item, "/transitions", view), token)
                .json(&json!({"transitionId": wf::APPROVE}));
            tokio::spawn(async move { request.send().await.expect("request sent") })
        })
        .collect();
    let mut statuses = Vec::new();
    for task in tasks {
        let response = task.await.unwrap();
        let status = response.status();
        if status != StatusCode::OK {
            assert_error(response, StatusCode::CONFLICT, "INVALID_TRANSITION").await;
        }
        statuses.push(status);
    }
    // Assert
    assert_eq!(statuses.iter().filter(|s| **s == StatusCode::OK).count(), 1, "{statuses:?}");
    assert_eq!(statuses.iter().filter(|s| **s == StatusCode::CONFLICT).count(), 7, "{statuses:?}");
    assert_eq!(read_item(&app, &ann.token, &item, None).await.1["workbasketId"], wf::APPROVED);
    let history = get_ok(&app, &ann.token, &item_path(&item, "/history", None)).await;
    let moves = history["items"].as_array().unwrap().iter().filter(|e| e["action"] == "MOVED").count();
    assert_eq!(moves, 2, "{history}");
}

#[tokio::test]
async fn a_stale_if_match_is_412_on_patch_and_transition_and_a_current_one_applies() {
    // Arrange
    let app = spawn_app().await;
    let (ann, _, item) = two_users(&app).await;
    let view = Some(wf::INTAKE_VIEW);
    let (first, _) = read_item(&app, &ann.token, &item, view).await;
    // Act
    let patched = patch_item(&app, &ann.token, &item, view, json!({wf::FULL_NAME: "Grace Hopper"}), Some(&first)).await;
    let patched_status = patched.status();
    let second = patched.headers().get("etag").unwrap().to_str().unwrap().to_owned();
    let stale_patch = patch_item(&app, &ann.token, &item, view, json!({wf::FULL_NAME: "Ada B"}), Some(&first)).await;
    let stale_move = transition(&app, &ann.token, &item, view, wf::SUBMIT, Some(&first)).await;
    let (current, unchanged) = read_item(&app, &ann.token, &item, view).await;
    let applied = transition(&app, &ann.token, &item, view, wf::SUBMIT, Some(&current)).await;
    let applied_status = applied.status();
    let applied_body = body(applied).await;
    let after_move = transition(&app, &ann.token, &item, None, wf::RETURN, Some(&current)).await;
    let unconditional = patch_item(&app, &ann.token, &item, None, json!({wf::FULL_NAME: "Ada C"}), None).await;
    // Assert
    assert_eq!(patched_status, StatusCode::OK);
    assert_ne!(first, second);
    assert_eq!(second, current);
    assert_error(stale_patch, StatusCode::PRECONDITION_FAILED, "PRECONDITION_FAILED").await;
    assert_error(stale_move, StatusCode::PRECONDITION_FAILED, "PRECONDITION_FAILED").await;
    assert_eq!(unchanged["fields"][0]["value"], "Grace Hopper");
    assert_eq!(unchanged["workbasketId"], wf::INTAKE);
    assert_eq!(applied_status, StatusCode::OK, "{applied_body}");
    assert_eq!(applied_body["workbasketId"], wf::REVIEW);
    assert_error(after_move, StatusCode::PRECONDITION_FAILED, "PRECONDITION_FAILED").await;
    assert_eq!(unconditional.status(), StatusCode::OK);
    let unconditional = body(unconditional).await;
    assert_eq!(unconditional["payload"]["fields"][wf::FULL_NAME], "Ada C", "{unconditional}");
    assert_eq!(unconditional["workbasketId"], wf::REVIEW);
}

#[tokio::test]
async fn of_concurrent_patches_sending_the_same_if_match_one_applies_and_the_rest_are_412() {
    // Arrange
    let app = spawn_app().await;
    let (ann, _, item) = two_users(&app).await;
    let (tag, _) = read_item(&app, &ann.token, &item, Some(wf::INTAKE_VIEW)).await;
    // Act
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let request = app
                .authed(Method::PATCH, &item_path(&item, "", Some(wf::INTAKE_VIEW)), &ann.token)
                .header("If-Match", &tag)
                .json(&json!({"payload": {"fields": {wf::FULL_NAME: format!("Name {i}")}}}));
            tokio::spawn(async move { request.send().await.expect("request sent") })
        })
        .collect();
    let mut statuses = Vec::new();
    for task in tasks {
        let response = task.await.unwrap();
        let status = response.status();
        if status != StatusCode::OK {
            assert_error(response, StatusCode::PRECONDITION_FAILED, "PRECONDITION_FAILED").await;
        }
        statuses.push(status);
    }
    // Assert
    assert_eq!(statuses.iter().filter(|s| **s == StatusCode::OK).count(), 1, "{statuses:?}");
}

#[tokio::test]
async fn a_view_patch_changes_only_fields_the_view_makes_editable_and_form_rules_apply() {
    // Arrange
    let app = spawn_app().await;
    let (ann, bob, item) = two_users(&app).await;
    // Act
    let intake = patch_item(
        &app,
        &ann.token,
        &item,
        Some(wf::INTAKE_VIEW),
        json!({wf::REFERENCE: "REF-1", wf::DEPARTMENT: "sales", wf::EMAIL: "not an address", wf::PRIORITY: "3"}),
        None,
    )
    .await;
    let intake_found = refused(intake).await;
    let (_, untouched) = read_item(&app, &ann.token, &item, Some(wf::INTAKE_VIEW)).await;
    moved(&app, &ann.token, &item, Some(wf::INTAKE_VIEW), wf::SUBMIT).await;
    let review = patch_item(
        &app,
        &bob.token,
        &item,
        Some(wf::REVIEW_VIEW),
        json!({wf::FULL_NAME: "Ada Lovelace", wf::COMMENTS: ""}),
        None,
    )
    .await;
    let review_found = refused(review).await;
    let overridden = patch_item(
        &app,
        &bob.token,
        &item,
        Some(wf::REVIEW_VIEW),
        json!({wf::REFERENCE: "REF-9", wf::COMMENTS: "ok"}),
        None,
    )
    .await;
    let overridden_status = overridden.status();
    let overridden_body = body(overridden).await;
    // Assert
    assert_eq!(
        intake_found,
        expected(&[
            (&field_path(wf::REFERENCE), "NOT_EDITABLE"),
            (&field_path(wf::DEPARTMENT), "NOT_EDITABLE"),
            (&field_path(wf::EMAIL), "PATTERN_MISMATCH"),
        ])
    );
    assert_eq!(untouched["payload"]["fields"][wf::PRIORITY], "2", "a refused PATCH changes nothing");
    assert_eq!(
        review_found,
        expected(&[(&field_path(wf::FULL_NAME), "NOT_EDITABLE"), (&field_path(wf::COMMENTS), "REQUIRED")])
    );
    assert_eq!(overridden_status, StatusCode::OK, "{overridden_body}");
    assert_eq!(overridden_body["payload"]["fields"][wf::REFERENCE], "REF-9");
    assert_eq!(overridden_body["payload"]["fields"][wf::COMMENTS], "ok");
}

#[tokio::test]
async fn history_lists_the_start_moves_and_patches_oldest_first() {
    // Arrange
    let app = spawn_app().await;
    let (ann, bob, item) = two_users(&app).await;
    let patched =
        patch_item(&app, &ann.token, &item, Some(wf::INTAKE_VIEW), json!({wf::FULL_NAME: "Grace"}), None).await;
    assert_eq!(patched.status(), StatusCode::OK);
    assert_eq!(body(patched).await["payload"]["fields"][wf::FULL_NAME], "Grace");
    moved(&app, &ann.token, &item, Some(wf::INTAKE_VIEW), wf::SUBMIT).await;
    moved(&app, &bob.token, &item, Some(wf::REVIEW_VIEW), wf::REJECT).await;
    // Act
    let history = get_ok(&app, &ann.token, &item_path(&item, "/history", None)).await;
    let stranger = app.sign_up("eve").await;
    let hidden = app.get_authed(&item_path(&item, "/history", None), &stranger.token).await;
    // Assert
    let entries = history["items"].as_array().unwrap();
    let actions: Vec<&str> = entries.iter().map(|e| e["action"].as_str().unwrap()).collect();
    assert_eq!(actions, ["STARTED", "PATCHED", "MOVED", "MOVED"], "{history}");
    assert_eq!(entries[0]["toWorkbasketId"], wf::INTAKE);
    assert_eq!(entries[0]["actor"]["userId"], ann.user_id.as_str());
    assert_eq!(entries[1]["changedFields"], json!([wf::FULL_NAME]));
    assert_eq!(
        (&entries[2]["fromWorkbasketId"], &entries[2]["toWorkbasketId"], &entries[2]["transitionId"]),
        (&json!(wf::INTAKE), &json!(wf::REVIEW), &json!(wf::SUBMIT))
    );
    assert_eq!(entries[3]["toWorkbasketId"], wf::REJECTED);
    assert_eq!(entries[3]["actor"]["userId"], bob.user_id.as_str());
    assert_error(hidden, StatusCode::NOT_FOUND, "NOT_FOUND").await;
}

#[tokio::test]
async fn starting_needs_a_submitted_allowed_item_that_the_starter_may_start() {
    // Arrange
    let app = spawn_app().await;
    let ann = sample_setup(&app, "ann").await;
    let bob = app.sign_up("bob").await;
    let eve = app.sign_up("eve").await;
    let closed_view = created_config(&app, &ann.token, config_with(vec![field("name", "text")])).await;
    let closed_id = closed_view["id"].as_str().unwrap().to_owned();
    let mut open = config_with(vec![field("name", "text")]);
    open["integrations"]["allowWorkflowStarts"] = json!(true);
    let open_view = created_config(&app, &ann.token, open).await;
    // A second workflow that also allows the closed form.
    let mut second = sample_workflow();
    second.as_object_mut().unwrap().remove("id");
    second["integrations"]["forms"]["allowedConfigurationIds"] = json!([sample::CONFIG_ID, closed_id]);
    let second_id = created_workflow(&app, &ann.token, second).await["id"].as_str().unwrap().to_owned();
    let form_of = |view: &Value| json!({"payload": {"configurationId": view["id"], "fields": {}}});
    let closed_item = created_form(&app, &ann.token, &form_of(&closed_view)).await["formId"].clone();
    let open_item = created_form(&app, &ann.token, &form_of(&open_view)).await["formId"].clone();
    let mut draft = sample_payload();
    draft["payload"]["state"] = json!("DRAFT");
    let draft_item = created_form(&app, &ann.token, &draft).await["formId"].clone();
    let bobs_item = submitted_form(&app, &bob.token).await;
    let bobs_other = submitted_form(&app, &bob.token).await;
    let request = |workflow: &str, item: &Value| json!({"workflowConfigurationId": workflow, "itemId": item});
    // Act
    let not_allowed = start(&app, &ann.token, &request(wf::ID, &open_item)).await;
    let starts_off = start(&app, &ann.token, &request(&second_id, &closed_item)).await;
    let drafted = start(&app, &ann.token, &request(wf::ID, &draft_item)).await;
    let by_stranger = start(&app, &eve.token, &request(wf::ID, &json!(bobs_item))).await;
    let unknown_item = start(&app, &ann.token, &request(wf::ID, &json!(new_id()))).await;
    let unknown_workflow = start(&app, &bob.token, &request(&new_id(), &json!(bobs_item))).await;
    let by_item_creator = start(&app, &bob.token, &request(wf::ID, &json!(bobs_item))).await;
    let by_workflow_creator = start(&app, &ann.token, &request(wf::ID, &json!(bobs_other))).await;
    // Assert
    assert_eq!(refused(not_allowed).await, expected(&[("/itemId", "FORM_NOT_ALLOWED")]));
    assert_eq!(refused(starts_off).await, expected(&[("/itemId", "WORKFLOW_STARTS_DISABLED")]));
    assert_eq!(refused(drafted).await, expected(&[("/itemId", "NOT_SUBMITTED")]));
    assert_error(by_stranger, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(unknown_item, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_eq!(refused(unknown_workflow).await, expected(&[("/workflowConfigurationId", "UNKNOWN_WORKFLOW")]));
    assert_eq!(by_item_creator.status(), StatusCode::CREATED);
    assert_error(by_workflow_creator, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    let bobs_other_view = get_ok(&app, &bob.token, &format!("/v0/forms/{bobs_other}")).await;
    assert_eq!(bobs_other_view["formId"], bobs_other);
}

#[tokio::test]
async fn a_view_holder_cannot_take_an_item_over_with_a_workflow_of_their_own() {
    // Arrange: bob holds the review view of ann's workflow and sees ann's item in his listing.
    let app = spawn_app().await;
    let (ann, bob, item) = two_users(&app).await;
    moved(&app, &ann.token, &item, Some(wf::INTAKE_VIEW), wf::SUBMIT).await;
    assert_eq!(view_items(&app, &bob.token, wf::REVIEW_VIEW).await.len(), 1);
    let mut copy = sample_workflow();
    copy.as_object_mut().unwrap().remove("id");
    let copy_id = created_workflow(&app, &bob.token, copy).await["id"].as_str().unwrap().to_owned();
    let takeover = json!({"workflowConfigurationId": copy_id, "itemId": item, "confirmSwitch": true});
    // Act
    let moved_away = start(&app, &bob.token, &takeover).await;
    let overwrite = app
        .authed(Method::PATCH, &format!("/v0/forms/{item}"), &bob.token)
        .json(&json!({"payload": {"fields": {}}}))
        .send()
        .await
        .unwrap();
    // Assert
    assert_error(moved_away, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(overwrite, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    let (_, at_review) = read_item(&app, &ann.token, &item, None).await;
    assert_eq!(at_review["workflowConfigurationId"], wf::ID);
    assert_eq!(at_review["workbasketId"], wf::REVIEW);
    assert_eq!(view_items(&app, &bob.token, wf::REVIEW_VIEW).await.len(), 1);
}

#[tokio::test]
async fn an_item_in_a_workflow_switches_only_with_confirm_switch() {
    // Arrange
    let app = spawn_app().await;
    let (ann, _, item) = two_users(&app).await;
    let mut second = sample_workflow();
    second.as_object_mut().unwrap().remove("id");
    let second_id = created_workflow(&app, &ann.token, second).await["id"].as_str().unwrap().to_owned();
    // Act
    let again = start(&app, &ann.token, &json!({"workflowConfigurationId": wf::ID, "itemId": item})).await;
    let unconfirmed = start(&app, &ann.token, &json!({"workflowConfigurationId": second_id, "itemId": item})).await;
    let confirmed = start(
        &app,
        &ann.token,
        &json!({"workflowConfigurationId": second_id, "itemType": "FORM", "itemId": item, "confirmSwitch": true}),
    )
    .await;
    // Assert
    assert_error(again, StatusCode::CONFLICT, "CONFLICT").await;
    assert_error(unconfirmed, StatusCode::CONFLICT, "CONFLICT").await;
    assert_eq!(confirmed.status(), StatusCode::CREATED);
    assert_eq!(body(confirmed).await["workflowConfigurationId"], second_id.as_str());
    assert_error(get_item(&app, &ann.token, &item, None).await, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    let path = format!("/v0/workflows/items/{item}?workflowConfigurationId={second_id}");
    assert_eq!(get_ok(&app, &ann.token, &path).await["workbasketId"], wf::INTAKE);
    assert!(view_items(&app, &ann.token, wf::INTAKE_VIEW).await.is_empty());
}

#[tokio::test]
async fn an_item_is_reached_through_a_held_view_showing_its_workbasket_or_by_the_workflow_creator() {
    // Arrange
    let app = spawn_app().await;
    let (ann, bob, item) = two_users(&app).await;
    // The item's creator, who holds no slot.
    let cat = app.sign_up("cat").await;
    let cats_item = submitted_form(&app, &cat.token).await;
    started(&app, &cat.token, &cats_item).await;
    // Act
    let review_view_at_intake = get_item(&app, &bob.token, &item, Some(wf::REVIEW_VIEW)).await;
    let holder_without_view = get_item(&app, &bob.token, &item, None).await;
    let item_creator_without_view = get_item(&app, &cat.token, &cats_item, None).await;
    let item_creator_through_view = get_item(&app, &cat.token, &cats_item, Some(wf::INTAKE_VIEW)).await;
    let unknown_view = get_item(&app, &ann.token, &item, Some(&new_id())).await;
    let bob_patch =
        patch_item(&app, &bob.token, &item, Some(wf::INTAKE_VIEW), json!({wf::FULL_NAME: "X Y"}), None).await;
    let bob_move = transition(&app, &bob.token, &item, Some(wf::INTAKE_VIEW), wf::SUBMIT, None).await;
    let (_, creator) = read_item(&app, &ann.token, &cats_item, None).await;
    let wrong_workbasket = view_list(&app, &ann.token, wf::INTAKE_VIEW, &format!("&workbasketId={}", wf::REVIEW)).await;
    let no_workflow = app.get_authed(&format!("/v0/workflows/views/{}/items", wf::INTAKE_VIEW), &ann.token).await;
    // Assert
    for response in [
        review_view_at_intake,
        holder_without_view,
        item_creator_without_view,
        item_creator_through_view,
        unknown_view,
        bob_patch,
        bob_move,
    ] {
        assert_error(response, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    }
    let keys: Vec<&str> = creator["fields"].as_array().unwrap().iter().map(|f| f["key"].as_str().unwrap()).collect();
    assert!(keys.contains(&"p2_department") && keys.contains(&"p3_notes"), "the creator sees every field: {keys:?}");
    assert_eq!(refused(wrong_workbasket).await, expected(&[("query.workbasketId", "NOT_IN_VIEW")]));
    assert_eq!(refused(no_workflow).await, expected(&[("query.workflowConfigurationId", "REQUIRED")]));
    assert_eq!(read_item(&app, &ann.token, &item, None).await.1["workbasketId"], wf::INTAKE);
}

#[tokio::test]
async fn a_view_holder_reads_the_form_instance_while_the_item_sits_in_the_view() {
    // Arrange
    let app = spawn_app().await;
    let (ann, bob, item) = two_users(&app).await;
    let eve = app.sign_up("eve").await;
    let form_path = format!("/v0/forms/{item}");
    // Act
    let at_intake = app.get_authed(&form_path, &bob.token).await;
    moved(&app, &ann.token, &item, Some(wf::INTAKE_VIEW), wf::SUBMIT).await;
    let at_review = get_ok(&app, &bob.token, &form_path).await;
    let by_stranger = app.get_authed(&form_path, &eve.token).await;
    // Assert
    assert_error(at_intake, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_eq!(at_review["formId"], item.as_str());
    assert_eq!(at_review["fields"][wf::FULL_NAME], "Ada Lovelace");
    assert_error(by_stranger, StatusCode::NOT_FOUND, "NOT_FOUND").await;
}
