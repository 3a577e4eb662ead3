//! The `[modules]` table: the module host's own settings (`enable`, `cache_dir`, deadlines, memory
//! caps; see [`trellis_modules::ModulesConfig`]) side by side with the switches of built-in web
//! modules (`modules.web.authentication.passwordReset`).

use std::borrow::Cow;
use std::path::Path;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::WebModuleConfig;

/// Everything under `[modules]`. Unknown keys are refused, as everywhere in the configuration.
#[derive(Clone, Debug)]
pub struct ModulesConfig {
    /// `modules.web`: built-in features that can be switched off.
    pub web: WebModuleConfig,
    /// Every other key of the table: which modules run and their limits.
    pub runtime: trellis_modules::ModulesConfig,
}

/// The module host's defaults, with `enable` defaulting to the bundled modules of [`crate::bundled`].
impl Default for ModulesConfig {
    fn default() -> Self {
        let runtime = trellis_modules::ModulesConfig {
            enable: crate::bundled::enabled_by_default(),
            ..trellis_modules::ModulesConfig::default()
        };
        Self { web: WebModuleConfig::default(), runtime }
    }
}

impl ModulesConfig {
    /// The module host's settings, with the compiled-code cache defaulting to
    /// `<data_dir>/module-cache`.
    pub fn runtime_for(&self, data_dir: &Path) -> trellis_modules::ModulesConfig {
        let mut runtime = self.runtime.clone();
        if runtime.cache_dir.is_none() {
            runtime.cache_dir = Some(data_dir.join("module-cache"));
        }
        runtime
    }
}

// Written by hand rather than with `#[serde(flatten)]`, which cannot refuse unknown keys: `web` is
// taken out, and the rest must be exactly the module host's settings.
impl<'de> Deserialize<'de> for ModulesConfig {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let mut table = Map::<String, Value>::deserialize(deserializer)?;
        let web = match table.remove("web") {
            Some(web) => serde_json::from_value(web).map_err(|e| D::Error::custom(format!("modules.web: {e}")))?,
            None => WebModuleConfig::default(),
        };
        let set_enable = table.contains_key("enable");
        let mut runtime: trellis_modules::ModulesConfig =
            serde_json::from_value(Value::Object(table)).map_err(|e| D::Error::custom(format!("modules: {e}")))?;
        if !set_enable {
            runtime.enable = crate::bundled::enabled_by_default();
        }
        Ok(Self { web, runtime })
    }
}

impl Serialize for ModulesConfig {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        let mut table = serde_json::to_value(&self.runtime).map_err(S::Error::custom)?;
        let web = serde_json::to_value(&self.web).map_err(S::Error::custom)?;
        if let Value::Object(table) = &mut table {
            table.insert("web".into(), web);
        }
        table.serialize(serializer)
    }
}

/// The module host's own table with `web` beside its keys, as the `Deserialize` above reads it.
impl JsonSchema for ModulesConfig {
    fn schema_name() -> Cow<'static, str> {
        "ModulesConfig".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = trellis_modules::ModulesConfig::json_schema(generator);
        let mut web = generator.subschema_for::<WebModuleConfig>();
        web.insert("description".into(), "Switches of the built-in web modules.".into());
        if let Some(Value::Object(properties)) = schema.get_mut("properties") {
            properties.insert("web".into(), web.to_value());
        }
        schema
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use serde_json::json;

    use super::*;

    #[test]
    fn the_table_holds_web_switches_and_module_host_settings() {
        let config: ModulesConfig = serde_json::from_value(json!({
            "web": {"authentication": {"passwordReset": {"enabled": false}}},
            "enable": [{"id": "tags"}, {"path": "/m/x.wasm", "grants": ["key-value"]}],
            "request_deadline_ms": 80,
        }))
        .unwrap();
        assert!(!config.web.authentication.password_reset.enabled);
        assert_eq!(config.runtime.enable.len(), 2);
        assert_eq!(config.runtime.request_deadline_ms, 80);
        let runtime = config.runtime_for(Path::new("/data"));
        assert_eq!(runtime.cache_dir, Some(PathBuf::from("/data/module-cache")));
    }

    #[test]
    fn an_empty_table_enables_the_bundled_modules_and_unknown_keys_are_refused() {
        let config: ModulesConfig = serde_json::from_value(json!({})).unwrap();
        assert!(config.web.authentication.password_reset.enabled);
        assert_eq!(
            config.runtime.enable,
            [
                trellis_modules::EnabledModule::bundled("tags"),
                trellis_modules::EnabledModule::bundled("marketplace-default"),
                trellis_modules::EnabledModule::bundled("analysis-default")
            ]
        );
        assert_eq!(ModulesConfig::default().runtime.enable, config.runtime.enable);
        let none: ModulesConfig = serde_json::from_value(json!({"enable": []})).unwrap();
        assert!(none.runtime.enable.is_empty(), "an explicit empty list enables nothing");
        assert!(serde_json::from_value::<ModulesConfig>(json!({"enabled": []})).is_err());
        assert!(serde_json::from_value::<ModulesConfig>(json!({"web": {"chat": {}}})).is_err());
    }
}
