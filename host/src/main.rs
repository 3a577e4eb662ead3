//! The `trellis` binary: parse the command line and configuration, set up logging, run.

use clap::Parser;

// glibc's allocator showed up at ~12% of the CPU profile under write load; mimalloc is faster
// for the many short-lived buffers of JSON and SQL handling.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use trellis::cli::{Cli, Command, ConfigCommand};
use trellis::config::Config;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run(Cli::parse()).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        // The message and its causes, without the backtrace `RUST_BACKTRACE` would add to `Debug`:
        // these are a deployer's errors (a setting, a path), not the program's.
        Err(error) => {
            eprintln!("error: {error}");
            for cause in error.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    // Module tools load the configuration only when they need it (`check` with one, `dev`).
    if let Command::Module { command, common } = cli.command {
        return trellis::cli::module::run(command, &common).await;
    }
    if let Command::Openapi = cli.command {
        println!("{}", serde_json::to_string_pretty(trellis::http::openapi::document())?);
        return Ok(());
    }
    if let Command::Config { command, .. } = &cli.command {
        match command {
            ConfigCommand::Defaults => print!("{}", trellis::config::describe::defaults_toml()),
            ConfigCommand::Show => {
                let layered = trellis::config::layers::load(&cli.command.overrides())?;
                print!("{}", trellis::config::describe::show(&layered));
            }
        }
        return Ok(());
    }
    let config = Config::load(&cli.command.overrides())?;
    init_tracing(&config.log);
    match cli.command {
        Command::Serve { .. } => {
            tracing::info!(config = ?config, "starting");
            let listener = tokio::net::TcpListener::bind(config.listen).await?;
            let state = trellis::prepare(config).await?;
            trellis::serve(state, listener, trellis::shutdown_signal()).await
        }
        command => trellis::cli::run_admin(command, config).await,
    }
}

/// Logs go to standard error, as text or JSON lines.
fn init_tracing(log: &trellis::config::LogConfig) {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_new(&log.filter).unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    if log.format == "json" {
        builder.json().init();
    } else {
        builder.init();
    }
}
