//! Text no id or field can hold (a NUL character, which PostgreSQL text cannot store either) is
//! refused before any query, the same on both engines: 404 in a path, 400 in a query or a body.

use reqwest::{Method, StatusCode};
use serde_json::json;
use trellis_tests::{assert_error, spawn_app};

use crate::support::forms::{created_config, created_form, expected, get_ok, problems, sample_config, sample_payload};

#[tokio::test]
async fn ids_holding_a_nul_character_name_nothing() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let created = created_form(&app, &ann.token, &sample_payload()).await;
    let form_id = created["formId"].as_str().unwrap().to_owned();
    let paths = [
        "/v0/forms/abc%00def".to_owned(),
        format!("/v0/forms/{form_id}%00"),
        "/v0/media/forms/abc%00def/attachments/abc%00def".to_owned(),
        "/v0/forms/configurations/abc%00def".to_owned(),
        "/v0/workflows/configurations/abc%00def".to_owned(),
        "/v0/workflows/items/abc%00def".to_owned(),
        "/v0/spaces/abc%00def/settings/general".to_owned(),
        "/v0/media/users/abc%00/abc%00/avatar/abc%00".to_owned(),
    ];
    for path in paths {
        // Act
        let response = app.authed(Method::GET, &path, &ann.token).send().await.unwrap();
        // Assert
        assert_error(response, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    }
    get_ok(&app, &ann.token, &format!("/v0/forms/{form_id}")).await;
}

#[tokio::test]
async fn query_parameters_holding_a_nul_character_are_refused_by_name() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let search = app.authed(Method::GET, "/v0/users/search?q=an%00n", &ann.token).send().await.unwrap();
    let list =
        app.authed(Method::GET, "/v0/forms?states=SUBMITTED&configurationId=%00", &ann.token).send().await.unwrap();
    // Assert
    let search = assert_error(search, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&search), expected(&[("query.q", "NUL_CHARACTER")]));
    let list = assert_error(list, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&list), expected(&[("query.configurationId", "NUL_CHARACTER")]));
}

#[tokio::test]
async fn body_strings_holding_a_nul_character_are_refused_at_their_places_and_nothing_is_written() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let before = get_ok(&app, &ann.token, "/v0/users/me").await;
    // Act
    let profile = app
        .authed(Method::PATCH, "/v0/users/me", &ann.token)
        .json(&json!({"displayName": "An\u{0}n", "fullName": "Ann\u{0}"}))
        .send()
        .await
        .unwrap();
    let space = app
        .authed(Method::POST, "/v0/spaces", &ann.token)
        .json(&json!({"name": "nul", "displayName": "Nul", "summary": "x", "nested\u{0}": {"k": ["ok", "bad\u{0}"]}}))
        .send()
        .await
        .unwrap();
    // Assert
    let profile = assert_error(profile, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&profile), expected(&[("/displayName", "NUL_CHARACTER"), ("/fullName", "NUL_CHARACTER")]));
    let space = assert_error(space, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&space), expected(&[("/nested", "NUL_CHARACTER")]));
    assert_eq!(get_ok(&app, &ann.token, "/v0/users/me").await, before);
    let spaces = get_ok(&app, &ann.token, "/v0/spaces").await;
    assert_eq!(spaces["items"], json!([]));
}
