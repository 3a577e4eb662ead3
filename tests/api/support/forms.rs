//! Building form configurations and instances for the form tests, and calling the form routes.

use reqwest::{Method, Response, StatusCode};
use serde_json::{Map, Value, json};
use trellis_tests::{TestApp, TestUser, assert_error, body};
use uuid::Uuid;

const SAMPLE_CONFIG: &str = include_str!("../../../host/src/domain/forms/testdata/sample_config.json");
const SAMPLE_PAYLOAD: &str = include_str!("../../../host/src/domain/forms/testdata/sample_payload.json");

/// Field ids of the sample configuration.
pub mod sample {
    pub const CONFIG_ID: &str = "6513270e-269e-4d37-b2a7-4de452e6b438";
    pub const FULL_NAME: &str = "9531985d-5d9d-49f8-9818-e811892f902b";
    pub const BIRTH_DATE: &str = "8d116ece-1738-47d9-bd9c-172411e20b8f";
    pub const POSTCODE: &str = "57ee05cd-e009-42c7-bebf-f20686734721";
    pub const COMMENTS: &str = "830e07bc-1e39-4f10-92bd-4acefaecbd38";
    pub const CITY: &str = "9be4bcfc-49b6-4a08-b2e6-cc3ababced20";
    pub const PHOTO: &str = "13deef86-ab10-41d0-b646-e1f40a097c97";
    pub const DOCUMENTS: &str = "ca02135e-92b1-43f2-8ede-0d7ac3baea9e";
    pub const NOTES: &str = "10a3d6b2-aa05-411a-b271-5945795e8229";
}

/// The sample configuration document: 20 fields on 3 pages, every flag on, languages en and de.
pub fn sample_config() -> Value {
    serde_json::from_str(SAMPLE_CONFIG).expect("the sample configuration is JSON")
}

/// The sample configuration without its id, so the server assigns one.
pub fn sample_config_without_id() -> Value {
    let mut config = sample_config();
    config.as_object_mut().unwrap().remove("id");
    config
}

/// The sample instance body without `integrations` (spaces and workflows do not exist yet).
pub fn sample_payload() -> Value {
    let mut wrapper: Value = serde_json::from_str(SAMPLE_PAYLOAD).expect("the sample payload is JSON");
    wrapper["payload"].as_object_mut().unwrap().remove("integrations");
    wrapper
}

/// The sample instance body with the integrations it was written with.
pub fn sample_payload_with_integrations() -> Value {
    serde_json::from_str(SAMPLE_PAYLOAD).expect("the sample payload is JSON")
}

/// A field of page `p1` whose label refers to `$.pages.p1.fields.<key>.label`.
pub fn field(key: &str, kind: &str) -> Value {
    json!({
        "id": new_id(),
        "key": key,
        "order": 1,
        "type": kind,
        "value": "",
        "label": format!("$.pages.p1.fields.{key}.label"),
        "visible": true,
        "editable": true,
        "required": false,
    })
}

/// A dropdown of page `p1` with options given as (key, value).
pub fn dropdown(key: &str, options: &[(&str, &str)]) -> Value {
    let mut field = field(key, "dropdown");
    field["options"] = options
        .iter()
        .enumerate()
        .map(|(i, (option_key, value))| {
            json!({
                "id": new_id(),
                "key": option_key,
                "order": i + 1,
                "value": value,
                "label": format!("$.pages.p1.fields.{key}.options.{option_key}.label"),
            })
        })
        .collect();
    field
}

/// A valid configuration with one page `p1` holding `fields`, every flag off, languages en and
/// fr; every `$.` path in the pages gets an English text.
pub fn config_with(fields: Vec<Value>) -> Value {
    let mut config = json!({
        "version": "1.0.0",
        "controls": {"enableLogging": false},
        "metadata": {"captureTimestamp": false, "captureTags": false, "captureSummary": false, "captureLocation": false},
        "integrations": {"allowSpaceAssociations": false, "allowWorkflowStarts": false},
        "translations": {
            "defaultLanguage": "en",
            "en": {"details": {"title": "A form"}},
            "fr": {"details": {"title": "Un formulaire"}},
        },
        "pages": [{
            "id": new_id(),
            "key": "p1",
            "order": 1,
            "title": "$.pages.p1.title",
            "fields": fields,
        }],
    });
    fill_translations(&mut config);
    config
}

/// Adds an English text for every `$.` path used in `pages`, so the references resolve.
pub fn fill_translations(config: &mut Value) {
    let mut paths = Vec::new();
    collect_references(&config["pages"], &mut paths);
    let bundle = &mut config["translations"]["en"];
    for path in paths {
        let mut node = &mut *bundle;
        let segments: Vec<&str> = path.split('.').collect();
        for segment in &segments[..segments.len() - 1] {
            if !node.get(*segment).is_some_and(Value::is_object) {
                node[*segment] = Value::Object(Map::new());
            }
            node = &mut node[*segment];
        }
        node[segments[segments.len() - 1]] = Value::String(format!("Text of {path}"));
    }
}

fn collect_references(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) => {
            if let Some(path) = text.strip_prefix("$.") {
                out.push(path.to_owned());
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_references(item, out)),
        Value::Object(map) => map.values().for_each(|item| collect_references(item, out)),
        _ => {}
    }
}

pub fn new_id() -> String {
    Uuid::new_v4().to_string()
}

/// The (path, code) of every detail of an error object, sorted.
pub fn problems(error: &Value) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = error["details"]
        .as_array()
        .map(|details| {
            details
                .iter()
                .map(|d| {
                    (
                        d["path"].as_str().unwrap_or_default().to_owned(),
                        d["code"].as_str().unwrap_or_default().to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// The (path, code) problems of a refused request, asserting 400 VALIDATION_FAILED.
pub async fn refused(response: Response) -> Vec<(String, String)> {
    problems(&assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await)
}

/// `pairs` as sorted owned (path, code) pairs, to compare with [`problems`].
pub fn expected(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = pairs.iter().map(|(p, c)| ((*p).to_owned(), (*c).to_owned())).collect();
    out.sort();
    out
}

pub async fn send(app: &TestApp, method: Method, path: &str, token: &str, body: &Value) -> Response {
    app.authed(method, path, token).json(body).send().await.expect("request sent")
}

pub async fn validate_config(app: &TestApp, token: &str, wrapper: &Value) -> Response {
    send(app, Method::POST, "/v0/forms/configurations/validate", token, wrapper).await
}

pub async fn create_config(app: &TestApp, token: &str, wrapper: &Value) -> Response {
    send(app, Method::POST, "/v0/forms/configurations", token, wrapper).await
}

pub async fn put_config(app: &TestApp, token: &str, id: &str, wrapper: &Value) -> Response {
    send(app, Method::PUT, &format!("/v0/forms/configurations/{id}"), token, wrapper).await
}

pub async fn get_config(app: &TestApp, token: &str, id: &str) -> Response {
    app.get_authed(&format!("/v0/forms/configurations/{id}"), token).await
}

/// Creates `{config}` and answers the stored view, asserting 201.
pub async fn created_config(app: &TestApp, token: &str, config: Value) -> Value {
    created_wrapper(app, token, json!({"config": config})).await
}

/// Creates a whole wrapper and answers the stored view, asserting 201.
pub async fn created_wrapper(app: &TestApp, token: &str, wrapper: Value) -> Value {
    let response = create_config(app, token, &wrapper).await;
    let status = response.status();
    let view = body(response).await;
    assert_eq!(status, StatusCode::CREATED, "{view}");
    view
}

/// Archives a configuration (PUT with its own document and `state: ARCHIVED`), asserting 200.
pub async fn archive(app: &TestApp, token: &str, view: &Value) -> Value {
    let id = view["id"].as_str().unwrap();
    let response = put_config(app, token, id, &json!({"config": view["config"], "state": "ARCHIVED"})).await;
    let status = response.status();
    let archived = body(response).await;
    assert_eq!(status, StatusCode::OK, "{archived}");
    archived
}

pub async fn post_form(app: &TestApp, token: &str, wrapper: &Value) -> Response {
    send(app, Method::POST, "/v0/forms", token, wrapper).await
}

pub async fn patch_form(app: &TestApp, token: &str, form_id: &str, wrapper: &Value) -> Response {
    send(app, Method::PATCH, &format!("/v0/forms/{form_id}"), token, wrapper).await
}

/// Creates an instance and answers its view, asserting 201.
pub async fn created_form(app: &TestApp, token: &str, wrapper: &Value) -> Value {
    let response = post_form(app, token, wrapper).await;
    let status = response.status();
    let view = body(response).await;
    assert_eq!(status, StatusCode::CREATED, "{view}");
    view
}

/// Answers the view after a PATCH, asserting 200.
pub async fn patched_form(app: &TestApp, token: &str, form_id: &str, wrapper: &Value) -> Value {
    let response = patch_form(app, token, form_id, wrapper).await;
    let status = response.status();
    let view = body(response).await;
    assert_eq!(status, StatusCode::OK, "{view}");
    view
}

/// The body of a GET that must answer 200.
pub async fn get_ok(app: &TestApp, token: &str, path: &str) -> Value {
    let response = app.get_authed(path, token).await;
    let status = response.status();
    let value = body(response).await;
    assert_eq!(status, StatusCode::OK, "{path}: {value}");
    value
}

/// The `field` of each list item, in order.
pub fn item_ids(page: &Value, field: &str) -> Vec<String> {
    page["items"].as_array().unwrap().iter().map(|item| item[field].as_str().unwrap().to_owned()).collect()
}

/// The `field` of each item of the list at `path`, asserting 200.
pub async fn list_ids(app: &TestApp, token: &str, path: &str, field: &str) -> Vec<String> {
    item_ids(&get_ok(app, token, path).await, field)
}

/// Waits long enough for the next resource to get a later creation time than the last one.
pub async fn next_millisecond() {
    tokio::time::sleep(std::time::Duration::from_millis(3)).await;
}

/// Field ids by field key, read from a configuration view.
pub fn field_ids(view: &Value) -> std::collections::HashMap<String, String> {
    view["config"]["pages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|page| page["fields"].as_array().unwrap())
        .map(|field| (field["key"].as_str().unwrap().to_owned(), field["id"].as_str().unwrap().to_owned()))
        .collect()
}

/// A configuration with one field of every rule, every flag off:
/// `name` (text, required, 3 to 5 characters), `code` (text, `[A-Z]{2}[0-9]{2}`), `born` (date,
/// default format), `when` (date, `DD.MM.YYYY HH:mm`), `colour` (dropdown, keys red/blue, values
/// RED/BLUE), `fixed` (text, not editable, default FIXED), `scan` (file), `notes` (textarea).
pub fn rules_config() -> Value {
    let mut name = field("name", "text");
    name["required"] = json!(true);
    name["minLength"] = json!(3);
    name["maxLength"] = json!(5);
    let mut code = field("code", "text");
    code["validation"] = json!("[A-Z]{2}[0-9]{2}");
    let born = field("born", "date");
    let mut when = field("when", "date");
    when["format"] = json!("DD.MM.YYYY HH:mm");
    let colour = dropdown("colour", &[("red", "RED"), ("blue", "BLUE")]);
    let mut fixed = field("fixed", "text");
    fixed["editable"] = json!(false);
    fixed["value"] = json!("FIXED");
    let mut scan = field("scan", "file");
    scan["file"] = json!({"accept": ["application/pdf"], "maxBytes": 1024});
    let notes = field("notes", "textarea");
    config_with(vec![name, code, born, when, colour, fixed, scan, notes])
}

/// `{payload: {configurationId, fields}}` with the answers given by field key.
pub fn answers_by_key(view: &Value, answers: &[(&str, Value)]) -> Value {
    let ids = field_ids(view);
    let fields: Map<String, Value> = answers.iter().map(|(key, value)| (ids[*key].clone(), value.clone())).collect();
    json!({"payload": {"configurationId": view["id"], "fields": fields}})
}

/// The words of an instance's answers as the word-count example counts them: whitespace-separated
/// tokens holding a letter or digit, in string answers and the strings of list answers, minus `ignored`.
pub fn form_field_words(fields: &Value, ignored: &[&str]) -> u64 {
    fn words(answer: &Value) -> u64 {
        match answer {
            Value::String(text) => {
                text.split_whitespace().filter(|word| word.chars().any(char::is_alphanumeric)).count() as u64
            }
            Value::Array(items) => items.iter().map(words).sum(),
            _ => 0,
        }
    }
    let fields = fields.as_object().expect("fields are an object");
    fields.iter().filter(|(id, _)| !ignored.contains(&id.as_str())).map(|(_, answer)| words(answer)).sum()
}

/// The (path, code) problems `validate` finds in `config`, asserting a 400 VALIDATION_FAILED.
pub async fn validation_problems(app: &TestApp, user: &TestUser, config: Value) -> Vec<(String, String)> {
    let response = validate_config(app, &user.token, &json!({"config": config})).await;
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    problems(&error)
}

/// Asserts that `validate` accepts `config`.
pub async fn assert_valid(app: &TestApp, user: &TestUser, config: Value) {
    let response = validate_config(app, &user.token, &json!({"config": config})).await;
    let status = response.status();
    let answer = body(response).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["valid"], true);
}
