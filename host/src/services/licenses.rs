//! License keys: issue, revoke, and the per-request check (with a short in-memory cache, since
//! every /v0 request needs it and keys change rarely).

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use time::OffsetDateTime;

use crate::config::Config;
use crate::domain::entitlement::{Plan, QuotaSubject};
use crate::domain::secret;
use crate::error::Error;
use crate::infra::cache::Cache;
use crate::infra::stale::{self, Stale};
use crate::store::{License, Store};

/// Who is calling, as far as licensing goes: whose quota to count and which plan sets it.
#[derive(Clone, Debug)]
pub struct Caller {
    pub subject: QuotaSubject,
    pub plan: Plan,
    /// The signed-in user whose share of the quotas is counted too (see [`Caller::spending`]).
    pub user_share: Option<QuotaSubject>,
}

impl Caller {
    /// A caller counted for its key or subscriber, with no user share.
    pub fn new(subject: QuotaSubject, plan: Plan) -> Self {
        Self { subject, plan, user_share: None }
    }

    /// The caller with `user_id`'s share of each quota counted beside the key's.
    pub fn spending(&self, user_id: &str) -> Self {
        Self { user_share: Some(self.subject.share_of(user_id)), ..self.clone() }
    }
}

pub struct Licenses {
    store: Store,
    config: Arc<Config>,
    /// Checked keys by digest: every /v0 request needs one, and keys change rarely.
    cache: Cache<String, Caller>,
}

const KEY_PREFIX: &str = "trk_";
/// Checked keys kept in memory.
const CACHED_KEYS: u64 = 100_000;
/// Longest header value looked at; anything longer is no key of ours.
const MAX_KEY_LEN: usize = 256;

impl Licenses {
    pub fn new(store: Store, config: Arc<Config>) -> Self {
        let ttl = Duration::from_secs(config.license_cache_seconds);
        Self { store, config, cache: Cache::new(ttl, CACHED_KEYS) }
    }

    /// Checks an `X-License-Key` value.
    pub async fn authorize_key(&self, key: &str) -> Result<Caller, Error> {
        if key.len() > MAX_KEY_LEN || !key.starts_with(KEY_PREFIX) {
            return Err(invalid());
        }
        self.authorize_digest(&secret::digest(key)).await
    }

    /// Checks a license key known by its digest (a live stream re-checks the key it was opened with).
    pub async fn authorize_digest(&self, digest: &str) -> Result<Caller, Error> {
        let digest = digest.to_owned();
        if let Some(caller) = self.cache.get(&digest) {
            return Ok(caller);
        }
        let ticket = self.cache.ticket();
        let license = self.store.licenses.license_by_digest(&digest).await?;
        let caller = match license {
            Some(license) if license.revoked_at.is_none() => {
                let plan = self.config.plan(&license.plan).ok_or_else(|| {
                    tracing::warn!(license_id = %license.license_id, plan = %license.plan, "license names a plan the configuration lacks");
                    invalid()
                })?;
                Caller::new(
                    QuotaSubject::license(&license.license_id),
                    plan.with_user_share(self.config.quota_user_share_percent),
                )
            }
            _ => {
                self.cache.remove(&digest);
                return Err(invalid());
            }
        };
        self.cache.insert(ticket, digest, caller.clone());
        Ok(caller)
    }

    /// Checks gateway headers: the proxy secret must match the configured one. The subscriber's
    /// plan is used when the configuration knows it, else `default`.
    pub fn authorize_gateway(
        &self,
        secret_value: &str,
        user: Option<&str>,
        plan: Option<&str>,
    ) -> Result<Caller, Error> {
        let Some(expected) = &self.config.gateway.proxy_secret else {
            return Err(invalid());
        };
        if !secret::same(secret_value, expected) {
            return Err(Error::LicenseInvalid(Cow::Borrowed("the gateway proxy secret is wrong")));
        }
        let user = user.filter(|u| !u.is_empty() && u.len() <= MAX_KEY_LEN).ok_or_else(|| {
            Error::LicenseInvalid(Cow::Owned(format!("the {} header is required", self.config.gateway.user_header)))
        })?;
        let plan = plan
            .and_then(|name| self.config.plan(&name.to_lowercase()).or_else(|| self.config.plan(name)))
            .or_else(|| self.config.plan("default"))
            .expect("the default plan always exists");
        Ok(Caller::new(QuotaSubject::gateway(user), plan.with_user_share(self.config.quota_user_share_percent)))
    }

    pub fn gateway_enabled(&self) -> bool {
        self.config.gateway.proxy_secret.is_some()
    }

    /// Issues a key on `plan`; answers the key (shown once, stored only as a digest).
    pub async fn issue(&self, plan: &str) -> anyhow::Result<(String, License)> {
        anyhow::ensure!(self.config.plan(plan).is_some(), "the configuration has no plan {plan:?}");
        let key = secret::new_token(KEY_PREFIX);
        let license =
            self.store.licenses.insert_license(&secret::digest(&key), plan, OffsetDateTime::now_utc()).await?;
        Ok((key, license))
    }

    /// Revokes by license id or by the key itself.
    pub async fn revoke(&self, id_or_key: &str) -> anyhow::Result<License> {
        let lookup = if id_or_key.starts_with(KEY_PREFIX) { secret::digest(id_or_key) } else { id_or_key.to_owned() };
        let license = self
            .store
            .licenses
            .revoke_license(&lookup, OffsetDateTime::now_utc())
            .await
            .map_err(|e| anyhow::anyhow!("no live license {id_or_key:?}: {e}"))?;
        self.cache.clear();
        stale::announce(&self.store, Stale::Licenses).await;
        Ok(license)
    }

    /// Drops every cached key (another server or the command line revoked one).
    pub fn forget_all(&self) {
        self.cache.clear();
    }

    /// On the first start of an empty deployment, issues a `default` key into `license.key`.
    pub async fn ensure_first_key(&self, data_dir: &Path) -> anyhow::Result<()> {
        if !self.store.licenses.licenses().await?.is_empty() {
            return Ok(());
        }
        let (key, license) = self.issue("default").await?;
        let path = data_dir.join("license.key");
        write_owner_only(&path, &format!("{key}\n")).with_context(|| format!("writing {}", path.display()))?;
        tracing::info!(license_id = %license.license_id, path = %path.display(), "issued the first license key");
        Ok(())
    }
}

fn invalid() -> Error {
    Error::LicenseInvalid(Cow::Borrowed("the license key is unknown or revoked"))
}

fn write_owner_only(path: &Path, contents: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    file.write_all(contents.as_bytes())?;
    file.sync_all()
}
