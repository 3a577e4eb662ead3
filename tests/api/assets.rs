//! Published assets of a space (conventions 4, 12, 13): announcing, the one upload, the owner's
//! decisions, who sees what, downloads, the daily quota and the events modules receive. Scenarios
//! that store bytes run on both media backends.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis::config::Config;
use trellis_tests::{TestApp, detail_paths, spawn_app, spawn_app_with};

use crate::support::assets::{
    announce, announced, asset_ids, asset_path, assets_path, decide, download_asset, file_part, media_path,
    moved_through, png_metadata, png_part, proposed, read, space_of_four, upload_asset,
};
use crate::support::forms::{expected, next_millisecond, problems};
use crate::support::media::{Upload, assert_stored_objects, on_both_backends, png, send, text};
use crate::support::modules::{connect, enable_word_count};
use crate::support::spaces::{created_space, id};

// ---------------------------------------------------------------------------------------------
// The life cycle, with bytes

async fn an_asset_goes_from_announcement_to_enabled_and_members_see_it_once_approved(app: &TestApp) {
    // Arrange
    let (space_id, ann, bob, cat, _) = space_of_four(app).await;
    let bytes = png(20_000);
    // Act: bob announces and uploads
    let created = announce(app, &bob.token, &space_id, &png_metadata("rose.png")).await.expect(StatusCode::CREATED);
    let asset_id = created["newPublishedAssetId"].as_str().unwrap().to_owned();
    let announced_view = read(app, &bob.token, &asset_path(&space_id, &asset_id)).await;
    let stored =
        upload_asset(app, &bob.token, &space_id, &asset_id, vec![file_part("rose.png", "image/png", bytes.clone())])
            .await
            .expect(StatusCode::CREATED);
    // Assert
    assert!(uuid::Uuid::parse_str(&asset_id).is_ok_and(|u| u.get_version_num() == 4), "{created}");
    assert_eq!(created, json!({"newPublishedAssetId": asset_id}));
    assert_eq!(announced_view["state"], "AWAITING_UPLOAD");
    assert_eq!(announced_view["bytes"], Value::Null);
    assert_eq!(announced_view["analysis"], Value::Null);
    assert_eq!(announced_view["proposedBy"]["handle"], "bob");
    assert_eq!(
        stored,
        json!({"assetId": asset_id, "contentType": "image/png", "bytes": 20_000, "filename": "rose.png"})
    );
    let waiting = read(app, &bob.token, &asset_path(&space_id, &asset_id)).await;
    assert_eq!((waiting["state"].clone(), waiting["bytes"].clone()), (json!("AWAITING_APPROVAL"), json!(20_000)));
    // cat does not see bob's proposal; the owner's queue lists it as a part descriptor.
    assert_eq!(asset_ids(&read(app, &cat.token, &assets_path(&space_id)).await), Vec::<String>::new());
    assert_eq!(app.get_authed(&asset_path(&space_id, &asset_id), &cat.token).await.status(), StatusCode::NOT_FOUND);
    let queue = read(app, &ann.token, &format!("{}/awaiting-approval", assets_path(&space_id))).await;
    let listed = &queue["items"][0];
    assert_eq!(
        (listed["assetId"].clone(), listed["part"].clone(), listed["bytes"].clone(), listed["contentType"].clone()),
        (json!(asset_id), json!("base"), json!(20_000), json!("image/png"))
    );
    assert!(listed.get("title").is_none() && listed.get("analysis").is_none(), "descriptors only: {listed}");

    // Act: the owner approves
    let approved = decide(app, &ann.token, &space_id, &asset_id, "APPROVED").await.expect(StatusCode::OK);
    // Assert
    assert_eq!(approved["state"], "APPROVED");
    assert_eq!(
        approved["analysis"],
        json!({"state": "QUEUED", "tags": [], "description": null, "transcript": null, "text": null, "error": null, "steps": []})
    );
    assert_eq!(asset_ids(&read(app, &cat.token, &assets_path(&space_id)).await), [asset_id.as_str()]);
    let download = download_asset(app, &cat.token, &space_id, &asset_id, "?part=base", &[]).await;
    assert_eq!(download.status, StatusCode::OK);
    assert_eq!(download.bytes, bytes);
    assert_eq!(download.header("content-type").as_deref(), Some("image/png"));
    assert_eq!(download.header("content-length").as_deref(), Some("20000"));
    assert!(download.header("content-disposition").is_some_and(|d| d.starts_with("attachment; filename=\"rose.png\"")));
    assert_eq!(download.header("x-content-type-options").as_deref(), Some("nosniff"));
    let etag = download.header("etag").expect("an ETag");
    let ranged = download_asset(app, &cat.token, &space_id, &asset_id, "", &[("range", "bytes=100-199")]).await;
    assert_eq!(ranged.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(ranged.bytes, bytes[100..200]);
    assert_eq!(ranged.header("content-range").as_deref(), Some("bytes 100-199/20000"));
    let unchanged = download_asset(app, &cat.token, &space_id, &asset_id, "", &[("if-none-match", &etag)]).await;
    assert_eq!(unchanged.status, StatusCode::NOT_MODIFIED);
    assert!(unchanged.bytes.is_empty());
    let outside = download_asset(app, &cat.token, &space_id, &asset_id, "", &[("range", "bytes=20000-")]).await;
    assert_eq!(outside.status, StatusCode::RANGE_NOT_SATISFIABLE);

    // Act: enable, disable, enable again
    moved_through(app, &ann.token, &space_id, &asset_id, &["ENABLED", "DISABLED"]).await;
    // Assert: a disabled asset is the owner's alone; analysis was queued once and stays so
    assert_eq!(app.get_authed(&asset_path(&space_id, &asset_id), &cat.token).await.status(), StatusCode::NOT_FOUND);
    let gone = download_asset(app, &cat.token, &space_id, &asset_id, "", &[]).await;
    gone.error(StatusCode::NOT_FOUND, "NOT_FOUND");
    moved_through(app, &ann.token, &space_id, &asset_id, &["ENABLED"]).await;
    let enabled = read(app, &bob.token, &asset_path(&space_id, &asset_id)).await;
    assert_eq!(enabled["analysis"]["state"], "QUEUED");
    assert_eq!(
        read(app, &ann.token, &format!("{}/awaiting-approval", assets_path(&space_id))).await["items"],
        json!([])
    );
    assert_stored_objects(app, 1).await;
}
on_both_backends!(an_asset_goes_from_announcement_to_enabled_and_members_see_it_once_approved);

async fn a_refused_upload_stores_nothing_and_a_second_upload_is_a_conflict(app: &TestApp) {
    // Arrange
    let (space_id, ann, bob, _, _) = space_of_four(app).await;
    let asset_id = announced(app, &bob.token, &space_id, "rose.png").await;
    // Act
    let text_as_png =
        upload_asset(app, &bob.token, &space_id, &asset_id, vec![file_part("rose.png", "image/png", text(300))]).await;
    let declared_honestly =
        upload_asset(app, &bob.token, &space_id, &asset_id, vec![file_part("notes.txt", "text/plain", text(300))])
            .await;
    let empty =
        upload_asset(app, &bob.token, &space_id, &asset_id, vec![file_part("rose.png", "image/png", vec![])]).await;
    let no_file = upload_asset(
        app,
        &bob.token,
        &space_id,
        &asset_id,
        vec![Upload::Text { part: "note".into(), value: "x".into() }],
    )
    .await;
    let by_owner = upload_asset(app, &ann.token, &space_id, &asset_id, png_part("rose.png", 500)).await;
    // Assert
    let error = text_as_png.error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE");
    assert_eq!(problems(&error), expected(&[("/file", "TYPE_MISMATCH")]));
    let error = declared_honestly.error(StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE");
    assert!(error["details"][0]["message"].as_str().unwrap().contains("announced as image/png"), "{error}");
    assert_eq!(
        problems(&empty.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED")),
        expected(&[("/file", "EMPTY_FILE")])
    );
    assert_eq!(
        problems(&no_file.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED")),
        expected(&[("/file", "REQUIRED"), ("/note", "UNKNOWN_PART")])
    );
    by_owner.error(StatusCode::FORBIDDEN, "FORBIDDEN");
    assert_eq!(read(app, &bob.token, &asset_path(&space_id, &asset_id)).await["state"], "AWAITING_UPLOAD");
    assert_stored_objects(app, 0).await;

    // Act: the real upload, then another
    upload_asset(app, &bob.token, &space_id, &asset_id, png_part("rose.png", 500)).await.expect(StatusCode::CREATED);
    let again = upload_asset(app, &bob.token, &space_id, &asset_id, png_part("rose.png", 600)).await;
    // Assert
    again.error(StatusCode::CONFLICT, "CONFLICT");
    assert_eq!(read(app, &bob.token, &asset_path(&space_id, &asset_id)).await["bytes"], 500);
    assert_stored_objects(app, 1).await;
}
on_both_backends!(a_refused_upload_stores_nothing_and_a_second_upload_is_a_conflict);

fn small_assets(config: &mut Config) {
    config.media.max_asset_bytes = 10_000;
}

async fn an_asset_over_the_size_cap_is_refused_whole(app: &TestApp) {
    // Arrange
    let (space_id, _, bob, _, _) = space_of_four(app).await;
    let asset_id = announced(app, &bob.token, &space_id, "big.png").await;
    // Act
    let big = upload_asset(app, &bob.token, &space_id, &asset_id, png_part("big.png", 10_001)).await;
    let fits = upload_asset(app, &bob.token, &space_id, &asset_id, png_part("big.png", 10_000)).await;
    // Assert
    let error = big.error(StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");
    assert_eq!(problems(&error), expected(&[("/file", "TOO_LARGE")]));
    fits.expect(StatusCode::CREATED);
    assert_stored_objects(app, 1).await;
}
on_both_backends!(an_asset_over_the_size_cap_is_refused_whole, small_assets);

// ---------------------------------------------------------------------------------------------
// Decisions

#[tokio::test]
async fn only_the_life_cycles_moves_are_allowed() {
    // Arrange
    let app = spawn_app().await;
    let (space_id, ann, bob, _, _) = space_of_four(&app).await;
    let states = ["AWAITING_UPLOAD", "AWAITING_APPROVAL", "APPROVED", "REJECTED", "ENABLED", "DISABLED"];
    let allowed = [
        ("AWAITING_UPLOAD", "REJECTED"),
        ("AWAITING_APPROVAL", "APPROVED"),
        ("AWAITING_APPROVAL", "REJECTED"),
        ("APPROVED", "ENABLED"),
        ("APPROVED", "DISABLED"),
        ("ENABLED", "DISABLED"),
        ("DISABLED", "ENABLED"),
    ];
    // How to bring a fresh asset into each state.
    let path_to = |state: &str| -> &'static [&'static str] {
        match state {
            "AWAITING_UPLOAD" | "AWAITING_APPROVAL" => &[],
            "APPROVED" => &["APPROVED"],
            "REJECTED" => &["REJECTED"],
            "ENABLED" => &["APPROVED", "ENABLED"],
            _ => &["APPROVED", "DISABLED"],
        }
    };
    for from in states {
        for to in states {
            // Arrange
            let asset_id = if from == "AWAITING_UPLOAD" {
                announced(&app, &bob.token, &space_id, "a.png").await
            } else {
                proposed(&app, &bob.token, &space_id, "a.png", 100).await
            };
            moved_through(&app, &ann.token, &space_id, &asset_id, path_to(from)).await;
            // Act
            let reply = decide(&app, &ann.token, &space_id, &asset_id, to).await;
            // Assert
            if allowed.contains(&(from, to)) {
                assert_eq!(reply.expect(StatusCode::OK)["state"], to, "{from} -> {to}");
            } else {
                let error = reply.error(StatusCode::CONFLICT, "INVALID_TRANSITION");
                assert!(error["message"].as_str().unwrap().contains(from), "{from} -> {to}: {error}");
                let kept = read(&app, &ann.token, &asset_path(&space_id, &asset_id)).await;
                assert_eq!(kept["state"], from, "{from} -> {to} changed nothing");
            }
        }
    }
}

#[tokio::test]
async fn a_rejected_asset_is_never_analysed_and_stays_with_its_proposer() {
    // Arrange
    let app = spawn_app().await;
    let (space_id, ann, bob, cat, _) = space_of_four(&app).await;
    let asset_id = proposed(&app, &bob.token, &space_id, "a.png", 100).await;
    // Act
    let rejected = decide(&app, &ann.token, &space_id, &asset_id, "REJECTED").await.expect(StatusCode::OK);
    // Assert
    assert_eq!(rejected["analysis"], Value::Null);
    assert_eq!(read(&app, &bob.token, &asset_path(&space_id, &asset_id)).await["state"], "REJECTED");
    assert_eq!(app.get_authed(&asset_path(&space_id, &asset_id), &cat.token).await.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn bad_decisions_list_every_problem_and_members_may_not_decide() {
    // Arrange
    let app = spawn_app().await;
    let (space_id, ann, bob, _, _) = space_of_four(&app).await;
    let asset_id = proposed(&app, &bob.token, &space_id, "a.png", 100).await;
    let patch = |token: &str, body: Value| {
        let request = app.authed(Method::PATCH, &assets_path(&space_id), token).json(&body);
        send(&app, request, false)
    };
    // Act
    let bad = patch(&ann.token, json!({"assetId": "nope", "state": "approved", "note": 1})).await;
    let empty = patch(&ann.token, json!({})).await;
    let unknown = patch(&ann.token, json!({"assetId": uuid::Uuid::new_v4(), "state": "APPROVED"})).await;
    let by_member = patch(&bob.token, json!({"assetId": asset_id, "state": "APPROVED"})).await;
    // Assert
    assert_eq!(
        problems(&bad.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED")),
        expected(&[("/assetId", "INVALID_UUID"), ("/note", "UNKNOWN_FIELD"), ("/state", "INVALID_STATE")])
    );
    assert_eq!(
        problems(&empty.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED")),
        expected(&[("/assetId", "REQUIRED"), ("/state", "REQUIRED")])
    );
    unknown.error(StatusCode::NOT_FOUND, "NOT_FOUND");
    by_member.error(StatusCode::FORBIDDEN, "FORBIDDEN");
    assert_eq!(read(&app, &ann.token, &asset_path(&space_id, &asset_id)).await["state"], "AWAITING_APPROVAL");
}

// ---------------------------------------------------------------------------------------------
// Announcements, lists and access

#[tokio::test]
async fn a_bad_announcement_lists_every_problem_and_stores_nothing() {
    // Arrange
    let app = spawn_app().await;
    let (space_id, ann, ..) = space_of_four(&app).await;
    let bad = json!({"title": " ", "filename": "../../etc/passwd", "contentType": "image/png; x=1", "state": "APPROVED", "size": 3});
    // Act
    let refused = announce(&app, &ann.token, &space_id, &bad).await;
    let missing = announce(&app, &ann.token, &space_id, &json!({"title": "x".repeat(201)})).await;
    // Assert
    assert_eq!(
        problems(&refused.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED")),
        expected(&[
            ("/contentType", "INVALID_CONTENT_TYPE"),
            ("/filename", "INVALID_FILENAME"),
            ("/size", "UNKNOWN_FIELD"),
            ("/state", "READ_ONLY"),
            ("/title", "BLANK"),
        ])
    );
    assert_eq!(
        problems(&missing.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED")),
        expected(&[("/contentType", "REQUIRED"), ("/filename", "REQUIRED"), ("/title", "TOO_LONG")])
    );
    assert_eq!(read(&app, &ann.token, &assets_path(&space_id)).await["items"], json!([]));
}

/// Issue 28 (conventions section 8): an announced file name that hides its extension is refused.
#[tokio::test]
async fn an_announced_file_name_that_disguises_its_extension_is_refused() {
    // Arrange
    let app = spawn_app().await;
    let (space_id, ann, ..) = space_of_four(&app).await;
    // Act
    let mut answers = Vec::new();
    for name in ["invoice\u{202E}fdp.exe", "photo\u{200B}.png", "a\u{2066}b.png", "x\u{FEFF}.png"] {
        answers.push(announce(&app, &ann.token, &space_id, &png_metadata(name)).await);
    }
    // Assert
    for answer in &answers {
        assert_eq!(
            problems(&answer.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED")),
            expected(&[("/filename", "INVALID_FILENAME")])
        );
    }
    assert_eq!(read(&app, &ann.token, &assets_path(&space_id)).await["items"], json!([]));
}

#[tokio::test]
async fn lists_page_newest_first_and_filter_by_state() {
    // Arrange
    let app = spawn_app().await;
    let (space_id, ann, bob, cat, _) = space_of_four(&app).await;
    let first = proposed(&app, &bob.token, &space_id, "1.png", 100).await;
    next_millisecond().await;
    let second = proposed(&app, &bob.token, &space_id, "2.png", 100).await;
    next_millisecond().await;
    let third = announced(&app, &cat.token, &space_id, "3.png").await;
    next_millisecond().await;
    let fourth = proposed(&app, &ann.token, &space_id, "4.png", 100).await;
    moved_through(&app, &ann.token, &space_id, &first, &["APPROVED"]).await;
    moved_through(&app, &ann.token, &space_id, &fourth, &["APPROVED", "ENABLED"]).await;
    // Act
    let page_one = read(&app, &ann.token, &format!("{}?limit=3", assets_path(&space_id))).await;
    let cursor = page_one["nextCursor"].as_str().expect("a next page").to_owned();
    let page_two = read(&app, &ann.token, &format!("{}?limit=3&cursor={cursor}", assets_path(&space_id))).await;
    let published = read(&app, &ann.token, &format!("{}?states=APPROVED,ENABLED", assets_path(&space_id))).await;
    let as_cat = read(&app, &cat.token, &assets_path(&space_id)).await;
    let cat_waiting = read(&app, &cat.token, &format!("{}?states=AWAITING_APPROVAL", assets_path(&space_id))).await;
    let bad = app.get_authed(&format!("{}?states=APPROVED,LOST&limit=0", assets_path(&space_id)), &ann.token).await;
    // Assert
    assert_eq!(asset_ids(&page_one), [fourth.clone(), third.clone(), second.clone()]);
    assert_eq!(asset_ids(&page_two), [first.as_str()]);
    assert_eq!(page_two["nextCursor"], Value::Null);
    assert_eq!(asset_ids(&published), [fourth.clone(), first.clone()]);
    assert_eq!(asset_ids(&as_cat), [fourth, third, first], "published ones and cat's own");
    assert_eq!(asset_ids(&cat_waiting), Vec::<String>::new(), "not bob's proposals");
    let error = trellis_tests::assert_error(bad, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(problems(&error), expected(&[("query.limit", "OUT_OF_RANGE"), ("query.states", "INVALID_STATE")]));
}

#[tokio::test]
async fn strangers_find_nothing_and_members_may_not_read_the_owners_queue() {
    // Arrange
    let app = spawn_app().await;
    let (space_id, ann, bob, _, dan) = space_of_four(&app).await;
    let asset_id = proposed(&app, &bob.token, &space_id, "a.png", 100).await;
    moved_through(&app, &ann.token, &space_id, &asset_id, &["APPROVED"]).await;
    let waiting = announced(&app, &bob.token, &space_id, "b.png").await;
    let dans_space = id(&created_space(&app, &dan, "dans").await);
    // Act + Assert: every route, dan with ann's ids, and ann's ids under dan's own space
    for space in [space_id.as_str(), dans_space.as_str(), "not-a-uuid"] {
        for (method, path) in [
            (Method::GET, assets_path(space)),
            (Method::GET, asset_path(space, &asset_id)),
            (Method::GET, format!("{}/awaiting-approval", assets_path(space))),
            (Method::GET, media_path(space, &asset_id)),
        ] {
            let reply = send(&app, app.authed(method.clone(), &path, &dan.token), false).await;
            if space == dans_space && path == assets_path(space) {
                assert_eq!(reply.expect(StatusCode::OK)["items"], json!([]), "dan's own space is empty");
            } else if space == dans_space && path.ends_with("awaiting-approval") {
                assert_eq!(reply.expect(StatusCode::OK)["items"], json!([]));
            } else {
                reply.error(StatusCode::NOT_FOUND, "NOT_FOUND");
            }
        }
        let create = announce(&app, &dan.token, space, &png_metadata("x.png")).await;
        let upload = upload_asset(&app, &dan.token, space, &waiting, png_part("b.png", 100)).await;
        let decision = decide(&app, &dan.token, space, &asset_id, "ENABLED").await;
        if space == dans_space {
            create.expect(StatusCode::CREATED);
        } else {
            create.error(StatusCode::NOT_FOUND, "NOT_FOUND");
        }
        upload.error(StatusCode::NOT_FOUND, "NOT_FOUND");
        decision.error(StatusCode::NOT_FOUND, "NOT_FOUND");
    }
    let queue = app.get_authed(&format!("{}/awaiting-approval", assets_path(&space_id)), &bob.token).await;
    trellis_tests::assert_error(queue, StatusCode::FORBIDDEN, "FORBIDDEN").await;
    assert_eq!(read(&app, &ann.token, &asset_path(&space_id, &asset_id)).await["state"], "APPROVED");
    assert_eq!(read(&app, &ann.token, &asset_path(&space_id, &waiting)).await["bytes"], Value::Null);
}

#[tokio::test]
async fn a_download_names_only_the_base_part_of_uploaded_bytes() {
    // Arrange
    let app = spawn_app().await;
    let (space_id, ann, bob, _, _) = space_of_four(&app).await;
    let waiting = announced(&app, &bob.token, &space_id, "a.png").await;
    let uploaded = proposed(&app, &bob.token, &space_id, "b.png", 100).await;
    // Act
    let no_bytes = download_asset(&app, &ann.token, &space_id, &waiting, "?part=base", &[]).await;
    let other_part = download_asset(&app, &ann.token, &space_id, &uploaded, "?part=thumbnail", &[]).await;
    let base = download_asset(&app, &ann.token, &space_id, &uploaded, "?part=base", &[]).await;
    // Assert
    no_bytes.error(StatusCode::NOT_FOUND, "NOT_FOUND");
    let error = other_part.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
    assert_eq!(detail_paths(&error), ["query.part"]);
    assert_eq!((base.status, base.bytes.len()), (StatusCode::OK, 100));
}

#[tokio::test]
async fn an_upload_with_stray_parts_is_refused_whole() {
    // Arrange
    let app = spawn_app().await;
    let (space_id, _, bob, _, _) = space_of_four(&app).await;
    let asset_id = announced(&app, &bob.token, &space_id, "a.png").await;
    let parts = vec![
        file_part("a.png", "image/png", png(100)),
        file_part("a.png", "image/png", png(100)),
        Upload::Text { part: "note".into(), value: "hi".into() },
    ];
    // Act
    let reply = upload_asset(&app, &bob.token, &space_id, &asset_id, parts).await;
    // Assert
    let error = reply.error(StatusCode::BAD_REQUEST, "VALIDATION_FAILED");
    assert_eq!(problems(&error), expected(&[("/file", "TOO_MANY_FILES"), ("/note", "UNKNOWN_PART")]));
    assert_eq!(read(&app, &bob.token, &asset_path(&space_id, &asset_id)).await["state"], "AWAITING_UPLOAD");
    assert_stored_objects(&app, 0).await;
}

// ---------------------------------------------------------------------------------------------
// Events

#[tokio::test]
async fn connected_modules_receive_each_state_change_of_an_asset() {
    // Arrange
    let app = spawn_app_with(enable_word_count).await;
    let (space_id, ann, bob, _, _) = space_of_four(&app).await;
    connect(&app, &ann, &space_id, json!([{"moduleId": "word-count", "config": {}}])).await;
    // Act
    let asset_id = proposed(&app, &bob.token, &space_id, "a.png", 100).await;
    moved_through(&app, &ann.token, &space_id, &asset_id, &["APPROVED", "ENABLED"]).await;
    // Assert: one delivery per change (upload, approval, enabling), in order
    let store = trellis::store::Store::connect(&app.config.database_url(), 1).await.unwrap();
    let mut deliveries = Vec::new();
    for _ in 0..200 {
        deliveries = store.module_deliveries.module_deliveries(&asset_id).await.unwrap();
        if deliveries.len() >= 3 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    store.close().await;
    let outcomes: Vec<(&str, &str, &str)> =
        deliveries.iter().map(|d| (d.module_id.as_str(), d.event_kind.as_str(), d.state.as_str())).collect();
    assert_eq!(outcomes, [("word-count", "asset-state-changed", "DELIVERED"); 3]);
}
