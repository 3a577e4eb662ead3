//! `trellis module new|inspect|check|dev`: tools for module authors. `new` and `inspect` need no
//! configuration and no database; `check` reads the configuration when one is given (or present) to judge
//! the grants; `dev` runs a throw-away server of its own.

pub mod check;
pub mod dev;
pub mod dev_run;
pub mod dev_session;
pub mod new;
pub mod new_js;
pub mod new_python;
pub mod project;

use std::path::PathBuf;

use clap::{Subcommand, ValueEnum};

use super::Common;
use crate::config::{Config, Overrides};

#[derive(Debug, Subcommand)]
pub enum ModuleCommand {
    /// Create a module project from a template, then print the next steps (test, build, check, dev).
    New {
        /// Crate name and module id: a lowercase letter, then up to 63 of a-z, 0-9 and `-`.
        name: String,
        /// Directory to create [default: ./NAME]
        #[arg(long)]
        dir: Option<PathBuf>,
        /// The language of the module.
        #[arg(long, value_enum, default_value_t = Lang::Rust)]
        lang: Lang,
        /// Depend on the SDK at this local path (e.g. `plugin-sdk/` of a checkout) instead of git.
        #[arg(long, alias = "sdk")]
        sdk_path: Option<PathBuf>,
        /// The git repository of the SDK; the scaffold depends on its tag `sdk-v<SDK version>`.
        #[arg(long, default_value = new::SDK_REPOSITORY)]
        sdk_git: String,
    },
    /// Print a component's manifest as JSON.
    Inspect { file: PathBuf },
    /// Say whether a component can be loaded (report as JSON): it fits this host's WIT, its manifest is valid,
    /// and, with a configuration (`--config`, or ./trellis.toml when present), the deployment grants what it
    /// imports. Exits non-zero when it cannot be loaded. FILE may be a project folder: the component its
    /// module.toml names, or cargo's.
    Check { file: PathBuf },
    /// Build a module, serve it from a throw-away deployment with a signed-up user and a space it is connected
    /// to, print how to call it, and rebuild and reload it whenever its sources change (or, with `--run`, run a
    /// command against it and exit with its status).
    Dev {
        /// The module's crate or project directory.
        #[arg(default_value = ".")]
        path: PathBuf,
        /// Build with this shell command instead of the project's module.toml `[build] command`, or else
        /// `cargo build --release`.
        #[arg(long, requires = "wasm")]
        build: Option<String>,
        /// The component the build writes, relative to PATH (module.toml's `[build] wasm` otherwise).
        #[arg(long)]
        wasm: Option<PathBuf>,
        /// Address to serve on [default: 127.0.0.1:8787; port 0 picks a free one]
        #[arg(long, default_value = "127.0.0.1:8787")]
        listen: std::net::SocketAddr,
        /// Users to sign up, all members of the space (printed as TOKEN, TOKEN_2, ...). The global
        /// `--config` gives the module's configuration here: JSON text or a .json file (default: its
        /// schema's defaults); a .toml file is the dev server's deployment configuration instead.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=200))]
        users: u32,
        /// Once the module is served and its users and space are set up, run this shell command in PATH
        /// with BASE, KEY, MODULE, SPACE, TOKEN, TOKEN_2 ... in its environment, instead of watching the
        /// sources; then stop, and exit with the command's status (e.g. a scenario test).
        #[arg(long, value_name = "CMD")]
        run: Option<String>,
    },
}

/// Languages `module new` writes templates for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Lang {
    Rust,
    Js,
    Python,
}

pub async fn run(command: ModuleCommand, common: &Common) -> anyhow::Result<()> {
    match command {
        ModuleCommand::New { name, dir, lang, sdk_path, sdk_git } => {
            let dir = dir.unwrap_or_else(|| PathBuf::from(&name));
            match lang {
                Lang::Rust => {
                    let sdk = match &sdk_path {
                        Some(path) => new::SdkSource::Path(path),
                        None => new::SdkSource::Git(&sdk_git),
                    };
                    new::scaffold(&name, &dir, sdk)?;
                    eprintln!("{}", new::next_steps(&name, &dir));
                }
                Lang::Js => {
                    new_js::scaffold_js(&name, &dir)?;
                    eprintln!("{}", new_js::next_steps(&name, &dir));
                }
                Lang::Python => {
                    new_python::scaffold_python(&name, &dir)?;
                    eprintln!("{}", new_python::next_steps(&name, &dir));
                }
            }
            Ok(())
        }
        ModuleCommand::Dev { path, build, wasm, listen, users, run } => {
            dev::run(dev::DevArgs { path, build, wasm, listen, config: common.config.clone(), users, run }).await
        }
        ModuleCommand::Inspect { file } => {
            let manifest = trellis_modules::inspect_cached(&file, author_cache_dir().as_deref())?;
            println!("{}", serde_json::to_string_pretty(&manifest)?);
            Ok(())
        }
        ModuleCommand::Check { file } => {
            let file = component_of(&file)?;
            let mut report = trellis_modules::check_cached(&file, author_cache_dir().as_deref())?;
            let config_name = match &common.config {
                Some(path) => Some(path.display().to_string()),
                None if std::path::Path::new("trellis.toml").exists() => Some("trellis.toml".to_owned()),
                None => None,
            };
            if let Some(config_name) = config_name {
                let overrides =
                    Overrides { config_file: common.config.clone(), data_dir: common.data_dir.clone(), listen: None };
                let config = Config::load(&overrides)?;
                check::judge_grants(&mut report, &file, &config, &config_name);
            }
            println!("{}", serde_json::to_string_pretty(&report)?);
            anyhow::ensure!(report.fits, "{}", check::verdict(&report, &file));
            Ok(())
        }
    }
}

/// Compiled code that `module check`, `module inspect` and `module dev` share (`$XDG_CACHE_HOME/trellis/modules`,
/// else `~/.cache/trellis/modules`), so the server `dev` starts loads what a check compiled, and a rebuilt
/// module compiles only its changed functions. `None` (no cache) when neither variable is set.
pub fn author_cache_dir() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_CACHE_HOME").filter(|dir| !dir.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("HOME").filter(|dir| !dir.is_empty())?).join(".cache"),
    };
    Some(base.join("trellis").join("modules"))
}

/// `check`'s argument: a component, or a project folder (the component its `module.toml` names, or cargo's).
fn component_of(path: &std::path::Path) -> anyhow::Result<PathBuf> {
    if !path.is_dir() {
        return Ok(path.to_owned());
    }
    project::Project::load(path, None, None)?.component()
}
