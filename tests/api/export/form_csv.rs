//! `GET /v0/forms/export?format=csv`: RFC 4180 with CRLF, the fixed columns and then one per field of
//! the named configuration in document order (named by key), one row per instance of that configuration,
//! answers as text, a file field's file names joined by `; `, quoting of commas, quotes and line breaks,
//! and cells a spreadsheet would read as a formula defused with a leading `'`.

use serde_json::{Value, json};
use trellis_tests::{TestApp, spawn_app_with};

use super::{export_forms, exported, read};
use crate::support::forms::{
    answers_by_key, config_with, created_config, created_form, dropdown, field, field_ids, next_millisecond,
};
use crate::support::media::{file, pairs, pdf, text, uploaded};

/// `name`, `formula`, `scan` (files), `colour` (dropdown), `quoted` (textarea), `plus`, `at`, `minus`,
/// `tabbed` (textarea), `empty`: in this order.
fn csv_config() -> Value {
    let mut scan = field("scan", "file");
    scan["file"] =
        json!({"accept": ["application/pdf", "text/plain"], "maxBytes": 4096, "multiple": true, "maxFiles": 3});
    config_with(vec![
        field("name", "text"),
        field("formula", "text"),
        scan,
        dropdown("colour", &[("red", "RED"), ("blue", "BLUE")]),
        field("quoted", "textarea"),
        field("plus", "text"),
        field("at", "text"),
        field("minus", "text"),
        field("tabbed", "textarea"),
        field("empty", "text"),
    ])
}

const FIXED: [&str; 5] = ["formId", "configurationId", "state", "createdAt", "updatedAt"];
const KEYS: [&str; 10] = ["name", "formula", "scan", "colour", "quoted", "plus", "at", "minus", "tabbed", "empty"];

/// An instance of the CSV configuration whose answers need quoting or neutralising, with two files in
/// its file field; answers its id.
async fn tricky_instance(app: &TestApp, token: &str, config: &Value) -> String {
    let answers = [
        ("name", json!("Ada, \"the Countess\"")),
        ("formula", json!("=1+2")),
        ("colour", json!("BLUE")),
        ("quoted", json!("first line\nsecond, \"quoted\" line")),
        ("plus", json!("+41 79 123 45 67")),
        ("at", json!("@SUM(A1:A2)")),
        ("minus", json!("-2")),
        ("tabbed", json!("\tindented")),
    ];
    let tricky = created_form(app, token, &answers_by_key(config, &answers)).await;
    let tricky_id = tricky["formId"].as_str().unwrap().to_owned();
    let ids = field_ids(config);
    let first = file("minutes.pdf", "application/pdf", pdf(200));
    uploaded(app, token, &tricky_id, pairs(vec![(ids["scan"].as_str(), first)])).await;
    next_millisecond().await;
    let second = file("notes; part 2.txt", "text/plain", text(100));
    uploaded(app, token, &tricky_id, pairs(vec![(ids["scan"].as_str(), second)])).await;
    tricky_id
}

#[tokio::test]
async fn a_csv_export_has_a_column_per_field_and_a_row_per_instance_with_answers_as_text() {
    // Arrange: three instances of the CSV configuration (pages of two rows), one of another
    // configuration, and one of bob's.
    let app = spawn_app_with(|config| config.export.page_rows = 2).await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let config = created_config(&app, &ann.token, csv_config()).await;
    let config_id = config["id"].as_str().unwrap().to_owned();
    let other = created_config(&app, &ann.token, config_with(vec![field("note", "text")])).await;
    let tricky_id = tricky_instance(&app, &ann.token, &config).await;
    let mut plain_ids = Vec::new();
    for name in ["Grace", "Edsger"] {
        let view = created_form(&app, &ann.token, &answers_by_key(&config, &[("name", json!(name))])).await;
        plain_ids.push(view["formId"].as_str().unwrap().to_owned());
    }
    created_form(&app, &ann.token, &answers_by_key(&other, &[("note", json!("not in this export"))])).await;
    created_form(&app, &bob.token, &answers_by_key(&config, &[("name", json!("Bob"))])).await;
    // Act
    let export =
        exported(export_forms(&app, &ann.token, &[("format", "csv"), ("configurationId", config_id.as_str())]).await)
            .await;
    // Assert
    export.assert_csv("forms");
    let (header, rows) = export.table();
    let expected_header: Vec<&str> = FIXED.iter().chain(KEYS.iter()).copied().collect();
    assert_eq!(header, expected_header);
    assert!(export.text.starts_with(&format!("{}\r\n", expected_header.join(","))), "{:?}", export.text);
    assert_eq!(rows.len(), 3, "{}", export.text);
    let mut row_ids: Vec<&str> = rows.iter().map(|row| row[0].as_str()).collect();
    row_ids.sort();
    let mut want: Vec<&str> = plain_ids.iter().map(String::as_str).chain([tricky_id.as_str()]).collect();
    want.sort();
    assert_eq!(row_ids, want);
    for row in &rows {
        assert_eq!(row.len(), header.len(), "{row:?}");
        let read = read(&app, &ann.token, &format!("/v0/forms/{}", row[0])).await;
        assert_eq!(row[1], config_id);
        assert_eq!(row[2], "SUBMITTED");
        assert_eq!((&row[3], &row[4]), (&s(&read["createdAt"]), &s(&read["updatedAt"])), "{read}");
    }
    let cell = |row: &[String], key: &str| row[header.iter().position(|h| h == key).unwrap()].clone();
    let tricky_row = rows.iter().find(|row| row[0] == tricky_id).unwrap();
    assert_eq!(cell(tricky_row, "name"), "Ada, \"the Countess\"");
    assert_eq!(cell(tricky_row, "formula"), "'=1+2");
    assert_eq!(cell(tricky_row, "scan"), "minutes.pdf; notes; part 2.txt");
    assert_eq!(cell(tricky_row, "colour"), "BLUE");
    assert_eq!(cell(tricky_row, "quoted"), "first line\nsecond, \"quoted\" line");
    assert_eq!(cell(tricky_row, "plus"), "'+41 79 123 45 67");
    assert_eq!(cell(tricky_row, "at"), "'@SUM(A1:A2)");
    assert_eq!(cell(tricky_row, "minus"), "'-2");
    assert_eq!(cell(tricky_row, "tabbed"), "'\tindented");
    assert_eq!(cell(tricky_row, "empty"), "");
    // The raw text quotes what needs it, doubling quotes.
    assert!(export.text.contains("\"Ada, \"\"the Countess\"\"\""), "{:?}", export.text);
    assert!(export.text.contains("\"first line\nsecond, \"\"quoted\"\" line\""), "{:?}", export.text);
    for (row, name) in plain_ids.iter().zip(["Grace", "Edsger"]) {
        let plain = rows.iter().find(|r| &r[0] == row).unwrap();
        assert_eq!(cell(plain, "name"), name);
        assert_eq!(cell(plain, "scan"), "");
        assert_eq!(cell(plain, "formula"), "");
    }
}

#[tokio::test]
async fn a_csv_export_with_no_instances_is_the_header_row_alone() {
    // Arrange
    let app = spawn_app_with(|_| {}).await;
    let ann = app.sign_up("ann").await;
    let config = created_config(&app, &ann.token, csv_config()).await;
    let config_id = config["id"].as_str().unwrap();
    // Act
    let export =
        exported(export_forms(&app, &ann.token, &[("format", "csv"), ("configurationId", config_id)]).await).await;
    let drafts = exported(
        export_forms(&app, &ann.token, &[("format", "csv"), ("configurationId", config_id), ("states", "DRAFT")]).await,
    )
    .await;
    // Assert
    let expected_header: Vec<&str> = FIXED.iter().chain(KEYS.iter()).copied().collect();
    assert_eq!(export.text, format!("{}\r\n", expected_header.join(",")));
    export.assert_csv("forms");
    assert_eq!(drafts.text, export.text);
}

fn s(value: &Value) -> String {
    value.as_str().unwrap_or_else(|| panic!("{value} is not text")).to_owned()
}
