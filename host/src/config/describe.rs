//! The settings written out for a deployer: `trellis config defaults` (a commented `trellis.toml`
//! with every setting, its default and its meaning) and `trellis config show` (the effective value of
//! every setting, secrets redacted, with the layer it came from).

use serde_json::Value;

use super::Config;
use super::layers::{Layered, dotted};
use super::schema::{self, Node};

const DEFAULTS_HEADER: &str = "\
# trellis.toml: every setting with its default (`trellis config defaults` writes this).
# Settings apply in layers: these defaults, then this file (`--config FILE`, or ./trellis.toml),
# then TRELLIS_* environment variables (nested keys joined by `__`: TRELLIS_DATABASE__URL),
# then flags (--data-dir, --listen). Keep only what you change.
";

/// A commented TOML file holding every setting at its default.
pub fn defaults_toml() -> String {
    let mut config = Config::default();
    config.fill_default_plan();
    let values = serde_json::to_value(&config).expect("the defaults serialise");
    let schema = schema::settings();
    let mut out = String::from(DEFAULTS_HEADER);
    write_table(&mut out, Node::new(&schema), &values, &mut Vec::new());
    out
}

fn write_table(out: &mut String, node: Node, value: &Value, path: &mut Vec<String>) {
    let Value::Object(table) = value else { return };
    // Struct tables in declaration order, open maps in their own order.
    let keys: Vec<&String> = match node.properties() {
        Some(properties) => properties.keys().filter(|key| table.contains_key(*key)).collect(),
        None => table.keys().collect(),
    };
    let child = |key: &str| node.child(key, false).map_or(Node::new(&Value::Bool(true)), |(_, n)| n);
    let is_table =
        |key: &str| child(key).properties().is_some() || table[key].as_object().is_some_and(|t| !t.is_empty());
    for (n, key) in keys.iter().filter(|key| !is_table(key)).enumerate() {
        if n > 0 {
            out.push('\n');
        }
        comment(out, node.description_of(key));
        let name = dotted(std::slice::from_ref(*key));
        match &table[*key] {
            Value::Null => out.push_str(&format!("# {name} = ...  (not set)\n")),
            value => out.push_str(&format!("{name} = {}\n", inline(value))),
        }
    }
    for key in keys.iter().filter(|key| is_table(key)) {
        path.push((*key).clone());
        out.push('\n');
        comment(out, node.description_of(key));
        out.push_str(&format!("[{}]\n", dotted(path)));
        write_table(out, child(key), &table[*key], path);
        path.pop();
    }
}

/// A description as `# ` lines of at most about 100 characters.
fn comment(out: &mut String, text: Option<&str>) {
    let Some(text) = text else { return };
    for paragraph in text.split("\n\n") {
        let mut line = String::from("#");
        for word in paragraph.split_whitespace() {
            if line.len() + word.len() > 100 && line.len() > 1 {
                out.push_str(&line);
                out.push('\n');
                line = String::from("#");
            }
            line.push(' ');
            line.push_str(word);
        }
        out.push_str(&line);
        out.push('\n');
    }
}

/// A value in TOML's inline syntax.
pub fn inline(value: &Value) -> String {
    match value {
        Value::Null => "\"\"".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => toml::Value::String(s.clone()).to_string(),
        Value::Array(items) => format!("[{}]", items.iter().map(inline).collect::<Vec<_>>().join(", ")),
        Value::Object(table) if table.is_empty() => "{}".into(),
        Value::Object(table) => {
            let pairs: Vec<String> =
                table.iter().map(|(k, v)| format!("{} = {}", dotted(std::slice::from_ref(k)), inline(v))).collect();
            format!("{{ {} }}", pairs.join(", "))
        }
    }
}

/// Every effective setting as a dotted TOML key, secrets redacted, each with the layer it came from.
pub fn show(layered: &Layered) -> String {
    let values = serde_json::to_value(&layered.config).expect("settings serialise");
    let mut leaves = Vec::new();
    flatten(&values, &mut Vec::new(), &mut leaves);
    let mut out = String::from("# The effective settings; each line says where its value came from.\n");
    for (path, value) in leaves {
        let origin = layered.origin(&path);
        let name = dotted(&path);
        match redact(&path, value) {
            Value::Null => out.push_str(&format!("# {name}: not set  ({origin})\n")),
            value => out.push_str(&format!("{name} = {}  # {origin}\n", inline(&value))),
        }
    }
    out
}

fn flatten<'v>(value: &'v Value, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, &'v Value)>) {
    match value {
        Value::Object(table) if !table.is_empty() => {
            for (key, child) in table {
                path.push(key.clone());
                flatten(child, path, out);
                path.pop();
            }
        }
        _ => out.push((path.clone(), value)),
    }
}

/// Whether a key names a secret, wherever it stands.
fn is_secret(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    !key.ends_with("_header")
        && [
            "secret",
            "token",
            "password",
            "passphrase",
            "private",
            "access_key",
            "api_key",
            "apikey",
            "credential",
            "signature",
        ]
        .iter()
        .any(|word| key.contains(word))
}

/// Whether a setting lies inside a module's configuration (`analysis.step_config.<module>`), whose
/// meaning only the module knows: a webhook URL with its secret in the path, a key under any name.
fn in_module_configuration(path: &[String]) -> bool {
    path.len() > 2 && path[0] == "analysis" && path[1] == "step_config"
}

/// A value fit to print: secrets replaced, URLs without their credentials, and every text of a
/// module's configuration replaced (its numbers and switches stay readable).
fn redact(path: &[String], value: &Value) -> Value {
    if in_module_configuration(path) {
        return redact_text(value);
    }
    let key = path.last().map(String::as_str).unwrap_or_default();
    match value {
        Value::String(text) if is_secret(key) && !text.is_empty() => Value::String(REDACTED.into()),
        Value::String(text) if key.ends_with("url") => Value::String(super::redact_url(text)),
        Value::Array(items) if is_secret(key) && !items.is_empty() => Value::String(REDACTED.into()),
        // Tables inside a list (`modules.runtime.enable`, say): each value by its own key.
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| match item {
                    Value::Object(table) => Value::Object(
                        table.iter().map(|(k, v)| (k.clone(), redact(std::slice::from_ref(k), v))).collect(),
                    ),
                    other => redact(path, other),
                })
                .collect(),
        ),
        value => value.clone(),
    }
}

const REDACTED: &str = "<redacted>";

/// `value` with every non-empty text replaced, however deep.
fn redact_text(value: &Value) -> Value {
    match value {
        Value::String(text) if !text.is_empty() => Value::String(REDACTED.into()),
        Value::Array(items) => Value::Array(items.iter().map(redact_text).collect()),
        Value::Object(table) => Value::Object(table.iter().map(|(k, v)| (k.clone(), redact_text(v))).collect()),
        value => value.clone(),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::Overrides;
    use super::super::layers::layer;
    use super::*;

    #[test]
    fn the_defaults_file_reads_back_as_the_defaults() {
        let text = defaults_toml();
        let layered = layer(Some((Path::new("defaults.toml"), &text)), &[], &Overrides::default()).unwrap();
        let mut expected = Config::default();
        expected.fill_default_plan();
        assert_eq!(serde_json::to_value(&layered.config).unwrap(), serde_json::to_value(&expected).unwrap());
        assert!(text.contains("# Address the HTTP server binds.\nlisten = \"127.0.0.1:8080\"\n"), "{text}");
        assert!(text.contains("\n[media.s3]\n"), "{text}");
        assert!(text.contains("\"forms.attachments.uploadPerDay\" = 10000"), "{text}");
    }

    /// docs/configuration.toml is the reference page of the settings: it stays what the binary prints.
    #[test]
    fn the_reference_page_is_what_config_defaults_prints() {
        let page = include_str!("../../../docs/configuration.toml");
        assert!(
            page == defaults_toml(),
            "docs/configuration.toml is out of date: run `cargo run -p trellis -- config defaults > docs/configuration.toml`"
        );
    }

    #[test]
    fn show_redacts_every_secret_and_names_origins() {
        let file = "[gateway]\nproxy_secret = \"gw-SECRET-1\"\n[metrics]\ntoken = \"metrics-SECRET-2-long-enough\"\n\
                    [media.s3]\naccess_key = \"AK-SECRET-3\"\nsecret_key = \"SK-SECRET-4\"\n\
                    [analysis.step_config.tagger]\napi_key = \"MOD-SECRET-5\"\nthreshold = 0.5\n\
                    hooks = [\"https://hooks.example/services/MOD-SECRET-9\"]\n\
                    signing = [{ private_pem = \"MOD-SECRET-10\", passphrase = \"MOD-SECRET-11\" }]\n\
                    [analysis.step_config.tagger.nested]\nendpoint = \"https://x.example/MOD-SECRET-12\"\n";
        let environment = [
            ("TRELLIS_DATABASE__URL".to_owned(), "postgres://me:DB-SECRET-6@db/x?password=DB-SECRET-7".to_owned()),
            ("TRELLIS_MAIL__SMTP_URL".to_owned(), "smtps://u:MAIL-SECRET-8@mail:465".to_owned()),
        ];
        let layered = layer(Some((Path::new("site.toml"), file)), &environment, &Overrides::default()).unwrap();
        let shown = show(&layered);
        assert!(!shown.contains("SECRET"), "{shown}");
        assert!(shown.contains("gateway.proxy_secret = \"<redacted>\"  # file site.toml"), "{shown}");
        assert!(
            shown.contains(
                "database.url = \"postgres://<redacted>@db/x?password=<redacted>\"  # environment TRELLIS_DATABASE__URL"
            ),
            "{shown}"
        );
        assert!(shown.contains("http.json_body_limit = 1048576  # default"), "{shown}");
        // A module's configuration keeps its numbers readable, never its text.
        assert!(shown.contains("analysis.step_config.tagger.threshold = 0.5  # file site.toml"), "{shown}");
        assert!(shown.contains("\"forms.attachments.uploadPerDay\" = 10000  # default"), "{shown}");
        // What it prints is itself a settings file.
        shown.parse::<toml::Table>().unwrap();
    }
}
