//! Refused export queries: 400 VALIDATION_FAILED with a problem at each bad query parameter, every
//! problem listed in one answer; an unknown view, workflow or one the caller does not hold is 404; no
//! session is 401.

use reqwest::{Method, StatusCode};
use serde_json::json;
use trellis_tests::{assert_error, spawn_app};

use super::{FORMS_EXPORT, ITEMS_EXPORT, export_forms, export_items};
use crate::support::forms::{created_config, expected, new_id, refused, sample, sample_config};
use crate::support::workflow::{grant, sample_setup, wf};

/// Query parameters, or the (path, code) of problems.
type Query<'a> = Vec<(&'a str, &'a str)>;

#[tokio::test]
async fn each_bad_form_export_parameter_is_a_problem_at_its_query_path() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let unknown = new_id();
    let cases: Vec<(Query, Query)> = vec![
        (vec![("format", "xlsx")], vec![("query.format", "INVALID_VALUE")]),
        // The document states the format as an enum: exactly one of its words, as typed clients send it.
        (vec![("format", "")], vec![("query.format", "INVALID_VALUE")]),
        (vec![("format", " jsonl")], vec![("query.format", "INVALID_VALUE")]),
        (vec![("format", "CSV")], vec![("query.format", "INVALID_VALUE")]),
        (vec![("format", "csv")], vec![("query.configurationId", "REQUIRED")]),
        (vec![("format", "csv"), ("configurationId", " ")], vec![("query.configurationId", "REQUIRED")]),
        (
            vec![("format", "csv"), ("configurationId", unknown.as_str())],
            vec![("query.configurationId", "UNKNOWN_CONFIGURATION")],
        ),
        (vec![("configurationId", "not-a-uuid")], vec![("query.configurationId", "INVALID_UUID")]),
        (vec![("format", "csv"), ("configurationId", "not-a-uuid")], vec![("query.configurationId", "INVALID_UUID")]),
        (vec![("updatedSince", "yesterday")], vec![("query.updatedSince", "INVALID_TIMESTAMP")]),
        (vec![("updatedSince", "2025-01-01")], vec![("query.updatedSince", "INVALID_TIMESTAMP")]),
        (vec![("updatedSince", "")], vec![("query.updatedSince", "INVALID_TIMESTAMP")]),
        (vec![("states", "DRAFT,ARCHIVED")], vec![("query.states", "INVALID_VALUE")]),
        // A list sent as its key repeated is read as the comma-separated one.
        (vec![("states", "DRAFT"), ("states", "ARCHIVED")], vec![("query.states", "INVALID_VALUE")]),
        (
            vec![("format", "xlsx"), ("configurationId", "nope"), ("states", "LOST"), ("updatedSince", "soon")],
            vec![
                ("query.format", "INVALID_VALUE"),
                ("query.configurationId", "INVALID_UUID"),
                ("query.states", "INVALID_VALUE"),
                ("query.updatedSince", "INVALID_TIMESTAMP"),
            ],
        ),
        (
            vec![("format", "csv"), ("states", "LOST"), ("updatedSince", "soon")],
            vec![
                ("query.configurationId", "REQUIRED"),
                ("query.states", "INVALID_VALUE"),
                ("query.updatedSince", "INVALID_TIMESTAMP"),
            ],
        ),
    ];
    for (query, problems) in cases {
        // Act
        let response = export_forms(&app, &ann.token, &query).await;
        // Assert
        assert_eq!(refused(response).await, expected(&problems), "{query:?}");
    }
    // A good query after all these is still answered: the refusals held no export open.
    let good = export_forms(&app, &ann.token, &[("format", "csv"), ("configurationId", sample::CONFIG_ID)]).await;
    assert_eq!(good.status(), StatusCode::OK);
}

#[tokio::test]
async fn each_bad_item_export_parameter_is_a_problem_at_its_query_path() {
    // Arrange
    let app = spawn_app().await;
    let ann = sample_setup(&app, "ann").await;
    let unknown = new_id();
    let view = [("workflowConfigurationId", wf::ID), ("workflowViewId", wf::REVIEW_VIEW)];
    let with = |extra: &[(&'static str, &'static str)]| -> Vec<(&'static str, &'static str)> {
        view.iter().chain(extra).copied().collect()
    };
    let cases: Vec<(Query, Query)> = vec![
        (vec![], vec![("query.workflowConfigurationId", "REQUIRED"), ("query.workflowViewId", "REQUIRED")]),
        (vec![("workflowConfigurationId", wf::ID)], vec![("query.workflowViewId", "REQUIRED")]),
        (vec![("workflowViewId", wf::REVIEW_VIEW)], vec![("query.workflowConfigurationId", "REQUIRED")]),
        (
            vec![("workflowConfigurationId", " "), ("format", "xlsx")],
            vec![
                ("query.workflowConfigurationId", "REQUIRED"),
                ("query.workflowViewId", "REQUIRED"),
                ("query.format", "INVALID_VALUE"),
            ],
        ),
        (with(&[("format", "xlsx")]), vec![("query.format", "INVALID_VALUE")]),
        (with(&[("format", "csv")]), vec![("query.configurationId", "REQUIRED")]),
        (with(&[("configurationId", "nope")]), vec![("query.configurationId", "INVALID_UUID")]),
        (
            with(&[("format", "xlsx"), ("configurationId", "nope")]),
            vec![("query.format", "INVALID_VALUE"), ("query.configurationId", "INVALID_UUID")],
        ),
    ];
    for (query, problems) in cases {
        // Act
        let response = export_items(&app, &ann.token, &query).await;
        // Assert
        assert_eq!(refused(response).await, expected(&problems), "{query:?}");
    }
    // A configuration the view does not show cannot be a CSV export's.
    let unknown_csv =
        export_items(&app, &ann.token, &[view[0], view[1], ("format", "csv"), ("configurationId", unknown.as_str())])
            .await;
    assert_eq!(refused(unknown_csv).await, expected(&[("query.configurationId", "UNKNOWN_CONFIGURATION")]));
}

#[tokio::test]
async fn an_unknown_view_or_workflow_or_one_the_caller_does_not_hold_is_404() {
    // Arrange: bob holds intake (slot 1) only; eve holds nothing.
    let app = spawn_app().await;
    let ann = sample_setup(&app, "ann").await;
    let bob = app.sign_up("bob").await;
    let eve = app.sign_up("eve").await;
    grant(&app, &ann.token, json!([{"handle": "bob", "slots": [1]}])).await;
    let (unknown_view, unknown_workflow) = (new_id(), new_id());
    let cases: Vec<(&str, [(&str, &str); 2])> = vec![
        (ann.token.as_str(), [("workflowConfigurationId", wf::ID), ("workflowViewId", unknown_view.as_str())]),
        (ann.token.as_str(), [("workflowConfigurationId", wf::ID), ("workflowViewId", "not-a-view")]),
        (
            ann.token.as_str(),
            [("workflowConfigurationId", unknown_workflow.as_str()), ("workflowViewId", wf::REVIEW_VIEW)],
        ),
        (ann.token.as_str(), [("workflowConfigurationId", "not-a-workflow"), ("workflowViewId", wf::REVIEW_VIEW)]),
        (bob.token.as_str(), [("workflowConfigurationId", wf::ID), ("workflowViewId", wf::REVIEW_VIEW)]),
        (eve.token.as_str(), [("workflowConfigurationId", wf::ID), ("workflowViewId", wf::INTAKE_VIEW)]),
        (eve.token.as_str(), [("workflowConfigurationId", wf::ID), ("workflowViewId", wf::REVIEW_VIEW)]),
    ];
    for (token, query) in cases {
        // Act
        let response = export_items(&app, token, &query).await;
        // Assert
        assert_error(response, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    }
    // bob's own view is answered, and so is any view for its creator.
    let held = [("workflowConfigurationId", wf::ID), ("workflowViewId", wf::INTAKE_VIEW)];
    assert_eq!(export_items(&app, &bob.token, &held).await.status(), StatusCode::OK);
    let creators = [("workflowConfigurationId", wf::ID), ("workflowViewId", wf::REVIEW_VIEW)];
    assert_eq!(export_items(&app, &ann.token, &creators).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn an_export_without_a_session_is_401() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let forms = app.request(Method::GET, FORMS_EXPORT).send().await.unwrap();
    let items = app
        .request(
            Method::GET,
            &format!("{ITEMS_EXPORT}?workflowConfigurationId={}&workflowViewId={}", wf::ID, wf::REVIEW_VIEW),
        )
        .send()
        .await
        .unwrap();
    // Assert
    assert_error(forms, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    assert_error(items, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
}
