//! Reading a deployment's settings from their layers: defaults, then a TOML file, then `TRELLIS_*`
//! environment variables, then flags. Every value keeps the layer it came from, so a setting that
//! names nothing or holds the wrong type is reported with its origin (the file and key, or the
//! variable), all problems at once, and `trellis config show` can say where each value came from.

use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::{Map, Value};

use super::schema::{self, Node};
use super::{Config, Overrides};

/// Variables in the `TRELLIS_` namespace that belong to the command line and the development tools,
/// not to the server's settings (model and fixture caches of the tests and benchmarks, the fuzzer's
/// hooks).
const TOOL_VARIABLES: [&str; 7] = [
    "TRELLIS_DOWNLOAD_CACHE",
    "TRELLIS_MODELS_DIR",
    "TRELLIS_WHEELS_DIR",
    "TRELLIS_WHEELS",
    "TRELLIS_FIXTURES",
    "TRELLIS_FIXTURES_DIR",
    "TRELLIS_FUZZ_",
];

/// Where a setting's value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    Default,
    File(PathBuf),
    Environment(String),
    Flag(&'static str),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Default => f.write_str("default"),
            Origin::File(path) => write!(f, "file {}", path.display()),
            Origin::Environment(name) => write!(f, "environment {name}"),
            Origin::Flag(flag) => write!(f, "flag {flag}"),
        }
    }
}

/// The effective settings and the origin of each value.
pub struct Layered {
    pub config: Config,
    origins: Origins,
}

impl Layered {
    /// The layer that gave the value at `path`.
    pub fn origin(&self, path: &[String]) -> &Origin {
        self.origins.of(path)
    }
}

/// Paths a layer set, in the order the layers apply (later wins).
#[derive(Default)]
struct Origins(Vec<(Vec<String>, Origin)>);

impl Origins {
    /// The last layer that set `path` or a table above it.
    fn of(&self, path: &[String]) -> &Origin {
        self.0.iter().rev().find(|(set, _)| path.starts_with(set)).map_or(&Origin::Default, |(_, origin)| origin)
    }

    fn push(&mut self, path: Vec<String>, origin: Origin) {
        self.0.push((path, origin));
    }
}

/// Reads the layers from this process's file system, environment and the given flags.
pub fn load(overrides: &Overrides) -> anyhow::Result<Layered> {
    let file = match &overrides.config_file {
        Some(path) => Some(path.clone()),
        None => Some(PathBuf::from("trellis.toml")).filter(|path| path.is_file()),
    };
    let file = match file {
        Some(path) => {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading the configuration file {}", path.display()))?;
            Some((path, text))
        }
        None => None,
    };
    // `std::env::vars` would panic on a variable that is not UTF-8; only ours must be.
    let mut environment = Vec::new();
    for (name, value) in std::env::vars_os() {
        let Ok(name) = name.into_string() else { continue };
        match value.into_string() {
            Ok(value) => environment.push((name, value)),
            Err(_) if name.starts_with("TRELLIS_") => anyhow::bail!("environment variable {name} is not UTF-8"),
            Err(_) => {}
        }
    }
    layer(file.as_ref().map(|(path, text)| (path.as_path(), text.as_str())), &environment, overrides)
}

/// Layers the file (path and text), the environment's variables and the flags over the defaults.
pub fn layer(
    file: Option<(&Path, &str)>,
    environment: &[(String, String)],
    flags: &Overrides,
) -> anyhow::Result<Layered> {
    let root = schema::settings();
    let mut merged = serde_json::to_value(Config::default()).expect("the defaults serialise");
    let mut origins = Origins::default();
    let mut problems = Vec::new();

    if let Some((path, text)) = file {
        let table: toml::Table =
            toml::from_str(text).map_err(|e| anyhow::anyhow!("{}: not a valid TOML file: {e}", path.display()))?;
        let value = serde_json::to_value(table).expect("TOML is JSON-representable");
        let mut unknown = Vec::new();
        Node::new(&root).unknown_keys(&value, &mut Vec::new(), &mut unknown);
        for key in unknown {
            problems.push(format!("{}: `{}` is not a setting", path.display(), dotted(&key)));
        }
        let mut leaves = Vec::new();
        leaf_paths(&value, &mut Vec::new(), &mut leaves);
        for leaf in leaves {
            origins.push(leaf, Origin::File(path.to_owned()));
        }
        merge(&mut merged, value);
    }

    let mut variables: Vec<&(String, String)> =
        environment.iter().filter(|(name, _)| name.starts_with("TRELLIS_") && !is_tool_variable(name)).collect();
    variables.sort();
    for (name, raw) in variables {
        let segments: Vec<String> = name["TRELLIS_".len()..].split("__").map(str::to_ascii_lowercase).collect();
        match Node::new(&root).resolve(&segments) {
            Some((path, leaf)) => {
                set_path(&mut merged, &path, leaf.parse_text(raw));
                origins.push(path, Origin::Environment(name.clone()));
            }
            None => problems.push(format!(
                "environment variable {name} names no setting (settings are TRELLIS_<SECTION>__<KEY>, e.g. \
                 TRELLIS_DATABASE__URL; `trellis config defaults` lists them)"
            )),
        }
    }

    if let Some(dir) = &flags.data_dir {
        set_path(&mut merged, &["data_dir".into()], Value::String(dir.to_string_lossy().into_owned()));
        origins.push(vec!["data_dir".into()], Origin::Flag("--data-dir"));
    }
    if let Some(listen) = flags.listen {
        set_path(&mut merged, &["listen".into()], Value::String(listen.to_string()));
        origins.push(vec!["listen".into()], Origin::Flag("--listen"));
    }

    for (path, message) in schema::type_errors(&root, &merged) {
        problems.push(format!("`{}` ({}): {message}", dotted(&path), origins.of(&path)));
    }
    if !problems.is_empty() {
        anyhow::bail!("the configuration has {} problem(s):\n  {}", problems.len(), problems.join("\n  "));
    }
    let mut config: Config = serde_path_to_error::deserialize(merged).map_err(|error| {
        let path: Vec<String> = error.path().iter().map(|segment| segment.to_string()).collect();
        anyhow::anyhow!("`{}` ({}): {}", dotted(&path), origins.of(&path), error.inner())
    })?;
    config.fill_default_plan();
    config.validate()?;
    Ok(Layered { config, origins })
}

fn is_tool_variable(name: &str) -> bool {
    TOOL_VARIABLES.iter().any(|tool| if tool.ends_with('_') { name.starts_with(tool) } else { name == *tool })
}

/// `a.b."c.d"`: a path as a TOML dotted key.
pub fn dotted(path: &[String]) -> String {
    path.iter()
        .map(|key| {
            if !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
                key.clone()
            } else {
                Value::String(key.clone()).to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// The paths of the values a layer holds: tables are walked (an empty one sets nothing), everything
/// else is a value.
fn leaf_paths(value: &Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match value {
        Value::Object(table) => {
            for (key, child) in table {
                path.push(key.clone());
                leaf_paths(child, path, out);
                path.pop();
            }
        }
        _ => out.push(path.clone()),
    }
}

/// Lays `over` onto `base`: tables merge key by key, any other value replaces.
fn merge(base: &mut Value, over: Value) {
    match (base, over) {
        (Value::Object(base), Value::Object(over)) => {
            for (key, value) in over {
                match base.get_mut(&key) {
                    Some(existing) => merge(existing, value),
                    None => {
                        base.insert(key, value);
                    }
                }
            }
        }
        (base, over) => *base = over,
    }
}

fn set_path(root: &mut Value, path: &[String], value: Value) {
    let mut node = root;
    for key in path {
        if !node.is_object() {
            *node = Value::Object(Map::new());
        }
        node = node.as_object_mut().expect("made a table above").entry(key.clone()).or_insert(Value::Null);
    }
    *node = value;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn error(file: Option<&str>, environment: &[(&str, &str)]) -> String {
        let file = file.map(|text| (Path::new("site.toml"), text));
        match layer(file, &env(environment), &Overrides::default()) {
            Ok(_) => panic!("expected a configuration error"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn build_time_and_tool_variables_are_not_settings() {
        let layered = layer(
            None,
            &env(&[("TRELLIS_MODELS_DIR", "/m"), ("TRELLIS_FUZZ_BASE", "x"), ("BUNDLED_MODULES_DIR", "/b")]),
            &Overrides::default(),
        )
        .unwrap();
        assert_eq!(layered.config.listen.port(), 8080);
    }

    #[test]
    fn an_unknown_setting_names_the_variable_or_the_file_and_key_and_every_problem_is_listed() {
        let message = error(
            Some("listen = \"127.0.0.1:1\"\nbundled_dir = \"x\"\n[media]\nbackend = \"local\"\nshards = 2\n"),
            &[("TRELLIS_BUNDLED_DIR", "/x"), ("TRELLIS_DATABASE__URI", "y")],
        );
        assert!(message.contains("site.toml: `bundled_dir` is not a setting"), "{message}");
        assert!(message.contains("site.toml: `media.shards` is not a setting"), "{message}");
        assert!(message.contains("environment variable TRELLIS_BUNDLED_DIR names no setting"), "{message}");
        assert!(message.contains("environment variable TRELLIS_DATABASE__URI names no setting"), "{message}");
        assert!(message.contains("4 problem(s)"), "{message}");
    }

    #[test]
    fn a_value_of_the_wrong_type_names_its_origin() {
        let message = error(Some("[http]\nmax_connections = \"many\"\n"), &[("TRELLIS_JOBS__MAX_ATTEMPTS", "-3")]);
        assert!(message.contains("`http.max_connections` (file site.toml)"), "{message}");
        assert!(message.contains("`jobs.max_attempts` (environment TRELLIS_JOBS__MAX_ATTEMPTS)"), "{message}");
        let message = error(None, &[("TRELLIS_LISTEN", "not an address")]);
        assert!(message.contains("`listen` (environment TRELLIS_LISTEN)"), "{message}");
    }

    #[test]
    fn layers_apply_in_order_and_remember_their_origin() {
        let flags = Overrides { listen: Some("127.0.0.1:9".parse().unwrap()), ..Overrides::default() };
        let file = "listen = \"127.0.0.1:7\"\nshard_unused_check = 1\n";
        assert!(layer(Some((Path::new("a.toml"), file)), &[], &flags).is_err());
        let file = "listen = \"127.0.0.1:7\"\n[http]\njson_body_limit = 5\n[plans.gold]\n\"messaging.perDay\" = 3\n";
        let environment = env(&[
            ("TRELLIS_HTTP__JSON_BODY_LIMIT", "6"),
            ("TRELLIS_MODULES__HTTP_ALLOWED_PORTS", "[8080, 8443]"),
            ("TRELLIS_MODULES__WEB__AUTHENTICATION__PASSWORDRESET__ENABLED", "false"),
            ("TRELLIS_MEDIA__SHARD", "42"),
        ]);
        let layered = layer(Some((Path::new("a.toml"), file)), &environment, &flags).unwrap();
        let config = &layered.config;
        assert_eq!(config.listen.port(), 9);
        assert_eq!(config.http.json_body_limit, 6);
        assert_eq!(config.modules.runtime.http_allowed_ports, [8080, 8443]);
        assert!(!config.modules.web.authentication.password_reset.enabled);
        assert_eq!(config.media.shard, "42", "a string setting keeps digits as text");
        assert_eq!(config.plan("gold").unwrap().quota(crate::domain::entitlement::Entitlement::Messages), 3);
        let path = |p: &str| p.split('.').map(str::to_owned).collect::<Vec<_>>();
        assert_eq!(layered.origin(&path("listen")), &Origin::Flag("--listen"));
        assert_eq!(
            layered.origin(&path("http.json_body_limit")),
            &Origin::Environment("TRELLIS_HTTP__JSON_BODY_LIMIT".into())
        );
        assert_eq!(
            layered.origin(&["plans".into(), "gold".into(), "messaging.perDay".into()]),
            &Origin::File("a.toml".into())
        );
        assert_eq!(layered.origin(&path("http.write_timeout_seconds")), &Origin::Default);
    }
}
