//! `invite.created` reaches the invitee alone; `registration.changed` reaches the registrant and the
//! space's owner, for each state a registration takes, and nobody else.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{TestApp, body, spawn_app};

use crate::support::channels::{self, created_channel, invited, join};
use crate::support::live::{Live, probe, users};
use crate::support::marketplace::{listed_space, pending_path, registered};
use crate::support::spaces::add_member;

#[tokio::test]
async fn an_invite_reaches_each_invitee_alone() {
    // Arrange: ann owns the channel and bob is a member; cat and dan will be invited; eve is a stranger.
    let app = spawn_app().await;
    let [ann, bob, cat, dan, eve] = users(&app, ["ann", "bob", "cat", "dan", "eve"]).await;
    let channel_id = channels::id(&created_channel(&app, &ann, "talk").await);
    join(&app, &ann, &channel_id, &bob).await;
    let mut anns = Live::open(&app, &ann).await;
    let mut bobs = Live::open(&app, &bob).await;
    let mut cats = Live::open(&app, &cat).await;
    let mut dans = Live::open(&app, &dan).await;
    let mut eves = Live::open(&app, &eve).await;
    // Act
    let invites = invited(&app, &ann.token, &channel_id, &["cat", "dan"]).await;
    // Assert
    assert_eq!(
        cats.expect("invite.created").await,
        json!({"channelId": channel_id, "inviteId": invites[0]["inviteId"]})
    );
    assert_eq!(
        dans.expect("invite.created").await,
        json!({"channelId": channel_id, "inviteId": invites[1]["inviteId"]})
    );
    for (stream, user) in [(&mut anns, &ann), (&mut bobs, &bob), (&mut eves, &eve)] {
        probe(&app, stream, &cat, user).await;
    }
    probe(&app, &mut cats, &eve, &cat).await;
}

/// POSTs the owner's decision on a registration, asserting 200.
async fn decided(app: &TestApp, token: &str, space_id: &str, registration_id: &Value, approved: &str) {
    let decision = json!({"registrationId": registration_id, "approved": approved});
    let response =
        app.authed(Method::POST, &pending_path(space_id), token).json(&decision).send().await.expect("request sent");
    let status = response.status();
    let answer = body(response).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
}

/// The next three events of a registrant told of a decision: the `registration.changed` and the notice
/// from `system` (its `message.created` and `unread.changed`), in any order. Answers the first's data.
async fn decision_and_notice(live: &mut Live) -> Value {
    let mut heard = live.take(3).await;
    heard.sort_by(|a, b| a.name.cmp(&b.name));
    let names: Vec<&str> = heard.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["message.created", "registration.changed", "unread.changed"], "{heard:?}");
    heard[1].data.clone()
}

#[tokio::test]
async fn a_registration_and_each_decision_reach_the_registrant_and_the_owner_alone() {
    // Arrange: ann's space takes registrations on approval; dan is already a member; the operator olga
    // listed it.
    let app = spawn_app().await;
    let [ann, bob, cat, dan] = users(&app, ["ann", "bob", "cat", "dan"]).await;
    let olga = app.grant_operator(&app.sign_up("olga").await).await;
    let space_id = listed_space(&app, &ann, &olga, "garden", "APPROVAL").await;
    add_member(&app, &space_id, &dan).await;
    let mut anns = Live::open(&app, &ann).await;
    let mut bobs = Live::open(&app, &bob).await;
    let mut cats = Live::open(&app, &cat).await;
    let mut dans = Live::open(&app, &dan).await;
    let mut olgas = Live::open(&app, &olga).await;
    // Act: bob registers
    let bobs_registration =
        registered(&app, &bob, &space_id, json!({"note": "I grow roses"}), StatusCode::CREATED).await;
    let id = bobs_registration["registrationId"].clone();
    let as_state = |state: &str| json!({"spaceId": space_id, "registrationId": id, "state": state});
    // Assert
    assert_eq!(bobs.expect("registration.changed").await, as_state("PENDING"));
    assert_eq!(anns.expect("registration.changed").await, as_state("PENDING"));

    // Act: cat registers; ann approves bob and declines cat.
    let cats_registration = registered(&app, &cat, &space_id, json!({}), StatusCode::CREATED).await;
    decided(&app, &ann.token, &space_id, &id, "YES").await;
    decided(&app, &ann.token, &space_id, &cats_registration["registrationId"], "NO").await;
    // Assert: each registrant hears their own registration only, with the notice of the decision.
    let cats_as = |state: &str| json!({"spaceId": space_id, "registrationId": cats_registration["registrationId"], "state": state});
    assert_eq!(decision_and_notice(&mut bobs).await, as_state("APPROVED"));
    assert_eq!(cats.expect("registration.changed").await, cats_as("PENDING"));
    assert_eq!(decision_and_notice(&mut cats).await, cats_as("REJECTED"));
    assert_eq!(anns.expect("registration.changed").await, cats_as("PENDING"));
    assert_eq!(anns.expect("registration.changed").await, as_state("APPROVED"));
    assert_eq!(anns.expect("registration.changed").await, cats_as("REJECTED"));
    for (stream, user) in [(&mut bobs, &bob), (&mut cats, &cat), (&mut dans, &dan), (&mut olgas, &olga)] {
        probe(&app, stream, &ann, user).await;
    }
    probe(&app, &mut anns, &dan, &ann).await;
}

#[tokio::test]
async fn an_open_space_approves_at_once_and_both_hear_it() {
    // Arrange
    let app = spawn_app().await;
    let [ann, bob, cat] = users(&app, ["ann", "bob", "cat"]).await;
    let olga = app.grant_operator(&app.sign_up("olga").await).await;
    let space_id = listed_space(&app, &ann, &olga, "meadow", "OPEN").await;
    let mut anns = Live::open(&app, &ann).await;
    let mut bobs = Live::open(&app, &bob).await;
    // Act
    let registration = registered(&app, &bob, &space_id, json!({}), StatusCode::CREATED).await;
    // Assert
    let approved = json!({"spaceId": space_id, "registrationId": registration["registrationId"], "state": "APPROVED"});
    assert_eq!(decision_and_notice(&mut bobs).await, approved);
    assert_eq!(anns.expect("registration.changed").await, approved);
    probe(&app, &mut anns, &cat, &ann).await;
}
