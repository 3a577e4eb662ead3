//! `trellis module new|inspect|check`, run as the real binary against the components built from
//! `plugins/`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn trellis(dir: &Path, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_trellis"));
    command.args(args).current_dir(dir);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("TRELLIS_") {
            command.env_remove(name);
        }
    }
    command.output().expect("running trellis")
}

fn plugin(file: &str) -> String {
    PathBuf::from(trellis_plugins_build::DIR).join(file).to_string_lossy().into_owned()
}

fn json_stdout(output: &Output) -> Value {
    let text = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(&text).unwrap_or_else(|_| panic!("stdout is not JSON: {text}"))
}

#[test]
fn module_inspect_prints_the_manifest_as_json() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    // Act
    let output = trellis(dir.path(), &["module", "inspect", &plugin("word_count.wasm")]);
    // Assert
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let manifest = json_stdout(&output);
    assert_eq!(manifest["id"], "word-count");
    assert_eq!(manifest["kind"], "space");
    assert_eq!(manifest["configSchema"]["type"], "object");
    assert!(!dir.path().join("data").exists(), "module tools touch no data directory");
}

#[test]
fn module_check_accepts_a_module_built_for_this_host() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    // Act
    let output = trellis(dir.path(), &["module", "check", &plugin("trellis_hostile.wasm")]);
    // Assert
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let report = json_stdout(&output);
    assert_eq!(report["fits"], true, "{report}");
    assert_eq!(report["world"], "space-module");
    assert_eq!(report["manifest"]["id"], "hostile");
}

#[test]
fn module_check_with_a_configuration_judges_the_deployments_grants() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    let word_count = plugin("word_count.wasm");
    let stingy = dir.path().join("stingy.toml");
    std::fs::write(&stingy, format!("[modules]\nenable = [{{ path = {word_count:?}, grants = [\"logging\"] }}]\n"))
        .unwrap();
    let generous = dir.path().join("generous.toml");
    let grants = r#"grants = ["key-value", "item-read", "logging"]"#;
    std::fs::write(&generous, format!("[modules]\nenable = [{{ path = {word_count:?}, {grants} }}]\n")).unwrap();
    // Act
    let refused = trellis(dir.path(), &["module", "check", &word_count, "--config", &stingy.to_string_lossy()]);
    let granted = trellis(dir.path(), &["module", "check", &word_count, "--config", &generous.to_string_lossy()]);
    // Assert
    assert!(!refused.status.success());
    let report = json_stdout(&refused);
    assert_eq!(report["fits"], false, "{report}");
    let problems = report["problems"].to_string();
    assert!(problems.contains("does not grant") && problems.contains("key-value"), "{report}");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("cannot be loaded"), "not a WIT mismatch");
    assert!(granted.status.success(), "{}", String::from_utf8_lossy(&granted.stdout));
    assert_eq!(json_stdout(&granted)["fits"], true);
}

#[test]
fn module_new_prints_how_to_test_build_and_serve_in_each_language() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    // Act
    let rust = trellis(dir.path(), &["module", "new", "poll"]);
    let js = trellis(dir.path(), &["module", "new", "poll-js", "--lang", "js"]);
    let python = trellis(dir.path(), &["module", "new", "poll-py", "--lang", "python"]);
    // Assert
    let steps = String::from_utf8_lossy(&rust.stderr);
    assert!(rust.status.success() && steps.contains("cargo test-native") && steps.contains("module dev"), "{steps}");
    assert!(steps.contains("--run 'cargo test-native --test scenario'"), "the scenario: {steps}");
    let manifest = std::fs::read_to_string(dir.path().join("poll/Cargo.toml")).unwrap();
    assert!(manifest.contains("git = \"") && manifest.contains("tag = \"sdk-v"), "{manifest}");
    let steps = String::from_utf8_lossy(&js.stderr);
    assert!(js.status.success() && steps.contains("npm test") && steps.contains("module dev"), "{steps}");
    assert!(steps.contains("npm run scenario"), "the scenario: {steps}");
    assert!(dir.path().join("poll-js/package-lock.json").exists());
    let project = std::fs::read_to_string(dir.path().join("poll-js/module.toml")).unwrap();
    assert!(
        project.contains("wasm = \"poll-js.wasm\"") && project.contains("command = \"npm run build\""),
        "{project}"
    );
    let steps = String::from_utf8_lossy(&python.stderr);
    assert!(python.status.success() && steps.contains("unittest") && steps.contains("module dev"), "{steps}");
    assert!(steps.contains("--run '.venv/bin/python tests/scenario.py'"), "the scenario: {steps}");
    assert!(dir.path().join("poll-py/build.sh").exists());
    let project = std::fs::read_to_string(dir.path().join("poll-py/module.toml")).unwrap();
    assert!(project.contains("wasm = \"poll_py.wasm\""), "{project}");
}

#[test]
fn module_check_and_inspect_refuse_a_file_that_is_no_component() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    let bogus = dir.path().join("bogus.wasm");
    std::fs::write(&bogus, b"\0asm not really").unwrap();
    let bogus = bogus.to_string_lossy().into_owned();
    // Act
    let check = trellis(dir.path(), &["module", "check", &bogus]);
    let inspect = trellis(dir.path(), &["module", "inspect", &bogus]);
    let missing = trellis(dir.path(), &["module", "inspect", "nowhere.wasm"]);
    // Assert
    for output in [check, inspect, missing] {
        assert!(!output.status.success());
        assert!(!String::from_utf8_lossy(&output.stderr).trim().is_empty());
    }
}

#[test]
fn module_new_scaffolds_a_crate_and_refuses_to_overwrite() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    // Act
    let created = trellis(dir.path(), &["module", "new", "greeter"]);
    let again = trellis(dir.path(), &["module", "new", "greeter"]);
    let bad = trellis(dir.path(), &["module", "new", "Greeter", "--dir", "elsewhere"]);
    // Assert
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let manifest = std::fs::read_to_string(dir.path().join("greeter/Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"greeter\"") && manifest.contains("trellis-plugin-sdk"), "{manifest}");
    assert!(dir.path().join("greeter/src/lib.rs").exists());
    assert!(!again.status.success(), "an existing crate is never overwritten");
    assert!(!bad.status.success() && !dir.path().join("elsewhere").exists());
}

/// A project whose build is the `word_count.wasm` already built, for `module dev` without a compiler.
fn prebuilt_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(plugin("word_count.wasm"), dir.path().join("word_count.wasm")).unwrap();
    let project = "[build]\ncommand = \"true\"\nwasm = \"word_count.wasm\"\n";
    std::fs::write(dir.path().join("module.toml"), project).unwrap();
    dir
}

/// `trellis module dev --users N --run CMD` in a module's folder, on a free port.
fn trellis_dev_run(dir: &Path, users: u32, run: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_trellis"));
    for (name, _) in std::env::vars_os().filter(|(name, _)| name.to_string_lossy().starts_with("TRELLIS_")) {
        command.env_remove(name);
    }
    let users = users.to_string();
    command.args(["module", "dev", "--listen", "127.0.0.1:0", "--users", &users, "--run", run]).current_dir(dir);
    command
}

/// `module dev --run CMD`: CMD runs in the project folder with the printed assignments and the module's id in
/// its environment; then the server stops, its folder is removed, and dev exits with CMD's status.
#[test]
fn module_dev_run_runs_a_command_against_the_server_and_exits_with_its_status() {
    // Arrange
    let project = prebuilt_project();
    let tmp = tempfile::tempdir().unwrap();
    let line = r#"echo "ran in $(pwd) for $MODULE, ${SPACE:+a space,} ${TOKEN_2:+two users,} at $BASE"; exit 3"#;
    let mut command = trellis_dev_run(project.path(), 2, line);
    command.env("TMPDIR", tmp.path());

    // Act
    let output = command.output().expect("running trellis module dev");

    // Assert
    let report = printed(&output);
    assert_eq!(output.status.code(), Some(3), "{report}");
    let dir = project.path().canonicalize().unwrap();
    let ran = format!("ran in {} for word-count, a space, two users, at http://127.0.0.1:", dir.display());
    assert!(report.contains(&ran), "{report}");
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0, "the dev server's folder is removed");
}

/// `module dev --run CMD` asked to stop (SIGTERM, as Ctrl-C): it stops CMD and what CMD started, then itself.
#[test]
fn module_dev_stops_the_command_it_runs_when_asked_to_stop() {
    // Arrange
    let project = prebuilt_project();
    let line = "sleep 120 & echo $! > sleep.pid; echo started; wait";
    let mut command = trellis_dev_run(project.path(), 1, line);
    let mut child = command.stdout(std::process::Stdio::piped()).spawn().expect("running trellis module dev");
    let lines = printed_lines(child.stdout.take().unwrap());
    let mut child = KillOnDrop(child);
    assert!(wait_for_line(&lines, |line| line == "started").is_some(), "the command ran");
    let sleep = std::fs::read_to_string(project.path().join("sleep.pid")).unwrap();

    // Act
    let dev = rustix::process::Pid::from_raw(i32::try_from(child.0.id()).unwrap()).unwrap();
    rustix::process::kill_process(dev, rustix::process::Signal::TERM).unwrap();
    let started = std::time::Instant::now();
    let status = child.0.wait().unwrap();

    // Assert
    assert!(started.elapsed() < std::time::Duration::from_secs(60), "dev waited for the command");
    assert_eq!(status.code(), Some(128 + 15), "the command's status: stopped by SIGTERM");
    // Gone, or a zombie until it is reaped: not sleeping any more.
    let running = || {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", sleep.trim())).unwrap_or_default();
        stat.rsplit(") ").next().is_some_and(|rest| !rest.is_empty() && !rest.starts_with('Z'))
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while running() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(!running(), "what the command started is stopped too");
}

/// Runs what `trellis module new` writes: the template's own unit tests (`cargo test-native`), then its one
/// build command, checks the component against the host, and runs its poll scenario (`tests/scenario.rs`)
/// through `trellis module dev --run` against the real host. Needs the wasm32-wasip2 target, so it is
/// `#[ignore]`d in plain `cargo test`; `scripts/test` runs it with `--ignored`.
///
/// Offline and quick: the scaffold gets `plugins/Cargo.lock` (the same dependency versions, all already
/// downloaded for plugins/) and builds in the target and build directories of plugins/, whose release profile
/// it shares, so only the new crate itself is compiled for wasm.
#[test]
#[ignore]
fn a_scaffolded_module_passes_its_tests_builds_with_one_command_and_fits_the_host() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("host/ sits in the workspace");
    let sdk = workspace.join("plugin-sdk").to_string_lossy().into_owned();
    let created = trellis(dir.path(), &["module", "new", "greeter", "--dir", "greeter", "--sdk-path", &sdk]);
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    assert!(String::from_utf8_lossy(&created.stderr).contains("cargo test-native"), "the next steps say how to test");
    let crate_dir = dir.path().join("greeter");
    std::fs::copy(workspace.join("plugins/Cargo.lock"), crate_dir.join("Cargo.lock")).unwrap();
    let target_dir = Path::new(trellis_plugins_build::TARGET_DIR);
    let cargo = |args: &[&str]| {
        Command::new(env!("CARGO"))
            .args(args)
            .arg("--offline")
            .current_dir(&crate_dir)
            .env("CARGO_TARGET_DIR", target_dir)
            .env("CARGO_BUILD_BUILD_DIR", trellis_plugins_build::BUILD_DIR)
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            // The scenario skips without a server to call.
            .env_remove("BASE")
            .output()
            .expect("running cargo")
    };

    // Act
    let tests = cargo(&["test-native"]);
    let build = cargo(&["build", "--release"]);

    // Assert
    assert!(tests.status.success(), "{}", String::from_utf8_lossy(&tests.stderr));
    assert!(String::from_utf8_lossy(&tests.stdout).contains("test result: ok. 3 passed"), "the template's tests ran");
    assert!(build.status.success(), "{}", String::from_utf8_lossy(&build.stderr));
    let component = target_dir.join("wasm32-wasip2/release/greeter.wasm");
    let check = trellis(dir.path(), &["module", "check", &component.to_string_lossy()]);
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stdout));
    assert_eq!(json_stdout(&check)["manifest"]["id"], "greeter");

    // The poll scenario, as the next steps say (`--nocapture` shows that it ran rather than skipped).
    let mut scenario = trellis_dev_run(&crate_dir, 20, "cargo test-native --test scenario -- --nocapture");
    scenario.env("CARGO_TARGET_DIR", target_dir).env("CARGO_BUILD_BUILD_DIR", trellis_plugins_build::BUILD_DIR);
    assert_scenario_passes(scenario);
    std::fs::remove_file(&component).ok();
}

/// Runs a module's poll scenario to its end (through `trellis module dev --run`) and asserts that it passed:
/// every vote answered 200 in the end and the totals were exact. Prints how long it took.
fn assert_scenario_passes(mut command: Command) {
    for (name, _) in std::env::vars_os().filter(|(name, _)| name.to_string_lossy().starts_with("TRELLIS_")) {
        command.env_remove(name);
    }
    let started = std::time::Instant::now();
    let output = command
        .env("CARGO_NET_OFFLINE", "true")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .output()
        .expect("running the scenario");
    eprintln!("the scenario through module dev --run: {:.1} s", started.elapsed().as_secs_f64());
    let report = printed(&output);
    assert!(output.status.success() && report.contains("scenario passed: "), "{report}");
}

/// `trellis module check` on a component the test built; its manifest's id is `id`.
fn assert_fits(dir: &Path, component: &Path, id: &str) {
    assert!(component.exists(), "the build wrote {}", component.display());
    let check = trellis(dir, &["module", "check", &component.to_string_lossy()]);
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stdout));
    assert_eq!(json_stdout(&check)["manifest"]["id"], id);
}

/// The output of a tool a test runs, for its failure messages.
fn printed(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

/// How long `module dev` may take to print an awaited line (a build of the module included).
const LINE_WAIT: std::time::Duration = std::time::Duration::from_secs(600);

struct KillOnDrop(std::process::Child);

/// A `trellis module dev` child started in a project folder: its printed lines, the shell assignments it
/// printed (`export BASE=... KEY=... TOKEN=... SPACE=...`), stopped when dropped.
struct DevServer {
    lines: std::sync::mpsc::Receiver<String>,
    exports: String,
    pid: u32,
    _child: KillOnDrop,
}

impl DevServer {
    fn start(dir: &Path, args: &[&str], env: &[(&str, &Path)]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_trellis"));
        for (name, _) in std::env::vars_os().filter(|(name, _)| name.to_string_lossy().starts_with("TRELLIS_")) {
            command.env_remove(name);
        }
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command
            .args(["module", "dev", "--listen", "127.0.0.1:0"])
            .args(args)
            .current_dir(dir)
            .env("CARGO_NET_OFFLINE", "true")
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("running trellis module dev");
        // The server's lines come through a channel, so every wait has a limit; the guard stops the server
        // however the test ends.
        let lines = printed_lines(child.stdout.take().unwrap());
        let pid = child.id();
        let child = KillOnDrop(child);
        let exports =
            wait_for_line(&lines, |line| line.starts_with("export BASE=")).expect("module dev printed exports");
        Self { lines, exports, pid, _child: child }
    }

    /// A variable of the printed assignments.
    fn var(&self, name: &str) -> String {
        let prefix = if name == "BASE" { "export BASE=".to_owned() } else { format!(" {name}=") };
        let start =
            self.exports.find(&prefix).unwrap_or_else(|| panic!("no {name} in {}", self.exports)) + prefix.len();
        self.exports[start..].split_whitespace().next().unwrap().to_owned()
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        self.0.kill().ok();
        self.0.wait().ok();
    }
}

/// Forwards the lines of `stdout` from a thread of their own.
fn printed_lines(stdout: std::process::ChildStdout) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead;
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    receive
}

/// The first line that `wanted` accepts, within [`LINE_WAIT`]; `None` if it never comes.
fn wait_for_line(lines: &std::sync::mpsc::Receiver<String>, wanted: impl Fn(&str) -> bool) -> Option<String> {
    let deadline = std::time::Instant::now() + LINE_WAIT;
    loop {
        let left = deadline.checked_duration_since(std::time::Instant::now())?;
        let line = lines.recv_timeout(left).ok()?;
        if wanted(&line) {
            return Some(line);
        }
    }
}

mod languages;
