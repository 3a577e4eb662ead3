//! Deployment settings: defaults, then an optional TOML file, then `TRELLIS_*` environment
//! variables (nested keys joined by `__`, e.g. `TRELLIS_DATABASE__URL`), then command-line flags
//! (`layers.rs`); the types here are the one description of them (`schema.rs`, `describe.rs`).

pub mod accounts;
pub mod analysis;
pub mod describe;
pub mod export;
pub mod jobs;
pub mod layers;
pub mod live;
pub mod marketplace;
pub mod media;
pub mod modules;
mod schema;

pub use accounts::{AuthConfig, AuthenticationModuleConfig, MailConfig, RateLimitConfig, Switch, WebModuleConfig};
pub use modules::ModulesConfig;

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::domain::entitlement::{Entitlement, Plan};

/// Everything a deployment can set. Every field has a default, so an empty file is a valid config.
#[derive(Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Address the HTTP server binds.
    pub listen: SocketAddr,
    /// Folder for the embedded database, media, the outbox and the first license key.
    pub data_dir: PathBuf,
    /// The database: the embedded SQLite file, or a PostgreSQL server.
    pub database: DatabaseConfig,
    /// Sessions and password hashing.
    pub auth: AuthConfig,
    /// The HTTP server: body limits, timeouts, connection caps, proxies.
    pub http: HttpConfig,
    /// Third-party API gateway mode (off unless a secret is set).
    pub gateway: GatewayConfig,
    /// How mail (sign-up and reset PINs) is sent.
    pub mail: MailConfig,
    /// Attempts allowed per minute (login, PIN, mail, comments).
    pub rate_limits: RateLimitConfig,
    /// Plans by name; each maps entitlement names to daily quotas.
    pub plans: BTreeMap<String, BTreeMap<String, u64>>,
    /// Percent (1 to 100, rounded up) of each of a license key's daily quotas that one signed-in
    /// user may spend, so one user of a key many share cannot spend the day for all.
    pub quota_user_share_percent: u64,
    /// WebAssembly modules: which are enabled, what they may do and spend.
    pub modules: ModulesConfig,
    /// Where media bytes live and how uploads are bounded.
    pub media: media::MediaConfig,
    /// The marketplace: ranking and registration bounds.
    pub marketplace: marketplace::MarketplaceConfig,
    /// The durable background job queue.
    pub jobs: jobs::JobsConfig,
    /// The background analysis of published assets.
    pub analysis: analysis::AnalysisConfig,
    /// Live updates: the Server-Sent Event streams of `GET /v0/events`.
    pub live: live::LiveConfig,
    /// Streaming exports of form instances and workflow items.
    pub export: export::ExportConfig,
    /// Logging to standard error.
    pub log: LogConfig,
    /// `GET /metrics` in the Prometheus text format.
    pub metrics: MetricsConfig,
    /// Seconds a verified license key is trusted before it is looked up again. A revocation (from
    /// the command line too) is announced to every server on PostgreSQL; this bounds what a server
    /// that missed an announcement may still accept.
    pub license_cache_seconds: u64,
    /// Seconds a checked session is trusted before it is looked up again. Logout and password
    /// reset take effect at once in the server that handles them and, announced on PostgreSQL,
    /// in the others within milliseconds; this bounds what a server that missed one may serve.
    pub session_cache_seconds: u64,
    /// Seconds a parsed form configuration is used before its revision is checked again.
    /// Updates through this server take effect at once.
    pub configuration_cache_seconds: u64,
    /// Seconds a space membership and a space's connected modules are trusted before they are
    /// looked up again. Changes take effect at once here and, announced on PostgreSQL, in the
    /// other servers within milliseconds; this bounds what a server that missed one may serve.
    pub space_cache_seconds: u64,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            data_dir: PathBuf::from("data"),
            database: DatabaseConfig::default(),
            auth: AuthConfig::default(),
            http: HttpConfig::default(),
            gateway: GatewayConfig::default(),
            mail: MailConfig::default(),
            rate_limits: RateLimitConfig::default(),
            plans: BTreeMap::new(),
            quota_user_share_percent: 25,
            modules: ModulesConfig::default(),
            media: media::MediaConfig::default(),
            marketplace: marketplace::MarketplaceConfig::default(),
            jobs: jobs::JobsConfig::default(),
            analysis: analysis::AnalysisConfig::default(),
            live: live::LiveConfig::default(),
            export: export::ExportConfig::default(),
            log: LogConfig::default(),
            metrics: MetricsConfig::default(),
            license_cache_seconds: 5,
            session_cache_seconds: 5,
            configuration_cache_seconds: 5,
            space_cache_seconds: 5,
        }
    }
}

#[derive(Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct DatabaseConfig {
    /// `sqlite://...` or `postgres://...`; empty means the SQLite file `<data-dir>/trellis.db`.
    pub url: String,
    /// Pool size; 0 picks a default suited to the engine.
    pub max_connections: u32,
}

#[derive(Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct HttpConfig {
    /// Largest JSON request body accepted, in bytes.
    pub json_body_limit: usize,
    /// Reverse proxies in front of the server, as addresses (`10.0.0.7`) or networks
    /// (`10.0.0.0/8`, `fd00::/8`). `X-Forwarded-For` is read only on connections from one of
    /// them, and the client address is its rightmost entry that is not one of them (entries left
    /// of it are the client's own words). Empty: the header is never read, and the client address
    /// is the connection's peer. (Replaces `trust_forwarded_for`, which believed any peer.)
    pub trusted_proxies: Vec<String>,
    /// Seconds a client may take to send a request's headers, and an idle kept-alive connection
    /// waits for the next request, before the connection is closed.
    pub header_timeout_seconds: u64,
    /// Seconds a request body may stall (no bytes arriving) before the request fails.
    pub body_idle_timeout_seconds: u64,
    /// Seconds a response write may stay blocked on a client that does not read.
    pub write_timeout_seconds: u64,
    /// Open connections the server holds at once; beyond them a new connection is answered
    /// 429 and closed.
    pub max_connections: usize,
    /// Open connections from one client address (IPv4 /32, IPv6 /64) at once.
    pub max_connections_per_address: usize,
    /// Seconds in-flight requests may take to finish once shutdown begins; then they are cut.
    pub shutdown_grace_seconds: u64,
    /// Origins of browser apps allowed to call the API across origins (CORS), each as
    /// `scheme://host[:port]`, e.g. `https://app.example.com`. Empty: no cross-origin access.
    pub cors_origins: Vec<String>,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            json_body_limit: 1024 * 1024,
            trusted_proxies: Vec::new(),
            header_timeout_seconds: 10,
            body_idle_timeout_seconds: 30,
            write_timeout_seconds: 30,
            max_connections: 4096,
            max_connections_per_address: 256,
            shutdown_grace_seconds: 30,
            cors_origins: Vec::new(),
        }
    }
}

/// Third-party API gateway mode; off unless `proxy_secret` is set.
#[derive(Clone, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct GatewayConfig {
    /// The shared secret the gateway sends; setting it switches gateway mode on.
    pub proxy_secret: Option<String>,
    /// Header that carries the gateway's secret.
    pub secret_header: String,
    /// Header that names the gateway's user.
    pub user_header: String,
    /// Header that names the gateway subscription, used as the plan.
    pub plan_header: String,
}

impl Default for GatewayConfig {
    fn default() -> Self {
        Self {
            proxy_secret: None,
            secret_header: "X-RapidAPI-Proxy-Secret".into(),
            user_header: "X-RapidAPI-User".into(),
            plan_header: "X-RapidAPI-Subscription".into(),
        }
    }
}

impl fmt::Debug for GatewayConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GatewayConfig")
            .field("proxy_secret", &self.proxy_secret.as_ref().map(|_| "<redacted>"))
            .field("secret_header", &self.secret_header)
            .finish_non_exhaustive()
    }
}

/// `GET /metrics` (Prometheus text format). Never served to anonymous clients: on the main listener
/// only with `Authorization: Bearer <token>`; on `listen`, a separate address meant for a private
/// network, to anyone who reaches it (and with the token too, when one is set). Off when neither is set.
#[derive(Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct MetricsConfig {
    /// Bearer token (16+ characters) that serves `/metrics` on the main listener.
    pub token: Option<String>,
    /// An address of its own for `/metrics`, meant for a private network.
    pub listen: Option<SocketAddr>,
}

impl fmt::Debug for MetricsConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MetricsConfig")
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("listen", &self.listen)
            .finish()
    }
}

/// Logging to standard error.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct LogConfig {
    /// A `tracing` filter, e.g. `info,trellis=debug`.
    pub filter: String,
    /// `text` or `json`.
    pub format: String,
}

impl Default for LogConfig {
    fn default() -> Self {
        Self { filter: "info,sqlx=warn".into(), format: "text".into() }
    }
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("listen", &self.listen)
            .field("data_dir", &self.data_dir)
            .field("database", &redact_url(&self.database.url))
            .field("gateway", &self.gateway)
            .field("smtp", &self.mail.smtp_url.as_deref().map(redact_url))
            .field("plans", &self.plans)
            .field("media", &(self.media.backend, &self.media.s3))
            .field("metrics", &self.metrics)
            .finish_non_exhaustive()
    }
}

/// A URL fit for logs: no user information, and no query value that could be a secret (a
/// password may sit in `?password=` as well as before the `@`).
pub(crate) fn redact_url(url: &str) -> String {
    /// Query parameters whose values are never secret.
    const PLAIN: [&str; 5] = ["mode", "sslmode", "application_name", "connect_timeout", "tls"];
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let mut out = match (base.find("://"), base.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => format!("{}://<redacted>@{}", &base[..scheme], &base[at + 1..]),
        _ => base.to_owned(),
    };
    if !query.is_empty() {
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, value)) if PLAIN.contains(&name.to_ascii_lowercase().as_str()) => format!("{name}={value}"),
                Some((name, _)) => format!("{name}=<redacted>"),
                None => pair.to_owned(),
            })
            .collect();
        out.push('?');
        out.push_str(&pairs.join("&"));
    }
    out
}

/// Flags given on the command line; they win over the file and the environment.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub config_file: Option<PathBuf>,
    pub data_dir: Option<PathBuf>,
    pub listen: Option<SocketAddr>,
}

impl Config {
    /// Layers defaults, the file (explicit, or `trellis.toml` when present), the environment and flags.
    pub fn load(overrides: &Overrides) -> anyhow::Result<Self> {
        Ok(layers::load(overrides)?.config)
    }

    /// The `default` plan always exists; the file may override single quotas of it.
    pub fn fill_default_plan(&mut self) {
        let plan = self.plans.entry("default".into()).or_default();
        for entitlement in Entitlement::ALL {
            plan.entry(entitlement.name().into()).or_insert(entitlement.default_quota());
        }
    }

    fn validate(&self) -> anyhow::Result<()> {
        // An empty secret would switch gateway mode on and let a request with an empty header in.
        anyhow::ensure!(
            self.gateway.proxy_secret.as_deref().is_none_or(|secret| !secret.trim().is_empty()),
            "gateway.proxy_secret is empty: leave it out to switch gateway mode off, or set a secret"
        );
        // A short token is guessable; an empty one would serve metrics to anyone.
        anyhow::ensure!(
            self.metrics.token.as_deref().is_none_or(|token| token.trim().len() >= 16),
            "metrics.token must be at least 16 characters: leave it out to serve /metrics only on metrics.listen"
        );
        // No window would reject every announcement before its upload could arrive.
        anyhow::ensure!(
            self.media.asset_upload_window_seconds > 0,
            "media.asset_upload_window_seconds must be at least 1: an announcement needs time for its upload"
        );
        crate::http::forwarded::TrustedProxies::parse(&self.http.trusted_proxies)
            .map_err(|problem| anyhow::anyhow!("http.trusted_proxies: {problem}"))?;
        for origin in &self.http.cors_origins {
            anyhow::ensure!(
                is_origin(origin),
                "http.cors_origins holds {origin:?}, which is not an origin such as \"https://app.example.com\""
            );
        }
        anyhow::ensure!(
            (1..=100).contains(&self.quota_user_share_percent),
            "quota_user_share_percent must be 1 to 100 (100: a user may spend a key's whole quota)"
        );
        for (plan, quotas) in &self.plans {
            for key in quotas.keys() {
                anyhow::ensure!(
                    Entitlement::parse(key).is_some(),
                    "plan {plan:?} names an unknown entitlement {key:?}"
                );
            }
        }
        Ok(())
    }

    /// The quotas of a plan, or `None` when the configuration has no such plan.
    pub fn plan(&self, name: &str) -> Option<Plan> {
        let quotas = self.plans.get(name)?;
        let defaults = &self.plans["default"];
        Some(Plan::new(name, |entitlement| {
            let key = entitlement.name();
            quotas
                .iter()
                .chain(defaults.iter())
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .map(|(_, v)| *v)
                .unwrap_or(entitlement.default_quota())
        }))
    }

    /// The database URL, defaulting to a SQLite file inside the data directory.
    pub fn database_url(&self) -> String {
        if self.database.url.is_empty() {
            format!("sqlite://{}?mode=rwc", self.data_dir.join("trellis.db").display())
        } else {
            self.database.url.clone()
        }
    }

    pub fn outbox_dir(&self) -> PathBuf {
        self.data_dir.join("outbox")
    }

    pub fn license_file(&self) -> PathBuf {
        self.data_dir.join("license.key")
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }
}

/// `http://` or `https://`, then a host and perhaps a port: no path, query or trailing slash, as a
/// browser sends it in `Origin`.
fn is_origin(text: &str) -> bool {
    let Some(authority) = text.strip_prefix("https://").or_else(|| text.strip_prefix("http://")) else {
        return false;
    };
    !authority.is_empty()
        && authority.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_gateway_secret_is_a_configuration_error() {
        for (secret, ok) in [("", false), ("  ", false), ("s3cret", true)] {
            let mut config = Config::default();
            config.gateway.proxy_secret = Some(secret.into());
            assert_eq!(config.validate().is_ok(), ok, "proxy_secret = {secret:?}");
        }
        assert!(Config::default().validate().is_ok(), "no secret: gateway mode off");
    }

    #[test]
    fn cors_origins_must_be_origins() {
        for (origin, ok) in [
            ("https://app.example.com", true),
            ("http://127.0.0.1:5173", true),
            ("https://app.example.com/", false),
            ("app.example.com", false),
            ("*", false),
            ("https://", false),
        ] {
            let mut config = Config::default();
            config.http.cors_origins = vec![origin.into()];
            assert_eq!(config.validate().is_ok(), ok, "{origin:?}");
        }
    }

    #[test]
    fn trusted_proxies_must_be_addresses_or_networks() {
        for (entry, ok) in [("10.0.0.0/8", true), ("127.0.0.1", true), ("fd00::/8", true), ("proxy.lan", false)] {
            let mut config = Config::default();
            config.http.trusted_proxies = vec![entry.into()];
            assert_eq!(config.validate().is_ok(), ok, "{entry:?}");
        }
    }

    #[test]
    fn default_plan_exists_with_documented_quotas() {
        let mut config = Config::default();
        config.fill_default_plan();
        let plan = config.plan("default").unwrap();
        assert_eq!(plan.quota(Entitlement::FormUploads), 10_000);
        assert_eq!(plan.quota(Entitlement::PublishedAssets), 1_000);
        assert_eq!(plan.quota(Entitlement::Messages), 1_000);
        assert!(config.plan("gold").is_none());
    }

    #[test]
    fn database_urls_are_redacted_in_debug() {
        assert_eq!(redact_url("postgres://u:secret@db/x"), "postgres://<redacted>@db/x");
        assert_eq!(redact_url("sqlite://data/x.db"), "sqlite://data/x.db");
        assert_eq!(redact_url("sqlite://data/x.db?mode=rwc"), "sqlite://data/x.db?mode=rwc");
        assert_eq!(
            redact_url("postgres://db/x?user=me&password=hunter2&sslmode=require"),
            "postgres://db/x?user=<redacted>&password=<redacted>&sslmode=require"
        );
        assert_eq!(redact_url("smtp://u:p@mail:587?auth=secret"), "smtp://<redacted>@mail:587?auth=<redacted>");
    }
}
