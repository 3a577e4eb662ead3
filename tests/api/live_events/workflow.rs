//! `item.changed`: a start, a move and a patch of a workflow item reach the item's creator and the
//! holders of a view showing its workbasket (on a move, the old workbasket's too). A holder of another
//! view, a stranger, and a user whose slot was taken away before the change hear nothing. The creator
//! is the instance's, also after the item switched workflows.

use reqwest::StatusCode;
use serde_json::{Value, json};
use trellis_tests::spawn_app;

use crate::support::live::{Live, assert_replays_agree, newest_event_id, probe, users};
use crate::support::workflow::{
    created_workflow, grant, moved, patch_item, sample_setup, sample_workflow, start, started, submitted_form, wf,
};

fn changed(item: &str, workbasket: &str, change: &str) -> Value {
    json!({"workflowConfigurationId": wf::ID, "itemId": item, "workbasketId": workbasket, "change": change})
}

#[tokio::test]
async fn a_start_a_move_and_a_patch_reach_the_creator_and_the_holders_of_the_views_showing_the_item() {
    // Arrange: ann made the workflow (every slot); dan holds intake (slot 1), bob review (slot 2); cat
    // creates the item and holds no slot; eve is a stranger.
    let app = spawn_app().await;
    let ann = sample_setup(&app, "ann").await;
    let [bob, cat, dan, eve] = users(&app, ["bob", "cat", "dan", "eve"]).await;
    grant(&app, &ann.token, json!([{"handle": "bob", "slots": [2]}, {"handle": "dan", "slots": [1]}])).await;
    let item = submitted_form(&app, &cat.token).await;
    let mut anns = Live::open(&app, &ann).await;
    let mut bobs = Live::open(&app, &bob).await;
    let mut cats = Live::open(&app, &cat).await;
    let mut dans = Live::open(&app, &dan).await;
    let mut eves = Live::open(&app, &eve).await;
    // An event to resume after (the replays below start there): eve's first message.
    probe(&app, &mut eves, &cat, &eve).await;
    let before = newest_event_id(&app, &eve).await;

    // Act: cat starts the workflow on her item; it sits in intake.
    started(&app, &cat.token, &item).await;
    // Assert
    let start = changed(&item, wf::INTAKE, "STARTED");
    for stream in [&mut cats, &mut anns, &mut dans] {
        assert_eq!(stream.expect("item.changed").await, start);
    }

    // Act: dan sends it to review.
    moved(&app, &dan.token, &item, Some(wf::INTAKE_VIEW), wf::SUBMIT).await;
    // Assert: the move reaches intake's holders (the old workbasket) and review's.
    let move_to_review = changed(&item, wf::REVIEW, "MOVED");
    for stream in [&mut cats, &mut anns, &mut dans, &mut bobs] {
        assert_eq!(stream.expect("item.changed").await, move_to_review);
    }

    // Act: bob patches it through review.
    let patched = patch_item(&app, &bob.token, &item, Some(wf::REVIEW_VIEW), json!({wf::COMMENTS: "ok"}), None).await;
    assert_eq!(patched.status(), StatusCode::OK);
    // Assert: dan's view no longer shows it.
    let update = changed(&item, wf::REVIEW, "UPDATED");
    for stream in [&mut cats, &mut anns, &mut bobs] {
        assert_eq!(stream.expect("item.changed").await, update);
    }
    for (stream, user) in [(&mut dans, &dan), (&mut eves, &eve), (&mut bobs, &bob)] {
        probe(&app, stream, &cat, user).await;
    }
    // A reconnection replays to each what their stream heard.
    let streams = [(&anns, &ann), (&bobs, &bob), (&cats, &cat), (&dans, &dan), (&eves, &eve)];
    assert_replays_agree(&app, &before, &streams, [&cat, &ann]).await;
}

#[tokio::test]
async fn a_holder_whose_slot_is_taken_away_hears_nothing_more() {
    // Arrange: bob holds review and hears ann's item arrive there.
    let app = spawn_app().await;
    let ann = sample_setup(&app, "ann").await;
    let [bob, cat] = users(&app, ["bob", "cat"]).await;
    grant(&app, &ann.token, json!([{"handle": "bob", "slots": [2]}])).await;
    let item = submitted_form(&app, &ann.token).await;
    started(&app, &ann.token, &item).await;
    let mut bobs = Live::open(&app, &bob).await;
    moved(&app, &ann.token, &item, Some(wf::INTAKE_VIEW), wf::SUBMIT).await;
    assert_eq!(bobs.expect("item.changed").await, changed(&item, wf::REVIEW, "MOVED"));
    // Act: ann takes slot 2 away, then patches the item in review and approves it.
    grant(&app, &ann.token, json!([])).await;
    let patched = patch_item(&app, &ann.token, &item, Some(wf::REVIEW_VIEW), json!({wf::COMMENTS: "ok"}), None).await;
    assert_eq!(patched.status(), StatusCode::OK);
    moved(&app, &ann.token, &item, Some(wf::REVIEW_VIEW), wf::APPROVE).await;
    // Assert
    probe(&app, &mut bobs, &cat, &bob).await;
}

#[tokio::test]
async fn after_a_switch_the_instance_creator_hears_the_item_in_its_new_workflow() {
    // Arrange: bob's item sits in ann's workflow; ann makes a second workflow of her own.
    let app = spawn_app().await;
    let ann = sample_setup(&app, "ann").await;
    let bob = app.sign_up("bob").await;
    let item = submitted_form(&app, &bob.token).await;
    started(&app, &bob.token, &item).await;
    let mut second = sample_workflow();
    second.as_object_mut().unwrap().remove("id");
    let second_id = created_workflow(&app, &ann.token, second).await["id"].as_str().unwrap().to_owned();
    let mut bobs = Live::open(&app, &bob).await;

    // Act: ann, who made both workflows, switches bob's item to her second one.
    let switch = json!({"workflowConfigurationId": second_id, "itemId": item, "confirmSwitch": true});
    let switched = start(&app, &ann.token, &switch).await;
    assert_eq!(switched.status(), StatusCode::CREATED);

    // Assert: bob, whose instance it is, hears it start there (ann started it, not bob).
    let heard = bobs.expect("item.changed").await;
    assert_eq!(heard["workflowConfigurationId"], second_id.as_str(), "{heard}");
    assert_eq!(heard["itemId"], item.as_str(), "{heard}");
    assert_eq!(heard["change"], "STARTED", "{heard}");
}
