//! Creating spaces and adding members for the space and module tests.

use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{TestApp, TestUser, body};

/// POST /v0/spaces with `body`.
pub async fn post_space(app: &TestApp, token: &str, body: &Value) -> Response {
    app.authed(Method::POST, "/v0/spaces", token).json(body).send().await.expect("request sent")
}

/// Creates a space named `name` and answers its view, asserting 201.
pub async fn created_space(app: &TestApp, owner: &TestUser, name: &str) -> Value {
    let response =
        post_space(app, &owner.token, &json!({"name": name, "displayName": format!("Space {name}"), "summary": ""}))
            .await;
    let status = response.status();
    let view = body(response).await;
    assert_eq!(status, StatusCode::CREATED, "{view}");
    view
}

/// Makes `user` a `member` of the space. There is no route for it yet (registrations come later),
/// so this writes the row through the library over the test server's database, as an
/// administrator's tool would.
pub async fn add_member(app: &TestApp, space_id: &str, user: &TestUser) {
    let store =
        trellis::store::Store::connect(&app.config.database_url(), 1).await.expect("connecting to the database");
    store
        .spaces
        .upsert_space_member(space_id, &user.user_id, "member", time::OffsetDateTime::now_utc())
        .await
        .expect("adding a member");
    store.close().await;
}

pub async fn patch_general(app: &TestApp, token: &str, space_id: &str, body: &Value) -> Response {
    app.authed(Method::PATCH, &format!("/v0/spaces/{space_id}/settings/general"), token)
        .json(body)
        .send()
        .await
        .expect("request sent")
}

/// The `spaceId` of a space view.
pub fn id(view: &Value) -> String {
    view["spaceId"].as_str().expect("a spaceId").to_owned()
}
