//! `trellis config defaults` and `trellis config show`, and how the real binary reports a setting that
//! names nothing, run as a child process with a controlled environment.

use crate::support::command;

use std::process::Output;

use command::trellis;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_defaults_file_reads_back_with_every_value_a_default() {
    let dir = tempfile::tempdir().unwrap();
    let defaults = trellis(dir.path(), &["config", "defaults"], &[]);
    assert!(defaults.status.success(), "{}", text(&defaults.stderr));
    std::fs::write(dir.path().join("all.toml"), &defaults.stdout).unwrap();
    let from_file = trellis(dir.path(), &["config", "show", "--config", "all.toml"], &[]);
    let from_defaults = trellis(dir.path(), &["config", "show"], &[]);
    assert!(from_file.status.success(), "{}", text(&from_file.stderr));
    let values = |output: &Output| -> Vec<String> {
        text(&output.stdout).lines().map(|line| line.split("  #").next().unwrap().to_owned()).collect()
    };
    assert_eq!(values(&from_file), values(&from_defaults), "the file holds the defaults");
    assert!(text(&from_file.stdout).contains("listen = \"127.0.0.1:8080\"  # file all.toml"));
}

#[test]
fn show_names_each_origin_and_redacts_secrets() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("trellis.toml"),
        "[media.s3]\nsecret_key = \"s3-SECRET\"\n[http]\njson_body_limit = 2048\n\
         [analysis.step_config.tagger]\nhooks = [\"https://hooks.example/services/hook-SECRET\"]\n\
         signing = [{ private_pem = \"pem-SECRET\", passphrase = \"pass-SECRET\" }]\nthreshold = 0.5\n",
    )
    .unwrap();
    let shown = trellis(
        dir.path(),
        &["config", "show", "--data-dir", "elsewhere"],
        &[
            ("TRELLIS_DATABASE__URL", "postgres://u:pg-SECRET@db/x"),
            ("TRELLIS_METRICS__TOKEN", "metrics-SECRET-0123456789"),
        ],
    );
    assert!(shown.status.success(), "{}", text(&shown.stderr));
    let shown = text(&shown.stdout);
    assert!(!shown.contains("SECRET"), "{shown}");
    assert!(shown.contains("http.json_body_limit = 2048  # file trellis.toml"), "{shown}");
    assert!(shown.contains("media.s3.secret_key = \"<redacted>\"  # file trellis.toml"), "{shown}");
    assert!(shown.contains("metrics.token = \"<redacted>\"  # environment TRELLIS_METRICS__TOKEN"), "{shown}");
    assert!(shown.contains("data_dir = \"elsewhere\"  # flag --data-dir"), "{shown}");
    assert!(shown.contains("http.write_timeout_seconds = 30  # default"), "{shown}");
    // A module's configuration (Security III, finding 8): its numbers show, none of its text.
    assert!(shown.contains("analysis.step_config.tagger.threshold = 0.5  # file trellis.toml"), "{shown}");
}

/// `cargo run` hands the build scripts' variables to the server; they are not settings, and what is
/// not a setting under `TRELLIS_` is named with where it came from.
#[test]
fn build_variables_pass_and_an_unknown_setting_names_its_variable_or_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let build_env = [("BUNDLED_MODULES_DIR", "/b"), ("PLUGINS_BUILD_DIR", "/p"), ("TRELLIS_MODELS_DIR", "/m")];
    let fine = trellis(dir.path(), &["config", "show"], &build_env);
    assert!(fine.status.success(), "{}", text(&fine.stderr));

    std::fs::write(dir.path().join("site.toml"), "[http]\njson_body_limt = 1\n").unwrap();
    let refused = trellis(
        dir.path(),
        &["migrate", "--config", "site.toml", "--data-dir", "data"],
        &[("TRELLIS_BUNDLED_DIR", "/x"), ("TRELLIS_JOBS__LEASE_SECONDS", "soon")],
    );
    assert!(!refused.status.success());
    let message = text(&refused.stderr);
    assert!(message.contains("site.toml: `http.json_body_limt` is not a setting"), "{message}");
    assert!(message.contains("environment variable TRELLIS_BUNDLED_DIR names no setting"), "{message}");
    assert!(message.contains("`jobs.lease_seconds` (environment TRELLIS_JOBS__LEASE_SECONDS)"), "{message}");
    assert!(!message.contains("backtrace"), "{message}");
    assert!(!dir.path().join("data").exists(), "nothing is written when the settings are wrong");
}
