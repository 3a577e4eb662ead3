//! Test harness: starts the real server on an ephemeral port over a fresh database (a SQLite file
//! in a temporary folder, or a fresh PostgreSQL database when `TEST_DATABASE=postgres`) and
//! talks HTTP to it.

use std::path::PathBuf;
use std::time::Duration;

use reqwest::{Method, RequestBuilder, Response, StatusCode};
use s3::Bucket;
use serde_json::{Value, json};
use tokio::sync::oneshot;
use trellis::config::Config;

mod postgres;
mod s3_store;
pub use postgres::{drop_postgres_database, empty_postgres_database, fresh_postgres_database};
use s3_store::remove_bucket;
pub use s3_store::{s3_bucket, s3_object_keys, s3_settings, s3_unfinished_uploads, spawn_app_on_s3};

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
    /// Whether `config.media.s3.bucket` is this server's own bucket (`spawn_app_on_s3`), emptied
    /// and removed by `stop`.
    own_bucket: bool,
    /// Outbox files in the order this harness first saw them: file times are too coarse to
    /// order mails sent a millisecond apart, and tests look at each mail before causing the next.
    seen_mails: std::sync::Mutex<Vec<PathBuf>>,
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
    config.rate_limits.login_failures_per_account = 10_000;
    config.rate_limits.pin_per_address = 10_000;
    config.rate_limits.mail_per_address = 10_000;
    config.rate_limits.mail_per_recipient_hour = 10_000;
    config.license_cache_seconds = 0;
    // The tests sign up thousands of users: their passwords are hashed at a test suite's cost (a
    // test of the default cost sets it back), as Django's test settings do.
    config.auth.password_hash_memory_kib = 64;
    config.auth.password_hash_iterations = 1;
    // Tests of key quotas spend them as one user; the per-user share has tests of its own.
    config.quota_user_share_percent = 100;
    config.modules.runtime.cache_dir = Some(module_cache_dir());
    // Module budgets are wall-clock; with every test of the run competing for two cores, the
    // production budgets (tens of milliseconds) would fail ordinary calls now and then.
    config.modules.runtime.request_deadline_ms = 2_000;
    config.modules.runtime.event_deadline_ms = 2_000;
    config.modules.runtime.marketplace_deadline_ms = 2_000;
    // This server analyses nothing (another would, in a deployment), so asset tests see QUEUED stay
    // QUEUED; the analysis tests set workers and the shared models.
    config.analysis.workers = 0;
    // Under the project's test command the media tools must run sandboxed: no silent fallback.
    if std::env::var_os("TEST_REQUIRE_SANDBOX").is_some() {
        config.analysis.tool_sandbox = trellis::config::analysis::ToolSandbox::Required;
    }
    // A change ranks the marketplace again at once, so tests need not wait for the settle time.
    config.marketplace.ranking_settle_ms = 20;
    // Generous guest bounds so tests that call modules often are not refused; the bound tests set their own.
    config.modules.runtime.max_calls_per_module = 1_000;
    config.modules.runtime.max_calls_per_space = 1_000;
    config.modules.runtime.space_guest_ms_per_second = 1_000_000;
    config.modules.runtime.space_guest_burst_ms = 1_000_000;
    let mut postgres_database = None;
    if std::env::var("TEST_DATABASE").is_ok_and(|db| db == "postgres") {
        let (url, name) = fresh_postgres_database().await;
        config.database.url = url;
        postgres_database = Some(name);
        config.database.max_connections = 4;
    } else {
        config.database.max_connections = 4;
    }
    let own_database = config.database.url.clone();
    customize(&mut config);
    let shares_a_database = config.database.url != own_database;
    config.fill_default_plan();
    let listener = tokio::net::TcpListener::bind(config.listen).await.expect("binding a port");
    let address = format!("http://{}", listener.local_addr().unwrap());
    let state = trellis::prepare(config.clone()).await.expect("preparing the server");
    let (shutdown, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(trellis::serve(state, listener, async {
        let _ = stopped.await;
    }));
    // A server started on a database another server started writes no license.key of its own
    // (`spawn_app_beside` gives it the first server's key).
    let license_key = match std::fs::read_to_string(config.data_dir.join("license.key")) {
        Ok(key) => key.trim().to_owned(),
        Err(_) if shares_a_database => String::new(),
        Err(error) => panic!("the first start writes license.key: {error}"),
    };
    TestApp {
        address,
        client: reqwest::Client::builder().timeout(Duration::from_secs(30)).build().unwrap(),
        license_key,
        data_dir: config.data_dir.clone(),
        config,
        postgres_database,
        own_bucket: false,
        seen_mails: std::sync::Mutex::default(),
        _temp: temp,
        shutdown: Some(shutdown),
        server: Some(server),
    }
}

/// Whether this is a CI run (CI sets `CI=true`): there a test that cannot reach what it needs
/// fails instead of skipping.
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some()
}

/// Says on the terminal that `test` was skipped and why. Written to the standard error itself,
/// past the test harness's capture, so that a skip shows in a passing run too.
pub fn note_skip(test: &str, why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}

/// Starts a second server on `first`'s database and media store (its own data directory and
/// license key), as a deployment runs several behind a load balancer.
pub async fn spawn_app_beside(first: &TestApp, customize: impl FnOnce(&mut Config)) -> TestApp {
    let (database, media) = (first.config.database.clone(), first.config.media.clone());
    let mut second = spawn_app_with(|config| {
        config.database = database;
        config.media = media;
        customize(config);
    })
    .await;
    second.license_key = first.license_key.clone();
    second
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

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    /// A client of this server's own media bucket (`spawn_app_on_s3`); `None` for any other
    /// server, whose store is not the test's to list.
    pub fn media_bucket(&self) -> Option<Box<Bucket>> {
        self.own_bucket.then(|| s3_bucket(&self.config.media.s3))
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
        let mut seen = self.seen_mails.lock().unwrap();
        let mut new: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(self.data_dir.join("outbox"))
            .map(|dir| {
                dir.filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|path| path.extension().is_some_and(|x| x == "eml") && !seen.contains(path))
                    .filter_map(|path| Some((path.metadata().ok()?.modified().ok()?, path)))
                    .collect()
            })
            .unwrap_or_default();
        new.sort();
        seen.extend(new.into_iter().map(|(_, path)| path));
        seen.iter()
            .filter_map(|path| std::fs::read_to_string(path).ok())
            .filter(|text| text.lines().any(|l| l.eq_ignore_ascii_case(&format!("To: {email}"))))
            .collect()
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

    /// Makes `user` a platform operator with `trellis admin grant-operator HANDLE` (the command's own
    /// code, run against this server's database), then signs them in again: a session read before the
    /// grant is trusted as it was for `session_cache_seconds`.
    pub async fn grant_operator(&self, user: &TestUser) -> TestUser {
        use clap::Parser;
        let cli = trellis::cli::Cli::try_parse_from(["trellis", "admin", "grant-operator", &user.handle]).unwrap();
        trellis::cli::run_admin(cli.command, self.config.clone()).await.expect("grant-operator succeeds");
        let login = self.post_json("/v0/auth/login", json!({"login": user.handle, "password": user.password})).await;
        assert_eq!(login.status(), StatusCode::OK);
        let token = body(login).await["sessionToken"].as_str().unwrap().to_owned();
        TestUser { token, ..user.clone() }
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

    /// Revokes a key with the command line's own code, as `trellis license revoke` does.
    pub async fn revoke_license(&self, key: &str) {
        let store = trellis::store::Store::connect(&self.config.database_url(), 1).await.unwrap();
        let licenses =
            trellis::services::licenses::Licenses::new(store.clone(), std::sync::Arc::new(self.config.clone()));
        licenses.revoke(key).await.unwrap();
        store.close().await;
    }

    /// Stops the server but keeps its database (and its own media bucket, which the database
    /// refers to), for a test that starts another server on them.
    pub async fn stop_keeping_database(mut self) {
        self.postgres_database = None;
        self.own_bucket = false;
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
        if let Some(bucket) = self.media_bucket() {
            remove_bucket(&bucket).await;
        }
        if let Some(name) = self.postgres_database.take() {
            drop_postgres_database(&name).await;
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
    assert_eq!(headers.get("content-type").and_then(|v| v.to_str().ok()), Some("application/json"), "{value}");
    let request_id = headers.get("x-request-id").and_then(|v| v.to_str().ok());
    assert_error_envelope(&value, request_id, code)
}

/// The code and numeric of every error of the contract (conventions, section 2), and
/// SERVICE_UNAVAILABLE, the database's counterpart of MEDIA_UNAVAILABLE.
const ERROR_CODES: [(&str, u64); 21] = [
    ("VALIDATION_FAILED", 800),
    ("UNAUTHENTICATED", 801),
    ("FORBIDDEN", 802),
    ("ENTITLEMENT_LIMIT_EXCEEDED", 803),
    ("NOT_FOUND", 804),
    ("CONFLICT", 805),
    ("INVALID_TRANSITION", 806),
    ("LICENSE_REQUIRED", 807),
    ("LICENSE_INVALID", 808),
    ("PAYLOAD_TOO_LARGE", 809),
    ("UNSUPPORTED_MEDIA_TYPE", 810),
    ("MAX_FILES_EXCEEDED", 811),
    ("MEDIA_UNAVAILABLE", 812),
    ("RATE_LIMITED", 813),
    ("PIN_INVALID", 814),
    ("FEATURE_DISABLED", 815),
    ("MODULE_FAILED", 816),
    ("PRECONDITION_FAILED", 817),
    ("SERVICE_UNAVAILABLE", 818),
    ("METHOD_NOT_ALLOWED", 819),
    ("INTERNAL", 899),
];

/// Asserts that `value` is the whole error envelope, `{"error": {code, numeric, message,
/// details?, requestId}}`, with `code` and its numeric, a message, well-formed details when there
/// are any, and a non-empty `requestId` equal to the answer's `X-Request-Id` (`request_id`).
/// Answers the error object.
pub fn assert_error_envelope(value: &Value, request_id: Option<&str>, code: &str) -> Value {
    let top: Vec<&String> = value.as_object().map(|o| o.keys().collect()).unwrap_or_default();
    assert_eq!(top, ["error"], "the body is the error envelope alone: {value}");
    let error = &value["error"];
    let keys = error.as_object().unwrap_or_else(|| panic!("error is not an object: {value}")).keys();
    for key in keys {
        assert!(["code", "numeric", "message", "details", "requestId"].contains(&key.as_str()), "{key} in {value}");
    }
    assert_eq!(error["code"], code, "code of {value}");
    let numeric = ERROR_CODES.iter().find(|(c, _)| *c == code).map(|(_, n)| *n);
    let numeric = numeric.unwrap_or_else(|| panic!("{code} is not an error code of the contract"));
    assert_eq!(error["numeric"].as_u64(), Some(numeric), "numeric of {value}");
    assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()), "message of {value}");
    if let Some(details) = error.get("details") {
        let details = details.as_array().unwrap_or_else(|| panic!("details is not an array: {value}"));
        for detail in details {
            let text = |name: &str| detail[name].as_str().is_some_and(|t| !t.is_empty());
            assert!(detail["path"].is_string() && text("code") && text("message"), "detail {detail} of {value}");
        }
    }
    let id = error["requestId"].as_str().filter(|id| !id.is_empty());
    let id = id.unwrap_or_else(|| panic!("no requestId in {value}"));
    assert_eq!(Some(id), request_id, "the requestId is the answer's X-Request-Id: {value}");
    error.clone()
}

/// The `path` of every detail of an error object.
pub fn detail_paths(error: &Value) -> Vec<String> {
    error["details"]
        .as_array()
        .map(|details| details.iter().map(|d| d["path"].as_str().unwrap_or_default().to_owned()).collect())
        .unwrap_or_default()
}
