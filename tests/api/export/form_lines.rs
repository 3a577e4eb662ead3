//! `GET /v0/forms/export` as JSON lines over the caller's own instances: each line is the read
//! route's answer, pages of two rows joined without a gap or a repeat, attachments included, and the
//! filters `configurationId`, `states` and `updatedSince`.

use serde_json::json;
use trellis_tests::{TestApp, spawn_app_with};

use super::{assert_lines_are_form_reads, export_forms, exported, ids_of, sorted_ids};
use crate::support::forms::{
    answers_by_key, config_with, created_config, created_form, field, next_millisecond, patched_form, sample,
    sample_config, sample_payload,
};
use crate::support::media::{file, pairs, pdf, png, uploaded};

/// A server whose exports read two rows per page.
async fn paged_app() -> TestApp {
    spawn_app_with(|config| config.export.page_rows = 2).await
}

fn form_id(view: &serde_json::Value) -> String {
    view["formId"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn each_line_is_the_read_routes_answer_for_every_own_instance_across_pages() {
    // Arrange: ann has five instances of two configurations (one a DRAFT, one with three files);
    // bob has one of his own.
    let app = paged_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    created_config(&app, &ann.token, sample_config()).await;
    let other = created_config(&app, &ann.token, config_with(vec![field("note", "text")])).await;
    let mut ids = Vec::new();
    for n in 0..3 {
        let mut wrapper = sample_payload();
        wrapper["payload"]["fields"][sample::FULL_NAME] = json!(format!("Ada {n}"));
        if n == 1 {
            wrapper["payload"]["state"] = json!("DRAFT");
        }
        ids.push(form_id(&created_form(&app, &ann.token, &wrapper).await));
        next_millisecond().await;
    }
    ids.push(form_id(&created_form(&app, &ann.token, &answers_by_key(&other, &[("note", json!("other"))])).await));
    let with_files = ids[0].clone();
    let files = vec![
        (sample::DOCUMENTS, file("first.pdf", "application/pdf", pdf(300))),
        (sample::PHOTO, file("face.png", "image/png", png(200))),
        (sample::DOCUMENTS, file("second, final.pdf", "application/pdf", pdf(400))),
    ];
    let attached = uploaded(&app, &ann.token, &with_files, pairs(files)).await;
    next_millisecond().await;
    ids.push(form_id(&created_form(&app, &ann.token, &sample_payload()).await));
    let bobs = form_id(&created_form(&app, &bob.token, &sample_payload()).await);
    // Act
    let export = exported(export_forms(&app, &ann.token, &[]).await).await;
    let named = exported(export_forms(&app, &ann.token, &[("format", "jsonl")]).await).await;
    // Assert
    export.assert_json_lines("forms");
    named.assert_json_lines("forms");
    let lines = export.lines();
    assert_eq!(sorted_ids(&ids_of(&lines, "formId")), sorted_ids(&ids), "{}", export.text);
    assert!(!ids_of(&lines, "formId").contains(&bobs));
    assert_lines_are_form_reads(&app, &ann.token, &lines).await;
    assert_eq!(named.lines(), lines);
    let line = lines.iter().find(|line| line["formId"] == with_files.as_str()).unwrap();
    let documents: Vec<&str> =
        line["fields"][sample::DOCUMENTS].as_array().unwrap().iter().map(|d| d["filename"].as_str().unwrap()).collect();
    assert_eq!(documents.len(), 2, "{line}");
    assert!(documents.contains(&"first.pdf") && documents.contains(&"second, final.pdf"), "{line}");
    assert_eq!(line["fields"][sample::PHOTO][0]["filename"], "face.png", "{line}");
    assert_eq!(attached.len(), 3);
}

#[tokio::test]
async fn the_configuration_and_states_filters_keep_only_matching_instances() {
    // Arrange: ann has two SUBMITTED and two DRAFT sample instances, and one of another configuration.
    let app = paged_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let other = created_config(&app, &ann.token, config_with(vec![field("note", "text")])).await;
    let (mut submitted, mut drafts) = (Vec::new(), Vec::new());
    for n in 0..4 {
        let mut wrapper = sample_payload();
        if n % 2 == 1 {
            wrapper["payload"]["state"] = json!("DRAFT");
        }
        let id = form_id(&created_form(&app, &ann.token, &wrapper).await);
        if n % 2 == 1 { drafts.push(id) } else { submitted.push(id) }
    }
    let others = form_id(&created_form(&app, &ann.token, &answers_by_key(&other, &[("note", json!("x"))])).await);
    let other_id = other["id"].as_str().unwrap();
    // Act
    let of_sample = exported(export_forms(&app, &ann.token, &[("configurationId", sample::CONFIG_ID)]).await).await;
    let of_other = exported(export_forms(&app, &ann.token, &[("configurationId", other_id)]).await).await;
    let only_drafts = exported(export_forms(&app, &ann.token, &[("states", "DRAFT")]).await).await;
    let both_states = exported(export_forms(&app, &ann.token, &[("states", "DRAFT, SUBMITTED")]).await).await;
    let submitted_sample = exported(
        export_forms(&app, &ann.token, &[("states", "SUBMITTED"), ("configurationId", sample::CONFIG_ID)]).await,
    )
    .await;
    let unknown =
        exported(export_forms(&app, &ann.token, &[("configurationId", "00000000-0000-4000-8000-000000000000")]).await)
            .await;
    // Assert
    let all_sample: Vec<String> = submitted.iter().chain(&drafts).cloned().collect();
    assert_eq!(sorted_ids(&ids_of(&of_sample.lines(), "formId")), sorted_ids(&all_sample));
    assert_eq!(ids_of(&of_other.lines(), "formId"), std::slice::from_ref(&others));
    assert_eq!(sorted_ids(&ids_of(&only_drafts.lines(), "formId")), sorted_ids(&drafts));
    assert_eq!(both_states.lines().len(), 5);
    assert_eq!(sorted_ids(&ids_of(&submitted_sample.lines(), "formId")), sorted_ids(&submitted));
    assert_eq!(unknown.text, "");
    unknown.assert_json_lines("forms");
    assert_lines_are_form_reads(&app, &ann.token, &of_sample.lines()).await;
}

#[tokio::test]
async fn updated_since_leaves_out_instances_last_changed_before_the_time() {
    // Arrange: four instances; the first is changed after the third was created.
    let app = paged_app().await;
    let ann = app.sign_up("ann").await;
    created_config(&app, &ann.token, sample_config()).await;
    let mut views = Vec::new();
    for _ in 0..3 {
        views.push(created_form(&app, &ann.token, &sample_payload()).await);
        next_millisecond().await;
    }
    let since = views[2]["updatedAt"].as_str().unwrap().to_owned();
    next_millisecond().await;
    let changed = patched_form(
        &app,
        &ann.token,
        &form_id(&views[0]),
        &json!({"payload": {"fields": {sample::FULL_NAME: "Grace Hopper"}}}),
    )
    .await;
    next_millisecond().await;
    let newest = created_form(&app, &ann.token, &sample_payload()).await;
    let later = newest["updatedAt"].as_str().unwrap().to_owned();
    // An offset other than Z names the same instant.
    let since_in_zurich = time::OffsetDateTime::parse(&since, &time::format_description::well_known::Rfc3339)
        .unwrap()
        .to_offset(time::macros::offset!(+2))
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    // Act
    let from_since = exported(export_forms(&app, &ann.token, &[("updatedSince", since.as_str())]).await).await;
    let from_zurich =
        exported(export_forms(&app, &ann.token, &[("updatedSince", since_in_zurich.as_str())]).await).await;
    let from_later = exported(export_forms(&app, &ann.token, &[("updatedSince", later.as_str())]).await).await;
    let future = exported(export_forms(&app, &ann.token, &[("updatedSince", "2999-01-01T00:00:00Z")]).await).await;
    // Assert: the time itself is included ("at or after").
    let expected = sorted_ids(&[form_id(&views[0]), form_id(&views[2]), form_id(&newest)]);
    assert_eq!(sorted_ids(&ids_of(&from_since.lines(), "formId")), expected, "since {since}");
    assert_eq!(sorted_ids(&ids_of(&from_zurich.lines(), "formId")), expected, "since {since_in_zurich}");
    assert_eq!(ids_of(&from_later.lines(), "formId"), [form_id(&newest)]);
    assert_eq!(future.text, "");
    let lines = from_since.lines();
    let line = lines.iter().find(|l| l["formId"] == changed["formId"]).unwrap();
    assert_eq!(line["fields"][sample::FULL_NAME], "Grace Hopper");
    assert_lines_are_form_reads(&app, &ann.token, &lines).await;
}

#[tokio::test]
async fn a_user_without_instances_gets_an_empty_export() {
    // Arrange
    let app = paged_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let export = exported(export_forms(&app, &ann.token, &[]).await).await;
    // Assert
    export.assert_json_lines("forms");
    assert_eq!(export.text, "");
}
