//! The rules of a form configuration document (`service-interface.md`, "Form configuration";
//! `conventions.md` section 11), checked through `POST /v0/forms/configurations/validate` and
//! `POST /v0/forms/configurations`: every problem is listed, each at its JSON Pointer.

use reqwest::StatusCode;
use serde_json::{Value, json};
use trellis_tests::{assert_error, spawn_app};

use crate::support::forms::{
    assert_valid, config_with, create_config, dropdown, expected, field, fill_translations, get_config, new_id,
    problems, sample_config, validation_problems,
};

/// A document with one problem of every kind the rules know.
fn document_breaking_every_rule() -> Value {
    let mut config = config_with(vec![
        field("name", "text"),
        field("born", "date"),
        dropdown("colour", &[("red", "RED"), ("blue", "BLUE")]),
        field("scan", "file"),
    ]);
    let name_id = config["pages"][0]["fields"][0]["id"].clone();
    let fields = config["pages"][0]["fields"].as_array_mut().unwrap();
    fields.push(json!({"id": name_id, "key": "name", "order": 5, "type": "textarea"}));
    fields.push(json!({"id": new_id(), "key": "age", "order": 6, "type": "number"}));
    config["pages"].as_array_mut().unwrap().push(json!({
        "id": "6ba7b810-9dad-11d1-80b4-00c04fd430c8", "key": "p1", "order": 2, "fields": []
    }));
    fill_translations(&mut config);
    config["version"] = json!("2.0.0");
    config["id"] = json!("not-a-uuid");
    let name = &mut config["pages"][0]["fields"][0];
    name["label"] = json!("Your name");
    name["validation"] = json!("([a-z]+");
    name["minLength"] = json!(5);
    name["maxLength"] = json!(2);
    let born = &mut config["pages"][0]["fields"][1];
    born["label"] = json!("$.pages.p1.fields.nope.label");
    born["format"] = json!("YYYY-MM-XX");
    born["options"] = json!([{"id": new_id(), "key": "o", "order": 1, "value": "O"}]);
    config["pages"][0]["fields"][2]["value"] = json!("red");
    config["pages"][0]["fields"][3]["file"] =
        json!({"accept": ["image/png", "png"], "maxBytes": 0, "multiple": false, "maxFiles": 3});
    config
}

fn every_rule_problems() -> Vec<(String, String)> {
    expected(&[
        ("/config/version", "UNSUPPORTED_VERSION"),
        ("/config/id", "INVALID_UUID"),
        ("/config/pages/0/fields/0/label", "LITERAL_TEXT"),
        ("/config/pages/0/fields/0/validation", "INVALID_REGEX"),
        ("/config/pages/0/fields/0/minLength", "INVALID_RANGE"),
        ("/config/pages/0/fields/1/label", "UNRESOLVED_REFERENCE"),
        ("/config/pages/0/fields/1/format", "INVALID_FORMAT"),
        ("/config/pages/0/fields/1/options", "NOT_ALLOWED"),
        ("/config/pages/0/fields/2/value", "INVALID_OPTION"),
        ("/config/pages/0/fields/3/file/accept/1", "INVALID_VALUE"),
        ("/config/pages/0/fields/3/file/maxBytes", "INVALID_RANGE"),
        ("/config/pages/0/fields/3/file/maxFiles", "NOT_ALLOWED"),
        ("/config/pages/0/fields/4/id", "DUPLICATE_ID"),
        ("/config/pages/0/fields/4/key", "DUPLICATE_KEY"),
        ("/config/pages/0/fields/5/type", "INVALID_VALUE"),
        ("/config/pages/1/id", "INVALID_UUID"),
        ("/config/pages/1/key", "DUPLICATE_KEY"),
    ])
}

#[tokio::test]
async fn validate_lists_every_problem_of_a_document_with_its_json_pointer() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let found = validation_problems(&app, &ann, document_breaking_every_rule()).await;
    // Assert
    assert_eq!(found, every_rule_problems());
}

#[tokio::test]
async fn create_refuses_an_invalid_document_with_the_same_problems_and_stores_nothing() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let mut config = document_breaking_every_rule();
    config["id"] = json!(new_id());
    let id = config["id"].as_str().unwrap().to_owned();
    // Act
    let response = create_config(&app, &ann.token, &json!({"config": config})).await;
    // Assert
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    let mut wanted = every_rule_problems();
    wanted.retain(|(path, _)| path != "/config/id");
    assert_eq!(problems(&error), wanted);
    assert_error(get_config(&app, &ann.token, &id).await, StatusCode::NOT_FOUND, "NOT_FOUND").await;
}

#[tokio::test]
async fn the_sample_document_with_every_property_is_valid() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act / Assert
    assert_valid(&app, &ann, sample_config()).await;
}

#[tokio::test]
async fn version_must_be_a_semver_with_major_one() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    for (version, code) in [
        ("2.0.0", "UNSUPPORTED_VERSION"),
        ("0.9.0", "UNSUPPORTED_VERSION"),
        ("1.0", "INVALID_VERSION"),
        ("v1.0.0", "INVALID_VERSION"),
        ("", "INVALID_VERSION"),
    ] {
        let mut config = config_with(vec![field("name", "text")]);
        config["version"] = json!(version);
        // Act
        let found = validation_problems(&app, &ann, config).await;
        // Assert
        assert_eq!(found, expected(&[("/config/version", code)]), "{version}");
    }
    for version in ["1.0.0", "1.4.2", "1.0.0-rc.1"] {
        let mut config = config_with(vec![field("name", "text")]);
        config["version"] = json!(version);
        assert_valid(&app, &ann, config).await;
    }
}

#[tokio::test]
async fn a_missing_version_translations_or_pages_is_required_at_its_path() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let found = validation_problems(&app, &ann, json!({"id": new_id()})).await;
    // Assert
    assert_eq!(
        found,
        expected(&[
            ("/config/pages", "REQUIRED"),
            ("/config/translations", "REQUIRED"),
            ("/config/version", "REQUIRED"),
        ])
    );
}

#[tokio::test]
async fn every_structural_id_must_be_a_uuid_v4() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let mut config = config_with(vec![field("name", "text"), dropdown("colour", &[("red", "RED")])]);
    config["id"] = json!("6ba7b810-9dad-11d1-80b4-00c04fd430c8"); // version 1
    config["pages"][0]["id"] = json!("p1");
    config["pages"][0]["fields"][0]["id"] = json!("00000000-0000-0000-0000-000000000000");
    config["pages"][0]["fields"][1]["options"][0]["id"] = json!("6513270e269e4d37b2a74de452e6b438"); // no hyphens
    // Act
    let found = validation_problems(&app, &ann, config).await;
    // Assert
    assert_eq!(
        found,
        expected(&[
            ("/config/id", "INVALID_UUID"),
            ("/config/pages/0/fields/0/id", "INVALID_UUID"),
            ("/config/pages/0/fields/1/options/0/id", "INVALID_UUID"),
            ("/config/pages/0/id", "INVALID_UUID"),
        ])
    );
}

#[tokio::test]
async fn an_id_used_twice_in_the_document_is_a_duplicate_at_its_second_use() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let mut config = config_with(vec![field("name", "text"), dropdown("colour", &[("red", "RED"), ("blue", "BLUE")])]);
    let config_id = new_id();
    config["id"] = json!(config_id);
    let page_id = config["pages"][0]["id"].clone();
    config["pages"][0]["fields"][0]["id"] = page_id;
    config["pages"][0]["fields"][1]["options"][1]["id"] = json!(config_id);
    // Act
    let found = validation_problems(&app, &ann, config).await;
    // Assert
    assert_eq!(
        found,
        expected(&[
            ("/config/pages/0/fields/0/id", "DUPLICATE_ID"),
            ("/config/pages/0/fields/1/options/1/id", "DUPLICATE_ID"),
        ])
    );
}

#[tokio::test]
async fn page_keys_and_field_keys_are_unique_in_the_whole_document() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let mut config = config_with(vec![field("name", "text")]);
    let pages = config["pages"].as_array_mut().unwrap();
    pages.push(json!({"id": new_id(), "key": "p2", "order": 2, "fields": [
        {"id": new_id(), "key": "name", "order": 1, "type": "text"}
    ]}));
    pages.push(json!({"id": new_id(), "key": "p2", "order": 3, "fields": []}));
    // Act
    let found = validation_problems(&app, &ann, config).await;
    // Assert
    assert_eq!(
        found,
        expected(&[("/config/pages/1/fields/0/key", "DUPLICATE_KEY"), ("/config/pages/2/key", "DUPLICATE_KEY")])
    );
}

#[tokio::test]
async fn field_type_must_be_one_of_the_five_kinds() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    for kind in ["text", "textarea", "date", "dropdown", "file"] {
        let field = if kind == "dropdown" { dropdown("f", &[("a", "A")]) } else { field("f", kind) };
        assert_valid(&app, &ann, config_with(vec![field])).await;
    }
    let config = config_with(vec![field("a", "number"), field("b", "Text"), field("c", "checkbox")]);
    // Act
    let found = validation_problems(&app, &ann, config).await;
    // Assert
    assert_eq!(
        found,
        expected(&[
            ("/config/pages/0/fields/0/type", "INVALID_VALUE"),
            ("/config/pages/0/fields/1/type", "INVALID_VALUE"),
            ("/config/pages/0/fields/2/type", "INVALID_VALUE"),
        ])
    );
}

#[tokio::test]
async fn references_must_resolve_to_a_text_under_the_default_language() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let mut config = config_with(vec![field("name", "text"), dropdown("colour", &[("red", "RED")])]);
    // Only the French bundle holds the page description: the default language is English.
    config["pages"][0]["description"] = json!("$.pages.p1.description");
    config["translations"]["fr"]["pages"] = json!({"p1": {"description": "Seulement en français"}});
    // A path that leads to an object, not a text.
    config["pages"][0]["fields"][0]["tooltip"] = json!("$.pages.p1.fields.name");
    config["pages"][0]["fields"][1]["options"][0]["label"] = json!("$.pages.p1.fields.colour.options.green.label");
    config["pages"][0]["fields"][0]["placeholder"] = json!("$.");
    // Act
    let found = validation_problems(&app, &ann, config).await;
    // Assert
    assert_eq!(
        found,
        expected(&[
            ("/config/pages/0/description", "UNRESOLVED_REFERENCE"),
            ("/config/pages/0/fields/0/placeholder", "UNRESOLVED_REFERENCE"),
            ("/config/pages/0/fields/0/tooltip", "UNRESOLVED_REFERENCE"),
            ("/config/pages/0/fields/1/options/0/label", "UNRESOLVED_REFERENCE"),
        ])
    );
}

#[tokio::test]
async fn a_partial_bundle_of_another_language_is_allowed() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let mut config = config_with(vec![field("name", "text")]);
    config["translations"]["de"] = json!({"pages": {"p1": {"fields": {"name": {"label": "Name"}}}}});
    // Act / Assert
    assert_valid(&app, &ann, config).await;
}

#[tokio::test]
async fn a_default_language_without_its_bundle_is_refused() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let mut config = config_with(vec![field("name", "text")]);
    config["translations"]["defaultLanguage"] = json!("de");
    let mut without_default = config_with(vec![field("name", "text")]);
    without_default["translations"].as_object_mut().unwrap().remove("defaultLanguage");
    // Act
    let missing_bundle = validation_problems(&app, &ann, config).await;
    let missing_default = validation_problems(&app, &ann, without_default).await;
    // Assert
    assert_eq!(missing_bundle, expected(&[("/config/translations/defaultLanguage", "INVALID_LANGUAGE")]));
    assert_eq!(missing_default, expected(&[("/config/translations/defaultLanguage", "REQUIRED")]));
}

#[tokio::test]
async fn literal_text_where_a_dollar_path_belongs_is_refused() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let mut config = config_with(vec![field("name", "text"), dropdown("colour", &[("red", "RED")])]);
    config["pages"][0]["title"] = json!("Welcome");
    config["pages"][0]["fields"][0]["label"] = json!("Your name");
    config["pages"][0]["fields"][0]["description"] = json!("pages.p1.fields.name.label");
    config["pages"][0]["fields"][1]["options"][0]["label"] = json!("Red");
    // Act
    let found = validation_problems(&app, &ann, config).await;
    // Assert
    assert_eq!(
        found,
        expected(&[
            ("/config/pages/0/fields/0/description", "LITERAL_TEXT"),
            ("/config/pages/0/fields/0/label", "LITERAL_TEXT"),
            ("/config/pages/0/fields/1/options/0/label", "LITERAL_TEXT"),
            ("/config/pages/0/title", "LITERAL_TEXT"),
        ])
    );
}
