//! Channels (`/v0/channels`): creation, the caller's channels, connected spaces, members and
//! their roles, and that a stranger finds nothing; invites and comments are in the submodules.

mod comments;
mod invites;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{assert_error, body, spawn_app};

use crate::support::channels::{
    call, cancel, created_channel, id, invite, invite_id, join, member_roles, open_store, post_channel, put_spaces,
    remove, respond, send, set_role,
};
use crate::support::forms::{expected, get_ok, item_ids, list_ids, new_id, next_millisecond, problems};
use crate::support::spaces::{self, add_member, created_space};

#[tokio::test]
async fn create_channel_answers_201_and_makes_the_creator_its_owner() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let response =
        post_channel(&app, &ann.token, &json!({"name": " Garden talk ", "description": "Roses\nand weeds"})).await;
    // Assert
    assert_eq!(response.status(), StatusCode::CREATED);
    let view = body(response).await;
    let channel_id = id(&view);
    assert!(uuid::Uuid::parse_str(&channel_id).is_ok_and(|u| u.get_version_num() == 4), "{view}");
    let mut keys: Vec<&str> = view.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["channelId", "createdAt", "description", "name", "role", "updatedAt"]);
    assert_eq!(view["name"], "Garden talk");
    assert_eq!(view["description"], "Roses\nand weeds");
    assert_eq!(view["role"], "owner");
    assert!(view["createdAt"].as_str().is_some_and(|t| t.ends_with('Z')), "{view}");
    assert_eq!(get_ok(&app, &ann.token, &format!("/v0/channels/{channel_id}")).await, view);
    let bare = post_channel(&app, &ann.token, &json!({"name": "x".repeat(100)})).await;
    assert_eq!(bare.status(), StatusCode::CREATED);
    assert_eq!(body(bare).await["description"], "");
    assert_eq!(member_roles(&app, &ann.token, &channel_id).await, [("ann".to_owned(), "owner".to_owned())]);
}

#[tokio::test]
async fn create_channel_lists_every_problem_with_its_pointer_and_stores_nothing() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bad = json!({"name": "x".repeat(101), "description": "x".repeat(1001), "channelId": "x", "role": "owner",
        "colour": 1});
    // Act
    let too_much = post_channel(&app, &ann.token, &bad).await;
    let blank = post_channel(&app, &ann.token, &json!({"name": " \t ", "description": "bell\u{7}"})).await;
    let missing = post_channel(&app, &ann.token, &json!({"description": 3})).await;
    let control = post_channel(&app, &ann.token, &json!({"name": "line\nbreak", "description": null})).await;
    // Assert
    let error = assert_error(too_much, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(
        problems(&error),
        expected(&[
            ("/channelId", "READ_ONLY"),
            ("/colour", "UNKNOWN_FIELD"),
            ("/description", "TOO_LONG"),
            ("/name", "TOO_LONG"),
            ("/role", "READ_ONLY"),
        ])
    );
    let error = assert_error(blank, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("/description", "INVALID_CHARACTERS"), ("/name", "REQUIRED")]));
    let error = assert_error(missing, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("/description", "INVALID_TYPE"), ("/name", "REQUIRED")]));
    let error = assert_error(control, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("/name", "INVALID_CHARACTERS")]));
    assert_eq!(get_ok(&app, &ann.token, "/v0/channels").await["items"], json!([]), "nothing was stored");
}

#[tokio::test]
async fn the_list_shows_the_callers_channels_newest_first_in_pages() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let mut ids = Vec::new();
    for name in ["one", "two", "three"] {
        ids.push(id(&created_channel(&app, &ann, name).await));
        next_millisecond().await;
    }
    let bobs = id(&created_channel(&app, &bob, "bobs").await);
    next_millisecond().await;
    join(&app, &bob, &bobs, &ann).await;
    // Act
    let first = get_ok(&app, &ann.token, "/v0/channels?limit=3").await;
    let cursor = first["nextCursor"].as_str().unwrap().to_owned();
    let second = get_ok(&app, &ann.token, &format!("/v0/channels?limit=3&cursor={cursor}")).await;
    // Assert
    assert_eq!(item_ids(&first, "channelId"), [bobs.clone(), ids[2].clone(), ids[1].clone()]);
    assert_eq!(first["items"][0]["role"], "member");
    assert_eq!(first["items"][1]["role"], "owner");
    assert_eq!(item_ids(&second, "channelId"), [ids[0].clone()]);
    assert_eq!(second["nextCursor"], json!(null));
    assert_eq!(list_ids(&app, &bob.token, "/v0/channels", "channelId").await, [bobs]);
    let bad = app.get_authed("/v0/channels?limit=201&cursor=zz", &ann.token).await;
    let error = assert_error(bad, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("query.cursor", "INVALID_CURSOR"), ("query.limit", "OUT_OF_RANGE")]));
}

#[tokio::test]
async fn the_owner_connects_owned_spaces_and_members_list_them_in_the_order_given() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let channel_id = id(&created_channel(&app, &ann, "talk").await);
    join(&app, &ann, &channel_id, &bob).await;
    let mut space_ids = Vec::new();
    for name in ["alpha", "beta", "gamma"] {
        space_ids.push(spaces::id(&created_space(&app, &ann, name).await));
    }
    let path = format!("/v0/channels/{channel_id}/spaces");
    // Act
    let put = put_spaces(&app, &ann.token, &channel_id, &json!([space_ids[2], space_ids[0], space_ids[1]])).await;
    // Assert
    assert_eq!(put.status(), StatusCode::OK);
    let put = body(put).await;
    assert_eq!(put["items"][0], json!({"spaceId": space_ids[2], "name": "gamma", "displayName": "Space gamma"}));
    assert_eq!(item_ids(&put, "spaceId"), [space_ids[2].clone(), space_ids[0].clone(), space_ids[1].clone()]);
    assert_eq!(put["nextCursor"], json!(null));
    let first = get_ok(&app, &bob.token, &format!("{path}?limit=2")).await;
    assert_eq!(item_ids(&first, "spaceId"), [space_ids[2].clone(), space_ids[0].clone()]);
    let cursor = first["nextCursor"].as_str().unwrap();
    let second = get_ok(&app, &bob.token, &format!("{path}?limit=2&cursor={cursor}")).await;
    assert_eq!(item_ids(&second, "spaceId"), [space_ids[1].clone()]);
    assert_eq!(second["nextCursor"], json!(null));
    let replaced = put_spaces(&app, &ann.token, &channel_id, &json!([space_ids[1]])).await;
    assert_eq!(item_ids(&body(replaced).await, "spaceId"), [space_ids[1].clone()], "replace-all");
    let emptied = put_spaces(&app, &ann.token, &channel_id, &json!([])).await;
    assert_eq!(body(emptied).await["items"], json!([]));
    assert_eq!(get_ok(&app, &bob.token, &path).await["items"], json!([]));
}

#[tokio::test]
async fn connecting_a_space_the_owner_cannot_see_or_does_not_own_is_refused_at_its_index() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let channel_id = id(&created_channel(&app, &ann, "talk").await);
    let own = spaces::id(&created_space(&app, &ann, "own").await);
    let hidden = spaces::id(&created_space(&app, &bob, "hidden").await);
    let joined = spaces::id(&created_space(&app, &bob, "joined").await);
    add_member(&app, &joined, &ann).await;
    put_spaces(&app, &ann.token, &channel_id, &json!([own])).await;
    let many: Vec<String> = (0..101).map(|_| new_id()).collect();
    // Act
    let refused =
        put_spaces(&app, &ann.token, &channel_id, &json!([own, hidden, new_id(), "not-an-id", joined, own, 7])).await;
    let too_many = put_spaces(&app, &ann.token, &channel_id, &json!(many)).await;
    let shapeless =
        send(&app, Method::PUT, &format!("/v0/channels/{channel_id}/spaces"), &ann.token, &json!({"ids": []})).await;
    // Assert
    let error = assert_error(refused, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(
        problems(&error),
        expected(&[
            ("/spaceIds/1", "UNKNOWN_SPACE"),
            ("/spaceIds/2", "UNKNOWN_SPACE"),
            ("/spaceIds/3", "UNKNOWN_SPACE"),
            ("/spaceIds/4", "NOT_SPACE_OWNER"),
            ("/spaceIds/5", "DUPLICATE_SPACE"),
            ("/spaceIds/6", "INVALID_TYPE"),
        ])
    );
    let error = assert_error(too_many, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("/spaceIds", "TOO_MANY")]));
    let error = assert_error(shapeless, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("/ids", "UNKNOWN_FIELD"), ("/spaceIds", "REQUIRED")]));
    assert_eq!(list_ids(&app, &ann.token, &format!("/v0/channels/{channel_id}/spaces"), "spaceId").await, [own]);
}

#[tokio::test]
async fn only_the_owner_connects_spaces() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let channel_id = id(&created_channel(&app, &ann, "talk").await);
    join(&app, &ann, &channel_id, &bob).await;
    join(&app, &ann, &channel_id, &cat).await;
    set_role(&app, &ann.token, &channel_id, &cat.user_id, "inviter").await;
    let bobs = spaces::id(&created_space(&app, &bob, "bobs").await);
    let cats = spaces::id(&created_space(&app, &cat, "cats").await);
    // Act
    let by_member = put_spaces(&app, &bob.token, &channel_id, &json!([bobs])).await;
    let by_inviter = put_spaces(&app, &cat.token, &channel_id, &json!([cats])).await;
    // Assert
    assert_error(by_member, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    assert_error(by_inviter, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    assert_eq!(get_ok(&app, &ann.token, &format!("/v0/channels/{channel_id}/spaces")).await["items"], json!([]));
}

#[tokio::test]
async fn members_are_listed_newest_first_in_pages_with_their_roles() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let channel_id = id(&created_channel(&app, &ann, "talk").await);
    next_millisecond().await;
    join(&app, &ann, &channel_id, &bob).await;
    next_millisecond().await;
    join(&app, &ann, &channel_id, &cat).await;
    let path = format!("/v0/channels/{channel_id}/members");
    // Act
    let first = get_ok(&app, &bob.token, &format!("{path}?limit=2")).await;
    let cursor = first["nextCursor"].as_str().unwrap();
    let second = get_ok(&app, &bob.token, &format!("{path}?limit=2&cursor={cursor}")).await;
    // Assert
    assert_eq!(item_ids(&first, "userId"), [cat.user_id.clone(), bob.user_id.clone()]);
    assert_eq!(item_ids(&second, "userId"), [ann.user_id.as_str()]);
    assert_eq!(second["nextCursor"], json!(null));
    let member = &first["items"][0];
    let mut keys: Vec<&str> = member.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["displayName", "handle", "joinedAt", "role", "userId"]);
    assert_eq!((member["handle"].clone(), member["displayName"].clone()), (json!("cat"), json!("cat")));
    assert_eq!((member["role"].clone(), second["items"][0]["role"].clone()), (json!("member"), json!("owner")));
}

#[tokio::test]
async fn the_owner_gives_and_takes_the_inviter_role() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let dan = app.sign_up("dan").await;
    let channel_id = id(&created_channel(&app, &ann, "talk").await);
    join(&app, &ann, &channel_id, &bob).await;
    join(&app, &ann, &channel_id, &cat).await;
    // Act
    let given = set_role(&app, &ann.token, &channel_id, &bob.user_id, "inviter").await;
    // Assert
    assert_eq!(given.status(), StatusCode::OK);
    let given = body(given).await;
    assert_eq!((given["userId"].as_str(), given["role"].as_str()), (Some(bob.user_id.as_str()), Some("inviter")));
    assert_eq!(given["handle"], "bob");
    assert_eq!(
        invite(&app, &bob.token, &channel_id, &["dan"]).await.status(),
        StatusCode::CREATED,
        "an inviter invites"
    );
    let by_inviter = set_role(&app, &bob.token, &channel_id, &cat.user_id, "inviter").await;
    assert_error(by_inviter, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    let by_member = set_role(&app, &cat.token, &channel_id, &cat.user_id, "inviter").await;
    assert_error(by_member, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    let taken = set_role(&app, &ann.token, &channel_id, &bob.user_id, "member").await;
    assert_eq!(body(taken).await["role"], "member");
    assert_error(invite(&app, &bob.token, &channel_id, &["cat"]).await, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    let to_owner = set_role(&app, &ann.token, &channel_id, &bob.user_id, "owner").await;
    let error = assert_error(to_owner, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("/role", "INVALID_VALUE")]));
    let own_role = set_role(&app, &ann.token, &channel_id, &ann.user_id, "member").await;
    assert_error(own_role, StatusCode::CONFLICT, "CONFLICT").await;
    let outsider = set_role(&app, &ann.token, &channel_id, &dan.user_id, "inviter").await;
    assert_error(outsider, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    let not_an_id = set_role(&app, &ann.token, &channel_id, "bob", "inviter").await;
    assert_error(not_an_id, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    let expected_roles = [("cat", "member"), ("bob", "member"), ("ann", "owner")];
    let expected_roles: Vec<(String, String)> =
        expected_roles.iter().map(|(h, r)| ((*h).to_owned(), (*r).to_owned())).collect();
    assert_eq!(member_roles(&app, &ann.token, &channel_id).await, expected_roles);
}

#[tokio::test]
async fn a_member_leaves_and_the_owner_removes_members_but_cannot_leave() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let dan = app.sign_up("dan").await;
    let channel_id = id(&created_channel(&app, &ann, "talk").await);
    for user in [&bob, &cat, &dan] {
        join(&app, &ann, &channel_id, user).await;
    }
    set_role(&app, &ann.token, &channel_id, &dan.user_id, "inviter").await;
    // Act
    let by_member = remove(&app, &cat.token, &channel_id, &bob.user_id).await;
    let by_inviter = remove(&app, &dan.token, &channel_id, &bob.user_id).await;
    let owner_leaves = remove(&app, &ann.token, &channel_id, &ann.user_id).await;
    let leaves = remove(&app, &bob.token, &channel_id, &bob.user_id).await;
    let removed = remove(&app, &ann.token, &channel_id, &cat.user_id).await;
    let again = remove(&app, &ann.token, &channel_id, &cat.user_id).await;
    // Assert
    assert_error(by_member, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    assert_error(by_inviter, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    assert_error(owner_leaves, StatusCode::CONFLICT, "CONFLICT").await;
    assert_eq!(leaves.status(), StatusCode::NO_CONTENT);
    assert_eq!(removed.status(), StatusCode::NO_CONTENT);
    assert_error(again, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    for gone in [&bob, &cat] {
        let read = app.get_authed(&format!("/v0/channels/{channel_id}"), &gone.token).await;
        assert_error(read, StatusCode::NOT_FOUND, "NOT_FOUND").await;
        assert_eq!(list_ids(&app, &gone.token, "/v0/channels", "channelId").await, Vec::<String>::new());
    }
    let roles = member_roles(&app, &ann.token, &channel_id).await;
    assert_eq!(roles, [("dan".to_owned(), "inviter".to_owned()), ("ann".to_owned(), "owner".to_owned())]);
}

#[tokio::test]
async fn channel_members_read_connected_spaces_through_the_channel_only_while_members() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let channel_id = id(&created_channel(&app, &ann, "talk").await);
    let connected = spaces::id(&created_space(&app, &ann, "connected").await);
    let other = spaces::id(&created_space(&app, &ann, "other").await);
    put_spaces(&app, &ann.token, &channel_id, &json!([connected])).await;
    join(&app, &ann, &channel_id, &bob).await;
    let store = open_store(&app).await;
    let reads = |space: &str, user: &str| {
        let (store, space, user) = (store.clone(), space.to_owned(), user.to_owned());
        async move { store.channels.reads_space_through_channel(&space, &user).await.unwrap() }
    };
    // Act
    let member_reads = reads(&connected, &bob.user_id).await;
    let member_reads_other = reads(&other, &bob.user_id).await;
    let stranger_reads = reads(&connected, &cat.user_id).await;
    remove(&app, &bob.token, &channel_id, &bob.user_id).await;
    let after_leaving = reads(&connected, &bob.user_id).await;
    // Assert
    assert!(member_reads, "a member reads a connected space");
    assert!(!member_reads_other, "but no space that is not connected");
    assert!(!stranger_reads, "a stranger reads nothing");
    assert!(!after_leaving, "leaving ends it");
    store.close().await;
}

#[tokio::test]
async fn a_user_owns_at_most_a_thousand_channels() {
    // Arrange: 999 channels written straight into the database, the thousandth through the API.
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let store = open_store(&app).await;
    for n in 0..999 {
        let channel_id = new_id();
        let name = format!("channel {n}");
        let row = trellis::store::NewChannelRow {
            channel_id: &channel_id,
            owner_id: &ann.user_id,
            name: &name,
            description: "",
        };
        store.channels.insert_channel(&row, i64::MAX, time::OffsetDateTime::now_utc()).await.unwrap();
    }
    store.close().await;
    let thousandth = post_channel(&app, &ann.token, &json!({"name": "last"})).await;
    assert_eq!(thousandth.status(), StatusCode::CREATED);
    // Act
    let beyond = post_channel(&app, &ann.token, &json!({"name": "one too many"})).await;
    // Assert
    assert_error(beyond, StatusCode::CONFLICT, "CONFLICT").await;
    let newest = get_ok(&app, &ann.token, "/v0/channels?limit=1").await;
    assert_eq!(newest["items"][0]["name"], "last", "nothing was stored");
}

#[tokio::test]
async fn ids_that_are_no_uuids_answer_not_found_and_invites_is_not_a_channel() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let channel_id = id(&created_channel(&app, &ann, "talk").await);
    // Act
    let answers = [
        call(&app, Method::GET, "/v0/channels/talk", &ann.token).await,
        call(&app, Method::GET, "/v0/channels/invites", &ann.token).await,
        call(&app, Method::GET, "/v0/channels/talk/members", &ann.token).await,
        call(&app, Method::DELETE, &format!("/v0/channels/{channel_id}/invites/nope"), &ann.token).await,
        call(&app, Method::DELETE, &format!("/v0/channels/{channel_id}/members/nope"), &ann.token).await,
        respond(&app, &ann.token, "nope", "ACCEPT").await,
    ];
    let inbox = call(&app, Method::GET, "/v0/channels/invites/pending", &ann.token).await;
    // Assert
    for answer in answers {
        assert_error(answer, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    }
    assert_eq!(inbox.status(), StatusCode::OK, "the static route wins over {{channelId}}");
    assert_eq!(body(inbox).await, json!({"items": [], "nextCursor": null}));
}

#[tokio::test]
async fn a_stranger_gets_not_found_on_every_route_of_a_channel_and_changes_nothing() {
    // Arrange: ann's channel with bob as a member, a connected space and a pending invite for cat.
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bob = app.sign_up("bob").await;
    let cat = app.sign_up("cat").await;
    let eve = app.sign_up("eve").await;
    let channel_id = id(&created_channel(&app, &ann, "talk").await);
    let space_id = spaces::id(&created_space(&app, &ann, "garden").await);
    put_spaces(&app, &ann.token, &channel_id, &json!([space_id])).await;
    join(&app, &ann, &channel_id, &bob).await;
    let pending = invite_id(&app, &ann, &channel_id, &cat).await;
    let eves_channel = id(&created_channel(&app, &eve, "eves").await);
    let eves_space = spaces::id(&created_space(&app, &eve, "eves").await);
    let c = format!("/v0/channels/{channel_id}");
    let e = format!("/v0/channels/{eves_channel}");
    let (bob_id, role) = (&bob.user_id, json!({"role": "inviter"}));
    // Act
    let answers = vec![
        ("read", call(&app, Method::GET, &c, &eve.token).await),
        ("spaces", call(&app, Method::GET, &format!("{c}/spaces"), &eve.token).await),
        ("connect", put_spaces(&app, &eve.token, &channel_id, &json!([eves_space])).await),
        ("members", call(&app, Method::GET, &format!("{c}/members"), &eve.token).await),
        ("invite", invite(&app, &eve.token, &channel_id, &["eve"]).await),
        ("cancel", cancel(&app, &eve.token, &channel_id, &pending).await),
        ("cancel through own", cancel(&app, &eve.token, &eves_channel, &pending).await),
        ("respond", respond(&app, &eve.token, &pending, "ACCEPT").await),
        ("promote", send(&app, Method::PATCH, &format!("{c}/members/{bob_id}"), &eve.token, &role).await),
        ("promote through own", send(&app, Method::PATCH, &format!("{e}/members/{bob_id}"), &eve.token, &role).await),
        ("remove", remove(&app, &eve.token, &channel_id, &bob.user_id).await),
        ("remove through own", remove(&app, &eve.token, &eves_channel, &bob.user_id).await),
        ("leave", remove(&app, &eve.token, &channel_id, &eve.user_id).await),
        ("comments", call(&app, Method::GET, &format!("{c}/comments"), &eve.token).await),
        ("comment", send(&app, Method::POST, &format!("{c}/comments"), &eve.token, &json!({"body": "hi"})).await),
    ];
    // Assert
    for (what, answer) in answers {
        let status = answer.status();
        let value: Value = body(answer).await;
        assert_eq!((what, status, value["error"]["code"].clone()), (what, StatusCode::NOT_FOUND, json!("NOT_FOUND")));
    }
    assert_eq!(list_ids(&app, &eve.token, "/v0/channels", "channelId").await, [eves_channel]);
    let roles = member_roles(&app, &ann.token, &channel_id).await;
    assert_eq!(roles, [("bob".to_owned(), "member".to_owned()), ("ann".to_owned(), "owner".to_owned())]);
    assert_eq!(list_ids(&app, &ann.token, &format!("{c}/spaces"), "spaceId").await, [space_id]);
    assert_eq!(crate::support::channels::inbox(&app, &cat.token).await, [pending]);
    assert_eq!(get_ok(&app, &ann.token, &format!("{c}/comments")).await["items"], json!([]));
}
