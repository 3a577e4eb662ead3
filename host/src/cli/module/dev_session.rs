//! What `trellis module dev` sets up on its throw-away server for a real scenario: the module's
//! configuration (given, or the schema's defaults), N signed-up users who are all members of one space
//! that has the module connected, and shell assignments to paste.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use serde_json::{Map, Value, json};
use trellis_modules::{Manifest, ModuleKind};

use crate::state::AppState;

const PASSWORD: &str = "correct horse 42";

/// The module's configuration for the space, and the deployment file the author named, if any.
pub struct ModuleConfig {
    pub config: Value,
    /// Where the configuration came from, for the message when the schema refuses it.
    pub origin: String,
    /// A TOML file given with `--config`: the dev server's deployment starts from it.
    pub deployment: Option<PathBuf>,
}

impl ModuleConfig {
    /// `--config`: JSON text (`'{"options":["a","b"]}'`), a `.json` file, or a TOML file for the deployment;
    /// without JSON, the defaults the module's schema gives its properties.
    pub fn from_arg(arg: Option<&Path>, manifest: &Manifest) -> anyhow::Result<Self> {
        let text = arg.map(|path| path.to_string_lossy().into_owned());
        match (arg, text) {
            (_, Some(text)) if text.trim_start().starts_with('{') => {
                let config = serde_json::from_str(&text).context("--config is not JSON")?;
                Ok(Self { config, origin: "--config".into(), deployment: None })
            }
            (Some(path), _) if path.extension().is_some_and(|ext| ext == "json") => {
                let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
                let config = serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))?;
                Ok(Self { config, origin: path.display().to_string(), deployment: None })
            }
            (deployment, _) => Ok(Self {
                config: schema_defaults(&manifest.config_schema),
                origin: "the schema's defaults".into(),
                deployment: deployment.map(Path::to_owned),
            }),
        }
    }
}

/// An object of every top-level property's `default` in the schema (`{}` when none has one).
fn schema_defaults(schema: &str) -> Value {
    let schema: Value = serde_json::from_str(schema).unwrap_or(Value::Null);
    let defaults: Map<String, Value> = schema["properties"]
        .as_object()
        .map(|properties| {
            properties
                .iter()
                .filter_map(|(name, property)| property.get("default").map(|value| (name.clone(), value.clone())))
                .collect()
        })
        .unwrap_or_default();
    Value::Object(defaults)
}

/// The throw-away users and space.
pub struct Session {
    license_key: String,
    /// The owner's first, then the members'.
    tokens: Vec<String>,
    space_id: Option<String>,
    config: Value,
}

impl Session {
    pub fn describe(&self, base: &str, data_dir: &Path, manifest: &Manifest) -> String {
        let auth = "-H \"X-License-Key: $KEY\" -H \"Authorization: Bearer $TOKEN\"";
        // The same assignments `--run` gives its command, but MODULE (the curl lines name the module).
        let assignments: Vec<String> = self
            .env(base, &manifest.id)
            .into_iter()
            .filter(|(name, _)| name != "MODULE")
            .map(|(name, value)| format!("{name}={value}"))
            .collect();
        let mut text = format!(
            "trellis module dev: {} {} ({}) at {base}\n  data folder: {}\n\n# paste into a shell:\nexport {}",
            manifest.id,
            manifest.version,
            manifest.kind,
            data_dir.display(),
            assignments.join(" ")
        );
        if self.space_id.is_some() {
            let config = self.config.to_string().replace('\'', "'\\''");
            text.push_str(&format!(
                "\n\ncurl {auth} $BASE/v0/spaces/$SPACE/modules/{id}/\n\
                 # the configuration it runs with: {config}\ncurl {auth} -X PUT -H 'Content-Type: application/json' \
                 -d '{{\"modules\":[{{\"moduleId\":\"{id}\",\"config\":{config}}}]}}' $BASE/v0/spaces/$SPACE/modules\n",
                id = manifest.id
            ));
            if self.tokens.len() > 1 {
                text.push_str(&format!(
                    "# users 2..{n} are members of the space: use $TOKEN_2 ... $TOKEN_{n} in place of $TOKEN\n",
                    n = self.tokens.len()
                ));
            }
        } else {
            text.push_str(&format!("\n\ncurl {auth} $BASE/v0/modules"));
        }
        text.trim_end().to_owned()
    }

    /// The printed assignments as a command's environment (`--run`), with `MODULE`, the module's id.
    pub fn env(&self, base: &str, module_id: &str) -> Vec<(String, String)> {
        let mut env = vec![
            ("BASE".to_owned(), base.to_owned()),
            ("KEY".to_owned(), self.license_key.clone()),
            ("MODULE".to_owned(), module_id.to_owned()),
        ];
        for (n, token) in self.tokens.iter().enumerate() {
            let name = if n == 0 { "TOKEN".to_owned() } else { format!("TOKEN_{}", n + 1) };
            env.push((name, token.clone()));
        }
        env.extend(self.space_id.iter().map(|space| ("SPACE".to_owned(), space.clone())));
        env
    }
}

/// Signs up `users` users over HTTP (the first owns the space), connects the module with `module_config`,
/// and makes the others members of the space through the store.
pub async fn setup(
    base: &str,
    data_dir: &Path,
    state: &AppState,
    manifest: &Manifest,
    module_config: &ModuleConfig,
    users: u32,
) -> anyhow::Result<Session> {
    let license_key = std::fs::read_to_string(data_dir.join("license.key")).context("reading the license key")?;
    let license_key = license_key.trim().to_owned();
    let client = reqwest::Client::new();
    let call = |method: reqwest::Method, path: &str, token: Option<&str>, body: Value| {
        let path = path.to_owned();
        let mut request = client.request(method, format!("{base}{path}")).header("X-License-Key", &license_key);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        async move {
            let response = request.json(&body).send().await.context("calling the dev server")?;
            let status = response.status();
            let answer: Value = response.json().await.unwrap_or(Value::Null);
            anyhow::ensure!(status.is_success(), "{path}: {status} {answer}");
            Ok::<_, anyhow::Error>(answer)
        }
    };
    let post = reqwest::Method::POST;
    let mut tokens = Vec::new();
    let mut user_ids = Vec::new();
    for n in 1..=users.max(1) {
        let handle = if n == 1 { "dev".to_owned() } else { format!("dev{n}") };
        let email = format!("{handle}@example.org");
        let body =
            json!({"email": email, "handle": handle, "fullName": format!("Module Dev {n}"), "displayName": handle});
        let started = call(post.clone(), "/v0/auth/sign-up/start", None, body).await?;
        let signup = started["signupToken"].as_str().context("no signupToken")?.to_owned();
        let pin = read_pin(&data_dir.join("outbox"), &email).await?;
        call(post.clone(), "/v0/auth/sign-up/verify-pin", None, json!({"signupToken": signup, "pin": pin})).await?;
        let done = json!({"signupToken": signup, "password": PASSWORD});
        let completed = call(post.clone(), "/v0/auth/sign-up/complete", None, done).await?;
        tokens.push(completed["sessionToken"].as_str().context("no sessionToken")?.to_owned());
        let me = call(reqwest::Method::GET, "/v0/users/me", tokens.last().map(String::as_str), Value::Null).await;
        user_ids.push(me.ok().and_then(|me| me["userId"].as_str().map(str::to_owned)));
    }
    let mut space_id = None;
    if manifest.kind == ModuleKind::Space {
        let space = json!({"name": "dev", "displayName": "Dev space", "summary": ""});
        let space = call(post, "/v0/spaces", Some(&tokens[0]), space).await?;
        let id = space["spaceId"].as_str().context("no spaceId")?.to_owned();
        let modules = json!({"modules": [{"moduleId": manifest.id, "config": module_config.config}]});
        // A configuration the schema refuses stops here: a dev server whose module is not connected
        // would answer every call with 404.
        if let Err(err) =
            call(reqwest::Method::PUT, &format!("/v0/spaces/{id}/modules"), Some(&tokens[0]), modules).await
        {
            anyhow::bail!(
                "the module's schema refuses the configuration from {} ({}); give one with --config '{{...}}' or \
                 --config FILE.json: {err:#}",
                module_config.origin,
                module_config.config
            );
        }
        let now = time::OffsetDateTime::now_utc();
        for user_id in user_ids.iter().skip(1).flatten() {
            state.store.spaces.upsert_space_member(&id, user_id, "member", now).await.context("adding a member")?;
        }
        space_id = Some(id);
    }
    Ok(Session { license_key, tokens, space_id, config: module_config.config.clone() })
}

/// The PIN of the mail to `email` in the outbox (the file transport of a server without SMTP).
async fn read_pin(outbox: &Path, email: &str) -> anyhow::Result<String> {
    for _ in 0..100 {
        let mails = std::fs::read_dir(outbox).map(|dir| dir.filter_map(Result::ok).collect::<Vec<_>>());
        for mail in mails.unwrap_or_default() {
            let text = std::fs::read_to_string(mail.path()).unwrap_or_default();
            if !text.lines().any(|line| line.starts_with("To:") && line.contains(email)) {
                continue;
            }
            if let Some(pin) =
                text.lines().map(str::trim).find(|l| l.len() == 6 && l.bytes().all(|b| b.is_ascii_digit()))
            {
                return Ok(pin.to_owned());
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    anyhow::bail!("no PIN for {email} arrived in {}", outbox.display())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_s_defaults_make_the_configuration_when_none_is_given() {
        let schema = r#"{"type":"object","properties":{"options":{"type":"array","default":["yes","no"]},"title":{"type":"string"}}}"#;
        assert_eq!(schema_defaults(schema), json!({"options": ["yes", "no"]}));
        assert_eq!(schema_defaults("not json"), json!({}));
    }

    #[test]
    fn the_command_of_run_gets_the_printed_assignments_and_the_module_id() {
        let session = Session {
            license_key: "key".into(),
            tokens: vec!["t1".into(), "t2".into()],
            space_id: Some("s1".into()),
            config: json!({}),
        };
        let env = session.env("http://127.0.0.1:1", "poll");
        let names: Vec<_> = env.iter().map(|(name, value)| format!("{name}={value}")).collect();
        assert_eq!(names, ["BASE=http://127.0.0.1:1", "KEY=key", "MODULE=poll", "TOKEN=t1", "TOKEN_2=t2", "SPACE=s1"]);
    }
}
