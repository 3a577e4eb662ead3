//! `trellis module new|inspect|check`: tools for module authors. They need no configuration and no
//! database.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use anyhow::Context;
use clap::Subcommand;
use regex::Regex;

#[derive(Debug, Subcommand)]
pub enum ModuleCommand {
    /// Create a module crate from the SDK's template; `cargo build --release` in it builds the
    /// component.
    New {
        /// Crate name and module id: a lowercase letter, then up to 63 of a-z, 0-9 and `-`.
        name: String,
        /// Directory to create [default: ./NAME]
        #[arg(long)]
        dir: Option<PathBuf>,
        /// The module SDK crate to depend on [default: the SDK this binary was built with, when present]
        #[arg(long)]
        sdk: Option<PathBuf>,
    },
    /// Print a component's manifest as JSON.
    Inspect { file: PathBuf },
    /// Say whether a component fits this host's WIT (report as JSON); exits non-zero when it does not.
    Check { file: PathBuf },
}

/// The template files, as `(path in the new crate, text)`.
const TEMPLATE: [(&str, &str); 4] = [
    ("Cargo.toml", include_str!("../../../plugin-sdk/template/Cargo.toml.tmpl")),
    ("README.md", include_str!("../../../plugin-sdk/template/README.md")),
    ("src/lib.rs", include_str!("../../../plugin-sdk/template/src/lib.rs")),
    (".cargo/config.toml", include_str!("../../../plugin-sdk/template/.cargo/config.toml")),
];

/// Where the SDK was when this binary was built.
const BUILT_SDK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../plugin-sdk");

static NAME: LazyLock<Regex> = LazyLock::new(|| Regex::new("^[a-z][a-z0-9-]{0,63}$").expect("valid regex"));

pub fn run(command: ModuleCommand) -> anyhow::Result<()> {
    match command {
        ModuleCommand::New { name, dir, sdk } => {
            let dir = dir.unwrap_or_else(|| PathBuf::from(&name));
            scaffold(&name, &dir, sdk.as_deref())?;
            eprintln!("created module {name} in {}; build it with `cargo build --release` there", dir.display());
            Ok(())
        }
        ModuleCommand::Inspect { file } => {
            let manifest = trellis_modules::inspect(&file)?;
            println!("{}", serde_json::to_string_pretty(&manifest)?);
            Ok(())
        }
        ModuleCommand::Check { file } => {
            let report = trellis_modules::check(&file)?;
            println!("{}", serde_json::to_string_pretty(&report)?);
            anyhow::ensure!(report.fits, "{} does not fit this host's WIT ({})", file.display(), report.package);
            Ok(())
        }
    }
}

/// Writes the template into `dir` (which must not exist, or be empty) with `name` filled in.
pub fn scaffold(name: &str, dir: &Path, sdk: Option<&Path>) -> anyhow::Result<()> {
    anyhow::ensure!(
        NAME.is_match(name),
        "the name {name:?} must be a lowercase letter followed by up to 63 of a-z, 0-9 and -"
    );
    if dir.exists() {
        let mut entries = std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
        anyhow::ensure!(entries.next().is_none(), "{} exists and is not empty", dir.display());
    }
    let dependency = sdk_dependency(sdk)?;
    for (path, text) in TEMPLATE {
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        let text = text.replace("{{name}}", name).replace("{{sdk_dependency}}", &dependency);
        std::fs::write(&target, text).with_context(|| format!("writing {}", target.display()))?;
    }
    Ok(())
}

/// The `trellis-plugin-sdk = ...` line: a path to the given SDK, else to the SDK this binary was
/// built from, else the released crate of this version.
fn sdk_dependency(sdk: Option<&Path>) -> anyhow::Result<String> {
    let path = match sdk {
        Some(path) => Some(path.canonicalize().with_context(|| format!("the SDK at {} is missing", path.display()))?),
        None => Path::new(BUILT_SDK).canonicalize().ok(),
    };
    Ok(match path {
        Some(path) => {
            let path = path.to_string_lossy().replace('\\', "\\\\").replace('"', "\\\"");
            format!("trellis-plugin-sdk = {{ path = \"{path}\" }}")
        }
        None => format!("trellis-plugin-sdk = \"{}\"", env!("CARGO_PKG_VERSION")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_module_gets_every_template_file_with_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("greeter");
        scaffold("greeter", &target, None).unwrap();
        let manifest = std::fs::read_to_string(target.join("Cargo.toml")).unwrap();
        assert!(manifest.contains("name = \"greeter\""), "{manifest}");
        assert!(manifest.contains("trellis-plugin-sdk = { path = \""), "{manifest}");
        let lib = std::fs::read_to_string(target.join("src/lib.rs")).unwrap();
        assert!(lib.contains("Manifest::new(\"greeter\"") && !lib.contains("{{"), "{lib}");
        assert!(target.join(".cargo/config.toml").exists());
    }

    #[test]
    fn bad_names_and_used_directories_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        for bad in ["Greeter", "9lives", "a_b", "", "x".repeat(65).as_str()] {
            assert!(scaffold(bad, &dir.path().join("m"), None).is_err(), "{bad}");
        }
        std::fs::write(dir.path().join("file"), "x").unwrap();
        assert!(scaffold("greeter", dir.path(), None).is_err());
    }
}
