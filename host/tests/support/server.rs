//! The real `trellis` binary as a child process, for tests that kill it (SIGKILL) and start it
//! again over the same data directory and database.

// Each test binary that includes this uses only part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::{Client, StatusCode};
use serde_json::{Value, json};

/// A `trellis serve` process over `<dir>/data`.
pub struct Server {
    child: Child,
    pub base: String,
}

impl Server {
    /// Starts the binary from inside `dir` (so no `trellis.toml` of the surroundings is read),
    /// without any `TRELLIS_*` variable but `env`, logging to `<dir>/<log>`.
    pub fn start(dir: &Path, log: &str, env: &[(&str, &str)]) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let listen = format!("127.0.0.1:{port}");
        let mut command = Command::new(env!("CARGO_BIN_EXE_trellis"));
        command.args(["serve", "--listen", &listen, "--data-dir"]).arg(data_dir(dir)).current_dir(dir);
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("TRELLIS_") {
                command.env_remove(name);
            }
        }
        command.envs(env.iter().copied()).env("TRELLIS_LOG__FILTER", "info");
        let log = std::fs::File::create(dir.join(log)).unwrap();
        command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(log);
        let child = command.spawn().expect("starting trellis");
        Self { child, base: format!("http://{listen}") }
    }

    pub async fn ready(&mut self, client: &Client) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("trellis exited early: {status}");
            }
            let answer = client.get(format!("{}/readyz", self.base)).send().await;
            if answer.is_ok_and(|r| r.status() == StatusCode::OK) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("trellis did not become ready");
    }

    /// SIGKILL: no shutdown code runs.
    pub fn kill(&mut self) {
        self.child.kill().expect("killing trellis");
        self.child.wait().unwrap();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn data_dir(dir: &Path) -> PathBuf {
    dir.join("data")
}

pub async fn json_ok(response: reqwest::Response, status: StatusCode) -> Value {
    let actual = response.status();
    let text = response.text().await.unwrap();
    assert_eq!(actual, status, "{text}");
    serde_json::from_str(&text).unwrap()
}

/// Signs up `ann` through the three steps (the PIN comes from the outbox); answers the session.
pub async fn sign_up(client: &Client, base: &str, key: &str, dir: &Path) -> String {
    let start = client
        .post(format!("{base}/v0/auth/sign-up/start"))
        .header("X-License-Key", key)
        .json(&json!({"email": "ann@example.org", "handle": "ann", "fullName": "Ann", "displayName": "Ann"}))
        .send()
        .await
        .unwrap();
    let token = json_ok(start, StatusCode::ACCEPTED).await["signupToken"].as_str().unwrap().to_owned();
    let outbox = data_dir(dir).join("outbox");
    let mut pin = None;
    for _ in 0..100 {
        pin = std::fs::read_dir(&outbox)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|mail| std::fs::read_to_string(mail.path()).ok())
            .flat_map(|text| text.lines().map(str::trim).map(str::to_owned).collect::<Vec<_>>())
            .find(|line| line.len() == 6 && line.bytes().all(|b| b.is_ascii_digit()));
        if pin.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let pin = pin.expect("a PIN in the outbox");
    let verify = client
        .post(format!("{base}/v0/auth/sign-up/verify-pin"))
        .header("X-License-Key", key)
        .json(&json!({"signupToken": token, "pin": pin}))
        .send()
        .await
        .unwrap();
    json_ok(verify, StatusCode::OK).await;
    let complete = client
        .post(format!("{base}/v0/auth/sign-up/complete"))
        .header("X-License-Key", key)
        .json(&json!({"signupToken": token, "password": "correct horse 42"}))
        .send()
        .await
        .unwrap();
    json_ok(complete, StatusCode::CREATED).await["sessionToken"].as_str().unwrap().to_owned()
}
