//! `trellis module new NAME --lang python`: a Python space module on `sdk-python/`, self-contained (the SDK,
//! the WIT and the pinned builder are copied in), so an author needs only Python and componentize-py.

use std::path::Path;

use anyhow::Context as _;

/// Every file written, by its path in the new module: the template, the SDK and the WIT it is built against.
const FILES: &[(&str, &str)] = &[
    ("module.py", include_str!("../../../../sdk-python/template/module.py")),
    ("app.py", include_str!("../../../../sdk-python/template/app.py")),
    ("module.toml", include_str!("../../../../sdk-python/template/module.toml")),
    ("tests/__init__.py", include_str!("../../../../sdk-python/template/tests/__init__.py")),
    ("tests/test_module.py", include_str!("../../../../sdk-python/template/tests/test_module.py")),
    ("tests/scenario.py", include_str!("../../../../sdk-python/template/tests/scenario.py")),
    ("build.sh", include_str!("../../../../sdk-python/template/build.sh")),
    ("README.md", include_str!("../../../../sdk-python/template/README.md")),
    (".gitignore", include_str!("../../../../sdk-python/template/gitignore")),
    ("requirements.txt", include_str!("../../../../sdk-python/requirements.txt")),
    ("trellis_sdk/__init__.py", include_str!("../../../../sdk-python/trellis_sdk/__init__.py")),
    ("trellis_sdk/guest.py", include_str!("../../../../sdk-python/trellis_sdk/guest.py")),
    ("trellis_sdk/testing.py", include_str!("../../../../sdk-python/trellis_sdk/testing.py")),
    ("wit/world.wit", include_str!("../../../../sdk-python/wit/world.wit")),
    ("wit/deps/trellis-module/trellis-module.wit", include_str!("../../../../wit/v0.2.0/trellis-module.wit")),
];

/// Writes a Python module named `name` into `dir` (absent or empty).
pub fn scaffold_python(name: &str, dir: &Path) -> anyhow::Result<()> {
    super::new::check_name(name)?;
    super::new::ensure_empty(dir)?;
    let wasm = name.replace('-', "_");
    let files = FILES.iter().map(|(path, text)| (*path, text.replace("{{name}}", name).replace("{{wasm}}", &wasm)));
    super::new::write_files(dir, files)?;
    make_executable(&dir.join("build.sh"))
}

#[cfg(unix)]
fn make_executable(path: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .with_context(|| format!("making {} executable", path.display()))
}

#[cfg(not(unix))]
fn make_executable(_path: &Path) -> anyhow::Result<()> {
    Ok(())
}

/// What to do next, printed after the directory is written.
pub fn next_steps(name: &str, dir: &Path) -> String {
    let wasm = name.replace('-', "_");
    format!(
        "created module {name} in {dir}\n\nnext steps:\n  cd {dir}\n  \
         python3 -m venv .venv && .venv/bin/pip install --require-hashes -r requirements.txt   # once\n  \
         .venv/bin/python -m unittest      # unit tests against the SDK's fake host\n  \
         . .venv/bin/activate && ./build.sh   # the component: {wasm}.wasm\n  \
         trellis module check .            # the component module.toml names\n  \
         trellis module dev                # serve it, rebuild and reload on change (module.toml)\n  \
         trellis module dev --users 20 --run '.venv/bin/python tests/scenario.py'   # the poll scenario\n\n\
         the guide: README.md",
        dir = dir.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_asks_for_every_interface_its_world_imports() {
        let world = include_str!("../../../../sdk-python/wit/world.wit");
        let template = include_str!("../../../../sdk-python/template/module.py");
        crate::cli::module::new::assert_template_asks_for_its_world(world, template, "permissions=", '"');
    }

    #[test]
    fn a_new_python_module_gets_the_template_the_sdk_and_the_wit_with_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("my-greeter");
        scaffold_python("my-greeter", &target).unwrap();
        let module = std::fs::read_to_string(target.join("module.py")).unwrap();
        assert!(module.contains("id=\"my-greeter\"") && !module.contains("{{"), "{module}");
        let build = std::fs::read_to_string(target.join("build.sh")).unwrap();
        assert!(build.contains("-o my_greeter.wasm"), "{build}");
        assert!(target.join("trellis_sdk/testing.py").exists());
        assert!(target.join("wit/deps/trellis-module/trellis-module.wit").exists());
    }

    #[test]
    fn bad_names_and_used_directories_are_refused_for_python_too() {
        let dir = tempfile::tempdir().unwrap();
        for bad in ["Greeter", "9lives", "a_b", "", "x".repeat(65).as_str()] {
            assert!(scaffold_python(bad, &dir.path().join("m")).is_err(), "{bad}");
        }
        std::fs::write(dir.path().join("file"), "x").unwrap();
        assert!(scaffold_python("greeter", dir.path()).is_err());
    }
}
