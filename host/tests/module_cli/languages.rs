//! The scaffolds in JavaScript and Python, built and run with their pinned tools, and `module dev`
//! serving a scaffolded module and reloading it after a change.

use super::*;

/// Runs what `trellis module new --lang js` writes: the template's own tests (`npm test`), its build
/// (`npm run build`, componentize-js), the check of the component and its poll scenario (`npm run scenario`,
/// `trellis module dev --run 'node scenario.js'` against the real host). Needs node, npm and the
/// componentize-js that `scripts/setup` installs (`#[ignore]`d; `scripts/test` runs it with `--ignored`).
///
/// Offline and quick: the scaffold's lock file is sdk-js's own (checked here), so instead of its `npm ci`
/// it gets a link to sdk-js/node_modules, which `scripts/setup` installed from that lock.
#[tokio::test]
#[ignore]
async fn a_scaffolded_javascript_module_passes_its_tests_builds_and_fits_the_host() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("host/ sits in the workspace");
    let created = trellis(dir.path(), &["module", "new", "greeter-js", "--lang", "js", "--dir", "greeter-js"]);
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let module_dir = dir.path().join("greeter-js");
    let lock = std::fs::read_to_string(module_dir.join("package-lock.json")).unwrap();
    let sdk_lock = std::fs::read_to_string(workspace.join("sdk-js/package-lock.json")).unwrap();
    assert!(lock.replace(r#""name": "greeter-js""#, r#""name": "trellis-sdk-js""#) == sdk_lock, "the lock is sdk-js's");
    let node_modules = workspace.join("sdk-js/node_modules");
    assert!(
        node_modules.join("@bytecodealliance/componentize-js").is_dir(),
        "run scripts/setup: it installs {}",
        node_modules.display()
    );
    std::os::unix::fs::symlink(&node_modules, module_dir.join("node_modules")).unwrap();
    let npm = |args: &[&str]| Command::new("npm").args(args).current_dir(&module_dir).output().expect("running npm");

    // Act
    let tests = npm(&["test"]);
    let build = npm(&["run", "build"]);

    // Assert
    let report = printed(&tests);
    assert!(tests.status.success(), "{report}");
    assert!(report.contains("# pass 4") && report.contains("# fail 0"), "the template's tests ran: {report}");
    assert!(build.status.success(), "{}", printed(&build));
    assert_fits(dir.path(), &module_dir.join("greeter-js.wasm"), "greeter-js");

    // The poll scenario, as the next steps say: the script calls the `trellis` on PATH; npm passes the
    // arguments after `--` on to it (a free port).
    let bin = Path::new(env!("CARGO_BIN_EXE_trellis")).parent().unwrap().to_owned();
    let path = std::env::join_paths(
        std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let mut scenario = Command::new("npm");
    scenario.args(["run", "scenario", "--", "--listen", "127.0.0.1:0"]).current_dir(&module_dir).env("PATH", path);
    assert_scenario_passes(scenario);

    // `module dev` with no flags: the project's module.toml says how to build it and what to watch; an edit
    // of a watched file reloads it (the compile reuses every function the edit did not change).
    let dev = DevServer::start(&module_dir, &[], &[]);
    let hello = format!("{}/v0/spaces/{}/modules/greeter-js/hello", dev.var("BASE"), dev.var("SPACE"));
    let (key, token) = (dev.var("KEY"), dev.var("TOKEN"));
    // A new connection per call: a kept-alive one to the old server ends with it at the reload.
    let client = reqwest::Client::builder().pool_max_idle_per_host(0).build().unwrap();
    let greet = || async {
        let answer = client.get(&hello).header("X-License-Key", &key).bearer_auth(&token).send().await.unwrap();
        answer.json::<Value>().await.unwrap()["message"].as_str().unwrap_or_default().to_owned()
    };
    assert!(greet().await.starts_with("hello, "));
    let module_js = module_dir.join("module.js");
    let source = std::fs::read_to_string(&module_js).unwrap();
    std::fs::write(&module_js, source.replace("?? 'hello'", "?? 'good day'")).unwrap();
    let timing = wait_for_line(&dev.lines, |line| line.starts_with("built in"));
    assert!(wait_for_line(&dev.lines, |line| line.starts_with("reloaded greeter-js")).is_some(), "no reload");
    eprintln!("reload: {timing:?}");
    assert!(greet().await.starts_with("good day, "), "the edit is served");
    drop(dev);

    // A permission dropped from the manifest: the check names it and the fix.
    let source = std::fs::read_to_string(&module_js).unwrap();
    std::fs::write(&module_js, source.replace("{ tag: 'item-read' }, ", "")).unwrap();
    assert!(npm(&["run", "build"]).status.success());
    let check = trellis(dir.path(), &["module", "check", &module_dir.join("greeter-js.wasm").to_string_lossy()]);
    let report = json_stdout(&check);
    let problems = report["problems"].to_string();
    assert!(!check.status.success() && report["fits"] == false, "{report}");
    assert!(problems.contains("item-read") && problems.contains("tag: 'item-read'"), "{report}");
}

/// Runs what `trellis module new --lang python` writes: the template's own tests, its build (`./build.sh`,
/// componentize-py), the check of the component and its poll scenario (`tests/scenario.py` through
/// `trellis module dev --run` against the real host), in a virtualenv made from the template's
/// `requirements.txt` as the next steps say: `scripts/setup` makes it at ~/.cache/trellis/componentize-py
/// (`#[ignore]`d, as above). Its python runs the tests (so they pass with what the file installs, jsonschema
/// among it), and the build finds componentize-py on `PATH`.
#[test]
#[ignore]
fn a_scaffolded_python_module_passes_its_tests_builds_and_fits_the_host() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    let created = trellis(dir.path(), &["module", "new", "greeter-py", "--lang", "python", "--dir", "greeter-py"]);
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let module_dir = dir.path().join("greeter-py");
    let home = std::env::var_os("HOME").expect("HOME is set");
    let tools = Path::new(&home).join(".cache/trellis/componentize-py/bin");
    assert!(tools.join("componentize-py").exists(), "run scripts/setup: it installs {}", tools.display());
    let python = tools.join("python3");
    let venv = tools.parent().unwrap().to_owned();
    let path = std::env::join_paths(
        std::iter::once(tools).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();

    // Act
    let tests = Command::new(&python).args(["-m", "unittest"]).current_dir(&module_dir).output().expect("python3");
    let build = Command::new("./build.sh").current_dir(&module_dir).env("PATH", &path).output().expect("build.sh");

    // Assert
    let report = printed(&tests);
    assert!(tests.status.success(), "{report}");
    assert!(report.contains("Ran 3 tests") && report.contains("\nOK"), "the template's tests ran: {report}");
    assert!(build.status.success(), "{}", printed(&build));
    assert_fits(dir.path(), &module_dir.join("greeter_py.wasm"), "greeter-py");

    // The poll scenario, with the command the next steps print: that virtualenv stands in for the module's
    // `.venv` (the scenario needs only the standard library; build.sh takes componentize-py from it).
    std::os::unix::fs::symlink(&venv, module_dir.join(".venv")).unwrap();
    assert_scenario_passes(trellis_dev_run(&module_dir, 20, ".venv/bin/python tests/scenario.py"));
}

/// `trellis module dev` on a scaffolded module: serves it with a user and a space, answers its route, and
/// reloads it after a source change without a new URL or token. Needs the wasm32-wasip2 target (`--ignored`).
#[tokio::test]
#[ignore]
async fn module_dev_serves_a_scaffolded_module_and_reloads_it_when_its_source_changes() {
    // Arrange
    let dir = tempfile::tempdir().unwrap();
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("host/ sits in the workspace");
    let sdk = workspace.join("plugin-sdk").to_string_lossy().into_owned();
    // Its own crate name: the other scaffold test builds (and then removes) `greeter.wasm` in the same
    // shared target directory, which raced this test's copy of its rebuilt component.
    let created = trellis(dir.path(), &["module", "new", "greeter-dev", "--dir", "greeter-dev", "--sdk-path", &sdk]);
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let crate_dir = dir.path().join("greeter-dev");
    std::fs::copy(workspace.join("plugins/Cargo.lock"), crate_dir.join("Cargo.lock")).unwrap();
    let target_dir = Path::new(trellis_plugins_build::TARGET_DIR);
    let build_dir = Path::new(trellis_plugins_build::BUILD_DIR);
    // Its own temporary folder, so the test sees what module dev makes there.
    let tmp = tempfile::tempdir().unwrap();
    let dev = DevServer::start(
        &crate_dir,
        &["--users", "2", "--config", r#"{"logEachEvent":true}"#],
        &[("TMPDIR", tmp.path()), ("CARGO_TARGET_DIR", target_dir), ("CARGO_BUILD_BUILD_DIR", build_dir)],
    );
    let (lines, pid) = (&dev.lines, dev.pid);
    let (base, key, token, member, space) =
        (dev.var("BASE"), dev.var("KEY"), dev.var("TOKEN"), dev.var("TOKEN_2"), dev.var("SPACE"));
    let config = wait_for_line(lines, |line| line.starts_with("# the configuration it runs with:"));
    let url = format!("{base}/v0/spaces/{space}/modules/greeter-dev/count");
    // No kept-alive connections: each call below is a new connection, which a reload must not refuse.
    let client = reqwest::Client::builder().pool_max_idle_per_host(0).build().unwrap();
    let get = |token: &str| client.get(&url).header("X-License-Key", &key).bearer_auth(token).send();

    // Act
    let before = get(&token).await.unwrap().text().await.unwrap();
    let as_member = get(&member).await.unwrap().status();
    let lib = crate_dir.join("src/lib.rs");
    let source = std::fs::read_to_string(&lib).unwrap().replace(r#"json!({"count""#, r#"json!({"total""#);
    std::fs::write(&lib, source).unwrap();
    let (done, mut refused) = (std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false)), 0);
    let calling = {
        let (client, url, key, token, done) = (client.clone(), url.clone(), key.clone(), token.clone(), done.clone());
        tokio::spawn(async move {
            let mut refused = 0;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                let call = client.get(&url).header("X-License-Key", &key).bearer_auth(&token).send().await;
                refused += u32::from(call.is_err());
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            refused
        })
    };
    let reloaded = wait_for_line(lines, |line| line.starts_with("reloaded greeter-dev")).is_some();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    refused += calling.await.unwrap();
    let after = get(&token).await.unwrap().text().await.unwrap();

    // Assert
    assert_eq!(before, r#"{"count":0}"#);
    assert_eq!(as_member, reqwest::StatusCode::OK, "the second user is a member of the space");
    assert!(config.is_some_and(|line| line.contains(r#"{"logEachEvent":true}"#)), "--config connected the module");
    assert!(reloaded, "module dev reported the reload");
    assert_eq!(refused, 0, "connections were refused across the reload");
    // Issue 28: its scratch folder (database, license key, PIN mails) has a name nobody could
    // guess and make beforehand, and only its user may enter it.
    let scratch: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().map(|entry| entry.unwrap().path()).collect();
    assert_eq!(scratch.len(), 1, "{scratch:?}");
    let name = scratch[0].file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("trellis-dev-") && name != format!("trellis-dev-{pid}"), "{name}");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&scratch[0]).unwrap().permissions().mode() & 0o777, 0o700, "{name}");
    assert_eq!(after, r#"{"total":0}"#, "the rebuilt module answers at the same URL with the same token");
}
