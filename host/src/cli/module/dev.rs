//! `trellis module dev [PATH]`: the author's loop. Builds the module, serves it from a throw-away
//! deployment (SQLite and media in a temp dir, the module granted what it asks for), signs up a user
//! with a space that has it connected, prints how to call it, then rebuilds and reloads it whenever its
//! source changes. The reload starts the embedded server again on the same port and data directory, so the
//! URL, the token and the space stay valid. With `--run CMD` it runs CMD against the server instead of
//! watching, then stops and exits with CMD's status.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use trellis_modules::EnabledModule;

use crate::cli::module::dev_run;
use crate::cli::module::dev_session::{self, ModuleConfig};
use crate::cli::module::project::Project;
use crate::config::{Config, Overrides};

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
    /// The global `--config`: the module's configuration (JSON text or a `.json` file), or a TOML file the
    /// dev server's deployment starts from.
    pub config: Option<PathBuf>,
    /// Users to sign up, all members of the space.
    pub users: u32,
    /// A command to run once everything is set up, in place of watching (`--run`).
    pub run: Option<String>,
}

pub async fn run(args: DevArgs) -> anyhow::Result<()> {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new("warn,trellis_modules=info"))
        .with_writer(std::io::stderr)
        .try_init();
    let dir = args.path.canonicalize().with_context(|| format!("no module at {}", args.path.display()))?;
    let project = Project::load(&dir, args.build.clone(), args.wasm.clone())?;
    let code_cache = super::author_cache_dir();
    let built = build(&project)?;
    // A fresh folder with a random name, made atomically and readable by this user alone: a
    // guessable path could be made beforehand by another local user (a link, or their own folder).
    let scratch =
        tempfile::Builder::new().prefix("trellis-dev-").tempdir().context("creating a private temporary folder")?;
    let data_dir = scratch.path().to_owned();
    let served = data_dir.join("module.wasm");
    std::fs::copy(&built, &served).with_context(|| format!("copying {}", built.display()))?;
    let manifest = trellis_modules::inspect_cached(&served, code_cache.as_deref())?;
    let module_config = ModuleConfig::from_arg(args.config.as_deref(), &manifest)?;
    let config = dev_config(&args, &data_dir, &served, &manifest, &module_config, code_cache.as_deref())?;

    let mut state = prepare(&config).await?;
    let mut listener = bind(args.listen)?;
    let addr = listener.local_addr()?;
    let base = format!("http://{addr}");
    let mut printed = false;
    // Made once, so a signal that comes during a rebuild or a reload is not missed.
    let mut asked_to_stop = std::pin::pin!(stop_asked());
    loop {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(crate::serve(state.clone(), listener, async move {
            let _ = stopped.await;
        }));
        if !printed {
            let session = dev_session::setup(&base, &data_dir, &state, &manifest, &module_config, args.users).await?;
            println!("{}", session.describe(&base, &data_dir, &manifest));
            if let Some(line) = &args.run {
                println!("running: {line}");
                let env = session.env(&base, &manifest.id);
                let status = dev_run::run_once(line, &project.dir, env, asked_to_stop.as_mut()).await;
                let _ = stop.send(());
                server.await.context("the dev server panicked")??;
                drop(scratch);
                // CMD's status is dev's: a scenario run by `--run` fails the way CMD does.
                std::process::exit(status?);
            }
            println!("\nwatching the sources: a change rebuilds and reloads the module; Ctrl-C ends");
            printed = true;
        } else {
            // Said once the new server listens, so a call made on reading it is answered.
            println!("reloaded {} at {base}", manifest.id);
        }
        let quit = watch_and_rebuild(&project, &served, code_cache.as_deref(), asked_to_stop.as_mut()).await?;
        if quit {
            let _ = stop.send(());
            server.await.context("the dev server panicked")??;
            drop(scratch);
            return Ok(());
        }
        // The new version is compiled and listening (the port is shared) before the old one stops, so no
        // connection is refused across a reload.
        let next = prepare(&config).await;
        let next_listener = bind(addr);
        let (next, next_listener) = match (next, next_listener) {
            (Ok(next), Ok(next_listener)) => (next, next_listener),
            (Err(err), _) | (_, Err(err)) => {
                let _ = stop.send(());
                server.await.context("the dev server panicked")??;
                return Err(err);
            }
        };
        (state, listener) = (next, next_listener);
        let _ = stop.send(());
        server.await.context("the dev server panicked")??;
    }
}

/// The dev server's deployment: the author's TOML file or an empty one, in the scratch folder, the module
/// enabled with what it asks for, and sign-up limits a single machine signing up every dev user passes.
fn dev_config(
    args: &DevArgs,
    data_dir: &Path,
    served: &Path,
    manifest: &trellis_modules::Manifest,
    module_config: &ModuleConfig,
    code_cache: Option<&Path>,
) -> anyhow::Result<Config> {
    // Without a TOML file of the author's, an empty one: a trellis.toml where the author stands must not
    // shape the dev server.
    let config_file = match &module_config.deployment {
        Some(file) => file.clone(),
        None => {
            let file = data_dir.join("dev.toml");
            std::fs::write(&file, "")?;
            file
        }
    };
    let overrides =
        Overrides { config_file: Some(config_file), data_dir: Some(data_dir.to_owned()), listen: Some(args.listen) };
    let mut config = Config::load(&overrides)?;
    // The code `inspect` and every reload's check compile is what the server then loads, not compiles again.
    if let Some(cache) = code_cache {
        config.modules.runtime.cache_dir = Some(cache.to_owned());
    }
    let hosts = manifest.asked_hosts().unwrap_or_default().to_vec();
    config.modules.runtime.enable.push(EnabledModule::file(served.to_owned(), manifest.asked(), hosts));
    // One machine signs up every dev user: the per-address limits of a public server would stop it.
    config.rate_limits.mail_per_address = config.rate_limits.mail_per_address.max(10_000);
    config.rate_limits.pin_per_address = config.rate_limits.pin_per_address.max(10_000);
    Ok(config)
}

/// A listener on `addr` that a second one may share (`SO_REUSEPORT`), for the overlap of a reload.
fn bind(addr: SocketAddr) -> anyhow::Result<tokio::net::TcpListener> {
    let socket = if addr.is_ipv4() { tokio::net::TcpSocket::new_v4()? } else { tokio::net::TcpSocket::new_v6()? };
    socket.set_reuseaddr(true)?;
    socket.set_reuseport(true)?;
    socket.bind(addr).with_context(|| format!("binding {addr}"))?;
    Ok(socket.listen(1024)?)
}

/// The deployment's state, saying so when the host refused the module.
async fn prepare(config: &Config) -> anyhow::Result<crate::state::AppState> {
    let state = crate::prepare(config.clone()).await?;
    if let Some(refused) = state.modules.host().refused().iter().find(|r| r.entry.contains("module.wasm")) {
        eprintln!("module refused: {}", refused.reason);
    }
    Ok(state)
}

/// Builds the module and answers the component's path.
fn build(project: &Project) -> anyhow::Result<PathBuf> {
    let mut command = match &project.command {
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
    let status = command.current_dir(&project.dir).status().context("running the build")?;
    anyhow::ensure!(status.success(), "the build failed ({status})");
    let wasm = project.component()?;
    anyhow::ensure!(wasm.is_file(), "the build wrote no {}", wasm.display());
    Ok(wasm)
}

/// Ctrl-C or SIGTERM: either stops the dev server the same way, removing its temporary folder. The
/// handlers are installed when this is called, so a signal that comes before the first poll counts too.
fn stop_asked() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let signals = {
        use tokio::signal::unix::{SignalKind, signal};
        (signal(SignalKind::interrupt()).ok(), signal(SignalKind::terminate()).ok())
    };
    async move {
        #[cfg(unix)]
        if let (Some(mut interrupt), Some(mut terminate)) = signals {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
            return;
        }
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Waits for a change of the sources, then rebuilds; answers true on Ctrl-C or SIGTERM. A failed build is
/// reported and the old module keeps serving.
async fn watch_and_rebuild(
    project: &Project,
    served: &Path,
    code_cache: Option<&Path>,
    mut stop: std::pin::Pin<&mut impl std::future::Future<Output = ()>>,
) -> anyhow::Result<bool> {
    let mut seen = project.fingerprint();
    loop {
        tokio::select! {
            () = stop.as_mut() => return Ok(true),
            () = tokio::time::sleep(Duration::from_millis(400)) => {}
        }
        let now = project.fingerprint();
        if now == seen {
            continue;
        }
        seen = now;
        println!("change seen: rebuilding");
        let started = Instant::now();
        let (to_build, cache) = (project.clone(), code_cache.map(Path::to_owned));
        let checked = tokio::task::spawn_blocking(move || {
            let wasm = build(&to_build)?;
            let built = started.elapsed();
            trellis_modules::check_cached(&wasm, cache.as_deref()).map(|report| (wasm, report, built))
        });
        match checked.await? {
            Ok((wasm, report, built)) => match report {
                report if report.fits => {
                    // Like a failed build, a component that cannot be copied (removed by another build
                    // meanwhile, say) leaves the old module serving until the next change.
                    if let Err(err) = std::fs::copy(&wasm, served) {
                        println!("not reloaded: copying {}: {err}", wasm.display());
                        continue;
                    }
                    println!(
                        "built in {:.1} s, compiled in {:.1} s",
                        built.as_secs_f64(),
                        (started.elapsed() - built).as_secs_f64()
                    );
                    return Ok(false);
                }
                report => println!("not reloaded, the host would refuse it: {}", report.problems.join("; ")),
            },
            Err(err) => println!("not reloaded: {err:#}"),
        }
    }
}
