//! Channel invites: inviting by handle, the invitee's inbox, accepting, declining and cancelling,
//! and every move that is refused.

use reqwest::{Method, StatusCode};
use serde_json::json;
use trellis_tests::{assert_error, body, spawn_app, spawn_app_with};

use crate::support::channels::{
    bulk_users, cancel, created_channel, id, inbox, invite, invite_id, invited, join, member_roles, respond, send,
    set_role,
};
use crate::support::forms::{expected, get_ok, item_ids, new_id, next_millisecond, problems};

#[tokio::test]
async fn an_invite_answers_201_with_a_pending_invite_per_handle_that_lands_in_the_inbox() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let channel = created_channel(&app, &ann, "talk").await;
    let channel_id = id(&channel);
    // Act
    let response = invite(&app, &ann.token, &channel_id, &["cat", "bob"]).await;
    // Assert
    assert_eq!(response.status(), StatusCode::CREATED);
    let answer = body(response).await;
    let invites = answer["invites"].as_array().unwrap();
    assert_eq!(invites.len(), 2);
    for (invite, handle) in invites.iter().zip(["cat", "bob"]) {
        assert_eq!(invite.as_object().unwrap().len(), 3, "{invite}");
        assert_eq!((invite["handle"].as_str(), invite["state"].as_str()), (Some(handle), Some("PENDING")));
        assert!(invite["inviteId"].as_str().is_some_and(|i| uuid::Uuid::parse_str(i).is_ok()), "{invite}");
    }
    let inbox_page = get_ok(&app, &bob.token, "/v0/channels/invites/pending").await;
    let bobs = &inbox_page["items"][0];
    assert_eq!(bobs["inviteId"], invites[1]["inviteId"]);
    assert_eq!(bobs["channelId"], channel_id.as_str());
    assert_eq!(bobs["channelName"], "talk");
    assert_eq!(bobs["invitedBy"], json!({"userId": ann.user_id, "handle": "ann"}));
    assert_eq!(bobs["state"], "PENDING");
    assert!(bobs["createdAt"].as_str().is_some_and(|t| t.ends_with('Z')), "{bobs}");
    assert_eq!(inbox(&app, &cat.token).await, [invites[0]["inviteId"].as_str().unwrap()]);
    assert_eq!(inbox(&app, &ann.token).await, Vec::<String>::new());
    let invitee_read = app.get_authed(&format!("/v0/channels/{channel_id}"), &bob.token).await;
    assert_error(invitee_read, StatusCode::NOT_FOUND, "NOT_FOUND").await;
}

#[tokio::test]
async fn an_unknown_handle_refuses_the_whole_request_and_every_problem_is_listed() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let channel_id = id(&created_channel(&app, &ann, "talk").await);
    let path = format!("/v0/channels/{channel_id}/invites");
    let fifty_one: Vec<String> = (0..51).map(|n| format!("user_{n}")).collect();
    // Act
    let unknown = invite(&app, &ann.token, &channel_id, &["bob", "nobody", "ann", "Bob!", "bob", "ghost"]).await;
    let not_strings = send(&app, Method::POST, &path, &ann.token, &json!({"users": ["bob", 7], "note": "hi"})).await;
    let empty = send(&app, Method::POST, &path, &ann.token, &json!({"users": []})).await;
    let too_many = send(&app, Method::POST, &path, &ann.token, &json!({"users": fifty_one})).await;
    // Assert
    let error = assert_error(unknown, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(
        problems(&error),
        expected(&[
            ("/users/1", "UNKNOWN_USER"),
            ("/users/2", "SELF_INVITE"),
            ("/users/3", "INVALID_HANDLE"),
            ("/users/4", "DUPLICATE_USER"),
            ("/users/5", "UNKNOWN_USER"),
        ])
    );
    let error = assert_error(not_strings, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("/note", "UNKNOWN_FIELD"), ("/users/1", "INVALID_TYPE")]));
    let error = assert_error(empty, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("/users", "REQUIRED")]));
    let error = assert_error(too_many, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("/users", "TOO_MANY")]));
    assert_eq!(inbox(&app, &bob.token).await, Vec::<String>::new(), "nothing was written");
}

#[tokio::test]
async fn inviting_a_member_or_an_invited_user_again_answers_what_exists() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let dan = app.sign_up("dan").await;
    let eli = app.sign_up("eli").await;
    let channel_id = id(&created_channel(&app, &ann, "talk").await);
    join(&app, &ann, &channel_id, &bob).await;
    set_role(&app, &ann.token, &channel_id, &bob.user_id, "inviter").await;
    let elis_accepted = join(&app, &ann, &channel_id, &eli).await;
    let cats_pending = invite_id(&app, &ann, &channel_id, &cat).await;
    // Act
    let invites = invited(&app, &bob.token, &channel_id, &["cat", "eli", "ann", "dan"]).await;
    // Assert
    assert_eq!(invites[0], json!({"inviteId": cats_pending, "handle": "cat", "state": "PENDING"}));
    assert_eq!(invites[1], json!({"inviteId": elis_accepted, "handle": "eli", "state": "ACCEPTED"}));
    assert_eq!(invites[2], json!({"inviteId": null, "handle": "ann", "state": "ACCEPTED"}));
    assert_eq!(invites[3]["state"], "PENDING");
    assert_eq!(inbox(&app, &cat.token).await, [cats_pending], "no second invite");
    assert_eq!(inbox(&app, &dan.token).await, [invites[3]["inviteId"].as_str().unwrap()]);
    let pending = get_ok(&app, &dan.token, "/v0/channels/invites/pending").await;
    assert_eq!(pending["items"][0]["invitedBy"]["handle"], "bob");
}

#[tokio::test]
async fn accepting_makes_the_invitee_a_member_and_the_invite_is_decided_once() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let channel_id = id(&created_channel(&app, &ann, "talk").await);
    let invite = invite_id(&app, &ann, &channel_id, &bob).await;
    // Act
    let accepted = respond(&app, &bob.token, &invite, "ACCEPT").await;
    let again = respond(&app, &bob.token, &invite, "DECLINE").await;
    // Assert
    assert_eq!(accepted.status(), StatusCode::OK);
    let accepted = body(accepted).await;
    assert_eq!(accepted["inviteId"], invite.as_str());
    assert_eq!(accepted["state"], "ACCEPTED");
    assert_eq!(accepted["channelId"], channel_id.as_str());
    assert_eq!(accepted["invitedBy"]["userId"], ann.user_id.as_str());
    assert_error(again, StatusCode::CONFLICT, "INVALID_TRANSITION").await;
    let seen = get_ok(&app, &bob.token, &format!("/v0/channels/{channel_id}")).await;
    assert_eq!(seen["role"], "member");
    assert_eq!(inbox(&app, &bob.token).await, Vec::<String>::new());
    let roles = member_roles(&app, &ann.token, &channel_id).await;
    assert_eq!(roles, [("bob".to_owned(), "member".to_owned()), ("ann".to_owned(), "owner".to_owned())]);
}

#[tokio::test]
async fn declining_leaves_the_invitee_outside_and_a_new_invite_gets_a_new_id() {
    // Arrange: no cool-down after a decline, so the channel may invite again at once.
    let app = spawn_app_with(|config| config.rate_limits.reinvite_after_decline_seconds = 0).await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let channel_id = id(&created_channel(&app, &ann, "talk").await);
    let first = invite_id(&app, &ann, &channel_id, &bob).await;
    // Act
    let declined = respond(&app, &bob.token, &first, "DECLINE").await;
    let accept_declined = respond(&app, &bob.token, &first, "ACCEPT").await;
    let cancel_declined = cancel(&app, &ann.token, &channel_id, &first).await;
    let second = invite_id(&app, &ann, &channel_id, &bob).await;
    // Assert
    assert_eq!(declined.status(), StatusCode::OK);
    assert_eq!(body(declined).await["state"], "DECLINED");
    assert_error(accept_declined, StatusCode::CONFLICT, "INVALID_TRANSITION").await;
    assert_error(cancel_declined, StatusCode::CONFLICT, "INVALID_TRANSITION").await;
    let read = app.get_authed(&format!("/v0/channels/{channel_id}"), &bob.token).await;
    assert_error(read, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_ne!(second, first);
    assert_eq!(inbox(&app, &bob.token).await, [second.as_str()]);
    assert_eq!(body(respond(&app, &bob.token, &second, "ACCEPT").await).await["state"], "ACCEPTED");
}

#[tokio::test]
async fn a_declined_invite_is_not_sent_again_before_the_cool_down_has_passed() {
    // Arrange: the default cool-down (24 h); bob declines ann's invite, dan's is cancelled.
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let dan = app.sign_up("dan").await;
    let channel_id = id(&created_channel(&app, &ann, "talk").await);
    let other_channel = id(&created_channel(&app, &ann, "other").await);
    let declined = invite_id(&app, &ann, &channel_id, &bob).await;
    assert_eq!(respond(&app, &bob.token, &declined, "DECLINE").await.status(), StatusCode::OK);
    let cancelled = invite_id(&app, &ann, &channel_id, &dan).await;
    assert_eq!(cancel(&app, &ann.token, &channel_id, &cancelled).await.status(), StatusCode::NO_CONTENT);
    // Act
    let again = invite(&app, &ann.token, &channel_id, &["bob"]).await;
    let beside_another = invite(&app, &ann.token, &channel_id, &["cat", "bob"]).await;
    let after_cancel = invite(&app, &ann.token, &channel_id, &["dan"]).await;
    let elsewhere = invite(&app, &ann.token, &other_channel, &["bob"]).await;
    // Assert: refused whole with the time left, nothing written; a cancel and another channel are no decline.
    let retry_after: u64 = again.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((23 * 3600..=24 * 3600).contains(&retry_after), "Retry-After: {retry_after}");
    assert_error(again, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    assert_error(beside_another, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    assert_eq!(inbox(&app, &cat.token).await, Vec::<String>::new());
    assert_eq!(after_cancel.status(), StatusCode::CREATED);
    assert_eq!(elsewhere.status(), StatusCode::CREATED);
    let bobs = inbox(&app, &bob.token).await;
    assert_eq!(bobs.len(), 1, "only the other channel's invite: {bobs:?}");
    assert_ne!(bobs[0], declined);
}

#[tokio::test]
async fn only_the_invitee_answers_an_invite_and_answers_are_checked() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let channel_id = id(&created_channel(&app, &ann, "talk").await);
    let invite = invite_id(&app, &ann, &channel_id, &bob).await;
    let path = "/v0/channels/invites/respond";
    // Act
    let by_other = respond(&app, &cat.token, &invite, "ACCEPT").await;
    let by_inviter = respond(&app, &ann.token, &invite, "ACCEPT").await;
    let unknown = respond(&app, &bob.token, &new_id(), "ACCEPT").await;
    let bad = send(&app, Method::POST, path, &bob.token, &json!({"inviteId": 5, "response": "YES", "x": 1})).await;
    let missing = send(&app, Method::POST, path, &bob.token, &json!({})).await;
    // Assert
    assert_error(by_other, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(by_inviter, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(unknown, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    let error = assert_error(bad, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(
        problems(&error),
        expected(&[("/inviteId", "INVALID_TYPE"), ("/response", "INVALID_VALUE"), ("/x", "UNKNOWN_FIELD")])
    );
    let error = assert_error(missing, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("/inviteId", "REQUIRED"), ("/response", "REQUIRED")]));
    assert_eq!(inbox(&app, &bob.token).await, [invite], "still pending");
    let cats_channels = get_ok(&app, &cat.token, "/v0/channels").await;
    assert_eq!(cats_channels["items"], json!([]));
}

#[tokio::test]
async fn the_inviter_or_the_owner_cancels_a_pending_invite_and_nobody_else() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let dan = app.sign_up("dan").await;
    let eve = app.sign_up("eve").await;
    let fay = app.sign_up("fay").await;
    let channel_id = id(&created_channel(&app, &ann, "talk").await);
    join(&app, &ann, &channel_id, &bob).await;
    join(&app, &ann, &channel_id, &cat).await;
    set_role(&app, &ann.token, &channel_id, &bob.user_id, "inviter").await;
    set_role(&app, &ann.token, &channel_id, &cat.user_id, "inviter").await;
    let by_bob_for_dan = invite_id(&app, &bob, &channel_id, &dan).await;
    let by_bob_for_eve = invite_id(&app, &bob, &channel_id, &eve).await;
    let accepted = invite_id(&app, &ann, &channel_id, &fay).await;
    respond(&app, &fay.token, &accepted, "ACCEPT").await;
    // Act
    let by_other_inviter = cancel(&app, &cat.token, &channel_id, &by_bob_for_dan).await;
    let by_invitee = cancel(&app, &dan.token, &channel_id, &by_bob_for_dan).await;
    let by_inviter = cancel(&app, &bob.token, &channel_id, &by_bob_for_dan).await;
    let by_owner = cancel(&app, &ann.token, &channel_id, &by_bob_for_eve).await;
    let twice = cancel(&app, &ann.token, &channel_id, &by_bob_for_eve).await;
    let an_accepted = cancel(&app, &ann.token, &channel_id, &accepted).await;
    let unknown = cancel(&app, &ann.token, &channel_id, &new_id()).await;
    let answer_cancelled = respond(&app, &dan.token, &by_bob_for_dan, "ACCEPT").await;
    // Assert
    assert_error(by_other_inviter, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    assert_error(by_invitee, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_eq!(by_inviter.status(), StatusCode::NO_CONTENT);
    assert_eq!(by_owner.status(), StatusCode::NO_CONTENT);
    assert_error(twice, StatusCode::CONFLICT, "INVALID_TRANSITION").await;
    assert_error(an_accepted, StatusCode::CONFLICT, "INVALID_TRANSITION").await;
    assert_error(unknown, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(answer_cancelled, StatusCode::CONFLICT, "INVALID_TRANSITION").await;
    assert_eq!(inbox(&app, &dan.token).await, Vec::<String>::new());
    assert_eq!(inbox(&app, &eve.token).await, Vec::<String>::new());
    assert!(member_roles(&app, &ann.token, &channel_id).await.contains(&("fay".to_owned(), "member".to_owned())));
}

#[tokio::test]
async fn a_member_without_a_role_may_not_invite() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let channel_id = id(&created_channel(&app, &ann, "talk").await);
    join(&app, &ann, &channel_id, &bob).await;
    // Act
    let response = invite(&app, &bob.token, &channel_id, &["cat"]).await;
    // Assert
    assert_error(response, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    assert_eq!(inbox(&app, &cat.token).await, Vec::<String>::new());
}

#[tokio::test]
async fn the_inbox_lists_pending_invites_newest_first_in_pages() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let mut invites = Vec::new();
    for name in ["one", "two", "three"] {
        let channel_id = id(&created_channel(&app, &ann, name).await);
        invites.push(invite_id(&app, &ann, &channel_id, &bob).await);
        next_millisecond().await;
    }
    respond(&app, &bob.token, &invites[1], "DECLINE").await;
    // Act
    let first = get_ok(&app, &bob.token, "/v0/channels/invites/pending?limit=1").await;
    let cursor = first["nextCursor"].as_str().unwrap();
    let second = get_ok(&app, &bob.token, &format!("/v0/channels/invites/pending?limit=1&cursor={cursor}")).await;
    // Assert
    assert_eq!(item_ids(&first, "inviteId"), [invites[2].clone()]);
    assert_eq!(item_ids(&second, "inviteId"), [invites[0].clone()], "the declined one is gone");
    assert_eq!(second["nextCursor"], json!(null));
    let bad = app.get_authed("/v0/channels/invites/pending?limit=0", &bob.token).await;
    let error = assert_error(bad, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("query.limit", "OUT_OF_RANGE")]));
}

#[tokio::test]
async fn a_channel_holds_at_most_a_thousand_pending_invites() {
    // Arrange: 1,001 accounts, 1,000 of them invited in requests of 50.
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let channel_id = id(&created_channel(&app, &ann, "talk").await);
    let handles = bulk_users(&app, "guest", 1_001).await;
    for chunk in handles[..1_000].chunks(50) {
        let chunk: Vec<&str> = chunk.iter().map(String::as_str).collect();
        invited(&app, &ann.token, &channel_id, &chunk).await;
    }
    let first_invite = invited(&app, &ann.token, &channel_id, &[&handles[0]]).await;
    let first_invite = first_invite[0]["inviteId"].as_str().unwrap().to_owned();
    // Act
    let beyond = invite(&app, &ann.token, &channel_id, &[&handles[1_000], &handles[1]]).await;
    let cancelled = cancel(&app, &ann.token, &channel_id, &first_invite).await;
    let after_cancel = invite(&app, &ann.token, &channel_id, &[&handles[1_000]]).await;
    // Assert
    assert_error(beyond, StatusCode::CONFLICT, "CONFLICT").await;
    assert_eq!(cancelled.status(), StatusCode::NO_CONTENT);
    assert_eq!(after_cancel.status(), StatusCode::CREATED, "a cancelled invite frees its place");
}
