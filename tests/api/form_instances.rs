//! Creating and reading form instances (`POST /v0/forms`, `GET /v0/forms/{formId}`): answers keyed
//! by field id and checked against the configuration's rules, flags for metadata and
//! integrations, languages, and privacy.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{assert_error, body, spawn_app};

use crate::support::forms::{
    answers_by_key, config_with, created_config, created_form, expected, field, field_ids, get_ok, list_ids, new_id,
    patch_form, post_form, refused, rules_config, sample, sample_config, sample_payload,
    sample_payload_with_integrations,
};

fn answer_path(view: &Value, key: &str) -> String {
    format!("/payload/fields/{}", field_ids(view)[key])
}

#[tokio::test]
async fn create_answers_201_with_the_answers_keyed_by_field_id() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let sent = sample_payload();
    // Act
    let response = post_form(&app, &ann.token, &sent).await;
    // Assert
    assert_eq!(response.status(), StatusCode::CREATED);
    let view = body(response).await;
    let form_id = view["formId"].as_str().unwrap();
    assert!(uuid::Uuid::parse_str(form_id).is_ok_and(|id| id.get_version_num() == 4), "{form_id}");
    assert_eq!(view["configurationId"], sample::CONFIG_ID);
    assert_eq!(view["state"], "SUBMITTED");
    assert_eq!(view["language"], "de");
    assert_eq!(view["fields"], sent["payload"]["fields"]);
    assert_eq!(view["fields"][sample::PHOTO], json!([]));
    assert_eq!(view["fields"][sample::DOCUMENTS], json!([]));
    assert_eq!(view["metadata"], sent["payload"]["metadata"]);
    assert_eq!(view["integrations"], json!({}));
    assert_eq!(view["revision"], 1);
    assert!(view["createdAt"].is_string() && view["updatedAt"].is_string());
}

#[tokio::test]
async fn get_returns_what_create_stored() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let created = created_form(&app, &ann.token, &sample_payload()).await;
    // Act
    let read = get_ok(&app, &ann.token, &format!("/v0/forms/{}", created["formId"].as_str().unwrap())).await;
    // Assert
    assert_eq!(read, created);
}

#[tokio::test]
async fn state_defaults_to_submitted_and_language_to_the_default_language() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let config = created_config(&app, &ann.token, rules_config()).await;
    let wrapper = answers_by_key(&config, &[("name", json!("Ann"))]);
    // Act
    let view = created_form(&app, &ann.token, &wrapper).await;
    // Assert
    assert_eq!(view["state"], "SUBMITTED");
    assert_eq!(view["language"], "en");
    let ids = field_ids(&config);
    let expected_fields = json!({ids["name"].clone(): "Ann", ids["fixed"].clone(): "FIXED", ids["scan"].clone(): []});
    assert_eq!(view["fields"], expected_fields);
}

#[tokio::test]
async fn the_language_must_be_one_of_the_configuration() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let config = created_config(&app, &ann.token, rules_config()).await;
    let mut french = answers_by_key(&config, &[("name", json!("Ann"))]);
    french["payload"]["language"] = json!("fr");
    let mut german = french.clone();
    german["payload"]["language"] = json!("de");
    // Act
    let accepted = created_form(&app, &ann.token, &french).await;
    let found = refused(post_form(&app, &ann.token, &german).await).await;
    // Assert
    assert_eq!(accepted["language"], "fr");
    assert_eq!(found, expected(&[("/payload/language", "INVALID_LANGUAGE")]));
}

#[tokio::test]
async fn an_answer_for_an_unknown_field_id_or_for_a_field_key_is_refused_at_its_path() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let config = created_config(&app, &ann.token, rules_config()).await;
    let mut wrapper = answers_by_key(&config, &[("name", json!("Ann"))]);
    let stranger = new_id();
    wrapper["payload"]["fields"][&stranger] = json!("x");
    wrapper["payload"]["fields"]["code"] = json!("AB12");
    // Act
    let found = refused(post_form(&app, &ann.token, &wrapper).await).await;
    // Assert
    assert_eq!(
        found,
        expected(&[
            ("/payload/fields/code", "UNKNOWN_FIELD"),
            (&format!("/payload/fields/{stranger}"), "UNKNOWN_FIELD"),
        ])
    );
}

#[tokio::test]
async fn an_answer_must_match_the_whole_validation_pattern_and_an_empty_answer_skips_it() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let config = created_config(&app, &ann.token, rules_config()).await;
    for good in ["AB12", ""] {
        // Act / Assert
        created_form(&app, &ann.token, &answers_by_key(&config, &[("name", json!("Ann")), ("code", json!(good))]))
            .await;
    }
    for bad in ["AB123", "xAB12", "ab12", "AB1"] {
        // Act
        let wrapper = answers_by_key(&config, &[("name", json!("Ann")), ("code", json!(bad))]);
        let found = refused(post_form(&app, &ann.token, &wrapper).await).await;
        // Assert
        assert_eq!(found, expected(&[(&answer_path(&config, "code"), "PATTERN_MISMATCH")]), "{bad}");
    }
}

#[tokio::test]
async fn min_and_max_length_count_unicode_characters_not_bytes() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let config = created_config(&app, &ann.token, rules_config()).await;
    let name = answer_path(&config, "name");
    // Three to five characters, each of several bytes (and emoji of two UTF-16 units).
    for good in ["Zoë", "éàü", "😀😀😀", "ÅÄÖÜß", "日本語の名"] {
        // Act / Assert
        let view = created_form(&app, &ann.token, &answers_by_key(&config, &[("name", json!(good))])).await;
        assert_eq!(view["fields"][&field_ids(&config)["name"]], good);
    }
    for (bad, code) in
        [("😀😀", "TOO_SHORT"), ("ée", "TOO_SHORT"), ("éééééé", "TOO_LONG"), ("😀😀😀😀😀😀", "TOO_LONG")]
    {
        // Act
        let found = refused(post_form(&app, &ann.token, &answers_by_key(&config, &[("name", json!(bad))])).await).await;
        // Assert
        assert_eq!(found, expected(&[(&name, code)]), "{bad}");
    }
}

#[tokio::test]
async fn required_answers_are_enforced_only_when_submitted() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let config = created_config(&app, &ann.token, rules_config()).await;
    let name = answer_path(&config, "name");
    let omitted = answers_by_key(&config, &[("code", json!("AB12"))]);
    let empty = answers_by_key(&config, &[("name", json!(""))]);
    let null = answers_by_key(&config, &[("name", Value::Null)]);
    for wrapper in [&omitted, &empty, &null] {
        let mut submitted = wrapper.clone();
        submitted["payload"]["state"] = json!("SUBMITTED");
        // Act
        let found = refused(post_form(&app, &ann.token, &submitted).await).await;
        let by_default = refused(post_form(&app, &ann.token, wrapper).await).await;
        // Assert
        assert_eq!(found, expected(&[(&name, "REQUIRED")]), "{wrapper}");
        assert_eq!(by_default, found, "SUBMITTED is the default state");
        let mut draft = wrapper.clone();
        draft["payload"]["state"] = json!("DRAFT");
        assert_eq!(created_form(&app, &ann.token, &draft).await["state"], "DRAFT");
    }
    // A draft still follows every other rule.
    let mut bad_draft = answers_by_key(&config, &[("code", json!("nope"))]);
    bad_draft["payload"]["state"] = json!("DRAFT");
    let found = refused(post_form(&app, &ann.token, &bad_draft).await).await;
    assert_eq!(found, expected(&[(&answer_path(&config, "code"), "PATTERN_MISMATCH")]));
}

#[tokio::test]
async fn a_dropdown_answer_is_an_option_value_not_an_option_key() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let config = created_config(&app, &ann.token, rules_config()).await;
    let colour = answer_path(&config, "colour");
    // Act
    let by_value =
        created_form(&app, &ann.token, &answers_by_key(&config, &[("name", json!("Ann")), ("colour", json!("BLUE"))]))
            .await;
    // Assert
    assert_eq!(by_value["fields"][&field_ids(&config)["colour"]], "BLUE");
    for bad in ["blue", "GREEN", "Blue"] {
        let wrapper = answers_by_key(&config, &[("name", json!("Ann")), ("colour", json!(bad))]);
        let found = refused(post_form(&app, &ann.token, &wrapper).await).await;
        assert_eq!(found, expected(&[(&colour, "INVALID_OPTION")]), "{bad}");
    }
}

#[tokio::test]
async fn a_date_answer_follows_its_format_and_is_a_real_calendar_date() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let config = created_config(&app, &ann.token, rules_config()).await;
    let (born, when) = (answer_path(&config, "born"), answer_path(&config, "when"));
    for (good_born, good_when) in [("2024-02-29", "31.12.1999 23:59"), ("2025-01-31", "01.01.2025 00:00")] {
        // Act / Assert
        let wrapper =
            answers_by_key(&config, &[("name", json!("Ann")), ("born", json!(good_born)), ("when", json!(good_when))]);
        created_form(&app, &ann.token, &wrapper).await;
    }
    for (bad_born, bad_when) in [
        ("2025-02-30", "30.02.2025 10:00"),
        ("2023-02-29", "31.04.2025 10:00"),
        ("31.01.2025", "2025-01-31 10:00"),
        ("2025-1-31", "01.01.2025 24:00"),
        ("2025-13-01", "01.01.2025"),
        ("2025-01-31T00:00", "01.01.2025 10:60"),
    ] {
        // Act
        let wrapper =
            answers_by_key(&config, &[("name", json!("Ann")), ("born", json!(bad_born)), ("when", json!(bad_when))]);
        let found = refused(post_form(&app, &ann.token, &wrapper).await).await;
        // Assert
        assert_eq!(found, expected(&[(&born, "INVALID_DATE"), (&when, "INVALID_DATE")]), "{bad_born} {bad_when}");
    }
}

#[tokio::test]
async fn a_field_that_is_not_editable_keeps_its_default() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let config = created_config(&app, &ann.token, rules_config()).await;
    let fixed_id = field_ids(&config)["fixed"].clone();
    // Act
    let omitted = created_form(&app, &ann.token, &answers_by_key(&config, &[("name", json!("Ann"))])).await;
    let same =
        created_form(&app, &ann.token, &answers_by_key(&config, &[("name", json!("Ann")), ("fixed", json!("FIXED"))]))
            .await;
    let changed =
        post_form(&app, &ann.token, &answers_by_key(&config, &[("name", json!("Ann")), ("fixed", json!("MINE"))]))
            .await;
    // Assert
    assert_eq!(omitted["fields"][&fixed_id], "FIXED");
    assert_eq!(same["fields"][&fixed_id], "FIXED");
    assert_eq!(refused(changed).await, expected(&[(&format!("/payload/fields/{fixed_id}"), "NOT_EDITABLE")]));
    let form_id = omitted["formId"].as_str().unwrap();
    let patched = patch_form(&app, &ann.token, form_id, &json!({"payload": {"fields": {&fixed_id: "MINE"}}})).await;
    assert_eq!(refused(patched).await, expected(&[(&format!("/payload/fields/{fixed_id}"), "NOT_EDITABLE")]));
    let read = get_ok(&app, &ann.token, &format!("/v0/forms/{form_id}")).await;
    assert_eq!(read["fields"][&fixed_id], "FIXED");
}

#[tokio::test]
async fn a_file_field_is_sent_as_an_empty_array() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let config = created_config(&app, &ann.token, rules_config()).await;
    let scan_id = field_ids(&config)["scan"].clone();
    // Act
    let empty =
        created_form(&app, &ann.token, &answers_by_key(&config, &[("name", json!("Ann")), ("scan", json!([]))])).await;
    // Assert
    assert_eq!(empty["fields"][&scan_id], json!([]));
    for bad in [json!(["x.pdf"]), json!("x.pdf"), json!({}), Value::Null, json!([{"partKey": "k"}])] {
        let wrapper = answers_by_key(&config, &[("name", json!("Ann")), ("scan", bad.clone())]);
        let found = refused(post_form(&app, &ann.token, &wrapper).await).await;
        assert_eq!(found, expected(&[(&format!("/payload/fields/{scan_id}"), "INVALID_VALUE")]), "{bad}");
    }
}

#[tokio::test]
async fn metadata_and_integrations_are_refused_at_their_paths_when_their_flags_are_off() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let config = created_config(&app, &ann.token, rules_config()).await;
    let mut wrapper = answers_by_key(&config, &[("name", json!("Ann"))]);
    let everything = sample_payload_with_integrations()["payload"].clone();
    wrapper["payload"]["metadata"] = everything["metadata"].clone();
    wrapper["payload"]["integrations"] = everything["integrations"].clone();
    // Act
    let found = refused(post_form(&app, &ann.token, &wrapper).await).await;
    // Assert
    assert_eq!(
        found,
        expected(&[
            ("/payload/integrations/spaceId", "NOT_ENABLED"),
            ("/payload/integrations/workflowConfigurationId", "NOT_ENABLED"),
            ("/payload/metadata/location", "NOT_ENABLED"),
            ("/payload/metadata/summary", "NOT_ENABLED"),
            ("/payload/metadata/tags", "NOT_ENABLED"),
            ("/payload/metadata/timestamp", "NOT_ENABLED"),
        ])
    );
}

#[tokio::test]
async fn each_metadata_flag_enables_only_its_own_property() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let mut document = config_with(vec![field("name", "text")]);
    document["metadata"]["captureTags"] = json!(true);
    let config = created_config(&app, &ann.token, document).await;
    let mut wrapper = answers_by_key(&config, &[("name", json!("Ann"))]);
    wrapper["payload"]["metadata"] = json!({"tags": "a,b"});
    let mut with_summary = wrapper.clone();
    with_summary["payload"]["metadata"]["summary"] = json!("no");
    // Act
    let accepted = created_form(&app, &ann.token, &wrapper).await;
    let found = refused(post_form(&app, &ann.token, &with_summary).await).await;
    // Assert
    assert_eq!(accepted["metadata"], json!({"tags": "a,b"}));
    assert_eq!(found, expected(&[("/payload/metadata/summary", "NOT_ENABLED")]));
}

#[tokio::test]
async fn malformed_metadata_is_refused_at_its_path() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let mut wrapper = sample_payload();
    wrapper["payload"]["metadata"] = json!({
        "timestamp": "yesterday", "tags": 3, "summary": "fine",
        "location": {"longitude": "200", "latitude": "north"}, "mood": "good"
    });
    // Act
    let found = refused(post_form(&app, &ann.token, &wrapper).await).await;
    // Assert
    assert_eq!(
        found,
        expected(&[
            ("/payload/metadata/location/latitude", "INVALID_VALUE"),
            ("/payload/metadata/location/longitude", "INVALID_RANGE"),
            ("/payload/metadata/mood", "UNKNOWN_PROPERTY"),
            ("/payload/metadata/tags", "INVALID_TYPE"),
            ("/payload/metadata/timestamp", "INVALID_TYPE"),
        ])
    );
}

#[tokio::test]
async fn integrations_that_name_no_space_or_workflow_are_400_at_their_paths() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    // Act
    let response = post_form(&app, &ann.token, &sample_payload_with_integrations()).await;
    // Assert
    let paths: Vec<String> = refused(response).await.into_iter().map(|(path, _)| path).collect();
    assert_eq!(paths, ["/payload/integrations/spaceId", "/payload/integrations/workflowConfigurationId"]);
    let list = get_ok(&app, &ann.token, "/v0/forms").await;
    assert_eq!(list["items"], json!([]), "nothing was stored");
}

#[tokio::test]
async fn every_problem_of_a_payload_is_listed_at_once() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let config = created_config(&app, &ann.token, rules_config()).await;
    let mut wrapper = answers_by_key(
        &config,
        &[
            ("code", json!("nope")),
            ("born", json!("2025-02-30")),
            ("colour", json!("red")),
            ("fixed", json!("MINE")),
            ("scan", json!(["a.pdf"])),
            ("notes", json!(42)),
        ],
    );
    wrapper["payload"]["language"] = json!("xx");
    wrapper["payload"]["state"] = json!("DONE");
    wrapper["payload"]["extra"] = json!(true);
    wrapper["payload"]["metadata"] = json!({"tags": "a"});
    // Act
    let found = refused(post_form(&app, &ann.token, &wrapper).await).await;
    // Assert
    let at = |key| answer_path(&config, key);
    assert_eq!(
        found,
        expected(&[
            ("/payload/extra", "UNKNOWN_PROPERTY"),
            ("/payload/language", "INVALID_LANGUAGE"),
            ("/payload/state", "INVALID_VALUE"),
            ("/payload/metadata/tags", "NOT_ENABLED"),
            (&at("code"), "PATTERN_MISMATCH"),
            (&at("born"), "INVALID_DATE"),
            (&at("colour"), "INVALID_OPTION"),
            (&at("fixed"), "NOT_EDITABLE"),
            (&at("scan"), "INVALID_VALUE"),
            (&at("notes"), "INVALID_TYPE"),
            (&at("name"), "REQUIRED"),
        ])
    );
}

#[tokio::test]
async fn a_configuration_id_that_is_missing_malformed_or_unknown_is_400_at_its_path() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    for id in [Value::Null, json!("not-a-uuid"), json!(new_id()), json!(7)] {
        let mut wrapper = sample_payload();
        wrapper["payload"]["configurationId"] = id.clone();
        // Act
        let found = refused(post_form(&app, &ann.token, &wrapper).await).await;
        // Assert
        let paths: Vec<&str> = found.iter().map(|(path, _)| path.as_str()).collect();
        assert_eq!(paths, ["/payload/configurationId"], "{id}");
    }
    let missing_payload = post_form(&app, &ann.token, &json!({"fields": {}})).await;
    let paths: Vec<String> = refused(missing_payload).await.into_iter().map(|(path, _)| path).collect();
    assert_eq!(paths, ["/payload/configurationId"], "a body without payload has no configuration id");
    assert_eq!(list_ids(&app, &ann.token, "/v0/forms", "formId").await, Vec::<String>::new(), "nothing was stored");
}

#[tokio::test]
async fn another_users_instance_is_404_for_get_patch_and_history() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    created_config(&app, &ann.token, sample_config()).await;
    let form = created_form(&app, &ann.token, &sample_payload()).await;
    let form_id = form["formId"].as_str().unwrap();
    // Act
    let get = app.get_authed(&format!("/v0/forms/{form_id}"), &bob.token).await;
    let patch = patch_form(&app, &bob.token, form_id, &json!({"payload": {"fields": {sample::CITY: "Bern"}}})).await;
    let history = app.get_authed(&format!("/v0/forms/{form_id}/history"), &bob.token).await;
    // Assert
    assert_error(get, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(patch, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(history, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    let unknown = app.get_authed(&format!("/v0/forms/{}", new_id()), &ann.token).await;
    assert_error(unknown, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    let read = get_ok(&app, &ann.token, &format!("/v0/forms/{form_id}")).await;
    assert_eq!(read, form, "bob's PATCH changed nothing");
}

#[tokio::test]
async fn instance_routes_need_a_session() {
    // Arrange
    let app = spawn_app().await;
    let id = new_id();
    let requests = [
        app.request(Method::POST, "/v0/forms").json(&sample_payload()),
        app.request(Method::GET, "/v0/forms"),
        app.request(Method::GET, &format!("/v0/forms/{id}")),
        app.request(Method::PATCH, &format!("/v0/forms/{id}")).json(&json!({"payload": {}})),
        app.request(Method::GET, &format!("/v0/forms/{id}/history")),
    ];
    for request in requests {
        // Act
        let response = request.send().await.unwrap();
        // Assert
        assert_error(response, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    }
}
