//! Running ffmpeg and ffprobe within bounds: no shell, arguments as a list, a deadline after which the
//! child is killed and reaped, and caps on what it may print.

use std::ffi::OsString;
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::Instant;

use wait_timeout::ChildExt;

/// The most of a child's error output kept (for messages).
const STDERR_CAP: u64 = 16 << 10;

/// What a finished child left.
pub(crate) struct Ran {
    /// Standard output, at most the cap asked for.
    pub(crate) stdout: Vec<u8>,
    /// Whether it printed more than the cap (then it was cut off).
    pub(crate) truncated: bool,
    /// The start of its error output.
    pub(crate) stderr: String,
    /// Whether it exited with status 0.
    pub(crate) success: bool,
}

#[derive(Debug)]
pub(crate) enum RunError {
    /// The program is not installed.
    NotFound,
    /// The deadline passed; the child was killed.
    TimedOut,
    /// Starting or waiting failed otherwise.
    Io(std::io::Error),
}

/// Runs `program` with `args`, keeping at most `stdout_cap` bytes of its output, until `deadline`.
pub(crate) fn run(program: &str, args: &[OsString], stdout_cap: usize, deadline: Instant) -> Result<Ran, RunError> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => RunError::NotFound,
            _ => RunError::Io(e),
        })?;
    // Readers on their own threads, so a child filling one pipe never blocks on us while we wait.
    let stdout = child.stdout.take().map(|out| {
        thread::spawn(move || {
            let mut buf = Vec::new();
            let mut limited = out.take(stdout_cap as u64 + 1);
            let _ = limited.read_to_end(&mut buf);
            // Dropping the pipe here makes a child that prints on get EPIPE and stop.
            buf
        })
    });
    let stderr = child.stderr.take().map(|err| {
        thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = err.take(STDERR_CAP).read_to_end(&mut buf);
            String::from_utf8_lossy(&buf).into_owned()
        })
    });
    let status = wait_until(&mut child, deadline);
    let mut out = stdout.and_then(|t| t.join().ok()).unwrap_or_default();
    let err = stderr.and_then(|t| t.join().ok()).unwrap_or_default();
    let status = status?;
    let truncated = out.len() > stdout_cap;
    out.truncate(stdout_cap);
    Ok(Ran { stdout: out, truncated, stderr: err, success: status.success() })
}

fn wait_until(child: &mut Child, deadline: Instant) -> Result<std::process::ExitStatus, RunError> {
    let left = deadline.saturating_duration_since(Instant::now());
    match child.wait_timeout(left).map_err(RunError::Io)? {
        Some(status) => Ok(status),
        None => {
            let _ = child.kill();
            let _ = child.wait();
            Err(RunError::TimedOut)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_child_past_its_deadline_is_killed_and_reaped() {
        // Arrange
        let started = Instant::now();
        // Act
        let ran = run("sleep", &["30".into()], 10, started + Duration::from_millis(200));
        // Assert: the reaping wait returned long before the 30 s sleep could have ended.
        assert!(matches!(ran, Err(RunError::TimedOut)));
        assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    }

    #[test]
    fn output_past_the_cap_is_cut_and_said_to_be() {
        let ran = run(
            "head",
            &["-c".into(), "100000".into(), "/dev/zero".into()],
            1000,
            Instant::now() + Duration::from_secs(10),
        )
        .unwrap();
        assert_eq!(ran.stdout.len(), 1000);
        assert!(ran.truncated);
    }

    #[test]
    fn a_missing_program_is_told_apart() {
        let ran = run("trellis-no-such-program", &[], 10, Instant::now() + Duration::from_secs(5));
        assert!(matches!(ran, Err(RunError::NotFound)));
    }
}
