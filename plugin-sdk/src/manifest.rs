use crate::wit::analysis_imports::trellis::module::types as wit2;
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

    /// Checks what the host will check when it loads the module: the id's form, a non-empty version, and a
    /// schema that is a JSON object. Meant for a module's unit tests. (Whether each permission exists for the
    /// module's kind is checked by the host, which knows the kind from the export.)
    pub fn check(&self) -> crate::Result<()> {
        let id_ok = (1..=64).contains(&self.id.len())
            && self.id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !id_ok {
            return Err(crate::Error::new(format!("module id {:?} must be 1-64 of [a-z0-9-]", self.id)));
        }
        if self.version.is_empty() {
            return Err(crate::Error::new("module version is empty"));
        }
        match serde_json::from_str::<serde_json::Value>(&self.config_schema) {
            Ok(serde_json::Value::Object(_)) => Ok(()),
            Ok(_) => Err(crate::Error::new("config schema is not a JSON object")),
            Err(error) => Err(crate::Error::new(format!("config schema is not JSON: {error}"))),
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

    /// The manifest in WIT 0.1.0's terms (space modules and marketplace rules). The inference permissions do
    /// not exist there and are left out: such a module cannot call them either.
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
            permissions: self.permissions.into_iter().filter_map(Permission::into_wit).collect(),
        }
    }

    /// The manifest in WIT 0.2.0's terms (analysis steps).
    pub(crate) fn into_wit_v0_2(self) -> wit2::Manifest {
        wit2::Manifest {
            id: self.id,
            name: self.name,
            version: self.version,
            kind: wit2::ModuleKind::AnalysisStep,
            description: self.description,
            config_schema: self.config_schema,
            permissions: self.permissions.into_iter().map(Permission::into_wit_v0_2).collect(),
        }
    }
}

impl Permission {
    fn into_wit(self) -> Option<wit::Permission> {
        Some(match self {
            Permission::KeyValue => wit::Permission::KeyValue,
            Permission::Logging => wit::Permission::Logging,
            Permission::ItemRead => wit::Permission::ItemRead,
            Permission::AssetRead => wit::Permission::AssetRead,
            Permission::OutboundHttp(hosts) => wit::Permission::OutboundHttp(hosts),
            Permission::MediaDecode | Permission::Vision | Permission::Speech => return None,
        })
    }

    fn into_wit_v0_2(self) -> wit2::Permission {
        match self {
            Permission::KeyValue => wit2::Permission::KeyValue,
            Permission::Logging => wit2::Permission::Logging,
            Permission::ItemRead => wit2::Permission::ItemRead,
            Permission::AssetRead => wit2::Permission::AssetRead,
            Permission::OutboundHttp(hosts) => wit2::Permission::OutboundHttp(hosts),
            Permission::MediaDecode => wit2::Permission::MediaDecode,
            Permission::Vision => wit2::Permission::Vision,
            Permission::Speech => wit2::Permission::Speech,
        }
    }
}
