//! Running ffmpeg and ffprobe within bounds: no shell, arguments as a list, a deadline after which the
//! child is killed and reaped, and caps on what it may print. Each child is confined
//! ([`Confinement`]): limits set by `prlimit` before the program starts (address space, CPU seconds, no
//! files written, no core dumps, few descriptors), an empty environment, and where bubblewrap runs, a
//! sandbox with no network, no other processes and a read-only view of the system's programs and the one
//! input file.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::Instant;

use wait_timeout::ChildExt;

/// How one child is confined.
pub(crate) struct Confinement<'a> {
    /// The most address space the program may map (`RLIMIT_AS`): its resident memory stays below it.
    pub(crate) memory_bytes: u64,
    /// The most CPU seconds it may use (`RLIMIT_CPU`), beside the wall-clock deadline.
    pub(crate) cpu_seconds: u64,
    /// Whether it runs inside bubblewrap.
    pub(crate) sandboxed: bool,
    /// The one file it may read besides the system's programs (inside the sandbox).
    pub(crate) input: Option<&'a Path>,
    /// Variables set in its otherwise empty environment (besides `PATH`).
    pub(crate) env: &'a [(&'a str, &'a str)],
}

/// Descriptors a child may hold: its pipes, the input, and the libraries it loads.
const MAX_OPEN_FILES: u32 = 64;

impl Confinement<'_> {
    /// The command that runs `program` with `args` confined.
    fn command(&self, program: &str, args: &[OsString]) -> Command {
        let mut command = if self.sandboxed {
            let mut bwrap = Command::new("bwrap");
            bwrap.args(self.sandbox_args());
            bwrap.arg("prlimit");
            bwrap
        } else {
            Command::new("prlimit")
        };
        command
            .arg(format!("--as={}", self.memory_bytes))
            .arg(format!("--cpu={}", self.cpu_seconds.max(1)))
            .args(["--core=0", "--fsize=0", &format!("--nofile={MAX_OPEN_FILES}"), "--", program])
            .args(args);
        // The server's environment holds its database address and storage keys: none of it is passed on.
        command.env_clear().env("PATH", search_path());
        if !self.sandboxed {
            command.envs(self.env.iter().copied());
        }
        command
    }

    /// bubblewrap's arguments: every namespace unshared (no network, no other processes), no
    /// capabilities, the nobody user, and read-only binds of the programs' files and the input.
    fn sandbox_args(&self) -> Vec<OsString> {
        let mut args: Vec<OsString> = [
            "--unshare-all",
            "--die-with-parent",
            "--new-session",
            "--cap-drop",
            "ALL",
            "--uid",
            "65534",
            "--gid",
            "65534",
            "--clearenv",
            "--setenv",
            "PATH",
        ]
        .map(OsString::from)
        .to_vec();
        args.push(search_path());
        for (name, value) in self.env {
            args.extend(["--setenv", name, value].map(OsString::from));
        }
        args.extend(["--ro-bind", "/usr", "/usr", "--dev", "/dev"].map(OsString::from));
        // Merged-/usr systems link these into /usr; older ones keep them as folders of their own.
        for top in ["/bin", "/sbin", "/lib", "/lib32", "/lib64"] {
            match std::fs::read_link(top) {
                Ok(target) => args.extend([OsString::from("--symlink"), target.into_os_string(), top.into()]),
                Err(_) => args.extend(["--ro-bind-try", top, top].map(OsString::from)),
            }
        }
        // The dynamic loader's cache and the alternatives its libraries link through (e.g. libblas).
        for etc in ["/etc/ld.so.cache", "/etc/alternatives"] {
            args.extend(["--ro-bind-try", etc, etc].map(OsString::from));
        }
        if let Some(input) = self.input {
            args.extend([OsString::from("--ro-bind"), input.into(), input.into()]);
        }
        args
    }
}

/// The server's program search path (not secret), or the usual one.
fn search_path() -> OsString {
    std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into())
}

/// The largest resident size, in bytes, that any finished child of this process reached (the kernel's
/// `RUSAGE_CHILDREN`; grandchildren count once their parent reaped them).
pub(crate) fn children_peak_resident_bytes() -> u64 {
    use nix::sys::resource::{UsageWho, getrusage};
    // Linux reports kilobytes.
    getrusage(UsageWho::RUSAGE_CHILDREN).map_or(0, |u| u64::try_from(u.max_rss()).unwrap_or(0) * 1024)
}

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
    /// The program, or what confines it (`prlimit`, `bwrap`), is not installed.
    NotFound,
    /// The deadline passed; the child was killed.
    TimedOut,
    /// Starting or waiting failed otherwise.
    Io(std::io::Error),
}

/// Runs `program` with `args` confined, keeping at most `stdout_cap` bytes of its output, until `deadline`.
pub(crate) fn run(
    program: &str,
    args: &[OsString],
    stdout_cap: usize,
    deadline: Instant,
    confinement: &Confinement<'_>,
) -> Result<Ran, RunError> {
    run_with_input(program, args, None, stdout_cap, deadline, confinement)
}

/// [`run`], with `input` written to the child's standard input (from a thread of its own, so a child that
/// stops reading cannot block us; it gets EOF after the last byte).
pub(crate) fn run_with_input(
    program: &str,
    args: &[OsString],
    input: Option<Vec<u8>>,
    stdout_cap: usize,
    deadline: Instant,
    confinement: &Confinement<'_>,
) -> Result<Ran, RunError> {
    let mut child = confinement
        .command(program, args)
        .stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => RunError::NotFound,
            _ => RunError::Io(e),
        })?;
    if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
        thread::spawn(move || {
            use std::io::Write;
            // A child that exits early closes the pipe: the write fails with EPIPE, which is its business.
            let _ = stdin.write_all(&bytes);
        });
    }
    // Readers on their own threads, so a child filling one pipe never blocks on us while we wait.
    let stdout = child.stdout.take().map(|out| {
        read_on_a_thread(move || {
            let mut buf = Vec::new();
            let mut limited = out.take(stdout_cap as u64 + 1);
            let _ = limited.read_to_end(&mut buf);
            // Dropping the pipe here makes a child that prints on get EPIPE and stop.
            buf
        })
    });
    let stderr = child.stderr.take().map(|err| {
        read_on_a_thread(move || {
            let mut buf = Vec::new();
            let _ = err.take(STDERR_CAP).read_to_end(&mut buf);
            String::from_utf8_lossy(&buf).into_owned()
        })
    });
    let status = wait_until(&mut child, deadline);
    // The pipes close when the child and whatever it started have gone. A sandbox killed while it
    // was still being set up can leave a process behind that holds them (bubblewrap's inner half,
    // orphaned before it could arrange to die with its parent): wait a little, then stop reading.
    let drained = Instant::now() + DRAIN;
    let left = || drained.saturating_duration_since(Instant::now());
    let mut out = stdout.and_then(|r| r.recv_timeout(left()).ok()).unwrap_or_default();
    let err = stderr.and_then(|r| r.recv_timeout(left()).ok()).unwrap_or_default();
    let status = status?;
    // prlimit's answer when it cannot start the program (util-linux's `EX_EXEC_ENOENT`).
    if status.code() == Some(127) {
        return Err(RunError::NotFound);
    }
    let truncated = out.len() > stdout_cap;
    out.truncate(stdout_cap);
    Ok(Ran { stdout: out, truncated, stderr: err, success: status.success() })
}

/// How long the pipes may stay open after the child ended.
const DRAIN: std::time::Duration = std::time::Duration::from_secs(2);

/// Runs `read` on a thread of its own and answers where its result arrives.
fn read_on_a_thread<T: Send + 'static>(read: impl FnOnce() -> T + Send + 'static) -> std::sync::mpsc::Receiver<T> {
    let (sender, receiver) = std::sync::mpsc::channel();
    thread::spawn(move || {
        let _ = sender.send(read());
    });
    receiver
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

    fn plain() -> Confinement<'static> {
        Confinement { memory_bytes: 512 << 20, cpu_seconds: 10, sandboxed: false, input: None, env: &[] }
    }

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(20)
    }

    #[test]
    fn a_child_past_its_deadline_is_killed_and_reaped() {
        // Arrange
        let started = Instant::now();
        // Act
        let ran = run("sleep", &["30".into()], 10, started + Duration::from_millis(200), &plain());
        // Assert: the reaping wait returned long before the 30 s sleep could have ended.
        assert!(matches!(ran, Err(RunError::TimedOut)));
        assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    }

    #[test]
    fn output_past_the_cap_is_cut_and_said_to_be() {
        let ran = run("head", &["-c".into(), "100000".into(), "/dev/zero".into()], 1000, soon(), &plain()).unwrap();
        assert_eq!(ran.stdout.len(), 1000);
        assert!(ran.truncated);
    }

    #[test]
    fn a_missing_program_is_told_apart() {
        let ran = run("trellis-no-such-program", &[], 10, soon(), &plain());
        assert!(matches!(ran, Err(RunError::NotFound)), "{:?}", ran.map(|r| r.stderr));
    }

    #[test]
    fn the_child_sees_no_environment_but_the_search_path() {
        let ran = run("env", &[], 1 << 16, soon(), &plain()).unwrap();
        let names: Vec<&str> =
            std::str::from_utf8(&ran.stdout).unwrap().lines().filter_map(|l| l.split('=').next()).collect();
        assert_eq!(names, ["PATH"]);
    }

    #[test]
    fn the_variables_asked_for_are_set_and_nothing_else() {
        let confinement = Confinement { env: &[("OMP_THREAD_LIMIT", "1")], ..plain() };
        let ran = run("env", &[], 1 << 16, soon(), &confinement).unwrap();
        let mut lines: Vec<&str> = std::str::from_utf8(&ran.stdout).unwrap().lines().collect();
        lines.sort();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[0], "OMP_THREAD_LIMIT=1");
        assert!(lines[1].starts_with("PATH="));
    }

    #[test]
    fn standard_input_reaches_the_child_whole() {
        let input: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let ran = run_with_input("cat", &[], Some(input.clone()), 1 << 20, soon(), &plain()).unwrap();
        assert!(ran.success, "{}", ran.stderr);
        assert_eq!(ran.stdout, input);
    }

    #[test]
    fn a_child_that_maps_more_than_its_bound_fails_instead() {
        // python3 asks for 1 GiB at once; the 512 MiB address-space limit refuses it.
        let script = "import sys\ntry:\n    b = bytearray(1 << 30)\nexcept MemoryError:\n    sys.exit(3)";
        let ran = run("python3", &["-c".into(), script.into()], 10, soon(), &plain()).unwrap();
        // Exit 3 (MemoryError) or killed: either way it never held the gigabyte. (The process-wide
        // children's peak is not asserted: other tests of this binary start children too.)
        assert!(!ran.success, "{}", ran.stderr);
    }

    #[test]
    fn a_sandboxed_child_reads_its_input_and_nothing_else() {
        if !bwrap_runs() {
            eprintln!("skipped: bubblewrap does not run here");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let (input, other) = (dir.path().join("input"), dir.path().join("other"));
        std::fs::write(&input, "mine").unwrap();
        std::fs::write(&other, "secret").unwrap();
        let jail = Confinement { sandboxed: true, input: Some(&input), ..plain() };
        let cat = |path: &Path| run("cat", &[path.into()], 100, soon(), &jail).unwrap();
        assert_eq!(cat(&input).stdout, b"mine");
        assert!(!cat(&other).success);
        assert!(!cat(Path::new("/etc/passwd")).success);
        assert_eq!(run("id", &["-u".into()], 100, soon(), &jail).unwrap().stdout, b"65534\n");
    }

    #[test]
    fn a_sandbox_killed_while_it_starts_does_not_hold_the_call() {
        if !bwrap_runs() {
            eprintln!("skipped: bubblewrap does not run here");
            return;
        }
        // A deadline that passes while bubblewrap sets up: a half left behind may hold the pipes.
        let jail = Confinement { sandboxed: true, ..plain() };
        for _ in 0..10 {
            let started = Instant::now();
            let ran = run("sleep", &["30".into()], 10, started + Duration::from_millis(1), &jail);
            assert!(matches!(ran, Err(RunError::TimedOut)));
            assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
        }
    }

    /// Whether bubblewrap runs here. Under the project's test command (`TEST_REQUIRE_SANDBOX=1`,
    /// set by `scripts/test`, so in CI) it must: a missing sandbox fails instead of skipping.
    fn bwrap_runs() -> bool {
        let runs = Command::new("bwrap").args(["--ro-bind", "/", "/", "true"]).status().is_ok_and(|s| s.success());
        assert!(
            runs || std::env::var_os("TEST_REQUIRE_SANDBOX").is_none(),
            "bubblewrap does not run here and TEST_REQUIRE_SANDBOX is set: install bubblewrap (scripts/setup does)"
        );
        runs
    }
}
