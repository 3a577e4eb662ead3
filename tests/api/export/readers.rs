//! Whose instances `GET /v0/forms/export` hands to whom: the creator of an instance gets it whole, the
//! creator of a workflow gets every instance in it whole, a holder of a view gets the instances in the
//! workbaskets their views show, reduced as `GET /v0/forms/{formId}` reduces them (JSON lines and
//! CSV alike), and a stranger gets nothing.

use serde_json::{Value, json};
use trellis_tests::{TestApp, TestUser, spawn_app_with};

use super::{assert_lines_are_form_reads, export_forms, exported, ids_of, sorted_ids};
use crate::support::forms::sample;
use crate::support::media::{file, pairs, pdf, png, uploaded};
use crate::support::workflow::{grant, moved, sample_setup, started, submitted_form, wf};

/// ann created the sample workflow and has one instance outside it and one in intake; bob holds review (slot 2) and has
/// an item in review; dan holds intake and review (slots 1 and 2); cat has an item in intake, one in
/// review (with a photo and a document), one approved and one outside the workflow; eve is a stranger.
struct Readers {
    app: TestApp,
    ann: TestUser,
    bob: TestUser,
    cat: TestUser,
    dan: TestUser,
    eve: TestUser,
    anns: String,
    anns_intake: String,
    bobs: String,
    cats_intake: String,
    cats_review: String,
    cats_approved: String,
    cats_outside: String,
}

async fn readers() -> Readers {
    let app = spawn_app_with(|config| config.export.page_rows = 2).await;
    let ann = sample_setup(&app, "ann").await;
    let (bob, cat, dan, eve) =
        (app.sign_up("bob").await, app.sign_up("cat").await, app.sign_up("dan").await, app.sign_up("eve").await);
    grant(&app, &ann.token, json!([{"handle": "bob", "slots": [2]}, {"handle": "dan", "slots": [1, 2]}])).await;
    let anns = submitted_form(&app, &ann.token).await;
    let anns_intake = submitted_form(&app, &ann.token).await;
    started(&app, &ann.token, &anns_intake).await;
    let bobs = submitted_form(&app, &bob.token).await;
    started(&app, &bob.token, &bobs).await;
    moved(&app, &ann.token, &bobs, None, wf::SUBMIT).await;
    let cats_intake = submitted_form(&app, &cat.token).await;
    started(&app, &cat.token, &cats_intake).await;
    let cats_review = submitted_form(&app, &cat.token).await;
    let files = vec![
        (sample::PHOTO, file("face.png", "image/png", png(200))),
        (sample::DOCUMENTS, file("secret plan.pdf", "application/pdf", pdf(300))),
    ];
    uploaded(&app, &cat.token, &cats_review, pairs(files)).await;
    started(&app, &cat.token, &cats_review).await;
    moved(&app, &ann.token, &cats_review, None, wf::SUBMIT).await;
    let cats_approved = submitted_form(&app, &cat.token).await;
    started(&app, &cat.token, &cats_approved).await;
    moved(&app, &ann.token, &cats_approved, None, wf::SUBMIT).await;
    moved(&app, &ann.token, &cats_approved, None, wf::APPROVE).await;
    let cats_outside = submitted_form(&app, &cat.token).await;
    Readers {
        app,
        ann,
        bob,
        cat,
        dan,
        eve,
        anns,
        anns_intake,
        bobs,
        cats_intake,
        cats_review,
        cats_approved,
        cats_outside,
    }
}

fn line_of<'a>(lines: &'a [Value], id: &str) -> &'a Value {
    lines.iter().find(|line| line["formId"] == id).unwrap_or_else(|| panic!("no line of {id}"))
}

#[tokio::test]
async fn each_reader_gets_what_the_read_route_shows_them_and_a_stranger_gets_nothing() {
    // Arrange
    let r = readers().await;
    let app = &r.app;
    // Act
    let anns = exported(export_forms(app, &r.ann.token, &[]).await).await.lines();
    let bobs = exported(export_forms(app, &r.bob.token, &[]).await).await.lines();
    let cats = exported(export_forms(app, &r.cat.token, &[]).await).await.lines();
    let dans = exported(export_forms(app, &r.dan.token, &[]).await).await.lines();
    let eves = exported(export_forms(app, &r.eve.token, &[]).await).await;
    let future = [("updatedSince", "2999-01-01T00:00:00Z")];
    let bobs_future = exported(export_forms(app, &r.bob.token, &future).await).await;
    let dans_drafts = exported(export_forms(app, &r.dan.token, &[("states", "DRAFT")]).await).await;
    let dans_sample = exported(export_forms(app, &r.dan.token, &[("configurationId", sample::CONFIG_ID)]).await).await;
    // Assert: who gets which instances.
    let anns_and_the_workflows = [&r.anns, &r.anns_intake, &r.bobs, &r.cats_intake, &r.cats_review, &r.cats_approved];
    assert_eq!(sorted_ids(&ids_of(&anns, "formId")), sorted_ids(&anns_and_the_workflows));
    assert_eq!(sorted_ids(&ids_of(&bobs, "formId")), sorted_ids(&[&r.bobs, &r.cats_review]));
    let cats_own = [&r.cats_intake, &r.cats_review, &r.cats_approved, &r.cats_outside];
    assert_eq!(sorted_ids(&ids_of(&cats, "formId")), sorted_ids(&cats_own));
    let dans_views_show = [&r.anns_intake, &r.bobs, &r.cats_intake, &r.cats_review];
    assert_eq!(sorted_ids(&ids_of(&dans, "formId")), sorted_ids(&dans_views_show));
    eves.assert_json_lines("forms");
    assert_eq!(eves.text, "", "a stranger reads no instance");
    // The filters hold for instances read through a workflow too.
    assert_eq!(bobs_future.text, "", "nothing changed after 2999");
    assert_eq!(dans_drafts.text, "", "only SUBMITTED instances enter a workflow");
    assert_eq!(dans_sample.lines(), dans);
    // Each line is the read route's answer for that reader.
    for (user, lines) in [(&r.ann, &anns), (&r.bob, &bobs), (&r.cat, &cats), (&r.dan, &dans)] {
        assert_lines_are_form_reads(app, &user.token, lines).await;
    }
    // The workflow's creator and the instance's creator see all of it; a view holder what the view shows.
    for lines in [&anns, &cats] {
        let whole = line_of(lines, &r.cats_review);
        assert_eq!(whole["fields"][wf::EMAIL], "ada@example.org", "{whole}");
        assert_eq!(whole["fields"][sample::DOCUMENTS][0]["filename"], "secret plan.pdf", "{whole}");
    }
    let reduced = line_of(&bobs, &r.cats_review);
    assert_eq!(reduced["fields"][wf::FULL_NAME], "Ada Lovelace", "{reduced}");
    assert_eq!(reduced["fields"][sample::PHOTO][0]["filename"], "face.png", "{reduced}");
    assert!(reduced["fields"].get(wf::EMAIL).is_none(), "review does not show the e-mail: {reduced}");
    assert!(reduced["fields"].get(sample::DOCUMENTS).is_none(), "review does not show the documents: {reduced}");
    assert!(reduced["metadata"].get("tags").is_none(), "review does not show the tags: {reduced}");
    let own = line_of(&bobs, &r.bobs);
    assert_eq!(own["fields"][wf::EMAIL], "ada@example.org", "bob's own instance is whole: {own}");
}

#[tokio::test]
async fn a_view_holders_csv_holds_only_what_their_views_show() {
    // Arrange
    let r = readers().await;
    let app = &r.app;
    let csv = [("format", "csv"), ("configurationId", sample::CONFIG_ID)];
    // Act
    let bobs = exported(export_forms(app, &r.bob.token, &csv).await).await;
    let anns = exported(export_forms(app, &r.ann.token, &csv).await).await;
    // Assert
    bobs.assert_csv("forms");
    let (header, rows) = bobs.table();
    let column = |key: &str| header.iter().position(|h| h == key).unwrap_or_else(|| panic!("no {key} in {header:?}"));
    let row_of = |rows: &[Vec<String>], id: &str| {
        rows.iter().find(|row| row[0] == id).unwrap_or_else(|| panic!("no row of {id}")).clone()
    };
    assert_eq!(
        sorted_ids(&rows.iter().map(|row| row[0].clone()).collect::<Vec<_>>()),
        sorted_ids(&[&r.bobs, &r.cats_review])
    );
    let reduced = row_of(&rows, &r.cats_review);
    assert_eq!(reduced[column("p1_full_name")], "Ada Lovelace");
    assert_eq!(reduced[column("p3_photo")], "face.png");
    assert_eq!(reduced[column("p1_email")], "", "review does not show the e-mail");
    assert_eq!(reduced[column("p2_department")], "", "review does not show the department");
    let own = row_of(&rows, &r.bobs);
    assert_eq!(own[column("p1_email")], "ada@example.org");
    let (_, ann_rows) = anns.table();
    let whole = row_of(&ann_rows, &r.cats_review);
    assert_eq!(whole[column("p3_documents")], "secret plan.pdf");
    assert_eq!(whole[column("p1_email")], "ada@example.org");
    // A file field the view does not show holds no file names either.
    assert_eq!(reduced[column("p3_documents")], "", "review does not show the documents, nor their file names");
}
