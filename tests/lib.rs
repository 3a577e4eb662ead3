//! Test harness: starts the real server on an ephemeral port over a fresh database (a SQLite file
//! in a temporary folder, or a fresh PostgreSQL database when `TEST_DATABASE=postgres`) and
//! talks HTTP to it.

use std::path::PathBuf;
use std::time::Duration;

use reqwest::{Method, RequestBuilder, Response, StatusCode};
use serde_json::{Value, json};
use sqlx::Connection;
use tokio::sync::oneshot;
use trellis::config::Config;
use trellis::config::media::{MediaBackend, S3Config};

/// A running server and a client for it.
pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    /// The key the deployment issued on first start (`<data-dir>/license.key`).
    pub license_key: String,
    pub data_dir: PathBuf,
    pub config: Config,
    /// The throwaway PostgreSQL database, dropped by `stop`.
    postgres_database: Option<String>,
    _temp: tempfile::TempDir,
    shutdown: Option<oneshot::Sender<()>>,
    server: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
}

/// A signed-up user with an open session.
#[derive(Clone, Debug)]
pub struct TestUser {
    pub user_id: String,
    pub handle: String,
    pub email: String,
    pub password: String,
    pub token: String,
}

pub const PASSWORD: &str = "correct horse 42";

pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

/// Starts a server after `customize` has adjusted the test configuration.
pub async fn spawn_app_with(customize: impl FnOnce(&mut Config)) -> TestApp {
    let temp = tempfile::tempdir().expect("temporary folder");
    let mut config =
        Config { data_dir: temp.path().to_path_buf(), listen: "127.0.0.1:0".parse().unwrap(), ..Config::default() };
    // Generous limits so tests that sign up many users are not throttled; the rate-limit tests
    // set their own.
    config.rate_limits.login_per_address = 10_000;
    config.rate_limits.login_per_account = 10_000;
    config.rate_limits.pin_per_address = 10_000;
    config.rate_limits.mail_per_address = 10_000;
    config.license_cache_seconds = 0;
    config.modules.runtime.cache_dir = Some(module_cache_dir());
    // Module budgets are wall-clock; with every test of the run competing for two cores, the
    // production budgets (tens of milliseconds) would fail ordinary calls now and then.
    config.modules.runtime.request_deadline_ms = 2_000;
    config.modules.runtime.event_deadline_ms = 2_000;
    let mut postgres_database = None;
    if std::env::var("TEST_DATABASE").is_ok_and(|db| db == "postgres") {
        let (url, name) = fresh_postgres_database().await;
        config.database.url = url;
        postgres_database = Some(name);
        config.database.max_connections = 4;
    } else {
        config.database.max_connections = 4;
    }
    customize(&mut config);
    config.fill_default_plan();
    let listener = tokio::net::TcpListener::bind(config.listen).await.expect("binding a port");
    let address = format!("http://{}", listener.local_addr().unwrap());
    let state = trellis::prepare(config.clone()).await.expect("preparing the server");
    let (shutdown, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(trellis::serve(state, listener, async {
        let _ = stopped.await;
    }));
    let license_key = std::fs::read_to_string(config.data_dir.join("license.key"))
        .expect("the first start writes license.key")
        .trim()
        .to_owned();
    TestApp {
        address,
        client: reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap(),
        license_key,
        data_dir: config.data_dir.clone(),
        config,
        postgres_database,
        _temp: temp,
        shutdown: Some(shutdown),
        server: Some(server),
    }
}

/// Points `config.media` at the S3-compatible server the `S3_*` variables name (`scripts/test`
/// starts a Garage and sets them), for use inside `spawn_app_with`. Returns false, leaving the
/// local backend, when `S3_ENDPOINT` is unset (a plain `cargo test`); callers then skip.
pub fn use_s3_media(config: &mut Config) -> bool {
    let Ok(endpoint) = std::env::var("S3_ENDPOINT") else {
        return false;
    };
    let var = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("S3_ENDPOINT is set but {name} is not"));
    config.media.backend = MediaBackend::S3;
    config.media.s3 = S3Config {
        endpoint,
        region: var("S3_REGION"),
        bucket: var("S3_BUCKET"),
        access_key: var("S3_ACCESS_KEY"),
        secret_key: var("S3_SECRET_KEY"),
        path_style: true,
        timeout_seconds: 30,
    };
    true
}

/// Compiled module code shared by every server of the test run (and later runs): compiling the
/// modules for each test's fresh data directory would cost seconds per test. The first caller fills
/// it, once per process, so servers starting in parallel only ever read whole entries.
fn module_cache_dir() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        use trellis_modules::{EnabledModule, Grant, ModuleHost, ModulesConfig};
        let dir = std::env::temp_dir().join("trellis-test-module-cache");
        let plugins = PathBuf::from(trellis_plugins_build::DIR);
        let enable = vec![
            EnabledModule::bundled("tags"),
            EnabledModule::file(plugins.join("trellis_hostile.wasm"), vec![Grant::KeyValue, Grant::Logging], vec![]),
            EnabledModule::file(
                plugins.join("word_count.wasm"),
                vec![Grant::KeyValue, Grant::ItemRead, Grant::Logging],
                vec![],
            ),
        ];
        let settings = ModulesConfig { enable, cache_dir: Some(dir.clone()), ..ModulesConfig::default() };
        ModuleHost::new(settings, &trellis::bundled::modules(), std::sync::Arc::new(trellis_modules::MemoryKv::new()))
            .expect("compiling the modules");
        dir
    })
    .clone()
}

fn postgres_admin_url() -> String {
    std::env::var("TEST_POSTGRES_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

async fn fresh_postgres_database() -> (String, String) {
    let admin_url = postgres_admin_url();
    let name = format!("trellis_test_{}", uuid::Uuid::new_v4().simple());
    let mut conn = sqlx::PgConnection::connect(&admin_url).await.expect("connecting to PostgreSQL");
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("create database {name}")))
        .execute(&mut conn)
        .await
        .expect("creating a test database");
    let base = admin_url.rsplit_once('/').map(|(base, _)| base).unwrap_or(&admin_url);
    (format!("{base}/{name}"), name)
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    /// A request carrying the license key and no session.
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        self.client.request(method, self.url(path)).header("X-License-Key", &self.license_key)
    }

    /// A request carrying the license key and the bearer token.
    pub fn authed(&self, method: Method, path: &str, token: &str) -> RequestBuilder {
        self.request(method, path).bearer_auth(token)
    }

    pub async fn post_json(&self, path: &str, body: Value) -> Response {
        self.request(Method::POST, path).json(&body).send().await.expect("request sent")
    }

    pub async fn get_authed(&self, path: &str, token: &str) -> Response {
        self.authed(Method::GET, path, token).send().await.expect("request sent")
    }

    /// The newest PIN mailed to `email`, waiting up to 5 s for the mail to arrive.
    pub async fn read_pin(&self, email: &str) -> String {
        for _ in 0..100 {
            if let Some(pin) = self.newest_pin(email) {
                return pin;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("no PIN was mailed to {email}");
    }

    /// Mails in the outbox addressed to `email`, oldest first.
    pub fn mails_to(&self, email: &str) -> Vec<String> {
        let mut mails: Vec<(std::time::SystemTime, String)> = std::fs::read_dir(self.data_dir.join("outbox"))
            .map(|dir| {
                dir.filter_map(Result::ok)
                    .filter(|e| e.path().extension().is_some_and(|x| x == "eml"))
                    .filter_map(|e| {
                        let text = std::fs::read_to_string(e.path()).ok()?;
                        let modified = e.metadata().ok()?.modified().ok()?;
                        text.lines()
                            .any(|l| l.eq_ignore_ascii_case(&format!("To: {email}")))
                            .then_some((modified, text))
                    })
                    .collect()
            })
            .unwrap_or_default();
        mails.sort_by_key(|(at, _)| *at);
        mails.into_iter().map(|(_, text)| text).collect()
    }

    fn newest_pin(&self, email: &str) -> Option<String> {
        let mail = self.mails_to(email).pop()?;
        mail.lines().map(str::trim).find(|l| l.len() == 6 && l.bytes().all(|b| b.is_ascii_digit())).map(str::to_owned)
    }

    /// Signs up `handle` (e-mail `<handle>@example.org`) through the three steps.
    pub async fn sign_up(&self, handle: &str) -> TestUser {
        let email = format!("{handle}@example.org");
        let started = self
            .post_json(
                "/v0/auth/sign-up/start",
                json!({"email": email, "handle": handle, "fullName": format!("{handle} Full"), "displayName": handle}),
            )
            .await;
        assert_eq!(started.status(), StatusCode::ACCEPTED, "{}", started.text().await.unwrap());
        let token = body(started).await["signupToken"].as_str().unwrap().to_owned();
        let pin = self.read_pin(&email).await;
        let verified = self.post_json("/v0/auth/sign-up/verify-pin", json!({"signupToken": token, "pin": pin})).await;
        assert_eq!(verified.status(), StatusCode::OK);
        let completed =
            self.post_json("/v0/auth/sign-up/complete", json!({"signupToken": token, "password": PASSWORD})).await;
        assert_eq!(completed.status(), StatusCode::CREATED);
        let session = body(completed).await;
        TestUser {
            user_id: session["user"]["userId"].as_str().unwrap().to_owned(),
            handle: handle.to_owned(),
            email,
            password: PASSWORD.to_owned(),
            token: session["sessionToken"].as_str().unwrap().to_owned(),
        }
    }

    /// Issues another license key on `plan` through the library, as `trellis license issue` does.
    pub async fn issue_license(&self, plan: &str) -> String {
        let store = trellis::store::Store::connect(&self.config.database_url(), 1).await.unwrap();
        let licenses =
            trellis::services::licenses::Licenses::new(store.clone(), std::sync::Arc::new(self.config.clone()));
        let (key, _) = licenses.issue(plan).await.unwrap();
        store.close().await;
        key
    }

    /// Stops the server but keeps its database, for a test that starts another server on it.
    pub async fn stop_keeping_database(mut self) {
        self.postgres_database = None;
        self.stop().await;
    }

    /// Stops the server, waits until it has finished and drops its PostgreSQL database.
    pub async fn stop(mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(server) = self.server.take() {
            server.await.expect("server task").expect("server ended cleanly");
        }
        if let Some(name) = self.postgres_database.take() {
            let mut conn = sqlx::PgConnection::connect(&postgres_admin_url()).await.expect("connecting to PostgreSQL");
            sqlx::raw_sql(sqlx::AssertSqlSafe(format!("drop database if exists {name} with (force)")))
                .execute(&mut conn)
                .await
                .expect("dropping the test database");
        }
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }
}

/// The JSON body of a response.
pub async fn body(response: Response) -> Value {
    let text = response.text().await.expect("body read");
    serde_json::from_str(&text).unwrap_or_else(|_| panic!("body is not JSON: {text}"))
}

/// Asserts an error envelope with this status and code; answers the error object.
pub async fn assert_error(response: Response, status: StatusCode, code: &str) -> Value {
    let actual = response.status();
    let headers = response.headers().clone();
    let value = body(response).await;
    assert_eq!(actual, status, "status of {value}");
    assert_eq!(headers.get("content-type").unwrap(), "application/json");
    let error = value["error"].clone();
    assert_eq!(error["code"], code, "code of {value}");
    assert!(error["numeric"].as_u64().is_some(), "numeric of {value}");
    assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()), "message of {value}");
    assert_eq!(
        error["requestId"].as_str(),
        headers.get("x-request-id").and_then(|v| v.to_str().ok()),
        "requestId of {value}"
    );
    error
}

/// The `path` of every detail of an error object.
pub fn detail_paths(error: &Value) -> Vec<String> {
    error["details"]
        .as_array()
        .map(|details| details.iter().map(|d| d["path"].as_str().unwrap_or_default().to_owned()).collect())
        .unwrap_or_default()
}
