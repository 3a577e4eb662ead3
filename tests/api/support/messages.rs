//! Sending messages, reading threads and messages, and the unread indicator, for the messaging tests.

use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{TestApp, TestUser, body};

/// POST /v0/messages with `body`.
pub async fn send(app: &TestApp, token: &str, body: &Value) -> Response {
    app.authed(Method::POST, "/v0/messages", token).json(body).send().await.expect("request sent")
}

/// Sends `{to, subject, body}` from `from` and answers `(threadId, messageId)`, asserting 201.
pub async fn sent(app: &TestApp, from: &TestUser, to: &str, subject: &str, text: &str) -> (String, String) {
    let response = send(app, &from.token, &json!({"to": to, "subject": subject, "body": text})).await;
    ids(response).await
}

/// Replies `text` in a thread and answers `(threadId, messageId)`, asserting 201.
pub async fn replied(app: &TestApp, from: &TestUser, thread_id: &str, text: &str) -> (String, String) {
    ids(send(app, &from.token, &json!({"threadId": thread_id, "body": text})).await).await
}

async fn ids(response: Response) -> (String, String) {
    let status = response.status();
    let answer = body(response).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    let keys: Vec<&String> = answer.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["messageId", "threadId"], "{answer}");
    (answer["threadId"].as_str().unwrap().to_owned(), answer["messageId"].as_str().unwrap().to_owned())
}

/// The path of a thread's messages.
pub fn thread_path(thread_id: &str) -> String {
    format!("/v0/messages/threads/{thread_id}/messages")
}

/// The path of one message.
pub fn message_path(thread_id: &str, message_id: &str) -> String {
    format!("/v0/messages/threads/{thread_id}/messages/{message_id}")
}

/// GET `path`, asserting 200; answers the body.
pub async fn read(app: &TestApp, token: &str, path: &str) -> Value {
    let response = app.get_authed(path, token).await;
    let status = response.status();
    let answer = body(response).await;
    assert_eq!(status, StatusCode::OK, "GET {path}: {answer}");
    answer
}

/// The caller's `{unread}` count.
pub async fn unread(app: &TestApp, user: &TestUser) -> i64 {
    let answer = read(app, &user.token, "/v0/messages/unread").await;
    answer["unread"].as_i64().unwrap_or_else(|| panic!("no unread count in {answer}"))
}

/// The first page of the caller's threads.
pub async fn threads(app: &TestApp, user: &TestUser) -> Vec<Value> {
    read(app, &user.token, "/v0/messages/threads").await["items"].as_array().unwrap().clone()
}

/// The thread with this id in the caller's first page of threads.
pub async fn thread(app: &TestApp, user: &TestUser, thread_id: &str) -> Value {
    let all = threads(app, user).await;
    all.iter().find(|t| t["threadId"] == thread_id).cloned().unwrap_or_else(|| panic!("{thread_id} not in {all:?}"))
}

/// The `field` of every item of a list page.
pub fn texts(page: &Value, field: &str) -> Vec<String> {
    page["items"].as_array().unwrap().iter().map(|item| item[field].as_str().unwrap().to_owned()).collect()
}

/// Every item of a list, following `nextCursor` with `limit` per page.
pub async fn all_pages(app: &TestApp, token: &str, path: &str, limit: usize) -> Vec<Value> {
    let mut items = Vec::new();
    let joint = if path.contains('?') { '&' } else { '?' };
    let mut next = format!("{path}{joint}limit={limit}");
    loop {
        let page = read(app, token, &next).await;
        let batch = page["items"].as_array().unwrap();
        assert!(batch.len() <= limit, "{page}");
        items.extend(batch.iter().cloned());
        match page["nextCursor"].as_str() {
            Some(cursor) => next = format!("{path}{joint}limit={limit}&cursor={cursor}"),
            None => return items,
        }
    }
}

/// The user as a thread or a message shows them, with no avatar.
pub fn shown(user: &TestUser) -> Value {
    json!({"userId": user.user_id, "handle": user.handle, "displayName": user.handle, "avatar": null})
}

/// How the platform's notices are signed.
pub fn system() -> Value {
    json!({"userId": null, "handle": "system", "displayName": "Trellis", "avatar": null})
}

/// Sends a notice from `system` to `user` through the messaging use case, as the platform does (no
/// route sends one), over the test server's own database.
pub async fn notify(app: &TestApp, user_id: &str, subject: &str, text: &str) -> trellis::error::Result<()> {
    let store = crate::support::channels::open_store(app).await;
    let messages = trellis::services::messages::Messages::new(store.clone());
    let outcome = messages.notify(user_id, subject, text).await;
    store.close().await;
    outcome
}

/// Gives `user` a PNG avatar and answers it as their profile shows it.
pub async fn with_avatar(app: &TestApp, user: &TestUser) -> Value {
    let part = reqwest::multipart::Part::bytes(crate::support::media::png(500)).file_name("me.png");
    let form = reqwest::multipart::Form::new().part("file", part.mime_str("image/png").unwrap());
    let uploaded = app.authed(Method::POST, "/v0/media/users/me/avatar", &user.token).multipart(form).send().await;
    assert_eq!(uploaded.expect("request sent").status(), StatusCode::CREATED);
    let avatar = read(app, &user.token, "/v0/users/me").await["avatar"].clone();
    assert!(avatar["picId"].is_string(), "{avatar}");
    avatar
}
