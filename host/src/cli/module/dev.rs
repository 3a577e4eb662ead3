//! `trellis module dev [PATH]`: the author's loop. Builds the module, serves it from a throw-away
//! deployment (SQLite and media in a temp dir, the module granted what it asks for), signs up a user
//! with a space that has it connected, prints how to call it, then rebuilds and reloads it whenever its
//! source changes. The reload starts the embedded server again on the same port and data directory, so the
//! URL, the token and the space stay valid.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use anyhow::Context;
use serde_json::{Value, json};
use trellis_modules::{EnabledModule, Manifest, ModuleKind};

use crate::config::{Config, Overrides};

const PASSWORD: &str = "correct horse 42";

/// What `module dev` was asked to do.
pub struct DevArgs {
    /// The module's crate (or project) directory.
    pub path: PathBuf,
    /// A build command run by `sh -c` in `path`, for modules not built by cargo.
    pub build: Option<String>,
    /// The component the build writes, relative to `path` (needed with `build`).
    pub wasm: Option<PathBuf>,
    /// Where to serve.
    pub listen: SocketAddr,
}

pub async fn run(args: DevArgs) -> anyhow::Result<()> {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new("warn,trellis_modules=info"))
        .with_writer(std::io::stderr)
        .try_init();
    let dir = args.path.canonicalize().with_context(|| format!("no module at {}", args.path.display()))?;
    let built = build(&dir, &args)?;
    // A fresh folder with a random name, made atomically and readable by this user alone: a
    // guessable path could be made beforehand by another local user (a link, or their own folder).
    let scratch =
        tempfile::Builder::new().prefix("trellis-dev-").tempdir().context("creating a private temporary folder")?;
    let data_dir = scratch.path().to_owned();
    let served = data_dir.join("module.wasm");
    std::fs::copy(&built, &served).with_context(|| format!("copying {}", built.display()))?;
    let manifest = trellis_modules::inspect(&served)?;
    // An empty file rather than none: a trellis.toml where the author stands must not shape the dev server.
    let config_file = data_dir.join("dev.toml");
    std::fs::write(&config_file, "")?;
    let overrides =
        Overrides { config_file: Some(config_file), data_dir: Some(data_dir.clone()), listen: Some(args.listen) };
    let mut config = Config::load(&overrides)?;
    let hosts = manifest.asked_hosts().unwrap_or_default().to_vec();
    config.modules.runtime.enable.push(EnabledModule::file(served.clone(), manifest.asked(), hosts));

    let mut addr = args.listen;
    let mut printed = false;
    let mut reloaded = false;
    loop {
        let state = crate::prepare(config.clone()).await?;
        if let Some(refused) = state.modules.host().refused().iter().find(|r| r.entry.contains("module.wasm")) {
            eprintln!("module refused: {}", refused.reason);
        }
        let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| format!("binding {addr}"))?;
        addr = listener.local_addr()?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(crate::serve(state, listener, async move {
            let _ = stopped.await;
        }));
        if !printed {
            let session = setup(&format!("http://{addr}"), &data_dir, &manifest).await?;
            println!("{}", session.describe(&format!("http://{addr}"), &manifest));
            printed = true;
        }
        // Said once the new server listens, so a call made on reading it is answered.
        if reloaded {
            println!("reloaded {} at http://{addr}", manifest.id);
        }
        let quit = watch_and_rebuild(&dir, &args, &served).await?;
        let _ = stop.send(());
        server.await.context("the dev server panicked")??;
        if quit {
            drop(scratch);
            return Ok(());
        }
        reloaded = true;
    }
}

/// Builds the module and answers the component's path.
fn build(dir: &Path, args: &DevArgs) -> anyhow::Result<PathBuf> {
    let mut command = match &args.build {
        Some(line) => {
            let mut command = std::process::Command::new("sh");
            command.arg("-c").arg(line);
            command
        }
        None => {
            let mut command = std::process::Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
            command.args(["build", "--release"]);
            command
        }
    };
    let status = command.current_dir(dir).status().context("running the build")?;
    anyhow::ensure!(status.success(), "the build failed ({status})");
    let wasm = match (&args.wasm, &args.build) {
        (Some(wasm), _) => dir.join(wasm),
        (None, Some(_)) => anyhow::bail!("--build needs --wasm FILE: the component it writes"),
        (None, None) => cargo_wasm(dir)?,
    };
    anyhow::ensure!(wasm.is_file(), "the build wrote no {}", wasm.display());
    Ok(wasm)
}

/// `<target>/wasm32-wasip2/release/<crate name with _>.wasm`.
fn cargo_wasm(dir: &Path) -> anyhow::Result<PathBuf> {
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).context("reading Cargo.toml")?;
    let name = manifest
        .lines()
        .find_map(|line| line.trim().strip_prefix("name = \"").and_then(|rest| rest.strip_suffix('"')))
        .context("Cargo.toml names no package")?;
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| dir.join("target"), PathBuf::from);
    Ok(target.join("wasm32-wasip2/release").join(format!("{}.wasm", name.replace('-', "_"))))
}

/// Waits for a change of the sources, then rebuilds; answers true on Ctrl-C. A failed build is reported
/// and the old module keeps serving.
async fn watch_and_rebuild(dir: &Path, args: &DevArgs, served: &Path) -> anyhow::Result<bool> {
    let mut seen = fingerprint(dir);
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => return Ok(true),
            () = tokio::time::sleep(Duration::from_millis(400)) => {}
        }
        let now = fingerprint(dir);
        if now == seen {
            continue;
        }
        seen = now;
        println!("change seen: rebuilding");
        let dir = dir.to_owned();
        let (build, wasm) = (args.build.clone(), args.wasm.clone());
        let built = tokio::task::spawn_blocking(move || build_again(&dir, build, wasm)).await?;
        match built {
            Ok(wasm) => match trellis_modules::check(&wasm) {
                Ok(report) if report.fits => {
                    std::fs::copy(&wasm, served).context("copying the component")?;
                    return Ok(false);
                }
                Ok(report) => println!("not reloaded, the host would refuse it: {}", report.problems.join("; ")),
                Err(err) => println!("not reloaded: {err:#}"),
            },
            Err(err) => println!("not reloaded: {err:#}"),
        }
    }
}

fn build_again(dir: &Path, build: Option<String>, wasm: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    self::build(dir, &DevArgs { path: dir.to_owned(), build, wasm, listen: SocketAddr::from(([127, 0, 0, 1], 0)) })
}

/// The newest modification time and the number of files outside `target/` and hidden directories.
fn fingerprint(dir: &Path) -> (Option<SystemTime>, usize) {
    let mut newest = None;
    let mut count = 0;
    let mut stack = vec![dir.to_owned()];
    while let Some(next) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&next) else { continue };
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') || name == "target" || name == "node_modules" || name == "__pycache__" {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                stack.push(entry.path());
            } else if !name.ends_with(".wasm") {
                count += 1;
                newest = newest.max(meta.modified().ok());
            }
        }
    }
    (newest, count)
}

/// The throw-away user and space.
struct Session {
    license_key: String,
    token: String,
    space_id: Option<String>,
}

impl Session {
    fn describe(&self, base: &str, manifest: &Manifest) -> String {
        let auth = format!("-H 'X-License-Key: {}' -H 'Authorization: Bearer {}'", self.license_key, self.token);
        let mut text = format!(
            "trellis module dev: {} {} ({}) at {base}\n  license key: {}\n  token:       {}\n",
            manifest.id, manifest.version, manifest.kind, self.license_key, self.token
        );
        match &self.space_id {
            Some(space) => text.push_str(&format!(
                "  space:       {space}\n\n  curl {auth} {base}/v0/spaces/{space}/modules/{id}/\n  curl {auth} -X PUT \
                 -H 'Content-Type: application/json' -d '{{\"modules\":[{{\"moduleId\":\"{id}\",\"config\":{{}}}}]}}' \
                 {base}/v0/spaces/{space}/modules\n",
                id = manifest.id
            )),
            None => text.push_str(&format!("\n  curl {auth} {base}/v0/modules\n")),
        }
        text.push_str("\nwatching the sources: a change rebuilds and reloads the module; Ctrl-C ends");
        text
    }
}

async fn setup(base: &str, data_dir: &Path, manifest: &Manifest) -> anyhow::Result<Session> {
    let license_key = std::fs::read_to_string(data_dir.join("license.key")).context("reading the license key")?;
    let license_key = license_key.trim().to_owned();
    let client = reqwest::Client::new();
    let call = |method: reqwest::Method, path: &str, token: Option<&str>, body: Value| {
        let path = path.to_owned();
        let mut request = client.request(method, format!("{base}{path}")).header("X-License-Key", &license_key);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        async move {
            let response = request.json(&body).send().await.context("calling the dev server")?;
            let status = response.status();
            let answer: Value = response.json().await.unwrap_or(Value::Null);
            anyhow::ensure!(status.is_success(), "{path}: {status} {answer}");
            Ok::<_, anyhow::Error>(answer)
        }
    };
    let email = "dev@example.org";
    let post = reqwest::Method::POST;
    let body = json!({"email": email, "handle": "dev", "fullName": "Module Dev", "displayName": "Dev"});
    let started = call(post.clone(), "/v0/auth/sign-up/start", None, body).await?;
    let signup = started["signupToken"].as_str().context("no signupToken")?.to_owned();
    let pin = read_pin(&data_dir.join("outbox")).await?;
    call(post.clone(), "/v0/auth/sign-up/verify-pin", None, json!({"signupToken": signup, "pin": pin})).await?;
    let completed =
        call(post.clone(), "/v0/auth/sign-up/complete", None, json!({"signupToken": signup, "password": PASSWORD}))
            .await?;
    let token = completed["sessionToken"].as_str().context("no sessionToken")?.to_owned();
    let mut space_id = None;
    if manifest.kind == ModuleKind::Space {
        let space = json!({"name": "dev", "displayName": "Dev space", "summary": ""});
        let space = call(post, "/v0/spaces", Some(&token), space).await?;
        let id = space["spaceId"].as_str().context("no spaceId")?.to_owned();
        let modules = json!({"modules": [{"moduleId": manifest.id, "config": {}}]});
        if let Err(err) = call(reqwest::Method::PUT, &format!("/v0/spaces/{id}/modules"), Some(&token), modules).await {
            eprintln!(
                "the module is not connected (its schema refuses {{}}: connect it with a configuration): {err:#}"
            );
        }
        space_id = Some(id);
    }
    Ok(Session { license_key, token, space_id })
}

/// The PIN of the newest mail in the outbox (the file transport of a server without SMTP).
async fn read_pin(outbox: &Path) -> anyhow::Result<String> {
    for _ in 0..100 {
        let mails = std::fs::read_dir(outbox).map(|dir| dir.filter_map(Result::ok).collect::<Vec<_>>());
        for mail in mails.unwrap_or_default() {
            let text = std::fs::read_to_string(mail.path()).unwrap_or_default();
            if let Some(pin) =
                text.lines().map(str::trim).find(|l| l.len() == 6 && l.bytes().all(|b| b.is_ascii_digit()))
            {
                return Ok(pin.to_owned());
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    anyhow::bail!("no PIN arrived in {}", outbox.display())
}
