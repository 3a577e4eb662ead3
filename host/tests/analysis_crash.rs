//! The real `trellis` binary killed (SIGKILL) while it analyses a published asset: after a restart the
//! analysis job is taken again once its lease runs out and the asset ends SUCCEEDED with its
//! transcript. Needs the installed models and espeak-ng (CI has both; elsewhere the test says it
//! skipped). On SQLite, or PostgreSQL with `TEST_DATABASE=postgres`.

use crate::support::database;
use crate::support::server;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

use database::TestDatabase;
use server::{Server, data_dir, json_ok, sign_up};

const SPEECH: &str = "The committee met on Tuesday to discuss the budget for the coming year. After a long debate, \
     the members agreed to spend more on schools and roads, and less on new offices. The chair thanked everyone \
     for their patience and closed the meeting just before six.";

fn models_dir() -> PathBuf {
    std::env::var_os("TRELLIS_MODELS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".cache/trellis/models"))
}

/// `None` (the test skipped) when the models or espeak-ng are missing outside CI.
fn spoken() -> Option<Vec<u8>> {
    let ready = trellis_inference::install::installed(&models_dir())
        && Command::new("espeak-ng").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ready {
        assert!(std::env::var_os("CI").is_none(), "CI is set but the models or espeak-ng are missing");
        eprintln!("SKIPPED analysis_crash: the models or espeak-ng are missing");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let wav = dir.path().join("speech.wav");
    // About twenty seconds of speech: a transcription of a few seconds, long enough to be cut.
    assert!(Command::new("espeak-ng").args(["-s", "150", "-w"]).arg(&wav).arg(SPEECH).status().unwrap().success());
    Some(std::fs::read(wav).unwrap())
}

async fn asset(client: &Client, base: &str, key: &str, session: &str, path: &str) -> Value {
    let response = client.get(format!("{base}{path}")).header("X-License-Key", key).bearer_auth(session).send().await;
    json_ok(response.unwrap(), StatusCode::OK).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_analysis_cut_by_a_kill_finishes_after_the_restart() {
    let Some(wav) = spoken() else { return };
    let db = TestDatabase::new().await;
    let dir = db.dir.path().to_owned();
    let models = models_dir().display().to_string();
    let env = [
        ("TRELLIS_DATABASE__URL", db.url.as_str()),
        ("TRELLIS_ANALYSIS__MODELS_DIR", models.as_str()),
        ("TRELLIS_ANALYSIS__SPEECH_THREADS", "1"),
        ("TRELLIS_JOBS__LEASE_SECONDS", "3"),
    ];
    let client = Client::builder().timeout(Duration::from_secs(60)).build().unwrap();
    let mut first = Server::start(&dir, "first.log", &env);
    first.ready(&client).await;
    let key = std::fs::read_to_string(data_dir(&dir).join("license.key")).unwrap().trim().to_owned();
    let session = sign_up(&client, &first.base, &key, &dir).await;
    let send = |method: reqwest::Method, base: &str, path: &str| {
        client.request(method, format!("{base}{path}")).header("X-License-Key", &key).bearer_auth(&session)
    };
    let space =
        send(reqwest::Method::POST, &first.base, "/v0/spaces").json(&json!({"name": "crash", "displayName": "Crash"}));
    let space_id =
        json_ok(space.send().await.unwrap(), StatusCode::CREATED).await["spaceId"].as_str().unwrap().to_owned();
    let metadata = json!({"title": "Minutes", "filename": "minutes.wav", "contentType": "audio/wav"});
    let announced = send(reqwest::Method::POST, &first.base, &format!("/v0/spaces/{space_id}/assets")).json(&metadata);
    let asset_id = json_ok(announced.send().await.unwrap(), StatusCode::CREATED).await["newPublishedAssetId"]
        .as_str()
        .unwrap()
        .to_owned();
    let part = reqwest::multipart::Part::bytes(wav).file_name("minutes.wav").mime_str("audio/wav").unwrap();
    let upload = send(reqwest::Method::POST, &first.base, &format!("/v0/media/spaces/{space_id}/assets/{asset_id}"))
        .multipart(reqwest::multipart::Form::new().part("file", part));
    json_ok(upload.send().await.unwrap(), StatusCode::CREATED).await;
    let approve = send(reqwest::Method::PATCH, &first.base, &format!("/v0/spaces/{space_id}/assets"))
        .json(&json!({"assetId": asset_id, "state": "APPROVED"}));
    json_ok(approve.send().await.unwrap(), StatusCode::OK).await;
    // Act: kill the server while it analyses
    let path = format!("/v0/spaces/{space_id}/assets/{asset_id}");
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut state = Value::Null;
    while Instant::now() < deadline {
        state = asset(&client, &first.base, &key, &session, &path).await["analysis"]["state"].clone();
        if state != "QUEUED" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    first.kill();
    let mut second = Server::start(&dir, "second.log", &env);
    second.ready(&client).await;
    let deadline = Instant::now() + Duration::from_secs(300);
    let mut after = Value::Null;
    while Instant::now() < deadline {
        after = asset(&client, &second.base, &key, &session, &path).await;
        if matches!(after["analysis"]["state"].as_str(), Some("SUCCEEDED" | "FAILED")) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Assert
    assert_eq!(state, "RUNNING", "the kill came while the asset was analysed");
    assert_eq!(after["analysis"]["state"], "SUCCEEDED", "{after}");
    let transcript = after["analysis"]["transcript"].as_str().unwrap_or_default().to_lowercase();
    assert!(transcript.contains("committee") && transcript.contains("budget"), "{transcript}");
    drop(second);
    db.remove().await;
}
