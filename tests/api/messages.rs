//! Direct messages (conventions 7): sending and replying, thread lists newest activity first,
//! unread counts and marking read on fetch, strangers, every problem of a bad message, the daily
//! quota, the reserved handle `system` and its notices, paging, and no e-mail address in any answer.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis::config::Config;
use trellis_tests::{assert_error, body, spawn_app, spawn_app_with};

use crate::support::forms::{expected, next_millisecond, problems, refused};
use crate::support::messages::{
    all_pages, message_path, notify, read, replied, send, sent, shown, system, texts, thread, thread_path, threads,
    unread, with_avatar,
};

#[tokio::test]
async fn a_message_starts_a_thread_and_a_reply_continues_it_with_the_other_participant() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    // Act
    let (thread_id, first) = sent(&app, &ann, "bob", " Lunch? ", "Are you free\non Friday? ").await;
    next_millisecond().await;
    let (reply_thread, second) = replied(&app, &bob, &thread_id, "Yes!").await;
    next_millisecond().await;
    let (_, third) = ids_of(
        send(&app, &ann.token, &json!({"threadId": thread_id, "to": "bob", "subject": "Re: Lunch", "body": "Great"}))
            .await,
    )
    .await;
    // Assert
    for id in [&thread_id, &first, &second, &third] {
        assert!(uuid::Uuid::parse_str(id).is_ok_and(|u| u.get_version_num() == 4), "{id}");
    }
    assert_eq!(reply_thread, thread_id);
    let page = read(&app, &bob.token, &thread_path(&thread_id)).await;
    assert_eq!(texts(&page, "messageId"), [third.as_str(), second.as_str(), first.as_str()]);
    assert_eq!(texts(&page, "body"), ["Great", "Yes!", "Are you free\non Friday?"]);
    assert_eq!(
        texts(&page, "subject"),
        ["Re: Lunch", "Lunch?", "Lunch?"],
        "a reply without a subject takes the thread's"
    );
    let oldest = &page["items"][2];
    assert_eq!(oldest["from"], shown(&ann));
    assert_eq!(oldest["to"], shown(&bob));
    assert_eq!(oldest["threadId"], thread_id.as_str());
    assert_eq!(oldest["readAt"], Value::Null);
    assert!(oldest["createdAt"].as_str().is_some_and(|t| t.ends_with('Z')), "{oldest}");
    assert_eq!(page["items"][1]["from"], shown(&bob));
    assert_eq!(page["items"][1]["to"], shown(&ann));
    assert_eq!(page["nextCursor"], Value::Null);
    let for_ann = thread(&app, &ann, &thread_id).await;
    let for_bob = thread(&app, &bob, &thread_id).await;
    assert_eq!(for_ann["participant"], shown(&bob));
    assert_eq!(for_bob["participant"], shown(&ann));
    assert_eq!((for_ann["subject"].as_str(), for_bob["subject"].as_str()), (Some("Lunch?"), Some("Lunch?")));
    assert_eq!((for_ann["unread"].as_i64(), for_bob["unread"].as_i64()), (Some(1), Some(2)));
    assert_eq!(for_ann["lastMessageAt"], page["items"][0]["createdAt"]);
    assert_eq!(for_bob["lastMessageAt"], page["items"][0]["createdAt"]);
    assert_eq!((unread(&app, &ann).await, unread(&app, &bob).await), (1, 2));
}

async fn ids_of(response: reqwest::Response) -> (String, String) {
    let status = response.status();
    let answer = body(response).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    (answer["threadId"].as_str().unwrap().to_owned(), answer["messageId"].as_str().unwrap().to_owned())
}

#[tokio::test]
async fn threads_list_newest_activity_first_and_page_by_cursor() {
    // Arrange: ann hears from bob, cat and dan in that order, then writes again in bob's thread.
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let mut thread_ids = Vec::new();
    for handle in ["bob", "cat", "dan"] {
        let user = app.sign_up(handle).await;
        thread_ids.push(sent(&app, &user, "ann", &format!("From {handle}"), "Hello").await.0);
        next_millisecond().await;
    }
    replied(&app, &ann, &thread_ids[0], "Back to you, bob").await;
    // Act
    let first_page = read(&app, &ann.token, "/v0/messages/threads?limit=2").await;
    let everything = all_pages(&app, &ann.token, "/v0/messages/threads", 2).await;
    let bad = app.get_authed("/v0/messages/threads?limit=0&cursor=nope", &ann.token).await;
    // Assert
    assert_eq!(texts(&first_page, "subject"), ["From bob", "From dan"]);
    assert!(first_page["nextCursor"].is_string());
    let subjects: Vec<&str> = everything.iter().map(|t| t["subject"].as_str().unwrap()).collect();
    assert_eq!(subjects, ["From bob", "From dan", "From cat"]);
    let unread_counts: Vec<i64> = everything.iter().map(|t| t["unread"].as_i64().unwrap()).collect();
    assert_eq!(unread_counts, [1, 1, 1], "ann's own reply is not unread for her");
    let handles: Vec<&str> = everything.iter().map(|t| t["participant"]["handle"].as_str().unwrap()).collect();
    assert_eq!(handles, ["bob", "dan", "cat"]);
    let error = assert_error(bad, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("query.cursor", "INVALID_CURSOR"), ("query.limit", "OUT_OF_RANGE")]));
}

#[tokio::test]
async fn a_threads_messages_page_by_cursor_newest_first() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let (thread_id, _) = sent(&app, &ann, "bob", "Count", "1").await;
    for n in 2..=5 {
        next_millisecond().await;
        let from = if n % 2 == 0 { &bob } else { &ann };
        replied(&app, from, &thread_id, &n.to_string()).await;
    }
    // Act
    let seen = all_pages(&app, &ann.token, &thread_path(&thread_id), 2).await;
    let bad = app.get_authed(&format!("{}?limit=201", thread_path(&thread_id)), &ann.token).await;
    // Assert
    let bodies: Vec<&str> = seen.iter().map(|m| m["body"].as_str().unwrap()).collect();
    assert_eq!(bodies, ["5", "4", "3", "2", "1"]);
    let error = assert_error(bad, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("query.limit", "OUT_OF_RANGE")]));
}

#[tokio::test]
async fn fetching_a_message_marks_it_read_only_for_its_recipient_and_only_once() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let (thread_id, first) = sent(&app, &ann, "bob", "Two things", "First").await;
    let (_, second) = replied(&app, &ann, &thread_id, "Second").await;
    // Act
    let by_sender = read(&app, &ann.token, &message_path(&thread_id, &first)).await;
    let unread_after_sender = unread(&app, &bob).await;
    let listed = read(&app, &bob.token, &thread_path(&thread_id)).await;
    let unread_after_listing = unread(&app, &bob).await;
    let by_recipient = read(&app, &bob.token, &message_path(&thread_id, &first)).await;
    next_millisecond().await;
    let again = read(&app, &bob.token, &message_path(&thread_id, &first)).await;
    // Assert
    assert_eq!(by_sender["readAt"], Value::Null, "the sender's fetch marks nothing");
    assert_eq!(unread_after_sender, 2);
    assert!(listed["items"].as_array().unwrap().iter().all(|m| m["readAt"].is_null()), "listing marks nothing");
    assert_eq!(unread_after_listing, 2);
    assert_eq!(by_recipient["body"], "First");
    assert_eq!(by_recipient["from"], shown(&ann));
    assert!(by_recipient["readAt"].as_str().is_some_and(|t| t.ends_with('Z')), "{by_recipient}");
    assert_eq!(again["readAt"], by_recipient["readAt"], "the first fetch's time stays");
    assert_eq!(unread(&app, &bob).await, 1);
    assert_eq!(thread(&app, &bob, &thread_id).await["unread"], 1);
    let as_ann = read(&app, &ann.token, &thread_path(&thread_id)).await;
    let read_ats: Vec<bool> = as_ann["items"].as_array().unwrap().iter().map(|m| m["readAt"].is_string()).collect();
    assert_eq!(read_ats, [false, true], "the sender sees which messages were read");
    read(&app, &bob.token, &message_path(&thread_id, &second)).await;
    assert_eq!(unread(&app, &bob).await, 0);
    assert_eq!(thread(&app, &bob, &thread_id).await["unread"], 0);
    assert_eq!(unread(&app, &ann).await, 0);
}

#[tokio::test]
async fn strangers_find_no_thread_and_no_message_and_cannot_reply() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let dan = app.sign_up("dan").await;
    let (thread_id, message_id) = sent(&app, &ann, "bob", "Private", "Just us").await;
    let unknown = uuid::Uuid::new_v4().to_string();
    // Act
    let list = app.get_authed(&thread_path(&thread_id), &dan.token).await;
    let unknown_list = app.get_authed(&thread_path(&unknown), &dan.token).await;
    let fetch = app.get_authed(&message_path(&thread_id, &message_id), &dan.token).await;
    let unknown_fetch = app.get_authed(&message_path(&unknown, &message_id), &ann.token).await;
    let reply = send(&app, &dan.token, &json!({"threadId": thread_id, "body": "Let me in"})).await;
    let unknown_reply = send(&app, &dan.token, &json!({"threadId": unknown, "body": "Let me in"})).await;
    let malformed = [
        app.get_authed(&thread_path("not-a-thread"), &ann.token).await,
        app.get_authed(&message_path(&thread_id, "not-a-message"), &ann.token).await,
        send(&app, &ann.token, &json!({"threadId": "not-a-thread", "body": "Hi"})).await,
    ];
    let anonymous = app.request(Method::GET, "/v0/messages/unread").send().await.unwrap();
    // Assert
    let seen = |e: &Value| (e["code"].clone(), e["message"].clone());
    let stranger = assert_error(list, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_eq!(seen(&stranger), seen(&assert_error(unknown_list, StatusCode::NOT_FOUND, "NOT_FOUND").await));
    let stranger = assert_error(fetch, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_eq!(seen(&stranger), seen(&assert_error(unknown_fetch, StatusCode::NOT_FOUND, "NOT_FOUND").await));
    let stranger = assert_error(reply, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_eq!(seen(&stranger), seen(&assert_error(unknown_reply, StatusCode::NOT_FOUND, "NOT_FOUND").await));
    for response in malformed {
        assert_error(response, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    }
    assert_error(anonymous, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    assert!(threads(&app, &dan).await.is_empty());
    assert_eq!(texts(&read(&app, &bob.token, &thread_path(&thread_id)).await, "body"), ["Just us"]);
    assert_eq!(read(&app, &bob.token, &message_path(&thread_id, &message_id)).await["body"], "Just us");
}

#[tokio::test]
async fn a_bad_message_lists_every_problem_and_stores_nothing() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    // Act
    let everything_wrong = send(
        &app,
        &ann.token,
        &json!({"to": "nobody_here", "subject": " ", "body": "x".repeat(10_001), "from": "bob", "cc": ["cat"]}),
    )
    .await;
    let missing = send(&app, &ann.token, &json!({})).await;
    let to_self = send(&app, &ann.token, &json!({"to": "ann", "subject": "a\tb", "body": "ding\u{7}"})).await;
    let shapes =
        send(&app, &ann.token, &json!({"to": "@bob", "subject": "x".repeat(201), "body": 5, "threadId": 7})).await;
    let not_json = app.authed(Method::POST, "/v0/messages", &ann.token).body("hi").send().await.unwrap();
    let longest =
        send(&app, &ann.token, &json!({"to": "bob", "subject": "é".repeat(200), "body": "é".repeat(10_000)})).await;
    // Assert
    assert_eq!(
        refused(everything_wrong).await,
        expected(&[
            ("/body", "TOO_LONG"),
            ("/cc", "UNKNOWN_FIELD"),
            ("/from", "READ_ONLY"),
            ("/subject", "BLANK"),
            ("/to", "UNKNOWN_USER"),
        ])
    );
    assert_eq!(
        refused(missing).await,
        expected(&[("/body", "REQUIRED"), ("/subject", "REQUIRED"), ("/to", "REQUIRED")])
    );
    assert_eq!(
        refused(to_self).await,
        expected(&[("/body", "INVALID_CHARACTERS"), ("/subject", "INVALID_CHARACTERS"), ("/to", "OWN_HANDLE")])
    );
    assert_eq!(
        refused(shapes).await,
        expected(&[
            ("/body", "INVALID_TYPE"),
            ("/subject", "TOO_LONG"),
            ("/threadId", "INVALID_TYPE"),
            ("/to", "INVALID_HANDLE")
        ])
    );
    assert_error(not_json, StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE").await;
    assert_eq!(threads(&app, &ann).await.len(), 1, "only the longest message was stored");
    assert_eq!(unread(&app, &bob).await, 1);
    assert_eq!(longest.status(), StatusCode::CREATED, "200 and 10,000 characters fit");
}

#[tokio::test]
async fn a_reply_names_the_threads_other_participant_or_nobody() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    app.sign_up("cat").await;
    let (thread_id, _) = sent(&app, &ann, "bob", "Hello", "Hi bob").await;
    // Act
    let to_cat = send(&app, &bob.token, &json!({"threadId": thread_id, "to": "cat", "body": "Hi cat?"})).await;
    let blank = send(&app, &bob.token, &json!({"threadId": thread_id, "to": "ann", "subject": "", "body": ""})).await;
    let to_ann = send(&app, &bob.token, &json!({"threadId": thread_id, "to": "ann", "body": "Hi ann"})).await;
    // Assert
    assert_eq!(refused(to_cat).await, expected(&[("/to", "NOT_PARTICIPANT")]));
    assert_eq!(refused(blank).await, expected(&[("/body", "BLANK"), ("/subject", "BLANK")]));
    assert_eq!(to_ann.status(), StatusCode::CREATED);
    assert_eq!(texts(&read(&app, &ann.token, &thread_path(&thread_id)).await, "body"), ["Hi ann", "Hi bob"]);
    assert_eq!(threads(&app, &bob).await.len(), 1, "a reply starts no thread");
}

#[tokio::test]
async fn a_participant_with_an_avatar_shows_it_as_their_profile_does() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let avatar = with_avatar(&app, &ann).await;
    let (thread_id, message_id) = sent(&app, &ann, "bob", "Look", "New picture").await;
    // Act
    let listed = thread(&app, &bob, &thread_id).await;
    let fetched = read(&app, &bob.token, &message_path(&thread_id, &message_id)).await;
    // Assert
    let mut expected_ann = shown(&ann);
    expected_ann["avatar"] = avatar;
    assert_eq!(listed["participant"], expected_ann);
    assert_eq!(fetched["from"], expected_ann);
    assert_eq!(fetched["to"], shown(&bob));
}

fn two_messages_a_day(config: &mut Config) {
    config.plans.insert("default".into(), [("messaging.perDay".to_owned(), 2)].into_iter().collect());
}

#[tokio::test]
async fn one_user_of_a_shared_key_spends_only_their_share_of_the_days_messages() {
    // Issue 28: with one key for everybody, one user could send the whole day's messages.
    // Arrange: 4 messages a day per key, half of it per user.
    let app = spawn_app_with(|config| {
        config.plans.insert("default".into(), [("messaging.perDay".to_owned(), 4)].into_iter().collect());
        config.quota_user_share_percent = 50;
    })
    .await;
    let [ann, bob, cat, dan] =
        [app.sign_up("ann").await, app.sign_up("bob").await, app.sign_up("cat").await, app.sign_up("dan").await];
    sent(&app, &ann, "dan", "One", "1").await;
    sent(&app, &ann, "dan", "Two", "2").await;
    // Act
    let third = send(&app, &ann.token, &json!({"to": "dan", "subject": "Three", "body": "3"})).await;
    // Assert: ann's share is spent, bob still has his, and then the key's day is spent for everybody.
    let error = assert_error(third, StatusCode::FORBIDDEN, "ENTITLEMENT_LIMIT_EXCEEDED").await;
    assert_eq!(error["details"][0]["path"], "messaging.perDay");
    sent(&app, &bob, "dan", "One", "1").await;
    sent(&app, &bob, "dan", "Two", "2").await;
    let key_spent = send(&app, &cat.token, &json!({"to": "dan", "subject": "One", "body": "1"})).await;
    assert_error(key_spent, StatusCode::FORBIDDEN, "ENTITLEMENT_LIMIT_EXCEEDED").await;
    assert_eq!(unread(&app, &dan).await, 4);
}

#[tokio::test]
async fn messages_count_against_the_daily_quota_and_refusals_cost_nothing() {
    // Arrange
    let app = spawn_app_with(two_messages_a_day).await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let dan = app.sign_up("dan").await;
    let (bobs_thread, _) = sent(&app, &bob, "dan", "Hidden", "From bob").await;
    // Act: three refusals of different kinds, then one send that uses up the day.
    let invalid = send(&app, &ann.token, &json!({"to": "nobody_here", "subject": "Hi", "body": "Hi"})).await;
    let stranger = send(&app, &ann.token, &json!({"threadId": bobs_thread, "body": "Hi"})).await;
    let system = send(&app, &ann.token, &json!({"to": "system", "subject": "Hi", "body": "Hi"})).await;
    let (thread_id, _) = sent(&app, &ann, "bob", "Hi", "Hi").await;
    let beyond = send(&app, &dan.token, &json!({"threadId": bobs_thread, "body": "Thanks"})).await;
    // Assert
    assert_error(invalid, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_error(stranger, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_error(system, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    let error = assert_error(beyond, StatusCode::FORBIDDEN, "ENTITLEMENT_LIMIT_EXCEEDED").await;
    assert_eq!(error["details"][0]["path"], "messaging.perDay");
    assert_eq!(texts(&read(&app, &bob.token, &thread_path(&thread_id)).await, "body"), ["Hi"]);
    assert_eq!(texts(&read(&app, &dan.token, &thread_path(&bobs_thread)).await, "body"), ["From bob"]);
    assert_eq!(unread(&app, &bob).await, 1, "the refused reply reached nobody");
}

#[tokio::test]
async fn nobody_signs_up_as_system_or_writes_to_it() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let signup = app
        .post_json(
            "/v0/auth/sign-up/start",
            json!({"email": "sys@example.org", "handle": "system", "fullName": "S", "displayName": "S"}),
        )
        .await;
    let message = send(&app, &ann.token, &json!({"to": "system", "subject": "Hi", "body": "Anyone?"})).await;
    // Assert
    assert_eq!(refused(signup).await, expected(&[("/handle", "RESERVED_HANDLE")]));
    assert_eq!(refused(message).await, expected(&[("/to", "RESERVED_HANDLE")]));
    assert!(app.mails_to("sys@example.org").is_empty(), "no PIN was sent");
}

/// Issue 28: the platform's notices come from "Trellis"; no user may take that display name, in
/// any case or spacing, at sign-up or later.
#[tokio::test]
async fn nobody_takes_the_platforms_display_name() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let signup = app
        .post_json(
            "/v0/auth/sign-up/start",
            json!({"email": "t@example.org", "handle": "trellis_team", "fullName": "T", "displayName": "Trellis"}),
        )
        .await;
    let renamed = app
        .authed(Method::PATCH, "/v0/users/me", &ann.token)
        .json(&json!({"displayName": " TRELLIS. "}))
        .send()
        .await
        .unwrap();
    let me = body(app.get_authed("/v0/users/me", &ann.token).await).await;
    // Assert
    assert_eq!(refused(signup).await, expected(&[("/displayName", "RESERVED_NAME")]));
    assert_eq!(refused(renamed).await, expected(&[("/displayName", "RESERVED_NAME")]));
    assert_ne!(me["displayName"], "Trellis");
    assert!(app.mails_to("t@example.org").is_empty(), "no PIN was sent");
}

#[tokio::test]
async fn notices_from_system_each_start_a_thread_that_takes_no_reply_and_cost_no_quota() {
    // Arrange
    let app = spawn_app_with(|config| {
        config.plans.insert("default".into(), [("messaging.perDay".to_owned(), 1)].into_iter().collect());
    })
    .await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    // Act
    notify(&app, &ann.user_id, "Listing approved", "Your space is listed.\nWelcome!").await.unwrap();
    next_millisecond().await;
    notify(&app, &ann.user_id, "Registration", "bob joined").await.unwrap();
    let unknown = notify(&app, &uuid::Uuid::new_v4().to_string(), "Hi", "Hi").await;
    let invalid = notify(&app, &ann.user_id, " ", &"x".repeat(10_001)).await;
    let notices = threads(&app, &ann).await;
    let thread_id = notices[1]["threadId"].as_str().unwrap().to_owned();
    let listed = read(&app, &ann.token, &thread_path(&thread_id)).await;
    let message_id = listed["items"][0]["messageId"].as_str().unwrap().to_owned();
    let fetched = read(&app, &ann.token, &message_path(&thread_id, &message_id)).await;
    let reply = send(&app, &ann.token, &json!({"threadId": thread_id, "body": "Thanks!", "subject": ""})).await;
    let direct = send(&app, &ann.token, &json!({"to": "bob", "subject": "Hi", "body": "The day's one message"})).await;
    // Assert
    assert_eq!(texts(&json!({"items": notices}), "subject"), ["Registration", "Listing approved"]);
    assert!(notices.iter().all(|t| t["participant"] == system() && t["unread"] == 1), "{notices:?}");
    assert_eq!(fetched["from"], system());
    assert_eq!(fetched["to"], shown(&ann));
    assert_eq!(fetched["body"], "Your space is listed.\nWelcome!");
    assert!(fetched["readAt"].is_string());
    assert_eq!(unread(&app, &ann).await, 1);
    assert_eq!(refused(reply).await, expected(&[("/subject", "BLANK"), ("/threadId", "SYSTEM_THREAD")]));
    assert_eq!(direct.status(), StatusCode::CREATED, "notices and the refused reply took no quota");
    assert_eq!(threads(&app, &bob).await.len(), 1);
    let unknown = unknown.unwrap_err();
    assert_eq!(unknown.code(), trellis::error::ErrorCode::NotFound);
    let invalid = invalid.unwrap_err();
    assert_eq!(invalid.code(), trellis::error::ErrorCode::ValidationFailed);
    let trellis::error::Error::Validation { details, .. } = invalid else { unreachable!() };
    let paths: Vec<&str> = details.iter().map(|d| d.path.as_str()).collect();
    assert_eq!(paths, ["/subject", "/body"]);
    assert_eq!(threads(&app, &ann).await.len(), 3, "the failed notices wrote nothing");
}

#[tokio::test]
async fn no_answer_of_the_messaging_routes_carries_an_email_address() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let (thread_id, message_id) = sent(&app, &ann, "bob", "Hi", "Hello").await;
    replied(&app, &bob, &thread_id, "Hello back").await;
    notify(&app, &bob.user_id, "Notice", "Something happened").await.unwrap();
    // Act
    let mut answers = Vec::new();
    for (user, path) in [
        (&ann, "/v0/messages/threads".to_owned()),
        (&bob, "/v0/messages/threads".to_owned()),
        (&ann, thread_path(&thread_id)),
        (&bob, message_path(&thread_id, &message_id)),
        (&ann, message_path(&thread_id, &message_id)),
        (&bob, "/v0/messages/unread".to_owned()),
    ] {
        answers.push(app.get_authed(&path, &user.token).await.text().await.unwrap());
    }
    let document = app.request(Method::GET, "/v0/openapi.json").send().await.unwrap();
    // Assert
    for answer in &answers {
        assert!(!answer.contains('@'), "{answer}");
        assert!(!answer.contains("example.org"), "{answer}");
    }
    assert!(
        answers[1].contains("\"handle\":\"ann\"") && answers[1].contains("\"handle\":\"system\""),
        "{}",
        answers[1]
    );
    let document = body(document).await;
    for (method, path) in [
        ("post", "/v0/messages"),
        ("get", "/v0/messages/unread"),
        ("get", "/v0/messages/threads"),
        ("get", "/v0/messages/threads/{threadId}/messages"),
        ("get", "/v0/messages/threads/{threadId}/messages/{messageId}"),
    ] {
        assert!(document["paths"][path][method].is_object(), "{method} {path} is not described");
    }
}
