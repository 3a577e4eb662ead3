//! `module.toml`: a module project's own build settings, kept beside its sources as `spin.toml` keeps Spin's,
//! so `trellis module dev` and `trellis module check` need no flags. Every path in it is relative to its folder.
//!
//! ```toml
//! [build]
//! command = "npm run build"      # run by `sh -c` in the project folder; without it, `cargo build --release`
//! wasm = "poll.wasm"             # the component the command writes (required with `command`)
//! watch = ["*.js", "wit/**/*.wit", "package.json"]   # what `module dev` rebuilds on (default: every file)
//! ```

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::Context;
use serde::Deserialize;

/// The file's name in a module project.
pub const FILE_NAME: &str = "module.toml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProjectFile {
    #[serde(default)]
    build: BuildTable,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct BuildTable {
    command: Option<String>,
    wasm: Option<PathBuf>,
    #[serde(default)]
    watch: Vec<String>,
}

/// How to build a module project and what to watch, from its `module.toml` and the command line's flags
/// (a flag wins over the file).
#[derive(Debug, Clone)]
pub struct Project {
    /// The project folder (canonical).
    pub dir: PathBuf,
    /// A shell command; `None` builds with cargo.
    pub command: Option<String>,
    /// The component the build writes, relative to `dir`; `None` with cargo finds cargo's output.
    pub wasm: Option<PathBuf>,
    /// Glob patterns of the sources; empty watches every file but build output.
    watch: Vec<glob::Pattern>,
}

impl Project {
    /// Reads `dir/module.toml` when present, then applies the flags.
    pub fn load(dir: &Path, command: Option<String>, wasm: Option<PathBuf>) -> anyhow::Result<Self> {
        let file = dir.join(FILE_NAME);
        let table = match std::fs::read_to_string(&file) {
            Ok(text) => {
                toml::from_str::<ProjectFile>(&text).with_context(|| format!("{} is not valid", file.display()))?.build
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => BuildTable::default(),
            Err(err) => return Err(err).with_context(|| format!("reading {}", file.display())),
        };
        let watch = table
            .watch
            .iter()
            .map(|pattern| {
                anyhow::ensure!(
                    !pattern.starts_with('/') && !pattern.split('/').any(|part| part == ".."),
                    "{FILE_NAME}: watch pattern {pattern:?} must stay inside the project folder"
                );
                glob::Pattern::new(pattern)
                    .with_context(|| format!("{FILE_NAME}: watch pattern {pattern:?} is not a glob"))
            })
            .collect::<anyhow::Result<_>>()?;
        let from_flags = command.is_some();
        let command = command.or(table.command);
        let wasm = if from_flags { wasm } else { wasm.or(table.wasm) };
        if command.is_some() && wasm.is_none() {
            anyhow::bail!(
                "a build command needs the component it writes: --wasm FILE, or wasm = \"FILE\" under [build] in {FILE_NAME}"
            );
        }
        Ok(Self { dir: dir.to_owned(), command, wasm, watch })
    }

    /// The component the build writes: `wasm`, or with cargo `<target>/wasm32-wasip2/release/<crate>.wasm`.
    pub fn component(&self) -> anyhow::Result<PathBuf> {
        match (&self.wasm, &self.command) {
            (Some(wasm), _) => Ok(self.dir.join(wasm)),
            (None, None) => cargo_wasm(&self.dir),
            (None, Some(_)) => anyhow::bail!("a build command needs the component it writes (wasm = \"FILE\")"),
        }
    }

    /// The newest modification time and the number of watched files: a change of either means the sources
    /// changed (an edit, a new file or a removed one).
    pub fn fingerprint(&self) -> (Option<SystemTime>, usize) {
        let mut newest = None;
        let mut count = 0;
        let mut stack = vec![self.dir.clone()];
        while let Some(next) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&next) else { continue };
            for entry in entries.filter_map(Result::ok) {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if is_never_watched(&name) {
                    continue;
                }
                let Ok(meta) = entry.metadata() else { continue };
                if meta.is_dir() {
                    stack.push(entry.path());
                } else if self.watches(&entry.path()) {
                    count += 1;
                    newest = newest.max(meta.modified().ok());
                }
            }
        }
        (newest, count)
    }

    fn watches(&self, path: &Path) -> bool {
        let Ok(relative) = path.strip_prefix(&self.dir) else { return false };
        if self.watch.is_empty() {
            return relative.extension().is_none_or(|ext| ext != "wasm");
        }
        let options = glob::MatchOptions { require_literal_separator: true, ..glob::MatchOptions::new() };
        self.watch.iter().any(|pattern| pattern.matches_path_with(relative, options))
    }
}

/// `<target>/wasm32-wasip2/release/<crate name with _>.wasm`, where cargo writes a crate's component.
fn cargo_wasm(dir: &Path) -> anyhow::Result<PathBuf> {
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).context("reading Cargo.toml")?;
    let name = manifest
        .lines()
        .find_map(|line| line.trim().strip_prefix("name = \"").and_then(|rest| rest.strip_suffix('"')))
        .context("Cargo.toml names no package")?;
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| dir.join("target"), PathBuf::from);
    Ok(target.join("wasm32-wasip2/release").join(format!("{}.wasm", name.replace('-', "_"))))
}

/// Build output, dependencies and hidden folders: never sources, and often large.
fn is_never_watched(name: &str) -> bool {
    name.starts_with('.') || matches!(name, "target" | "node_modules" | "__pycache__")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(toml: &str) -> (tempfile::TempDir, anyhow::Result<Project>) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE_NAME), toml).unwrap();
        let project = Project::load(dir.path(), None, None);
        (dir, project)
    }

    #[test]
    fn the_file_gives_the_command_the_component_and_what_to_watch() {
        let (dir, project) = project(
            "[build]\ncommand = \"npm run build\"\nwasm = \"poll.wasm\"\nwatch = [\"*.js\", \"wit/**/*.wit\"]\n",
        );
        let project = project.unwrap();
        assert_eq!(project.command.as_deref(), Some("npm run build"));
        assert_eq!(project.wasm.as_deref(), Some(Path::new("poll.wasm")));
        std::fs::create_dir_all(dir.path().join("wit/deps")).unwrap();
        for file in ["app.js", "wit/world.wit", "wit/deps/x.wit", "README.md", "poll.wasm", "sdk/trellis.js"] {
            std::fs::create_dir_all(dir.path().join(file).parent().unwrap()).unwrap();
            std::fs::write(dir.path().join(file), "x").unwrap();
        }
        // `*.js` matches at the top only (a literal separator); `**` crosses folders.
        assert_eq!(project.fingerprint().1, 3);
    }

    #[test]
    fn flags_win_over_the_file_and_without_a_file_cargo_builds() {
        let (dir, _) = project("[build]\ncommand = \"./build.sh\"\nwasm = \"a.wasm\"\n");
        let project = Project::load(dir.path(), Some("make".into()), Some("b.wasm".into())).unwrap();
        assert_eq!((project.command.as_deref(), project.wasm.as_deref()), (Some("make"), Some(Path::new("b.wasm"))));
        let crate_dir = tempfile::tempdir().unwrap();
        std::fs::write(crate_dir.path().join("Cargo.toml"), "[package]\nname = \"my-poll\"\n").unwrap();
        let project = Project::load(crate_dir.path(), None, None).unwrap();
        assert!(project.command.is_none() && project.wasm.is_none());
        // Cargo's component, unless CARGO_TARGET_DIR moves it.
        assert!(project.component().unwrap().ends_with("wasm32-wasip2/release/my_poll.wasm"));
    }

    #[test]
    fn mistakes_in_the_file_are_named() {
        for (toml, says) in [
            ("[build]\ncommand = \"make\"\n", "needs the component it writes"),
            ("[build]\nwatch = [\"../secrets/*\"]\n", "must stay inside the project folder"),
            ("[build]\nwatch = [\"[a\"]\n", "is not a glob"),
            ("[build]\nwach = []\n", "is not valid"),
        ] {
            let (_dir, project) = project(toml);
            let err = format!("{:#}", project.unwrap_err());
            assert!(err.contains(says), "{toml}: {err}");
        }
    }
}
