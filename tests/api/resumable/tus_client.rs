//! A real tus client against the server: tuspy (PyPI's `tuspy`, pinned by hash in
//! `scripts/requirements-tus.txt`, installed by `scripts/setup` into `~/.cache/trellis/tus-venv`;
//! `TRELLIS_TUS_PYTHON` names another python that has it) runs `tus_client.py` beside this file. It
//! uploads a file of about 3 MiB in chunks of 512 KiB, stops after three, builds a new uploader for the
//! same URL (which asks the server where the upload is, as after a dropped connection) and finishes.
//! The upload is then attached to a form with the JSON body, and the download is the file.

use std::path::PathBuf;
use std::process::Command;

use reqwest::StatusCode;
use serde_json::Value;
use trellis_tests::{in_ci, note_skip, spawn_app};

use super::{MIB, UPLOADS, attached, head};
use crate::support::media::{descriptor, download, media_form, noise, without_key};

const CHUNK: usize = 512 * 1024;
const CHUNKS_BEFORE_THE_DROP: usize = 3;

/// The python of the tus client's virtualenv, if it is there.
fn tus_python() -> Option<PathBuf> {
    if let Some(python) = std::env::var_os("TRELLIS_TUS_PYTHON") {
        return Some(PathBuf::from(python));
    }
    let python = PathBuf::from(std::env::var_os("HOME")?).join(".cache/trellis/tus-venv/bin/python");
    python.exists().then_some(python)
}

#[tokio::test]
async fn a_tus_client_uploads_in_chunks_resumes_with_a_new_uploader_and_the_upload_attaches() {
    let test = concat!(module_path!(), "::a_tus_client_uploads_in_chunks_resumes_with_a_new_uploader");
    let Some(python) = tus_python() else {
        assert!(!in_ci(), "{test}: CI is set but ~/.cache/trellis/tus-venv is missing (scripts/setup installs it)");
        note_skip(test, "no tus client: scripts/setup installs tuspy into ~/.cache/trellis/tus-venv");
        return;
    };
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let bytes = noise(3 * MIB + 1_234, 41);
    let folder = tempfile::tempdir().expect("a temporary folder");
    let file = folder.path().join("resumed.bin");
    std::fs::write(&file, &bytes).expect("the file to upload is written");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/api/resumable/tus_client.py");
    let args: Vec<String> = vec![
        script.to_owned(),
        app.address.clone(),
        app.license_key.clone(),
        ann.token.clone(),
        file.display().to_string(),
        CHUNK.to_string(),
        CHUNKS_BEFORE_THE_DROP.to_string(),
    ];
    // Act: the client runs beside the server (off this runtime's thread, which serves it).
    let output = tokio::task::spawn_blocking(move || {
        Command::new(python)
            .args(args)
            .env("NO_PROXY", "*")
            .env("no_proxy", "*")
            .env_remove("HTTP_PROXY")
            .env_remove("http_proxy")
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .output()
    })
    .await
    .expect("the client's task ran")
    .expect("the tus client's python starts");
    // Assert: the client finished, after resuming where it had stopped.
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the tus client failed ({}): {stderr}\n{stdout}", output.status);
    let line = stdout.lines().last().unwrap_or_default();
    let report: Value = serde_json::from_str(line).unwrap_or_else(|_| panic!("not the client's report: {stdout}"));
    let paused_at = (CHUNK * CHUNKS_BEFORE_THE_DROP) as u64;
    assert_eq!(report["pausedAt"], paused_at, "{report}");
    assert_eq!(report["resumedAt"], paused_at, "the new uploader starts at the server's offset: {report}");
    assert_eq!(report["offset"], bytes.len() as u64, "{report}");
    let url = report["url"].as_str().expect("the upload URL");
    let prefix = format!("{}/", app.url(UPLOADS));
    let upload_id = url.strip_prefix(&prefix).unwrap_or_else(|| panic!("{url} is not under {prefix}")).to_owned();
    let state = head(&app, &ann.token, &upload_id).await;
    assert_eq!(state.status, StatusCode::OK);
    assert_eq!(state.header("upload-offset"), Some(bytes.len().to_string()));
    assert_eq!(state.header("upload-length"), Some(bytes.len().to_string()));

    // Act: the finished upload is attached
    let form = media_form(&app, &ann.token).await;
    let attachments = attached(&app, &ann.token, &form.form_id, &[&form.big], &[&upload_id]).await;
    // Assert: the descriptor's name and type are those of the metadata (`filetype` too), and the bytes
    // are the file.
    assert_eq!(
        without_key(&attachments[0]),
        descriptor(&form.big, "application/octet-stream", bytes.len(), "resumed.bin")
    );
    let got = download(&app, &ann.token, &form.form_id, attachments[0]["partKey"].as_str().unwrap(), &[]).await;
    assert_eq!(got.status, StatusCode::OK);
    assert!(got.bytes == bytes, "the downloaded bytes are the file the client sent");
    app.stop().await;
}
