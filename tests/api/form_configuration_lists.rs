//! Listing form configurations: the language and state filters, newest first, paging, and the bad
//! queries.

use reqwest::StatusCode;
use serde_json::Value;
use trellis_tests::{assert_error, spawn_app};

use crate::support::forms::{
    archive, config_with, created_config, field, get_ok, item_ids, list_ids, next_millisecond, problems,
};

/// A small configuration whose only language besides the default is `other`.
fn config_in(other: &str) -> Value {
    let mut config = config_with(vec![field("name", "text")]);
    let bundle = config["translations"]["fr"].take();
    let translations = config["translations"].as_object_mut().unwrap();
    translations.remove("fr");
    translations.insert(other.to_owned(), bundle);
    config
}

#[tokio::test]
async fn the_list_filters_by_language_and_states_newest_first() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let french = created_config(&app, &ann.token, config_in("fr")).await;
    next_millisecond().await;
    let german = created_config(&app, &bob.token, config_in("de")).await;
    next_millisecond().await;
    let archived_german = created_config(&app, &ann.token, config_in("de")).await;
    archive(&app, &ann.token, &archived_german).await;
    let id = |view: &Value| view["id"].as_str().unwrap().to_owned();
    let list = |query: &str| format!("/v0/forms/configurations{query}");
    // Act
    let everything = list_ids(&app, &ann.token, &list(""), "id").await;
    let in_german = list_ids(&app, &ann.token, &list("?language=de"), "id").await;
    let in_english = list_ids(&app, &ann.token, &list("?language=en"), "id").await;
    let in_italian = list_ids(&app, &ann.token, &list("?language=it"), "id").await;
    let active = list_ids(&app, &ann.token, &list("?states=ACTIVE"), "id").await;
    let archived = list_ids(&app, &ann.token, &list("?states=ARCHIVED"), "id").await;
    let both = list_ids(&app, &ann.token, &list("?states=ACTIVE,ARCHIVED&language=de"), "id").await;
    // Assert
    assert_eq!(everything, [id(&archived_german), id(&german), id(&french)]);
    assert_eq!(in_german, [id(&archived_german), id(&german)]);
    assert_eq!(in_english, everything);
    assert!(in_italian.is_empty());
    assert_eq!(active, [id(&german), id(&french)]);
    assert_eq!(archived, [id(&archived_german)]);
    assert_eq!(both, in_german);
}

#[tokio::test]
async fn the_list_pages_with_limit_and_next_cursor() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let mut created = Vec::new();
    for _ in 0..5 {
        created.push(created_config(&app, &ann.token, config_in("fr")).await["id"].as_str().unwrap().to_owned());
        next_millisecond().await;
    }
    created.reverse();
    // Act
    let mut seen = Vec::new();
    let mut pages = 0;
    let mut path = "/v0/forms/configurations?limit=2".to_owned();
    loop {
        let page = get_ok(&app, &ann.token, &path).await;
        pages += 1;
        let items = page["items"].as_array().unwrap();
        assert!(items.len() <= 2);
        assert!(items.iter().all(|item| item["config"].is_object() && item["state"] == "ACTIVE"));
        seen.extend(item_ids(&page, "id"));
        match page["nextCursor"].as_str() {
            Some(cursor) => path = format!("/v0/forms/configurations?limit=2&cursor={cursor}"),
            None => break,
        }
    }
    // Assert
    assert_eq!(pages, 3);
    assert_eq!(seen, created);
}

#[tokio::test]
async fn a_bad_list_query_is_400_with_every_query_path() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let response =
        app.get_authed("/v0/forms/configurations?states=ACTIVE,BOGUS&limit=0&cursor=%21%21", &ann.token).await;
    // Assert
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    let paths: Vec<String> = problems(&error).into_iter().map(|(path, _)| path).collect();
    assert_eq!(paths, ["query.cursor", "query.limit", "query.states"]);
    let too_many = app.get_authed("/v0/forms/configurations?limit=201", &ann.token).await;
    let error = assert_error(too_many, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error).into_iter().map(|(p, _)| p).collect::<Vec<_>>(), ["query.limit"]);
}
