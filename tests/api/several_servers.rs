//! Two real servers on one PostgreSQL database and one S3 bucket, as behind a load balancer:
//! requests go to either, and what one server changes holds on the other within moments, although
//! both trust their caches for five minutes here. PostgreSQL only (SQLite is one server's database).

use reqwest::{Method, StatusCode};
use serde_json::json;
use trellis::config::Config;
use trellis_tests::{TestApp, assert_error, body, note_skip, s3_settings, spawn_app_beside, spawn_app_on_s3};

use crate::support::channels::{created_channel, join, put_spaces, remove};
use crate::support::forms::{created_config, post_form, put_config, sample, sample_config, sample_payload};
use crate::support::media::{attachments_path, media_form, noise, slow_upload};
use crate::support::modules::{connect, enable_word_count, wait_until};
use crate::support::spaces::{created_space, id};

/// Caches trusted far longer than a test runs: only the servers' announcements can make a change
/// visible to the other server in time.
fn trusting(config: &mut Config) {
    config.license_cache_seconds = 300;
    config.session_cache_seconds = 300;
    config.space_cache_seconds = 300;
    config.configuration_cache_seconds = 300;
    enable_word_count(config);
}

/// The answer of `request` once it has `status` (an announcement travels through PostgreSQL, so the
/// other server applies it within milliseconds, not before the first server answered); gives up after
/// 30 seconds, which a loaded machine does not need and which is still far below the five minutes the
/// caches are trusted here.
async fn soon<F: AsyncFn() -> reqwest::Response>(request: F, status: StatusCode) -> reqwest::Response {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let response = request().await;
        if response.status() == status || std::time::Instant::now() > deadline {
            return response;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

/// Servers A and B, or `None` where the test cannot run (SQLite; no S3 server outside CI).
async fn two_servers(test: &str, configure: fn(&mut Config)) -> Option<(TestApp, TestApp)> {
    if std::env::var("TEST_DATABASE").map_or(true, |db| db != "postgres") {
        note_skip(test, "several servers share a PostgreSQL database (TEST_DATABASE=postgres)");
        return None;
    }
    let settings = s3_settings(test)?;
    let a = spawn_app_on_s3(&settings, configure).await;
    let b = spawn_app_beside(&a, configure).await;
    Some((a, b))
}

#[tokio::test]
async fn a_logout_or_a_revoked_key_on_one_server_holds_on_the_other_at_once() {
    let Some((a, b)) =
        two_servers("a_logout_or_a_revoked_key_on_one_server_holds_on_the_other_at_once", trusting).await
    else {
        return;
    };
    // Arrange: B has checked (and cached) the session and a second key.
    let ann = a.sign_up("ann").await;
    assert_eq!(b.get_authed("/v0/users/me", &ann.token).await.status(), StatusCode::OK);
    let key = a.issue_license("default").await;
    let probe = |app: &TestApp| app.client.get(app.url("/v0/auth/session")).header("X-License-Key", key.clone());
    assert_error(probe(&b).send().await.unwrap(), StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    // Act: the logout goes to A; the key is revoked from the command line (a third process).
    let logout = a.authed(Method::POST, "/v0/auth/logout", &ann.token).send().await.unwrap();
    assert_eq!(logout.status(), StatusCode::NO_CONTENT);
    a.revoke_license(&key).await;
    // Assert
    let me = soon(async || b.get_authed("/v0/users/me", &ann.token).await, StatusCode::UNAUTHORIZED).await;
    assert_error(me, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    let revoked = soon(async || probe(&b).send().await.unwrap(), StatusCode::FORBIDDEN).await;
    assert_error(revoked, StatusCode::FORBIDDEN, "LICENSE_INVALID").await;
    // B first: A's stop drops the shared database.
    b.stop().await;
    a.stop().await;
}

#[tokio::test]
async fn membership_modules_and_configurations_changed_on_one_server_hold_on_the_other_at_once() {
    let Some((a, b)) =
        two_servers("membership_modules_and_configurations_changed_on_one_server_hold_on_the_other_at_once", trusting)
            .await
    else {
        return;
    };
    // Arrange: Bob reads Ann's space through her channel, on B; B has read the space's modules.
    let ann = a.sign_up("ann").await;
    let bob = a.sign_up("bob").await;
    let space_id = id(&created_space(&a, &ann, "shared").await);
    let channel_id = created_channel(&a, &ann, "crew").await["channelId"].as_str().unwrap().to_owned();
    assert_eq!(put_spaces(&a, &ann.token, &channel_id, &json!([space_id])).await.status(), StatusCode::OK);
    join(&a, &ann, &channel_id, &bob).await;
    let general = format!("/v0/spaces/{space_id}/settings/general");
    assert_eq!(b.get_authed(&general, &bob.token).await.status(), StatusCode::OK);
    let stats = format!("/v0/spaces/{space_id}/modules/word-count/stats");
    assert_error(b.get_authed(&stats, &ann.token).await, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    created_config(&a, &ann.token, sample_config()).await;
    let first = post_form(&b, &ann.token, &sample_payload()).await;
    assert_eq!(first.status(), StatusCode::CREATED, "{}", first.text().await.unwrap());
    // Act: on A, Bob leaves the channel, the space connects word-count, the configuration is archived.
    assert_eq!(remove(&a, &ann.token, &channel_id, &bob.user_id).await.status(), StatusCode::NO_CONTENT);
    connect(&a, &ann, &space_id, json!([{"moduleId": "word-count", "config": {}}])).await;
    let archived = json!({"config": sample_config(), "state": "ARCHIVED"});
    let put = put_config(&a, &ann.token, sample::CONFIG_ID, &archived).await;
    assert_eq!(put.status(), StatusCode::OK, "{}", put.text().await.unwrap());
    // Assert: B knows within moments, not after its caches expire.
    let gone = soon(async || b.get_authed(&general, &bob.token).await, StatusCode::NOT_FOUND).await;
    assert_error(gone, StatusCode::NOT_FOUND, "NOT_FOUND").await;
    assert_eq!(soon(async || b.get_authed(&stats, &ann.token).await, StatusCode::OK).await.status(), StatusCode::OK);
    let archived = soon(async || post_form(&b, &ann.token, &sample_payload()).await, StatusCode::CONFLICT).await;
    assert_error(archived, StatusCode::CONFLICT, "CONFLICT").await;
    // B first: A's stop drops the shared database.
    b.stop().await;
    a.stop().await;
}

#[tokio::test]
async fn each_event_reaches_the_module_once_whichever_server_took_the_request() {
    let Some((a, b)) =
        two_servers("each_event_reaches_the_module_once_whichever_server_took_the_request", trusting).await
    else {
        return;
    };
    // Arrange
    let ann = a.sign_up("ann").await;
    let space_id = id(&created_space(&a, &ann, "events").await);
    connect(&a, &ann, &space_id, json!([{"moduleId": "word-count", "config": {}}])).await;
    // Act: comments alternately through A and B; both servers' workers take events from one queue.
    for n in 0..10 {
        let server = if n % 2 == 0 { &a } else { &b };
        let path = format!("/v0/spaces/{space_id}/comments");
        let posted = server.authed(Method::POST, &path, &ann.token).json(&json!({"body": "one two"})).send().await;
        assert_eq!(posted.unwrap().status(), StatusCode::CREATED);
    }
    // Assert: ten comments counted, none twice.
    let stats = format!("/v0/spaces/{space_id}/modules/word-count/stats");
    let counted = wait_until(&b, &ann.token, &stats, |s| s["comments"] == 10).await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(body(b.get_authed(&stats, &ann.token).await).await["comments"], counted["comments"]);
    // B first: A's stop drops the shared database.
    b.stop().await;
    a.stop().await;
}

/// Sweeping every second with a grace of one second, on both servers.
fn trusting_and_sweeping(config: &mut Config) {
    trusting(config);
    config.media.sweep_interval_seconds = 1;
    config.media.sweep_grace_seconds = 1;
}

#[tokio::test]
async fn no_server_sweeps_the_bytes_another_server_is_still_receiving() {
    let Some((a, b)) =
        two_servers("no_server_sweeps_the_bytes_another_server_is_still_receiving", trusting_and_sweeping).await
    else {
        return;
    };
    // Arrange: 8 MiB arriving at A over about four seconds, while B sweeps every second.
    let ann = a.sign_up("ann").await;
    let form = media_form(&a, &ann.token).await;
    let bytes = noise(16 * 512 * 1024, 3);
    let upload = slow_upload(&form.big, &bytes);
    // Act
    let response =
        a.authed(Method::POST, &attachments_path(&form.form_id), &ann.token).multipart(upload).send().await.unwrap();
    // Assert: stored whole, and still there for B after B's sweeper ran again.
    let status = response.status();
    let created = body(response).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let key = created["attachments"][0]["partKey"].as_str().unwrap();
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    let download = b.get_authed(&format!("{}/{key}", attachments_path(&form.form_id)), &ann.token).await;
    assert_eq!(download.status(), StatusCode::OK);
    assert!(download.bytes().await.unwrap().to_vec() == bytes, "the upload was swept or cut");
    b.stop().await;
    a.stop().await;
}
