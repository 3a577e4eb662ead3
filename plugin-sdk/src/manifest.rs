use crate::wit::imports::trellis::module::types as wit;

/// Which world a module implements. Not part of [`Manifest`]: the `export_*!` macro fills it in from the trait
/// it exports, so the manifest always matches the exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModuleKind {
    /// Connected to spaces: receives their events and serves its own routes.
    Space,
    /// Scores marketplace listings and decides registrations.
    MarketplaceRule,
    /// One step of the background analysis of published assets.
    AnalysisStep,
}

/// A capability a module asks for. The deployment grants or refuses each one, and a capability function
/// called without its grant fails to link: the module does not load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Permission {
    /// [`kv`](crate::kv): the key-value store scoped to (space, module).
    KeyValue,
    /// [`log`](crate::log): structured logging through the host.
    Logging,
    /// [`item`](crate::item): read the item that triggered the invocation.
    ItemRead,
    /// [`asset`](crate::asset): read the bytes of the asset under analysis.
    AssetRead,
    /// [`http`](crate::http): outbound HTTP to these exact host names.
    OutboundHttp(Vec<String>),
    /// [`media`](crate::media): decode the asset under analysis (analysis steps only).
    MediaDecode,
    /// [`vision`](crate::vision): labels, faces and facts of decoded frames (analysis steps only).
    Vision,
    /// [`speech`](crate::speech): transcribe the asset's speech (analysis steps only).
    Speech,
}

/// What a module says about itself: the host reads it from the component before running anything else.
///
/// ```
/// use trellis_plugin_sdk::{Manifest, Permission};
///
/// let manifest = Manifest::new("word-count", "Word count", "1.2.0")
///     .description("Counts the words in form answers")
///     .config_schema(serde_json::json!({"type": "object", "additionalProperties": false}))
///     .permission(Permission::KeyValue)
///     .permission(Permission::ItemRead);
/// assert_eq!(manifest.id(), "word-count");
/// assert!(manifest.check().is_ok());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    id: String,
    name: String,
    version: String,
    description: String,
    config_schema: String,
    permissions: Vec<Permission>,
}

impl Manifest {
    /// A manifest with an empty description, a schema that accepts any object, and no permissions.
    /// `id` is lowercase letters, digits and `-`, 1 to 64 characters; `version` is semantic.
    pub fn new(id: impl Into<String>, name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            version: version.into(),
            description: String::new(),
            config_schema: r#"{"type":"object"}"#.to_owned(),
            permissions: Vec::new(),
        }
    }

    /// Sets the one-line description shown in `GET /v0/modules`.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    /// Sets the JSON Schema a space's configuration of this module must satisfy.
    pub fn config_schema(mut self, schema: serde_json::Value) -> Self {
        self.config_schema = schema.to_string();
        self
    }

    /// Sets the JSON Schema from its text, e.g. `include_str!("config.schema.json")`.
    pub fn config_schema_text(mut self, schema: impl Into<String>) -> Self {
        self.config_schema = schema.into();
        self
    }

    /// Asks for one more capability.
    pub fn permission(mut self, permission: Permission) -> Self {
        self.permissions.push(permission);
        self
    }

    /// Checks what the host will check when it loads the module: the id's form (a lowercase letter, then up to
    /// 63 of `a-z`, `0-9` and `-`), a non-empty version, and a schema that is a JSON object and, natively (in
    /// `cargo test-native`), a valid JSON Schema by the same meta-schema validation as the host. Meant for a
    /// module's unit tests. (Whether each permission exists for the module's kind is checked by the host,
    /// which knows the kind from the export.)
    pub fn check(&self) -> crate::Result<()> {
        if !is_valid_id(&self.id) {
            return Err(crate::Error::new(format!(
                "module id {:?} must be a lowercase letter followed by up to 63 of a-z, 0-9 and -",
                self.id
            )));
        }
        if self.version.is_empty() {
            return Err(crate::Error::new("module version is empty"));
        }
        let schema = match serde_json::from_str::<serde_json::Value>(&self.config_schema) {
            Ok(schema @ serde_json::Value::Object(_)) => schema,
            Ok(_) => return Err(crate::Error::new("config schema is not a JSON object")),
            Err(error) => return Err(crate::Error::new(format!("config schema is not JSON: {error}"))),
        };
        #[cfg(not(target_arch = "wasm32"))]
        if let Err(error) = jsonschema::validator_for(&schema) {
            return Err(crate::Error::new(format!("configSchema is not a valid JSON Schema: {error}")));
        }
        let _ = schema;
        Ok(())
    }

    /// Checks a space's configuration against the module's schema as the host does when a space connects the
    /// module, listing every problem (`/path: message`). Native only: for unit tests.
    ///
    /// ```
    /// use trellis_plugin_sdk::Manifest;
    ///
    /// let manifest = Manifest::new("poll", "Poll", "1.0.0")
    ///     .config_schema(serde_json::json!({"type": "object", "properties": {"max": {"type": "integer"}}}));
    /// assert!(manifest.check_config(&serde_json::json!({"max": 3})).is_ok());
    /// assert!(manifest.check_config(&serde_json::json!({"max": "three"})).is_err());
    /// ```
    #[cfg(not(target_arch = "wasm32"))]
    pub fn check_config(&self, config: &serde_json::Value) -> crate::Result<()> {
        self.check()?;
        let schema: serde_json::Value = serde_json::from_str(&self.config_schema)
            .map_err(|error| crate::Error::new(format!("config schema is not JSON: {error}")))?;
        let validator = jsonschema::validator_for(&schema)
            .map_err(|error| crate::Error::new(format!("configSchema is not a valid JSON Schema: {error}")))?;
        let problems: Vec<String> =
            validator.iter_errors(config).map(|error| format!("{}: {error}", error.instance_path())).collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(crate::Error::new(format!("the configuration breaks the module's schema: {}", problems.join("; "))))
        }
    }

    /// The module's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The module's display name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The module's own semantic version.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The description.
    pub fn description_text(&self) -> &str {
        &self.description
    }

    /// The configuration's JSON Schema as JSON text.
    pub fn config_schema_json(&self) -> &str {
        &self.config_schema
    }

    /// The capabilities asked for.
    pub fn permissions(&self) -> &[Permission] {
        &self.permissions
    }

    /// The manifest in WIT 0.3.0's terms, as a module of `kind`.
    pub(crate) fn into_wit(self, kind: ModuleKind) -> wit::Manifest {
        wit::Manifest {
            id: self.id,
            name: self.name,
            version: self.version,
            kind: match kind {
                ModuleKind::Space => wit::ModuleKind::Space,
                ModuleKind::MarketplaceRule => wit::ModuleKind::MarketplaceRule,
                ModuleKind::AnalysisStep => wit::ModuleKind::AnalysisStep,
            },
            description: self.description,
            config_schema: self.config_schema,
            permissions: self.permissions.into_iter().map(Permission::into_wit).collect(),
        }
    }
}

impl Permission {
    fn into_wit(self) -> wit::Permission {
        match self {
            Permission::KeyValue => wit::Permission::KeyValue,
            Permission::Logging => wit::Permission::Logging,
            Permission::ItemRead => wit::Permission::ItemRead,
            Permission::AssetRead => wit::Permission::AssetRead,
            Permission::OutboundHttp(hosts) => wit::Permission::OutboundHttp(hosts),
            Permission::MediaDecode => wit::Permission::MediaDecode,
            Permission::Vision => wit::Permission::Vision,
            Permission::Speech => wit::Permission::Speech,
        }
    }
}

/// The host's rule for module ids (also a crate name, so `trellis module new` applies it too).
fn is_valid_id(id: &str) -> bool {
    let mut bytes = id.bytes();
    id.len() <= 64
        && bytes.next().is_some_and(|b| b.is_ascii_lowercase())
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    /// The same names as the host's test of `trellis module new` and the manifest rule.
    #[test]
    fn ids_follow_the_hosts_rule() {
        for good in ["a", "poll", "word-count", "a1-b2", &"x".repeat(64)] {
            assert!(Manifest::new(good, "n", "1.0.0").check().is_ok(), "{good}");
        }
        for bad in ["", "Poll", "9lives", "a_b", "-a", &"x".repeat(65)] {
            assert!(Manifest::new(bad, "n", "1.0.0").check().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_schema_the_host_refuses_fails_the_check() {
        let bad = Manifest::new("poll", "Poll", "1.0.0").config_schema(serde_json::json!({"minItems": "two"}));
        let error = bad.check().unwrap_err();
        assert!(error.to_string().contains("not a valid JSON Schema"), "{error}");
    }

    #[test]
    fn a_configuration_is_checked_against_the_schema_with_every_problem() {
        let manifest = Manifest::new("poll", "Poll", "1.0.0").config_schema(serde_json::json!({
            "type": "object", "additionalProperties": false,
            "properties": {"max": {"type": "integer"}, "title": {"type": "string"}}
        }));
        assert!(manifest.check_config(&serde_json::json!({"max": 2})).is_ok());
        let error = manifest.check_config(&serde_json::json!({"max": "two", "title": 1})).unwrap_err().to_string();
        assert!(error.contains("/max") && error.contains("/title"), "{error}");
    }
}
