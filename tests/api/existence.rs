//! Existence oracles (issue 11, finding 11): a resource the caller may not see answers exactly like
//! one that does not exist.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{assert_error, body, spawn_app};

use crate::support::forms::{
    answers_by_key, archive, config_with, created_config, created_form, field, new_id, post_form, problems,
    sample_config, send,
};
use crate::support::workflow::{sample_setup, start, submitted_form, wf};

/// The status and the problems of an answer, which is all a client can compare.
async fn answer(response: reqwest::Response) -> (StatusCode, Value, Vec<(String, String)>) {
    let status = response.status();
    let value = body(response).await;
    let code = value["error"]["code"].clone();
    (status, code, problems(&value["error"]))
}

#[tokio::test]
async fn a_workflow_one_cannot_see_answers_like_an_unknown_one() {
    // Arrange: ann's sample workflow takes only the sample form; bob holds none of its slots.
    let app = spawn_app().await;
    let ann = sample_setup(&app, "ann").await;
    let bob = app.sign_up("bob").await;
    let mut config = config_with(vec![field("name", "text")]);
    config["integrations"]["allowWorkflowStarts"] = json!(true);
    let bobs_config = created_config(&app, &bob.token, config).await;
    let with_workflow = |workflow: &str| {
        let mut wrapper = answers_by_key(&bobs_config, &[("name", json!("Bob"))]);
        wrapper["payload"]["integrations"] = json!({"workflowConfigurationId": workflow});
        wrapper
    };
    let unknown = new_id();
    let bobs_item = created_form(&app, &bob.token, &answers_by_key(&bobs_config, &[("name", json!("Bob"))])).await;
    let bobs_item = bobs_item["formId"].as_str().unwrap();
    let anns_item = submitted_form(&app, &ann.token).await;
    let start_on = |workflow: &str, item: &str| json!({"workflowConfigurationId": workflow, "itemId": item});
    // Act
    let naming_hidden = answer(post_form(&app, &bob.token, &with_workflow(wf::ID)).await).await;
    let naming_unknown = answer(post_form(&app, &bob.token, &with_workflow(&unknown)).await).await;
    let hidden_on_own = answer(start(&app, &bob.token, &start_on(wf::ID, bobs_item)).await).await;
    let unknown_on_own = answer(start(&app, &bob.token, &start_on(&unknown, bobs_item)).await).await;
    let hidden_on_other = answer(start(&app, &bob.token, &start_on(wf::ID, &anns_item)).await).await;
    let unknown_on_other = answer(start(&app, &bob.token, &start_on(&unknown, &anns_item)).await).await;
    let read_hidden =
        answer(app.get_authed(&format!("/v0/workflows/configurations/{}", wf::ID), &bob.token).await).await;
    let read_unknown =
        answer(app.get_authed(&format!("/v0/workflows/configurations/{unknown}"), &bob.token).await).await;
    // Assert
    let unknown_workflow = |path: &str| {
        (StatusCode::BAD_REQUEST, json!("VALIDATION_FAILED"), vec![(path.to_owned(), "UNKNOWN_WORKFLOW".to_owned())])
    };
    assert_eq!(naming_hidden, unknown_workflow("/payload/integrations/workflowConfigurationId"));
    assert_eq!(naming_hidden, naming_unknown);
    assert_eq!(hidden_on_own, unknown_workflow("/workflowConfigurationId"));
    assert_eq!(hidden_on_own, unknown_on_own);
    assert_eq!(hidden_on_other, (StatusCode::NOT_FOUND, json!("NOT_FOUND"), vec![]));
    assert_eq!(hidden_on_other, unknown_on_other);
    assert_eq!(read_hidden, (StatusCode::NOT_FOUND, json!("NOT_FOUND"), vec![]));
    assert_eq!(read_hidden, read_unknown);
    app.stop().await;
}

#[tokio::test]
async fn an_archived_configuration_of_someone_else_answers_like_an_unknown_one() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let view = created_config(&app, &ann.token, sample_config()).await;
    archive(&app, &ann.token, &view).await;
    let archived = view["id"].as_str().unwrap().to_owned();
    let unknown = new_id();
    let instance_of = |id: &str| json!({"payload": {"configurationId": id, "fields": {}}});
    let put_body = |id: &str| {
        let mut config = sample_config();
        config["id"] = json!(id);
        json!({"config": config})
    };
    // Act
    let mut answers = Vec::new();
    for id in [&archived, &unknown] {
        let read = answer(app.get_authed(&format!("/v0/forms/configurations/{id}"), &bob.token).await).await;
        let fill = answer(post_form(&app, &bob.token, &instance_of(id)).await).await;
        let path = format!("/v0/forms/configurations/{id}");
        let replace = answer(send(&app, Method::PUT, &path, &bob.token, &put_body(id)).await).await;
        answers.push((read, fill, replace));
    }
    // Assert
    assert_eq!(answers[0], answers[1]);
    let (read, _, replace) = &answers[0];
    assert_eq!(read.0, StatusCode::NOT_FOUND);
    assert_eq!(replace.0, StatusCode::NOT_FOUND);
    // The owner still sees it, archived.
    let owner = app.get_authed(&format!("/v0/forms/configurations/{archived}"), &ann.token).await;
    assert_eq!(owner.status(), StatusCode::OK);
    assert_error(
        app.get_authed(&format!("/v0/forms/configurations/{unknown}"), &ann.token).await,
        StatusCode::NOT_FOUND,
        "NOT_FOUND",
    )
    .await;
    app.stop().await;
}
