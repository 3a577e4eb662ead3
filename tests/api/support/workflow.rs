//! Building workflow configurations and items for the workflow tests, and calling the workflow
//! routes. The sample workflow runs items of the sample form configuration from intake (view 1,
//! slot 1) through review (view 2, slot 2) to approved or rejected (both terminal).

use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{TestApp, TestUser, body};

use crate::support::forms::{created_config, created_form, sample_config, sample_payload, send};

const SAMPLE_WORKFLOW: &str = include_str!("../../../host/src/domain/workflows/testdata/sample_workflow.json");

/// Ids of the sample workflow and of the sample form fields it shows.
pub mod wf {
    pub const ID: &str = "7b036b63-712b-4ee1-833a-6dfb2b1371f1";
    pub const INTAKE: &str = "4aa0eaf1-addd-4814-bf5d-7699b21c01d6";
    pub const REVIEW: &str = "2d388329-b6d3-4a6c-9f1d-7c9f39e205af";
    pub const APPROVED: &str = "6d953184-60f9-4aac-aebb-7b2563bcded8";
    pub const REJECTED: &str = "3a8065e4-ddf5-410a-92b6-2e08508e0b53";
    pub const SUBMIT: &str = "cef27744-9888-4e9d-8cfb-90b4d0b5d494";
    pub const APPROVE: &str = "7c8cc3f6-054e-4c00-997a-7e6992e4a3dd";
    pub const REJECT: &str = "a12f2525-16da-4506-a3a9-4da683c6fe56";
    pub const RETURN: &str = "bd91282a-4572-4282-9ba2-b5488668d44f";
    /// Slot 1, shows the intake workbasket.
    pub const INTAKE_VIEW: &str = "4583574e-26f7-4c86-a00f-eadb37762e42";
    /// Slot 2, shows the review workbasket.
    pub const REVIEW_VIEW: &str = "21d5b55a-e96b-4331-9a46-404f2cb3b8b9";
    pub const FULL_NAME: &str = "9531985d-5d9d-49f8-9818-e811892f902b";
    pub const EMAIL: &str = "36f675cc-81e7-4ef5-a8e2-5d940ed90475";
    pub const REFERENCE: &str = "92276658-1e27-41c0-8a6a-63ec24ede6a4";
    pub const PRIORITY: &str = "ec66a787-95e7-41d1-b731-af10506bf2ef";
    pub const COMMENTS: &str = "830e07bc-1e39-4f10-92bd-4acefaecbd38";
    pub const DEPARTMENT: &str = "18f135d2-5f55-4203-b018-50c5a38fd547";
}

/// The sample workflow document.
pub fn sample_workflow() -> Value {
    serde_json::from_str(SAMPLE_WORKFLOW).expect("the sample workflow is JSON")
}

pub async fn validate_workflow(app: &TestApp, token: &str, wrapper: &Value) -> Response {
    send(app, Method::POST, "/v0/workflows/configurations/validate", token, wrapper).await
}

pub async fn create_workflow(app: &TestApp, token: &str, wrapper: &Value) -> Response {
    send(app, Method::POST, "/v0/workflows/configurations", token, wrapper).await
}

pub async fn put_workflow(app: &TestApp, token: &str, id: &str, wrapper: &Value) -> Response {
    send(app, Method::PUT, &format!("/v0/workflows/configurations/{id}"), token, wrapper).await
}

/// Creates `{config}` and answers the stored view, asserting 201.
pub async fn created_workflow(app: &TestApp, token: &str, config: Value) -> Value {
    let response = create_workflow(app, token, &json!({"config": config})).await;
    let status = response.status();
    let view = body(response).await;
    assert_eq!(status, StatusCode::CREATED, "{view}");
    view
}

/// Signs up `owner`, who creates the sample form configuration and the sample workflow.
pub async fn sample_setup(app: &TestApp, owner: &str) -> TestUser {
    let user = app.sign_up(owner).await;
    created_config(app, &user.token, sample_config()).await;
    created_workflow(app, &user.token, sample_workflow()).await;
    user
}

/// A SUBMITTED sample form instance of `token`'s user; answers its id.
pub async fn submitted_form(app: &TestApp, token: &str) -> String {
    created_form(app, token, &sample_payload()).await["formId"].as_str().unwrap().to_owned()
}

pub async fn start(app: &TestApp, token: &str, body: &Value) -> Response {
    send(app, Method::POST, "/v0/workflows/instances", token, body).await
}

/// Starts the sample workflow on `item_id`, asserting 201.
pub async fn started(app: &TestApp, token: &str, item_id: &str) -> Value {
    let response = start(app, token, &json!({"workflowConfigurationId": wf::ID, "itemId": item_id})).await;
    let status = response.status();
    let view = body(response).await;
    assert_eq!(status, StatusCode::CREATED, "{view}");
    view
}

/// Replaces the grants of the sample workflow, asserting 200.
pub async fn grant(app: &TestApp, owner: &str, grants: Value) {
    let path = format!("/v0/workflows/configurations/{}/permissions", wf::ID);
    let response = send(app, Method::PUT, &path, owner, &json!({"grants": grants})).await;
    let status = response.status();
    let answer = body(response).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
}

/// `/v0/workflows/items/{item}{suffix}` with the sample workflow and, when given, the view.
pub fn item_path(item: &str, suffix: &str, view: Option<&str>) -> String {
    let mut path = format!("/v0/workflows/items/{item}{suffix}?workflowConfigurationId={}", wf::ID);
    if let Some(view) = view {
        path.push_str(&format!("&viewId={view}"));
    }
    path
}

pub async fn get_item(app: &TestApp, token: &str, item: &str, view: Option<&str>) -> Response {
    app.get_authed(&item_path(item, "", view), token).await
}

/// The item through `view`, asserting 200; answers (ETag, body).
pub async fn read_item(app: &TestApp, token: &str, item: &str, view: Option<&str>) -> (String, Value) {
    let response = get_item(app, token, item, view).await;
    let status = response.status();
    let etag = response.headers().get("etag").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
    let value = body(response).await;
    assert_eq!(status, StatusCode::OK, "{value}");
    assert!(!etag.is_empty(), "an item read carries an ETag");
    (etag, value)
}

pub async fn patch_item(
    app: &TestApp,
    token: &str,
    item: &str,
    view: Option<&str>,
    fields: Value,
    if_match: Option<&str>,
) -> Response {
    let mut request = app.authed(Method::PATCH, &item_path(item, "", view), token);
    if let Some(tag) = if_match {
        request = request.header("If-Match", tag);
    }
    request.json(&json!({"payload": {"fields": fields}})).send().await.expect("request sent")
}

pub async fn transition(
    app: &TestApp,
    token: &str,
    item: &str,
    view: Option<&str>,
    transition_id: &str,
    if_match: Option<&str>,
) -> Response {
    let mut request = app.authed(Method::POST, &item_path(item, "/transitions", view), token);
    if let Some(tag) = if_match {
        request = request.header("If-Match", tag);
    }
    request.json(&json!({"transitionId": transition_id})).send().await.expect("request sent")
}

/// Moves the item along `transition_id`, asserting 200; answers the new item body.
pub async fn moved(app: &TestApp, token: &str, item: &str, view: Option<&str>, transition_id: &str) -> Value {
    let response = transition(app, token, item, view, transition_id, None).await;
    let status = response.status();
    let value = body(response).await;
    assert_eq!(status, StatusCode::OK, "{value}");
    value
}

/// The item ids listed by `view` of the sample workflow, asserting 200.
pub async fn view_items(app: &TestApp, token: &str, view: &str) -> Vec<String> {
    let response = view_list(app, token, view, "").await;
    let status = response.status();
    let page = body(response).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    page["items"].as_array().unwrap().iter().map(|item| item["itemId"].as_str().unwrap().to_owned()).collect()
}

pub async fn view_list(app: &TestApp, token: &str, view: &str, extra: &str) -> Response {
    let path = format!("/v0/workflows/views/{view}/items?workflowConfigurationId={}{extra}", wf::ID);
    app.get_authed(&path, token).await
}

/// The transition ids of an item body.
pub fn transition_ids(item: &Value) -> Vec<String> {
    let mut ids: Vec<String> = item["transitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["transitionId"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

/// The sorted ids, owned.
pub fn sorted(ids: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = ids.iter().map(|id| (*id).to_owned()).collect();
    out.sort();
    out
}
