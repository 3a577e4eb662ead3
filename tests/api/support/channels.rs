//! Creating channels, inviting and answering invites, and calling the channel routes for the
//! channel tests.

use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{TestApp, TestUser, body};

/// POST /v0/channels with `body`.
pub async fn post_channel(app: &TestApp, token: &str, body: &Value) -> Response {
    app.authed(Method::POST, "/v0/channels", token).json(body).send().await.expect("request sent")
}

/// Creates a channel named `name` and answers its view, asserting 201.
pub async fn created_channel(app: &TestApp, owner: &TestUser, name: &str) -> Value {
    let response =
        post_channel(app, &owner.token, &json!({"name": name, "description": format!("About {name}")})).await;
    let status = response.status();
    let view = body(response).await;
    assert_eq!(status, StatusCode::CREATED, "{view}");
    view
}

/// The `channelId` of a channel view.
pub fn id(view: &Value) -> String {
    view["channelId"].as_str().expect("a channelId").to_owned()
}

/// A request with a JSON body to `path`.
pub async fn send(app: &TestApp, method: Method, path: &str, token: &str, body: &Value) -> Response {
    app.authed(method, path, token).json(body).send().await.expect("request sent")
}

/// A request without a body to `path`.
pub async fn call(app: &TestApp, method: Method, path: &str, token: &str) -> Response {
    app.authed(method, path, token).send().await.expect("request sent")
}

/// POST /v0/channels/{channelId}/invites with `{users: handles}`.
pub async fn invite(app: &TestApp, token: &str, channel_id: &str, handles: &[&str]) -> Response {
    send(app, Method::POST, &format!("/v0/channels/{channel_id}/invites"), token, &json!({"users": handles})).await
}

/// Invites `handles` and answers the `invites` array, asserting 201.
pub async fn invited(app: &TestApp, token: &str, channel_id: &str, handles: &[&str]) -> Vec<Value> {
    let response = invite(app, token, channel_id, handles).await;
    let status = response.status();
    let answer = body(response).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    answer["invites"].as_array().expect("an invites array").clone()
}

/// The id of a new invite of `user` by `inviter`.
pub async fn invite_id(app: &TestApp, inviter: &TestUser, channel_id: &str, user: &TestUser) -> String {
    let invites = invited(app, &inviter.token, channel_id, &[&user.handle]).await;
    invites[0]["inviteId"].as_str().expect("an inviteId").to_owned()
}

/// POST /v0/channels/invites/respond.
pub async fn respond(app: &TestApp, token: &str, invite_id: &str, response: &str) -> Response {
    let answer = json!({"inviteId": invite_id, "response": response});
    send(app, Method::POST, "/v0/channels/invites/respond", token, &answer).await
}

/// Makes `user` a member of the channel: `inviter` invites, `user` accepts.
pub async fn join(app: &TestApp, inviter: &TestUser, channel_id: &str, user: &TestUser) -> String {
    let invite = invite_id(app, inviter, channel_id, user).await;
    let accepted = respond(app, &user.token, &invite, "ACCEPT").await;
    assert_eq!(accepted.status(), StatusCode::OK, "{}", body(accepted).await);
    invite
}

/// PATCH /v0/channels/{channelId}/members/{userId} with `{role}`.
pub async fn set_role(app: &TestApp, token: &str, channel_id: &str, user_id: &str, role: &str) -> Response {
    let path = format!("/v0/channels/{channel_id}/members/{user_id}");
    send(app, Method::PATCH, &path, token, &json!({"role": role})).await
}

/// DELETE /v0/channels/{channelId}/members/{userId}.
pub async fn remove(app: &TestApp, token: &str, channel_id: &str, user_id: &str) -> Response {
    call(app, Method::DELETE, &format!("/v0/channels/{channel_id}/members/{user_id}"), token).await
}

/// DELETE /v0/channels/{channelId}/invites/{inviteId}.
pub async fn cancel(app: &TestApp, token: &str, channel_id: &str, invite_id: &str) -> Response {
    call(app, Method::DELETE, &format!("/v0/channels/{channel_id}/invites/{invite_id}"), token).await
}

/// PUT /v0/channels/{channelId}/spaces with `{spaceIds}`.
pub async fn put_spaces(app: &TestApp, token: &str, channel_id: &str, space_ids: &Value) -> Response {
    let path = format!("/v0/channels/{channel_id}/spaces");
    send(app, Method::PUT, &path, token, &json!({"spaceIds": space_ids})).await
}

/// The `(handle, role)` of each member the channel's member list shows, in order.
pub async fn member_roles(app: &TestApp, token: &str, channel_id: &str) -> Vec<(String, String)> {
    let response = app.get_authed(&format!("/v0/channels/{channel_id}/members"), token).await;
    assert_eq!(response.status(), StatusCode::OK);
    let list = body(response).await;
    let text = |item: &Value, key: &str| item[key].as_str().unwrap().to_owned();
    list["items"].as_array().unwrap().iter().map(|m| (text(m, "handle"), text(m, "role"))).collect()
}

/// The `inviteId` of each PENDING invite in the caller's inbox, in order.
pub async fn inbox(app: &TestApp, token: &str) -> Vec<String> {
    let response = app.get_authed("/v0/channels/invites/pending", token).await;
    assert_eq!(response.status(), StatusCode::OK);
    let list = body(response).await;
    list["items"].as_array().unwrap().iter().map(|i| i["inviteId"].as_str().unwrap().to_owned()).collect()
}

/// The store of the test server's database, as an administrator's tool opens it.
pub async fn open_store(app: &TestApp) -> trellis::store::Store {
    trellis::store::Store::connect(&app.config.database_url(), 1).await.expect("connecting to the database")
}

/// Creates `count` accounts named `<prefix>_<n>` straight in the database (signing up a thousand
/// users through the PIN flow would take minutes); answers their handles.
pub async fn bulk_users(app: &TestApp, prefix: &str, count: usize) -> Vec<String> {
    let store = open_store(app).await;
    let mut handles = Vec::with_capacity(count);
    for n in 0..count {
        let handle = format!("{prefix}_{n}");
        let email = format!("{handle}@example.org");
        let user = trellis::store::NewUser {
            email: &email,
            handle: &handle,
            full_name: "Bulk",
            display_name: "Bulk",
            password_hash: "not a hash: this account never logs in",
        };
        store.users.insert_user(&user, time::OffsetDateTime::now_utc()).await.expect("inserting a user");
        handles.push(handle);
    }
    store.close().await;
    handles
}
