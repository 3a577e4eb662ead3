//! Conditional requests (conventions section 1): a strong `ETag` on every read of one resource,
//! 304 for an `If-None-Match` naming it, and 412 PRECONDITION_FAILED for an update whose `If-Match`
//! is stale or weak: form and workflow resources, a space's settings. (Items: `workflow_items`.)

use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{TestApp, assert_error, body, spawn_app};

use crate::support::forms::{created_config, created_form, sample, sample_config, sample_payload};
use crate::support::marketplace::settings_path;
use crate::support::spaces::{created_space, id};
use crate::support::workflow::{created_workflow, sample_workflow, wf};

/// The response's strong `ETag`.
pub(crate) fn etag(response: &Response) -> String {
    let tag = response.headers().get("etag").expect("an ETag").to_str().unwrap().to_owned();
    assert!(tag.starts_with('"') && tag.ends_with('"'), "a strong tag: {tag}");
    tag
}

async fn conditional(app: &TestApp, method: Method, path: &str, token: &str, header: (&str, &str)) -> Response {
    app.authed(method, path, token).header(header.0, header.1).send().await.expect("request sent")
}

/// An update sent with `If-Match`.
pub(crate) async fn update(
    app: &TestApp,
    method: Method,
    path: &str,
    token: &str,
    if_match: &str,
    body: &Value,
) -> Response {
    app.authed(method, path, token).header("If-Match", if_match).json(body).send().await.expect("request sent")
}

#[tokio::test]
async fn a_read_answers_a_strong_etag_and_304_while_if_none_match_names_it() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let config = created_config(&app, &ann.token, sample_config()).await;
    let form = created_form(&app, &ann.token, &sample_payload()).await;
    let paths = [
        format!("/v0/forms/configurations/{}", config["id"].as_str().unwrap()),
        format!("/v0/forms/{}", form["formId"].as_str().unwrap()),
    ];
    for path in paths {
        // Act
        let first = app.get_authed(&path, &ann.token).await;
        assert_eq!(first.status(), StatusCode::OK);
        let tag = etag(&first);
        let same = conditional(&app, Method::GET, &path, &ann.token, ("If-None-Match", &tag)).await;
        let weak = conditional(&app, Method::GET, &path, &ann.token, ("If-None-Match", &format!("W/{tag}"))).await;
        let other = conditional(&app, Method::GET, &path, &ann.token, ("If-None-Match", "\"0\"")).await;
        // Assert
        assert_eq!(same.status(), StatusCode::NOT_MODIFIED, "{path}");
        assert_eq!(same.headers()["etag"], tag.as_str());
        assert!(same.bytes().await.unwrap().is_empty(), "a 304 has no body");
        assert_eq!(weak.status(), StatusCode::NOT_MODIFIED, "If-None-Match compares weakly");
        assert_eq!(other.status(), StatusCode::OK);
        assert_eq!(etag(&other), tag);
    }
}

#[tokio::test]
async fn a_form_patch_with_a_stale_or_weak_if_match_is_412_and_a_current_one_applies() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let form = created_form(&app, &ann.token, &sample_payload()).await;
    let path = format!("/v0/forms/{}", form["formId"].as_str().unwrap());
    let first = etag(&app.get_authed(&path, &ann.token).await);
    let change = |city: &str| json!({"payload": {"fields": {sample::CITY: city}}});
    // Act
    let applied = update(&app, Method::PATCH, &path, &ann.token, &first, &change("Bern")).await;
    let second = etag(&applied);
    let stale = update(&app, Method::PATCH, &path, &ann.token, &first, &change("Basel")).await;
    let weak = update(&app, Method::PATCH, &path, &ann.token, &format!("W/{second}"), &change("Chur")).await;
    let any = update(&app, Method::PATCH, &path, &ann.token, "*", &change("Thun")).await;
    // Assert
    assert_eq!(applied.status(), StatusCode::OK);
    assert_ne!(first, second);
    assert_error(stale, StatusCode::PRECONDITION_FAILED, "PRECONDITION_FAILED").await;
    assert_error(weak, StatusCode::PRECONDITION_FAILED, "PRECONDITION_FAILED").await;
    assert_eq!(any.status(), StatusCode::OK);
    let stored = body(app.get_authed(&path, &ann.token).await).await;
    assert_eq!(stored["fields"][sample::CITY], "Thun", "neither refused PATCH was stored");
}

#[tokio::test]
async fn configuration_puts_with_a_stale_if_match_are_412_and_store_nothing() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let form = created_config(&app, &ann.token, sample_config()).await;
    created_workflow(&app, &ann.token, sample_workflow()).await;
    let targets = [
        (format!("/v0/forms/configurations/{}", form["id"].as_str().unwrap()), json!({"config": form["config"]})),
        (format!("/v0/workflows/configurations/{}", wf::ID), json!({"config": sample_workflow()})),
    ];
    for (path, document) in targets {
        let first = etag(&app.get_authed(&path, &ann.token).await);
        // Act
        let applied = update(&app, Method::PUT, &path, &ann.token, &first, &document).await;
        let applied_status = applied.status();
        let second = etag(&applied);
        let stale = update(&app, Method::PUT, &path, &ann.token, &first, &document).await;
        // Assert
        assert_eq!(applied_status, StatusCode::OK, "{path}");
        assert_ne!(first, second, "{path}");
        assert_error(stale, StatusCode::PRECONDITION_FAILED, "PRECONDITION_FAILED").await;
        assert_eq!(etag(&app.get_authed(&path, &ann.token).await), second, "{path}: the refused PUT stored nothing");
    }
}

#[tokio::test]
async fn of_concurrent_form_patches_sending_the_same_if_match_one_applies_and_the_rest_are_412() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let form = created_form(&app, &ann.token, &sample_payload()).await;
    let path = format!("/v0/forms/{}", form["formId"].as_str().unwrap());
    let tag = etag(&app.get_authed(&path, &ann.token).await);
    // Act
    let tasks: Vec<_> = (0..8)
        .map(|i| {
            let request = app
                .authed(Method::PATCH, &path, &ann.token)
                .header("If-Match", &tag)
                .json(&json!({"payload": {"fields": {sample::CITY: format!("City {i}")}}}));
            tokio::spawn(async move { request.send().await.expect("request sent") })
        })
        .collect();
    let applied = applied_or_412(tasks).await;
    // Assert
    assert_eq!(applied, 1);
}

/// How many of concurrent updates applied; each of the others must be 412 PRECONDITION_FAILED.
pub(crate) async fn applied_or_412(tasks: Vec<tokio::task::JoinHandle<Response>>) -> usize {
    let mut applied = 0;
    for task in tasks {
        let response = task.await.unwrap();
        if response.status() == StatusCode::OK {
            applied += 1;
        } else {
            assert_error(response, StatusCode::PRECONDITION_FAILED, "PRECONDITION_FAILED").await;
        }
    }
    applied
}

#[tokio::test]
async fn space_and_marketplace_settings_answer_etags_and_refuse_a_stale_if_match() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let space = created_space(&app, &ann, "garden").await;
    let space_id = id(&space);
    let targets = [
        (Method::PATCH, format!("/v0/spaces/{space_id}/settings/general"), json!({"summary": "Roses"})),
        (Method::PUT, settings_path(&space_id), json!({"title": "Garden", "summary": "Roses", "categories": []})),
    ];
    for (method, path, change) in targets {
        let read = app.get_authed(&path, &ann.token).await;
        let first = etag(&read);
        let unchanged = conditional(&app, Method::GET, &path, &ann.token, ("If-None-Match", &first)).await;
        // Act
        let applied = update(&app, method.clone(), &path, &ann.token, &first, &change).await;
        let applied_status = applied.status();
        let second = etag(&applied);
        let stale = update(&app, method.clone(), &path, &ann.token, &first, &change).await;
        let weak = update(&app, method.clone(), &path, &ann.token, &format!("W/{second}"), &change).await;
        // Assert
        assert_eq!(unchanged.status(), StatusCode::NOT_MODIFIED, "{path}");
        assert_eq!(applied_status, StatusCode::OK, "{path}");
        assert_ne!(first, second, "{path}");
        assert_error(stale, StatusCode::PRECONDITION_FAILED, "PRECONDITION_FAILED").await;
        assert_error(weak, StatusCode::PRECONDITION_FAILED, "PRECONDITION_FAILED").await;
        assert_eq!(etag(&app.get_authed(&path, &ann.token).await), second, "{path}");
    }
}

#[tokio::test]
async fn a_read_with_no_revision_is_tagged_by_its_bytes() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let channel = crate::support::channels::created_channel(&app, &ann, "growers").await;
    let path = format!("/v0/channels/{}", crate::support::channels::id(&channel));
    let tag = etag(&app.get_authed(&path, &ann.token).await);
    // Act
    let unchanged = conditional(&app, Method::GET, &path, &ann.token, ("If-None-Match", &tag)).await;
    // Connecting a space moves the channel's `updatedAt` (milliseconds) on.
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let space = created_space(&app, &ann, "garden").await;
    let connect =
        app.authed(Method::PUT, &format!("{path}/spaces"), &ann.token).json(&json!({"spaceIds": [id(&space)]}));
    assert_eq!(connect.send().await.unwrap().status(), StatusCode::OK);
    let changed = conditional(&app, Method::GET, &path, &ann.token, ("If-None-Match", &tag)).await;
    // Assert
    assert_eq!(unchanged.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(changed.status(), StatusCode::OK);
    assert_ne!(etag(&changed), tag);
    assert_ne!(body(changed).await["updatedAt"], channel["updatedAt"]);
}
