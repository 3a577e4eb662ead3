//! The real `trellis` binary run once as a command, for tests of the command line.

// Each test binary that includes this uses only part of it.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// Runs `trellis <args>` from inside `dir` (so no `trellis.toml` of the surroundings is read) with no
/// `TRELLIS_*` variable of the surroundings but `env`.
pub fn trellis(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_trellis"));
    command.args(args).current_dir(dir);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("TRELLIS_") {
            command.env_remove(name);
        }
    }
    command.envs(env.iter().copied()).output().expect("running trellis")
}

/// What the command wrote to standard error.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
