//! The rules of a form configuration's fields (`service-interface.md`, "Form configuration";
//! `conventions.md` section 11): patterns, lengths, date formats, dropdown options, file rules and
//! default values, each problem at its JSON Pointer.

use reqwest::StatusCode;
use serde_json::{Value, json};
use trellis_tests::{assert_error, spawn_app};

use crate::support::forms::{
    assert_valid, config_with, dropdown, expected, field, problems, validate_config, validation_problems,
};

#[tokio::test]
async fn a_validation_that_is_not_a_regular_expression_is_refused() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let mut config = config_with(vec![field("a", "text"), field("b", "textarea"), field("c", "text")]);
    config["pages"][0]["fields"][0]["validation"] = json!("([0-9]+");
    config["pages"][0]["fields"][1]["validation"] = json!("[z-a]");
    config["pages"][0]["fields"][2]["validation"] = json!(r"^\+?[0-9 ]{6,20}$");
    // Act
    let found = validation_problems(&app, &ann, config).await;
    // Assert
    assert_eq!(
        found,
        expected(&[
            ("/config/pages/0/fields/0/validation", "INVALID_REGEX"),
            ("/config/pages/0/fields/1/validation", "INVALID_REGEX"),
        ])
    );
}

#[tokio::test]
async fn min_length_above_max_length_is_refused_and_lengths_suit_text_fields_only() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let mut config =
        config_with(vec![field("a", "text"), field("b", "textarea"), field("c", "date"), field("d", "text")]);
    config["pages"][0]["fields"][0]["minLength"] = json!(10);
    config["pages"][0]["fields"][0]["maxLength"] = json!(9);
    config["pages"][0]["fields"][1]["minLength"] = json!(-1);
    config["pages"][0]["fields"][2]["maxLength"] = json!(10);
    config["pages"][0]["fields"][3]["minLength"] = json!(4);
    config["pages"][0]["fields"][3]["maxLength"] = json!(4);
    // Act
    let found = validation_problems(&app, &ann, config).await;
    // Assert
    assert_eq!(
        found,
        expected(&[
            ("/config/pages/0/fields/0/minLength", "INVALID_RANGE"),
            ("/config/pages/0/fields/1/minLength", "INVALID_RANGE"),
            ("/config/pages/0/fields/2/maxLength", "NOT_ALLOWED"),
        ])
    );
}

#[tokio::test]
async fn a_date_format_is_built_from_the_allowed_tokens() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let good = ["YYYY-MM-DD", "YYYY-MM-DD HH:mm:ss", "DD.MM.YYYY HH:mm", "MM/DD/YYYY"];
    let fields = good.iter().enumerate().map(|(i, format)| {
        let mut field = field(&format!("ok{i}"), "date");
        field["format"] = json!(format);
        field
    });
    assert_valid(&app, &ann, config_with(fields.collect())).await;
    let bad = ["yyyy-mm-dd", "YYYY-MM", "DD/MM/YY", "YYYY-MM-DD mm", ""];
    let mut fields: Vec<Value> = bad
        .iter()
        .enumerate()
        .map(|(i, format)| {
            let mut field = field(&format!("bad{i}"), "date");
            field["format"] = json!(format);
            field
        })
        .collect();
    let mut text = field("text", "text");
    text["format"] = json!("YYYY-MM-DD");
    fields.push(text);
    // Act
    let found = validation_problems(&app, &ann, config_with(fields)).await;
    // Assert
    assert_eq!(
        found,
        expected(&[
            ("/config/pages/0/fields/0/format", "INVALID_FORMAT"),
            ("/config/pages/0/fields/1/format", "INVALID_FORMAT"),
            ("/config/pages/0/fields/2/format", "INVALID_FORMAT"),
            ("/config/pages/0/fields/3/format", "INVALID_FORMAT"),
            ("/config/pages/0/fields/4/format", "INVALID_FORMAT"),
            ("/config/pages/0/fields/5/format", "NOT_ALLOWED"),
        ])
    );
}

#[tokio::test]
async fn options_belong_to_dropdowns_and_a_dropdown_default_is_an_option_value() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let mut with_value_default = dropdown("ok", &[("red", "RED"), ("blue", "BLUE")]);
    with_value_default["value"] = json!("BLUE");
    assert_valid(&app, &ann, config_with(vec![with_value_default])).await;
    let mut key_default = dropdown("by_key", &[("red", "RED"), ("blue", "BLUE")]);
    key_default["value"] = json!("blue");
    let mut unknown_default = dropdown("unknown", &[("red", "RED")]);
    unknown_default["value"] = json!("GREEN");
    let mut text_with_options = dropdown("text", &[("red", "RED")]);
    text_with_options["type"] = json!("text");
    let mut no_options = dropdown("none", &[]);
    no_options["options"] = json!([]);
    let repeated = dropdown("repeated", &[("red", "RED"), ("red", "ROT"), ("crimson", "RED")]);
    // Act
    let found = validation_problems(
        &app,
        &ann,
        config_with(vec![key_default, unknown_default, text_with_options, no_options, repeated]),
    )
    .await;
    // Assert
    assert_eq!(
        found,
        expected(&[
            ("/config/pages/0/fields/0/value", "INVALID_OPTION"),
            ("/config/pages/0/fields/1/value", "INVALID_OPTION"),
            ("/config/pages/0/fields/2/options", "NOT_ALLOWED"),
            ("/config/pages/0/fields/3/options", "REQUIRED"),
            ("/config/pages/0/fields/4/options/1/key", "DUPLICATE_KEY"),
            ("/config/pages/0/fields/4/options/2/value", "DUPLICATE_VALUE"),
        ])
    );
}

#[tokio::test]
async fn a_file_object_belongs_to_file_fields_and_follows_its_rules() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let mut good = field("good", "file");
    good["file"] = json!({"accept": ["image/*", "application/pdf", ".PDF", ".docx"], "maxBytes": 1024, "multiple": true, "maxFiles": 3});
    let mut listed = field("listed", "file");
    listed["file"] = json!({"accept": "image/png, .jpg", "maxBytes": 10});
    assert_valid(&app, &ann, config_with(vec![good, listed])).await;
    let mut bad_accept = field("bad_accept", "file");
    bad_accept["file"] = json!({"accept": ["image/png", "pdf", "not a type/"], "maxBytes": 1024});
    let mut bad_numbers = field("bad_numbers", "file");
    bad_numbers["file"] = json!({"maxBytes": 0, "multiple": true, "maxFiles": 0});
    let mut single_with_max = field("single", "file");
    single_with_max["file"] = json!({"multiple": false, "maxFiles": 2});
    let mut text_with_file = field("text", "text");
    text_with_file["file"] = json!({"maxBytes": 10});
    let mut file_with_default = field("defaulted", "file");
    file_with_default["value"] = json!("x.pdf");
    let mut wrong_types = field("wrong_types", "file");
    wrong_types["file"] = json!({"accept": 5, "multiple": "yes"});
    // Act
    let found = validation_problems(
        &app,
        &ann,
        config_with(vec![bad_accept, bad_numbers, single_with_max, text_with_file, file_with_default, wrong_types]),
    )
    .await;
    // Assert
    assert_eq!(
        found,
        expected(&[
            ("/config/pages/0/fields/0/file/accept/1", "INVALID_VALUE"),
            ("/config/pages/0/fields/0/file/accept/2", "INVALID_VALUE"),
            ("/config/pages/0/fields/1/file/maxBytes", "INVALID_RANGE"),
            ("/config/pages/0/fields/1/file/maxFiles", "INVALID_RANGE"),
            ("/config/pages/0/fields/2/file/maxFiles", "NOT_ALLOWED"),
            ("/config/pages/0/fields/3/file", "NOT_ALLOWED"),
            ("/config/pages/0/fields/4/value", "NOT_ALLOWED"),
            ("/config/pages/0/fields/5/file/accept", "INVALID_TYPE"),
            ("/config/pages/0/fields/5/file/multiple", "INVALID_TYPE"),
        ])
    );
}

#[tokio::test]
async fn a_default_value_must_pass_its_own_field_rules() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let mut pattern = field("pattern", "text");
    pattern["validation"] = json!("[0-9]+");
    pattern["value"] = json!("abc");
    let mut long = field("long", "text");
    long["maxLength"] = json!(2);
    long["value"] = json!("abc");
    let mut date = field("date", "date");
    date["value"] = json!("2025-02-30");
    // Act
    let found = validation_problems(&app, &ann, config_with(vec![pattern, long, date])).await;
    // Assert
    assert_eq!(
        found,
        expected(&[
            ("/config/pages/0/fields/0/value", "PATTERN_MISMATCH"),
            ("/config/pages/0/fields/1/value", "TOO_LONG"),
            ("/config/pages/0/fields/2/value", "INVALID_DATE"),
        ])
    );
}

#[tokio::test]
async fn a_body_without_config_or_with_unknown_wrapper_properties_is_refused() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let response = validate_config(&app, &ann.token, &json!({"document": {}, "id": 5})).await;
    // Assert
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    let paths: Vec<String> = problems(&error).into_iter().map(|(path, _)| path).collect();
    assert_eq!(paths, ["/config", "/document", "/id"]);
}

/// Issue 11, finding 3: compiled patterns and their DFA caches are bounded per document, so one
/// configuration cannot hold more than 200 distinct patterns.
#[tokio::test]
async fn a_configuration_holds_at_most_200_distinct_patterns() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let with_patterns = |count: usize, distinct: usize| {
        let fields = (0..count)
            .map(|i| {
                let mut text = field(&format!("f{i}"), "text");
                text["validation"] = json!(format!("[a-z]{{2}}[0-9]{{{}}}", i % distinct + 1));
                text
            })
            .collect();
        config_with(fields)
    };
    // Act / Assert: many fields may share patterns; 201 distinct ones are refused at the 201st.
    assert_valid(&app, &ann, with_patterns(400, 200)).await;
    let refused = validation_problems(&app, &ann, with_patterns(201, 201)).await;
    assert_eq!(refused, expected(&[("/config/pages/0/fields/200/validation", "INVALID_REGEX")]));
    app.stop().await;
}
