//! `trellis module new NAME`: a Rust module crate from the SDK's template, depending on the SDK as an
//! ordinary dependency (git, at the tag of the SDK version this binary carries) or on a local checkout.

use std::path::Path;

use anyhow::Context;

/// The template files, as `(path in the new crate, text)`.
const TEMPLATE: [(&str, &str); 6] = [
    ("Cargo.toml", include_str!("../../../../plugin-sdk/template/Cargo.toml.tmpl")),
    ("README.md", include_str!("../../../../plugin-sdk/template/README.md")),
    ("src/lib.rs", include_str!("../../../../plugin-sdk/template/src/lib.rs")),
    ("tests/scenario.rs", include_str!("../../../../plugin-sdk/template/tests/scenario.rs")),
    ("module.toml", include_str!("../../../../plugin-sdk/template/module.toml")),
    (".cargo/config.toml", include_str!("../../../../plugin-sdk/template/.cargo/config.toml")),
];

/// The project's repository, where the SDK is tagged `sdk-vX.Y.Z` (`--sdk-git` overrides it).
pub const SDK_REPOSITORY: &str = "https://github.com/trellis-platform/trellis";

const SDK_MANIFEST: &str = include_str!("../../../../plugin-sdk/Cargo.toml");

/// Where the scaffold takes the SDK from.
pub enum SdkSource<'a> {
    /// A local checkout of `plugin-sdk/` (inside this repository, CI, tests).
    Path(&'a Path),
    /// A git repository, at the tag of this binary's SDK version.
    Git(&'a str),
}

/// The SDK's crate version: its own `version = "..."`, or the workspace's when it inherits it.
pub fn sdk_version() -> &'static str {
    SDK_MANIFEST
        .lines()
        .find_map(|line| line.strip_prefix("version = \"").and_then(|rest| rest.strip_suffix('"')))
        .unwrap_or(env!("CARGO_PKG_VERSION"))
}

/// Refuses a name that is not a module id, by the one rule the host applies to manifests (a crate name too).
pub fn check_name(name: &str) -> anyhow::Result<()> {
    anyhow::ensure!(
        trellis_modules::is_valid_module_id(name),
        "the name {name:?} must be a lowercase letter followed by up to 63 of a-z, 0-9 and - (the rule for \
         module ids)"
    );
    Ok(())
}

/// Fails unless `dir` is missing or empty.
pub fn ensure_empty(dir: &Path) -> anyhow::Result<()> {
    if dir.exists() {
        let mut entries = std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
        anyhow::ensure!(entries.next().is_none(), "{} exists and is not empty", dir.display());
    }
    Ok(())
}

/// Writes the template into `dir` (which must not exist, or be empty) with `name` filled in.
pub fn scaffold(name: &str, dir: &Path, sdk: SdkSource<'_>) -> anyhow::Result<()> {
    check_name(name)?;
    ensure_empty(dir)?;
    let dependency = sdk_dependency(sdk)?;
    write_files(
        dir,
        TEMPLATE
            .iter()
            .map(|(path, text)| (*path, text.replace("{{name}}", name).replace("{{sdk_dependency}}", &dependency))),
    )
}

/// Writes each `(relative path, text)` under `dir`, creating folders as needed: every language's template.
pub fn write_files<'a>(dir: &Path, files: impl IntoIterator<Item = (&'a str, String)>) -> anyhow::Result<()> {
    for (path, text) in files {
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&target, text).with_context(|| format!("writing {}", target.display()))?;
    }
    Ok(())
}

/// The `trellis-plugin-sdk = ...` line.
fn sdk_dependency(sdk: SdkSource<'_>) -> anyhow::Result<String> {
    Ok(match sdk {
        SdkSource::Path(path) => {
            let path = path.canonicalize().with_context(|| format!("the SDK at {} is missing", path.display()))?;
            let path = path.to_string_lossy().replace('\\', "\\\\").replace('"', "\\\"");
            format!("trellis-plugin-sdk = {{ path = \"{path}\" }}")
        }
        SdkSource::Git(url) => {
            let url = url.replace('"', "\\\"");
            format!("trellis-plugin-sdk = {{ git = \"{url}\", tag = \"sdk-v{}\" }}", sdk_version())
        }
    })
}

/// What to do next, printed after the crate is written.
pub fn next_steps(name: &str, dir: &Path) -> String {
    let wasm = name.replace('-', "_");
    format!(
        "created module {name} in {dir}\n\nnext steps:\n  cd {dir}\n  rustup target add wasm32-wasip2   # once\n  \
         cargo test-native                 # unit tests, natively, against the SDK's test host\n  \
         cargo build --release             # the component: target/wasm32-wasip2/release/{wasm}.wasm\n  \
         trellis module check target/wasm32-wasip2/release/{wasm}.wasm\n  \
         trellis module dev                # serve it with a throw-away user and space, reload on change\n  \
         trellis module dev --users 20 --run 'cargo test-native --test scenario'   # the poll scenario\n\n\
         the guide: plugin-sdk/README.md",
        dir = dir.display()
    )
}

/// For the templates' tests: panics unless the template's `permissions` line (the first line starting with
/// `key`) names, quoted with `quote`, every `trellis:module` interface its world imports. componentize-js and
/// componentize-py import the whole world, and the host refuses a module importing more than it asks for.
#[cfg(test)]
pub(crate) fn assert_template_asks_for_its_world(world: &str, template: &str, key: &str, quote: char) {
    let permissions = template.lines().find(|line| line.trim_start().starts_with(key)).expect("a permissions line");
    for import in world.lines().filter_map(|line| line.trim().strip_prefix("import trellis:module/")) {
        let interface = import.split('@').next().unwrap();
        assert!(permissions.contains(&format!("{quote}{interface}{quote}")), "{interface} not asked: {permissions}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_module_gets_every_template_file_with_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("greeter");
        let sdk = Path::new(env!("CARGO_MANIFEST_DIR")).join("../plugin-sdk");
        scaffold("greeter", &target, SdkSource::Path(&sdk)).unwrap();
        let manifest = std::fs::read_to_string(target.join("Cargo.toml")).unwrap();
        assert!(manifest.contains("name = \"greeter\""), "{manifest}");
        assert!(manifest.contains("trellis-plugin-sdk = { path = \""), "{manifest}");
        let lib = std::fs::read_to_string(target.join("src/lib.rs")).unwrap();
        assert!(lib.contains("Manifest::new(\"greeter\"") && !lib.contains("{{"), "{lib}");
        assert!(target.join(".cargo/config.toml").exists() && target.join("tests/scenario.rs").exists());
    }

    #[test]
    fn by_default_the_sdk_is_a_git_dependency_at_its_version_tag() {
        let dir = tempfile::tempdir().unwrap();
        scaffold("greeter", dir.path(), SdkSource::Git(SDK_REPOSITORY)).unwrap();
        let manifest = std::fs::read_to_string(dir.path().join("Cargo.toml")).unwrap();
        let expected =
            format!("trellis-plugin-sdk = {{ git = \"{SDK_REPOSITORY}\", tag = \"sdk-v{}\" }}", sdk_version());
        assert!(manifest.contains(&expected), "{manifest}");
        assert!(!manifest.contains("path ="), "{manifest}");
    }

    #[test]
    fn bad_names_and_used_directories_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        for bad in ["Greeter", "9lives", "a_b", "", "-a", "x".repeat(65).as_str()] {
            assert!(scaffold(bad, &dir.path().join("m"), SdkSource::Git("x")).is_err(), "{bad}");
        }
        std::fs::write(dir.path().join("file"), "x").unwrap();
        assert!(scaffold("greeter", dir.path(), SdkSource::Git("x")).is_err());
    }
}
