use serde::de::DeserializeOwned;

use crate::wit::imports::trellis::module::types as wit;

/// Where an invocation happens: the space and the configuration it gave this module.
///
/// ```
/// use serde::Deserialize;
/// use trellis_plugin_sdk::Context;
///
/// #[derive(Deserialize)]
/// #[serde(rename_all = "camelCase", default)]
/// struct Config {
///     max_per_item: u32,
/// }
/// impl Default for Config {
///     fn default() -> Self {
///         Config { max_per_item: 20 }
///     }
/// }
///
/// let ctx = Context::new("space-1", r#"{"maxPerItem": 5}"#);
/// assert_eq!(ctx.config::<Config>().unwrap().max_per_item, 5);
/// // No configuration at all reads as `{}`, so `#[serde(default)]` gives the defaults.
/// assert_eq!(Context::new("space-1", "").config::<Config>().unwrap().max_per_item, 20);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Context {
    space_id: String,
    config: String,
}

impl Context {
    /// A context for `space_id` with this configuration JSON text (also how tests build one).
    pub fn new(space_id: impl Into<String>, config_json: impl Into<String>) -> Self {
        Self { space_id: space_id.into(), config: config_json.into() }
    }

    /// A context for `space_id` whose configuration is `config` serialized.
    pub fn with_config(space_id: impl Into<String>, config: &serde_json::Value) -> Self {
        Self::new(space_id, config.to_string())
    }

    /// The space the module is connected to; empty for marketplace and analysis modules.
    pub fn space_id(&self) -> &str {
        &self.space_id
    }

    /// The configuration as JSON text, exactly as the host passed it.
    pub fn config_json(&self) -> &str {
        &self.config
    }

    /// The configuration deserialized into `T`. Empty text and `null` read as `{}`. The host has already
    /// validated it against the manifest's schema, so an error here means the schema and `T` disagree.
    pub fn config<T: DeserializeOwned>(&self) -> crate::Result<T> {
        let text = match self.config.trim() {
            "" | "null" => "{}",
            text => text,
        };
        serde_json::from_str(text).map_err(|error| crate::Error::new(format!("module configuration: {error}")))
    }
}

impl From<wit::Context> for Context {
    fn from(ctx: wit::Context) -> Self {
        Self { space_id: ctx.space_id, config: ctx.config }
    }
}
