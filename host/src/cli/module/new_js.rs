//! `trellis module new NAME --lang js`: a JavaScript module directory on `sdk-js` (componentize-js).
//! Everything it needs is written into it (the SDK's files, the WIT, the pinned lock file), so it builds
//! without the host's source: `npm ci && npm test && npm run build`.

use std::path::Path;

/// `(path in the new directory, text)`; `{{name}}` is replaced by the module's name.
const FILES: [(&str, &str); 14] = [
    ("package.json", include_str!("../../../../sdk-js/template/package.json")),
    ("module.js", include_str!("../../../../sdk-js/template/module.js")),
    ("module.test.js", include_str!("../../../../sdk-js/template/module.test.js")),
    ("scenario.js", include_str!("../../../../sdk-js/template/scenario.js")),
    ("app.js", include_str!("../../../../sdk-js/template/app.js")),
    ("module.toml", include_str!("../../../../sdk-js/template/module.toml")),
    (".gitignore", include_str!("../../../../sdk-js/template/gitignore")),
    ("README.md", include_str!("../../../../sdk-js/README.md")),
    ("build.mjs", include_str!("../../../../sdk-js/build.mjs")),
    ("sdk/trellis.js", include_str!("../../../../sdk-js/src/trellis.js")),
    ("sdk/trellis-host.js", include_str!("../../../../sdk-js/src/trellis-host.js")),
    ("sdk/trellis-fake-host.js", include_str!("../../../../sdk-js/src/trellis-fake-host.js")),
    ("wit/world.wit", include_str!("../../../../sdk-js/wit/world.wit")),
    ("wit/deps/trellis-module.wit", include_str!("../../../../wit/v0.2.0/trellis-module.wit")),
];

/// sdk-js's lock: the template pins exactly the same packages (only the root name differs).
const LOCK: &str = include_str!("../../../../sdk-js/package-lock.json");

/// Writes a JavaScript module named `name` into `dir` (created when absent; it must be empty).
pub fn scaffold_js(name: &str, dir: &Path) -> anyhow::Result<()> {
    super::new::check_name(name)?;
    super::new::ensure_empty(dir)?;
    let lock = LOCK.replace("\"name\": \"trellis-sdk-js\"", &format!("\"name\": \"{name}\""));
    let files = FILES.iter().map(|(path, text)| (*path, text.replace("{{name}}", name)));
    super::new::write_files(dir, files.chain([("package-lock.json", lock)]))
}

/// What to do next, printed after the directory is written.
pub fn next_steps(name: &str, dir: &Path) -> String {
    format!(
        "created module {name} in {dir}\n\nnext steps:\n  cd {dir}\n  \
         npm ci                            # the pinned componentize-js, once\n  \
         npm test                          # unit tests under node --test, against the SDK's fake host\n  \
         npm run build                     # the component: {name}.wasm\n  \
         trellis module check .            # the component module.toml names\n  \
         trellis module dev                # serve it, rebuild and reload on change (module.toml)\n  \
         npm run scenario                  # the poll scenario on the host (module dev --users 20 --run)\n\n\
         the guide: README.md",
        dir = dir.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_asks_for_every_interface_its_world_imports() {
        let world = include_str!("../../../../sdk-js/wit/world.wit");
        let template = include_str!("../../../../sdk-js/template/module.js");
        crate::cli::module::new::assert_template_asks_for_its_world(world, template, "permissions:", '\'');
    }

    #[test]
    fn scaffold_js_writes_the_named_module_and_refuses_a_non_empty_directory() {
        // Arrange
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("my-notes");

        // Act
        scaffold_js("my-notes", &dir).unwrap();

        // Assert
        let module = std::fs::read_to_string(dir.join("module.js")).unwrap();
        assert!(module.contains("id: 'my-notes'") && !module.contains("{{name}}"));
        let lock = std::fs::read_to_string(dir.join("package-lock.json")).unwrap();
        assert!(lock.contains("\"name\": \"my-notes\""));
        assert!(dir.join("sdk/trellis.js").exists() && dir.join("wit/deps/trellis-module.wit").exists());
        assert!(scaffold_js("my-notes", &dir).is_err());
    }
}
