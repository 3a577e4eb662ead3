//! `GET /v0/workflows/items/export`: the items of one view, each line what
//! `GET /v0/workflows/items/{itemId}` answers through that view (labels in `language`), to a holder of
//! the view and to the workflow's creator; CSV with the fixed item columns and one per detail field the
//! view shows.

use serde_json::{Value, json};
use trellis_tests::{TestApp, TestUser, spawn_app_with};

use super::{export_items, exported, ids_of, is_rfc3339, read, sorted_ids};
use crate::support::forms::{new_id, sample};
use crate::support::media::{file, pairs, pdf, png, uploaded};
use crate::support::workflow::{grant, item_path, moved, patch_item, sample_setup, started, submitted_form, wf};

/// ann created the sample workflow; bob holds review (slot 2). ann's items: one in intake, two in
/// review (one with a photo and a document), one approved; cat's item is in review too.
struct Items {
    app: TestApp,
    ann: TestUser,
    bob: TestUser,
    intake: String,
    review: Vec<String>,
    with_files: String,
}

async fn items() -> Items {
    let app = spawn_app_with(|config| config.export.page_rows = 2).await;
    let ann = sample_setup(&app, "ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    grant(&app, &ann.token, json!([{"handle": "bob", "slots": [2]}])).await;
    let intake = submitted_form(&app, &ann.token).await;
    started(&app, &ann.token, &intake).await;
    let with_files = submitted_form(&app, &ann.token).await;
    let files = vec![
        (sample::PHOTO, file("face.png", "image/png", png(200))),
        (sample::DOCUMENTS, file("plan.pdf", "application/pdf", pdf(300))),
    ];
    uploaded(&app, &ann.token, &with_files, pairs(files)).await;
    let plain = submitted_form(&app, &ann.token).await;
    let cats = submitted_form(&app, &cat.token).await;
    started(&app, &cat.token, &cats).await;
    for item in [&with_files, &plain] {
        started(&app, &ann.token, item).await;
    }
    for item in [&with_files, &plain, &cats] {
        moved(&app, &ann.token, item, None, wf::SUBMIT).await;
    }
    let approved = submitted_form(&app, &ann.token).await;
    started(&app, &ann.token, &approved).await;
    moved(&app, &ann.token, &approved, None, wf::SUBMIT).await;
    moved(&app, &ann.token, &approved, None, wf::APPROVE).await;
    let patched =
        patch_item(&app, &bob.token, &plain, Some(wf::REVIEW_VIEW), json!({wf::COMMENTS: "checked"}), None).await;
    assert_eq!(patched.status(), reqwest::StatusCode::OK);
    Items { app, ann, bob, intake, review: vec![with_files.clone(), plain, cats], with_files }
}

fn view_query(view: &'static str) -> Vec<(&'static str, &'static str)> {
    vec![("workflowConfigurationId", wf::ID), ("workflowViewId", view)]
}

/// Asserts each line is the item read through `view` in `language` (when given) for `token`'s user.
async fn assert_lines_are_item_reads(app: &TestApp, token: &str, view: &str, language: Option<&str>, lines: &[Value]) {
    let ids = ids_of(lines, "itemId");
    let mut unique = sorted_ids(&ids);
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "an item is exported once: {ids:?}");
    for (line, id) in lines.iter().zip(&ids) {
        let mut path = item_path(id, "", Some(view));
        if let Some(language) = language {
            path.push_str(&format!("&language={language}"));
        }
        assert_eq!(line, &read(app, token, &path).await, "the line of {id}");
    }
}

#[tokio::test]
async fn each_line_is_the_item_read_through_the_view_for_its_holder_and_the_workflows_creator() {
    // Arrange
    let it = items().await;
    let app = &it.app;
    let review = view_query(wf::REVIEW_VIEW);
    let mut german = review.clone();
    german.push(("language", "de"));
    let mut unknown_configuration = review.clone();
    let unknown = new_id();
    unknown_configuration.push(("configurationId", unknown.as_str()));
    let mut of_sample = review.clone();
    of_sample.push(("configurationId", sample::CONFIG_ID));
    // Act
    let bobs = exported(export_items(app, &it.bob.token, &review).await).await;
    let bobs_german = exported(export_items(app, &it.bob.token, &german).await).await;
    let anns = exported(export_items(app, &it.ann.token, &review).await).await;
    let anns_intake = exported(export_items(app, &it.ann.token, &view_query(wf::INTAKE_VIEW)).await).await;
    let none = exported(export_items(app, &it.bob.token, &unknown_configuration).await).await;
    let sample_only = exported(export_items(app, &it.bob.token, &of_sample).await).await;
    // Assert
    bobs.assert_json_lines("items");
    let lines = bobs.lines();
    assert_eq!(sorted_ids(&ids_of(&lines, "itemId")), sorted_ids(&it.review), "{}", bobs.text);
    assert_lines_are_item_reads(app, &it.bob.token, wf::REVIEW_VIEW, None, &lines).await;
    let german_lines = bobs_german.lines();
    assert_lines_are_item_reads(app, &it.bob.token, wf::REVIEW_VIEW, Some("de"), &german_lines).await;
    let labels: Vec<&str> =
        german_lines[0]["transitions"].as_array().unwrap().iter().map(|t| t["label"].as_str().unwrap()).collect();
    assert!(labels.contains(&"Annehmen"), "{labels:?}");
    let ann_lines = anns.lines();
    assert_eq!(sorted_ids(&ids_of(&ann_lines, "itemId")), sorted_ids(&it.review));
    assert_lines_are_item_reads(app, &it.ann.token, wf::REVIEW_VIEW, None, &ann_lines).await;
    let intake_lines = anns_intake.lines();
    assert_eq!(ids_of(&intake_lines, "itemId"), std::slice::from_ref(&it.intake));
    assert_lines_are_item_reads(app, &it.ann.token, wf::INTAKE_VIEW, None, &intake_lines).await;
    assert_eq!(none.text, "");
    assert_eq!(sample_only.lines(), lines);
    // Reduced to the view: review shows no e-mail.
    for line in &lines {
        let keys: Vec<&str> = line["fields"].as_array().unwrap().iter().map(|f| f["key"].as_str().unwrap()).collect();
        assert!(!keys.contains(&"p1_email"), "{keys:?}");
        assert!(line["payload"]["fields"].get(wf::EMAIL).is_none(), "{line}");
    }
}

#[tokio::test]
async fn a_csv_item_export_has_a_column_per_detail_field_the_view_shows() {
    // Arrange
    let it = items().await;
    let app = &it.app;
    let mut query = view_query(wf::REVIEW_VIEW);
    query.extend([("format", "csv"), ("configurationId", sample::CONFIG_ID)]);
    // Act
    let export = exported(export_items(app, &it.bob.token, &query).await).await;
    // Assert
    export.assert_csv("items");
    let (header, rows) = export.table();
    assert_eq!(
        header,
        [
            "itemId",
            "workbasketId",
            "configurationId",
            "state",
            "createdAt",
            "updatedAt",
            "p1_full_name",
            "p1_reference",
            "p2_priority",
            "p2_comments",
            "p3_photo"
        ]
    );
    let ids: Vec<String> = rows.iter().map(|row| row[0].clone()).collect();
    assert_eq!(sorted_ids(&ids), sorted_ids(&it.review));
    for row in &rows {
        assert_eq!(row.len(), header.len(), "{row:?}");
        assert_eq!((row[1].as_str(), row[2].as_str(), row[3].as_str()), (wf::REVIEW, sample::CONFIG_ID, "SUBMITTED"));
        assert!(is_rfc3339(&row[4]) && is_rfc3339(&row[5]), "{row:?}");
        let item = read(app, &it.bob.token, &item_path(&row[0], "", Some(wf::REVIEW_VIEW))).await;
        for (n, key) in header.iter().enumerate().skip(6) {
            let field = item["fields"].as_array().unwrap().iter().find(|f| &f["key"] == key).unwrap();
            if key != "p3_photo" {
                assert_eq!(json!(row[n]), field["value"], "{key} of {item}");
            }
        }
    }
    let with_files = rows.iter().find(|row| row[0] == it.with_files).unwrap();
    assert_eq!(with_files[10], "face.png", "{with_files:?}");
    assert_eq!(with_files[6], "Ada Lovelace");
    assert!(!export.text.contains("plan.pdf"), "review shows no documents: {}", export.text);
    let others: Vec<&Vec<String>> = rows.iter().filter(|row| row[0] != it.with_files).collect();
    assert!(others.iter().all(|row| row[10].is_empty()), "{others:?}");
    assert!(rows.iter().any(|row| row[9] == "checked"), "{rows:?}");
}
