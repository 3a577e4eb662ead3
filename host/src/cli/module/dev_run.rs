//! `trellis module dev --run CMD`: runs CMD once against the served module in place of watching its sources,
//! so a scenario test (or CI) gets a server, signed-up users and a connected space for exactly as long as it
//! runs, and `module dev` exits with its status.

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::pin::Pin;
use std::time::Duration;

use anyhow::Context;
use rustix::process::{Pid, Signal, kill_process_group};

/// How long a command asked to stop (SIGTERM) has before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// Runs `line` with `sh -c` in `dir`, `env` added to its environment and its output streamed; stops it when
/// `stop` completes first. Answers its exit status (128 + the signal when a signal ended it).
pub async fn run_once(
    line: &str,
    dir: &Path,
    env: Vec<(String, String)>,
    stop: Pin<&mut impl Future<Output = ()>>,
) -> anyhow::Result<i32> {
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .envs(env)
        .stdin(std::process::Stdio::null())
        // A group of its own: stopping it stops what it started too (cargo's test binary, node, python),
        // not only the shell.
        .process_group(0)
        .spawn()
        .with_context(|| format!("running {line}"))?;
    let group = Pid::from_raw(i32::try_from(child.id()).context("a process id out of range")?);
    let mut waited = tokio::task::spawn_blocking(move || child.wait());
    let status = tokio::select! {
        status = &mut waited => status?,
        () = stop => {
            signal(group, Signal::TERM);
            match tokio::time::timeout(STOP_GRACE, &mut waited).await {
                Ok(status) => status?,
                Err(_) => {
                    signal(group, Signal::KILL);
                    waited.await?
                }
            }
        }
    }
    .with_context(|| format!("waiting for {line}"))?;
    Ok(status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0)))
}

/// Signals the command's process group (gone already is fine).
fn signal(group: Option<Pid>, signal: Signal) {
    if let Some(group) = group {
        let _ = kill_process_group(group, signal);
    }
}
