//! What a module says about itself, and the checks a manifest must pass before the host runs the module.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Serialize, Serializer};

use crate::capabilities::Grant;

/// Which world a module implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModuleKind {
    /// Connected to spaces: receives their events and serves its own routes.
    Space,
    /// Scores marketplace listings and decides registrations.
    MarketplaceRule,
    /// One step of the analysis of published assets.
    AnalysisStep,
}

impl ModuleKind {
    /// The name used in JSON: `space`, `marketplace-rule` or `analysis-step`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Space => "space",
            Self::MarketplaceRule => "marketplace-rule",
            Self::AnalysisStep => "analysis-step",
        }
    }

    /// The WIT world a module of this kind targets.
    pub fn world(self) -> &'static str {
        match self {
            Self::Space => "space-module",
            Self::MarketplaceRule => "marketplace-rule",
            Self::AnalysisStep => "analysis-step",
        }
    }
}

impl std::fmt::Display for ModuleKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A capability a module asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Permission {
    /// A capability that takes no parameter, by its grant: `key-value`, `logging`, `media-decode`, ...
    Plain(Grant),
    /// Outbound HTTP to these host names only.
    OutboundHttp(Vec<String>),
}

impl Permission {
    /// The grant that covers this permission.
    pub fn grant(&self) -> Grant {
        match self {
            Self::Plain(grant) => *grant,
            Self::OutboundHttp(_) => Grant::OutboundHttp,
        }
    }

    /// The form shown in the catalogue: `key-value`, ..., and `outbound-http:HOST` once per host.
    pub(crate) fn labels(&self) -> Vec<String> {
        match self {
            Self::OutboundHttp(hosts) if !hosts.is_empty() => {
                hosts.iter().map(|host| format!("outbound-http:{host}")).collect()
            }
            other => vec![other.grant().label().to_owned()],
        }
    }
}

/// As in the manifest's JSON: `"key-value"`, or `{"outbound-http": [HOST, ...]}`.
impl Serialize for Permission {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Self::Plain(grant) => grant.serialize(serializer),
            Self::OutboundHttp(hosts) => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry(Grant::OutboundHttp.label(), hosts)?;
                map.end()
            }
        }
    }
}

/// A module's manifest, as read from the component's `module-info` export.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    /// Stable identifier: lowercase letters, digits and `-`, 1 to 64 characters.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Semantic version of the module.
    pub version: String,
    /// The world the module says it implements.
    pub kind: ModuleKind,
    /// What the module does.
    pub description: String,
    /// JSON Schema of the module's configuration, as the module gave it (serialized as JSON when it parses).
    #[serde(serialize_with = "json_if_parses")]
    pub config_schema: String,
    /// Capabilities the module asks for.
    pub permissions: Vec<Permission>,
}

fn json_if_parses<S: Serializer>(text: &str, serializer: S) -> Result<S::Ok, S::Error> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) => value.serialize(serializer),
        Err(_) => serializer.serialize_str(text),
    }
}

const MAX_NAME_CHARS: usize = 100;
const MAX_DESCRIPTION_CHARS: usize = 2000;
const MAX_SCHEMA_BYTES: usize = 64 * 1024;

// Also a Rust crate name, so `trellis module new NAME` and the manifest share it: a letter comes first.
static ID_PATTERN: LazyLock<Regex> = LazyLock::new(|| Regex::new("^[a-z][a-z0-9-]{0,63}$").expect("valid pattern"));

/// Whether `id` is a valid module id: a lowercase letter, then up to 63 of `a-z`, `0-9` and `-`.
pub fn is_valid_module_id(id: &str) -> bool {
    ID_PATTERN.is_match(id)
}
// Exact DNS names: the deployment allows hosts one by one, so wildcards, ports and schemes are refused.
static HOST_PATTERN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$").expect("valid")
});

impl Manifest {
    /// The grants this manifest asks for.
    pub fn asked(&self) -> Vec<Grant> {
        self.permissions.iter().map(Permission::grant).collect()
    }

    /// Host names the module asks to reach, if it asks for outbound HTTP.
    pub fn asked_hosts(&self) -> Option<&[String]> {
        self.permissions.iter().find_map(|p| match p {
            Permission::OutboundHttp(hosts) => Some(hosts.as_slice()),
            _ => None,
        })
    }

    /// Every problem that stops the host from running this module; empty when the manifest is valid.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if !ID_PATTERN.is_match(&self.id) {
            problems
                .push(format!("id {:?} must be a lowercase letter followed by up to 63 of a-z, 0-9 and '-'", self.id));
        }
        if let Err(err) = semver::Version::parse(&self.version) {
            problems.push(format!("version {:?} is not a semantic version: {err}", self.version));
        }
        if self.name.trim().is_empty() || self.name.chars().count() > MAX_NAME_CHARS {
            problems.push(format!("name must be 1 to {MAX_NAME_CHARS} characters"));
        }
        if self.description.chars().count() > MAX_DESCRIPTION_CHARS {
            problems.push(format!("description is longer than {MAX_DESCRIPTION_CHARS} characters"));
        }
        if let Err(err) = self.compile_schema() {
            problems.push(err);
        }
        let mut seen = Vec::new();
        for permission in &self.permissions {
            let grant = permission.grant();
            if seen.contains(&grant) {
                problems.push(format!("permission {} is listed twice", grant.label()));
            }
            seen.push(grant);
            if !grant.capability().kinds.contains(&self.kind) {
                problems.push(format!(
                    "permission {} does not exist for a {} module (world {})",
                    grant.label(),
                    self.kind,
                    self.kind.world()
                ));
            }
            if let Permission::OutboundHttp(hosts) = permission {
                for host in hosts.iter().filter(|h| h.len() > 253 || !HOST_PATTERN.is_match(h)) {
                    problems.push(format!("outbound-http host {host:?} is not an exact lowercase host name"));
                }
            }
        }
        problems
    }

    /// The configuration schema, compiled.
    pub fn compile_schema(&self) -> Result<jsonschema::Validator, String> {
        if self.config_schema.len() > MAX_SCHEMA_BYTES {
            return Err(format!("configSchema is larger than {MAX_SCHEMA_BYTES} bytes"));
        }
        let schema: serde_json::Value =
            serde_json::from_str(&self.config_schema).map_err(|err| format!("configSchema is not JSON: {err}"))?;
        jsonschema::validator_for(&schema).map_err(|err| format!("configSchema is not a valid JSON Schema: {err}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest() -> Manifest {
        Manifest {
            id: "tags".into(),
            name: "Tags".into(),
            version: "1.2.3".into(),
            kind: ModuleKind::Space,
            description: "tags items".into(),
            config_schema: r#"{"type":"object"}"#.into(),
            permissions: vec![
                Permission::Plain(Grant::KeyValue),
                Permission::OutboundHttp(vec!["api.example.com".into()]),
            ],
        }
    }

    #[test]
    fn valid_manifest_has_no_problems() {
        assert_eq!(manifest().problems(), Vec::<String>::new());
    }

    #[test]
    fn every_problem_is_listed() {
        let bad = Manifest {
            id: "Tags!".into(),
            version: "1.0".into(),
            config_schema: r#"{"type": 12}"#.into(),
            permissions: vec![
                Permission::Plain(Grant::AssetRead),
                Permission::Plain(Grant::KeyValue),
                Permission::Plain(Grant::KeyValue),
                Permission::OutboundHttp(vec!["*.example.com".into()]),
            ],
            ..manifest()
        };

        let problems = bad.problems();

        assert_eq!(problems.len(), 6, "{problems:#?}");
        assert!(problems[0].starts_with("id"));
        assert!(problems[1].starts_with("version"));
        assert!(problems[2].starts_with("configSchema is not a valid JSON Schema"));
        assert!(problems[3].contains("asset-read does not exist for a space module"));
        assert!(problems[4].contains("listed twice"));
        assert!(problems[5].contains("*.example.com"));
    }

    #[test]
    fn serializes_schema_as_json_and_permissions_in_kebab_case() {
        let json = serde_json::to_value(manifest()).unwrap();

        assert_eq!(json["configSchema"], serde_json::json!({"type": "object"}));
        assert_eq!(json["kind"], "space");
        assert_eq!(json["permissions"], serde_json::json!(["key-value", {"outbound-http": ["api.example.com"]}]));
    }
}
