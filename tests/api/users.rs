//! `/v0/users/me` (read and change the own profile) and `/v0/users/search` (handle lookup).

use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{TestApp, assert_error, body, detail_paths, spawn_app};

async fn patch_me(app: &TestApp, token: &str, update: Value) -> Response {
    app.authed(Method::PATCH, "/v0/users/me", token).json(&update).send().await.unwrap()
}

async fn search(app: &TestApp, token: &str, query: &str) -> Response {
    app.get_authed(&format!("/v0/users/search?{query}"), token).await
}

/// The handles of a search answer, in order.
async fn handles(response: Response) -> Vec<String> {
    assert_eq!(response.status(), StatusCode::OK);
    let page = body(response).await;
    page["items"].as_array().unwrap().iter().map(|u| u["handle"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn get_me_answers_the_own_profile() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    app.sign_up("bob").await;
    // Act
    let response = app.get_authed("/v0/users/me", &ann.token).await;
    // Assert
    assert_eq!(response.status(), StatusCode::OK);
    let profile = body(response).await;
    assert_eq!(profile["userId"], ann.user_id.as_str());
    assert_eq!(profile["handle"], "ann");
    assert_eq!(profile["email"], "ann@example.org");
    assert_eq!(profile["fullName"], "ann Full");
    assert_eq!(profile["displayName"], "ann");
    assert_eq!(profile["avatar"], Value::Null);
    assert!(profile["createdAt"].as_str().is_some() && profile["updatedAt"].as_str().is_some());
}

#[tokio::test]
async fn get_me_without_a_session_is_401_unauthenticated() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let response = app.request(Method::GET, "/v0/users/me").send().await.unwrap();
    // Assert
    assert_error(response, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
}

#[tokio::test]
async fn patch_me_changes_display_name_and_full_name() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let response = patch_me(&app, &ann.token, json!({"displayName": "Annie", "fullName": "Ann Lee"})).await;
    // Assert
    assert_eq!(response.status(), StatusCode::OK);
    let answered = body(response).await;
    assert_eq!(answered["displayName"], "Annie");
    assert_eq!(answered["fullName"], "Ann Lee");
    assert_eq!(answered["handle"], "ann");
    let stored = body(app.get_authed("/v0/users/me", &ann.token).await).await;
    assert_eq!(stored, answered);
}

#[tokio::test]
async fn patch_me_with_one_field_leaves_the_other_as_it_was() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let response = patch_me(&app, &ann.token, json!({"displayName": "Annie"})).await;
    // Assert
    assert_eq!(response.status(), StatusCode::OK);
    let profile = body(response).await;
    assert_eq!(profile["displayName"], "Annie");
    assert_eq!(profile["fullName"], "ann Full");
}

#[tokio::test]
async fn patch_me_refuses_the_handle_with_its_path_and_changes_nothing() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let response = patch_me(&app, &ann.token, json!({"handle": "annie", "displayName": "Annie"})).await;
    // Assert
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(detail_paths(&error), ["/handle"]);
    let profile = body(app.get_authed("/v0/users/me", &ann.token).await).await;
    assert_eq!(profile["handle"], "ann");
    assert_eq!(profile["displayName"], "ann");
}

#[tokio::test]
async fn patch_me_refuses_an_unknown_field_with_its_path() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let response = patch_me(&app, &ann.token, json!({"bio": "hello"})).await;
    // Assert
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(detail_paths(&error), ["/bio"]);
}

#[tokio::test]
async fn patch_me_lists_every_problem_at_once() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let response = patch_me(
        &app,
        &ann.token,
        json!({"handle": "x", "email": "x@example.org", "bio": "y", "displayName": " ", "fullName": "z".repeat(101)}),
    )
    .await;
    // Assert
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    let mut paths = detail_paths(&error);
    paths.sort();
    assert_eq!(paths, ["/bio", "/displayName", "/email", "/fullName", "/handle"]);
    let profile = body(app.get_authed("/v0/users/me", &ann.token).await).await;
    assert_eq!((&profile["handle"], &profile["email"]), (&json!("ann"), &json!("ann@example.org")));
    assert_eq!((&profile["displayName"], &profile["fullName"]), (&json!("ann"), &json!("ann Full")), "names kept");
}

#[tokio::test]
async fn patch_me_with_a_name_that_is_not_a_string_is_400_at_its_path() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let response = patch_me(&app, &ann.token, json!({"displayName": 42, "fullName": null})).await;
    // Assert
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    let mut paths = detail_paths(&error);
    paths.sort();
    assert_eq!(paths, ["/displayName", "/fullName"]);
    let profile = body(app.get_authed("/v0/users/me", &ann.token).await).await;
    assert_eq!((&profile["displayName"], &profile["fullName"]), (&json!("ann"), &json!("ann Full")), "names kept");
}

#[tokio::test]
async fn patch_me_without_a_session_is_401_unauthenticated() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let response = app.request(Method::PATCH, "/v0/users/me").json(&json!({"displayName": "X"})).send().await.unwrap();
    // Assert
    assert_error(response, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
}

#[tokio::test]
async fn search_matches_handles_by_case_insensitive_prefix_in_handle_order() {
    // Arrange
    let app = spawn_app().await;
    let me = app.sign_up("zed").await;
    for handle in ["annabel", "anna", "bob", "hannah"] {
        app.sign_up(handle).await;
    }
    // Act
    let found = handles(search(&app, &me.token, "q=ANN").await).await;
    // Assert
    assert_eq!(found, ["anna", "annabel"]);
}

#[tokio::test]
async fn search_results_carry_user_id_handle_display_name_and_avatar() {
    // Arrange
    let app = spawn_app().await;
    let me = app.sign_up("zed").await;
    let ann = app.sign_up("ann").await;
    // Act
    let response = search(&app, &me.token, "q=ann").await;
    // Assert
    assert_eq!(response.status(), StatusCode::OK);
    let page = body(response).await;
    assert_eq!(page["nextCursor"], Value::Null);
    assert_eq!(page["items"], json!([{"userId": ann.user_id, "handle": "ann", "displayName": "ann", "avatar": null}]));
}

#[tokio::test]
async fn search_treats_underscore_as_a_literal_not_a_wildcard() {
    // Arrange
    let app = spawn_app().await;
    let me = app.sign_up("zed").await;
    app.sign_up("a_b1").await;
    app.sign_up("axb1").await;
    // Act
    let found = handles(search(&app, &me.token, "q=a_").await).await;
    // Assert
    assert_eq!(found, ["a_b1"]);
}

#[tokio::test]
async fn search_treats_percent_as_a_literal_not_a_wildcard() {
    // Arrange
    let app = spawn_app().await;
    let me = app.sign_up("zed").await;
    app.sign_up("ann").await;
    // Act
    let found = handles(search(&app, &me.token, "q=%25").await).await;
    // Assert
    assert!(found.is_empty(), "{found:?}");
}

#[tokio::test]
async fn search_pages_through_every_match_with_limit_and_next_cursor() {
    // Arrange
    let app = spawn_app().await;
    let me = app.sign_up("zed").await;
    for n in 1..=5 {
        app.sign_up(&format!("page{n:02}")).await;
    }
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    // Act
    loop {
        let query = match &cursor {
            Some(c) => format!("q=page&limit=2&cursor={c}"),
            None => "q=page&limit=2".to_owned(),
        };
        let response = search(&app, &me.token, &query).await;
        assert_eq!(response.status(), StatusCode::OK);
        let page = body(response).await;
        let items = page["items"].as_array().unwrap();
        assert!(items.len() <= 2);
        seen.extend(items.iter().map(|u| u["handle"].as_str().unwrap().to_owned()));
        pages += 1;
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
        assert!(pages < 10, "paging does not end");
    }
    // Assert
    assert_eq!(pages, 3);
    assert_eq!(seen, ["page01", "page02", "page03", "page04", "page05"]);
}

#[tokio::test]
async fn search_with_a_limit_outside_one_to_two_hundred_is_400_at_query_limit() {
    // Arrange
    let app = spawn_app().await;
    let me = app.sign_up("zed").await;
    for limit in ["0", "201", "abc", "-1"] {
        // Act
        let response = search(&app, &me.token, &format!("q=z&limit={limit}")).await;
        // Assert
        let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
        assert_eq!(detail_paths(&error), ["query.limit"], "{limit}");
    }
    assert_eq!(handles(search(&app, &me.token, "q=z&limit=200").await).await, ["zed"]);
    assert_eq!(handles(search(&app, &me.token, "q=z&limit=1").await).await, ["zed"]);
}

#[tokio::test]
async fn search_without_q_is_400_at_query_q() {
    // Arrange
    let app = spawn_app().await;
    let me = app.sign_up("zed").await;
    for query in ["", "q=", "q=%20"] {
        // Act
        let response = search(&app, &me.token, query).await;
        // Assert
        let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
        assert_eq!(detail_paths(&error), ["query.q"], "{query:?}");
    }
}

#[tokio::test]
async fn search_with_a_cursor_it_never_gave_out_is_400_at_query_cursor() {
    // Arrange
    let app = spawn_app().await;
    let me = app.sign_up("zed").await;
    // Act
    let response = search(&app, &me.token, "q=z&cursor=!!not-a-cursor").await;
    // Assert
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(detail_paths(&error), ["query.cursor"]);
}

#[tokio::test]
async fn search_without_a_session_is_401_unauthenticated() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let response = app.request(Method::GET, "/v0/users/search?q=a").send().await.unwrap();
    // Assert
    assert_error(response, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
}

#[tokio::test]
async fn search_without_a_limit_answers_pages_of_fifty() {
    // Arrange
    let app = spawn_app().await;
    let me = app.sign_up("zed").await;
    let store = trellis::store::Store::connect(&app.config.database_url(), 1).await.unwrap();
    for n in 0..51 {
        let handle = format!("many{n:02}");
        let email = format!("{handle}@example.org");
        let user = trellis::store::NewUser {
            email: &email,
            handle: &handle,
            full_name: "Many",
            display_name: "Many",
            password_hash: "unused",
        };
        store.users.insert_user(&user, time::OffsetDateTime::now_utc()).await.unwrap();
    }
    store.close().await;
    // Act
    let response = search(&app, &me.token, "q=many").await;
    // Assert
    assert_eq!(response.status(), StatusCode::OK);
    let page = body(response).await;
    assert_eq!(page["items"].as_array().unwrap().len(), 50);
    let cursor = page["nextCursor"].as_str().expect("a next page").to_owned();
    let rest = handles(search(&app, &me.token, &format!("q=many&cursor={cursor}")).await).await;
    assert_eq!(rest, ["many50"]);
}
