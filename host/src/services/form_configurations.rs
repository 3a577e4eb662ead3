//! Form configurations: validate, create, update (document, editors, ACTIVE/ARCHIVED), read, list.
//! Parsed configurations (with their compiled patterns) are cached by id and revision.

use std::borrow::Cow;
use std::time::Duration;

use serde_json::{Map, Value};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::domain::account;
use crate::domain::entitlement::{Entitlement, Plan, QuotaSubject};
use crate::domain::forms::{self, FormConfig};
use crate::domain::precondition::{EntityTag, Precondition};
use crate::domain::problems::Problems;
use crate::error::{Error, OnConflict, OnStale, Result, check_precondition};
use crate::infra::cache::RevisionCache;
use crate::infra::quotas;
use crate::infra::stale::{self, Stale};
use crate::services::licenses::Caller;
use crate::store::{
    ConfigurationChange, ConfigurationFilter, NewConfiguration, SessionUser, Store, StoredConfiguration,
};

/// What a listing of the configurations a user may read is narrowed to.
pub struct ConfigurationScope<'a> {
    /// Only configurations offered in this language.
    pub language: Option<&'a str>,
    /// Any of these states; all when empty.
    pub states: &'a [String],
}

/// Most editors one configuration may name.
pub const MAX_EDITORS: usize = 100;

/// Bytes of configuration documents kept parsed in memory, per kind of configuration.
pub const CACHED_DOCUMENT_BYTES: u64 = 64 << 20;

pub const ACTIVE: &str = "ACTIVE";
pub const ARCHIVED: &str = "ARCHIVED";

/// A stored configuration with its parsed document.
#[derive(Clone)]
pub struct Configuration {
    /// Shared: the document text is large and every request on a form reads the configuration.
    pub stored: std::sync::Arc<StoredConfiguration>,
    pub parsed: FormConfig,
    pub editors: Vec<String>,
}

impl Configuration {
    pub fn is_active(&self) -> bool {
        self.stored.state == ACTIVE
    }

    /// The owner and the named editors may change it.
    pub fn may_edit(&self, user: &SessionUser) -> bool {
        self.stored.owner_id == user.user_id || self.editors.iter().any(|h| h == &user.handle)
    }

    /// Everyone signed in reads ACTIVE configurations; archived ones only their editors.
    pub fn may_read(&self, user: &SessionUser) -> bool {
        self.is_active() || self.may_edit(user)
    }

    /// Every change of document, editors or state moves the revision on.
    pub fn etag(&self) -> EntityTag {
        EntityTag::of_revisions(&[self.stored.revision])
    }
}

pub struct FormConfigurations {
    store: Store,
    /// Parsed configurations by id, with when their revision was last confirmed.
    cache: RevisionCache<Configuration>,
}

/// What a create or update request carries besides the document.
struct Wrapper {
    editors: Vec<String>,
    state: Option<&'static str>,
}

impl FormConfigurations {
    pub fn new(store: Store, ttl: Duration) -> Self {
        Self { store, cache: RevisionCache::new(ttl, CACHED_DOCUMENT_BYTES) }
    }

    fn remember(&self, configuration: &Configuration) {
        let stored = &configuration.stored;
        // Weighed by what it holds: the document and its compiled patterns.
        self.cache.insert(
            stored.configuration_id.clone(),
            stored.revision,
            stored.document.len() + configuration.parsed.pattern_bytes(),
            configuration.clone(),
        );
    }

    /// Checks a wrapper `{id?, config, roles?}` without storing anything.
    pub async fn validate(&self, body: &Value) -> Result<FormConfig> {
        Ok(self.check(body, None).await?.1)
    }

    #[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
    /// Stores a new configuration; each user may create `forms.configurations.createPerDay` a day
    /// (counted for the user whatever key they use; a refused document costs nothing).
    pub async fn create(&self, user: &SessionUser, plan: &Plan, body: &Value) -> Result<Configuration> {
        let (wrapper, parsed) = self.check(body, None).await?;
        let creator = Caller::new(QuotaSubject::user(&user.user_id), plan.clone());
        quotas::take(&self.store, &creator, Entitlement::FormConfigurations, 1).await?;
        let editors = serde_json::to_string(&wrapper.editors).map_err(Error::internal)?;
        let document = serde_json::to_string(parsed.document()).map_err(Error::internal)?;
        let id = parsed.id().to_string();
        let stored = self
            .store
            .forms
            .insert_configuration(
                &NewConfiguration {
                    configuration_id: &id,
                    owner_id: &user.user_id,
                    document: &document,
                    editors: &editors,
                    languages: parsed.languages(),
                },
                OffsetDateTime::now_utc(),
            )
            .await
            .on_conflict("a form configuration with this id exists");
        let stored = match stored {
            Ok(stored) => stored,
            Err(error) => {
                quotas::refund(&self.store, &creator, Entitlement::FormConfigurations, 1).await?;
                return Err(error);
            }
        };
        let configuration = Configuration { stored: stored.into(), parsed, editors: wrapper.editors };
        self.remember(&configuration);
        Ok(configuration)
    }

    /// Replaces the document (same id), the editors when `roles` is sent, and the state when
    /// `state` is sent. Only the owner and editors may; others get 403 (or 404 when they cannot
    /// even read it). With a precondition, a configuration changed since is 412.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, configuration_id = id))]
    pub async fn update(
        &self,
        user: &SessionUser,
        id: &str,
        body: &Value,
        precondition: &Precondition,
    ) -> Result<Configuration> {
        // Read past the cache: the revision must be the stored one for the update to apply.
        let current = match self.fetch(id, true).await? {
            Some(c) if c.may_read(user) => c,
            _ => return Err(Error::not_found("form configuration")),
        };
        if !current.may_edit(user) {
            return Err(Error::Forbidden(Cow::Borrowed("only the owner and editors may change this configuration")));
        }
        check_precondition(precondition, &current.etag())?;
        let mut problems = Problems::new();
        if let Some(sent) = body.get("id").and_then(Value::as_str)
            && !sent.eq_ignore_ascii_case(id)
        {
            problems.push("/id", "ID_MISMATCH", "must be the id in the path");
        }
        if let Some(sent) = body.pointer("/config/id").and_then(Value::as_str)
            && !sent.eq_ignore_ascii_case(id)
        {
            problems.push("/config/id", "ID_MISMATCH", "must be the id in the path");
        }
        let checked = self.check(body, Some(id)).await;
        if !problems.is_empty() {
            // List the document's own problems too; its id disagreement is already reported.
            if let Err(Error::Validation { details, .. }) = checked {
                for problem in details.into_iter().filter(|p| p.code != "ID_MISMATCH") {
                    problems.push(problem.path, &problem.code, problem.message);
                }
            }
            return Err(problems.into());
        }
        let (wrapper, parsed) = checked?;
        let editors = if body.get("roles").is_some() { wrapper.editors } else { current.editors.clone() };
        let state = wrapper.state.unwrap_or(if current.is_active() { ACTIVE } else { ARCHIVED });
        let stored = self
            .store
            .forms
            .update_configuration(
                id,
                &ConfigurationChange {
                    state,
                    document: &serde_json::to_string(parsed.document()).map_err(Error::internal)?,
                    editors: &serde_json::to_string(&editors).map_err(Error::internal)?,
                    languages: parsed.languages(),
                    expected_revision: current.stored.revision,
                },
                OffsetDateTime::now_utc(),
            )
            .await
            .on_conflict("the configuration changed meanwhile; read it and try again")
            .on_stale(precondition)?;
        let configuration = Configuration { stored: stored.into(), parsed, editors };
        self.remember(&configuration);
        stale::announce(&self.store, Stale::FormConfiguration(configuration.stored.configuration_id.clone())).await;
        Ok(configuration)
    }

    /// Drops a configuration another server changed.
    pub fn forget(&self, id: &str) {
        self.cache.forget(id);
    }

    pub fn forget_all(&self) {
        self.cache.clear();
    }

    /// The configuration if the user may read it, else NOT_FOUND.
    pub async fn readable(&self, user: &SessionUser, id: &str) -> Result<Configuration> {
        match self.load(id).await? {
            Some(configuration) if configuration.may_read(user) => Ok(configuration),
            _ => Err(Error::not_found("form configuration")),
        }
    }

    /// Loads a configuration by id, parsing it only when its revision is not cached.
    pub async fn load(&self, id: &str) -> Result<Option<Configuration>> {
        self.fetch(id, false).await
    }

    async fn fetch(&self, id: &str, fresh: bool) -> Result<Option<Configuration>> {
        let Ok(uuid) = Uuid::try_parse(id) else { return Ok(None) };
        let id = uuid.to_string();
        if !fresh && let Some(cached) = self.cache.fresh(&id) {
            return Ok(Some(cached));
        }
        let Some(stored) = self.store.forms.configuration(&id).await? else { return Ok(None) };
        if let Some(cached) = self.cache.confirm(&id, stored.revision) {
            return Ok(Some(Configuration { stored: stored.into(), ..cached }));
        }
        let document: Value = serde_json::from_str(&stored.document).map_err(Error::internal)?;
        let parsed = forms::validate_config(Some(&id), &document, uuid).map_err(|problems| {
            Error::internal(anyhow::anyhow!("stored configuration {id} no longer validates: {:?}", problems.into_vec()))
        })?;
        let editors: Vec<String> = serde_json::from_str(&stored.editors).map_err(Error::internal)?;
        let configuration = Configuration { stored: stored.into(), parsed, editors };
        self.remember(&configuration);
        Ok(Some(configuration))
    }

    /// The configurations `user` may read, newest first.
    pub async fn list(
        &self,
        user: &SessionUser,
        scope: &ConfigurationScope<'_>,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> Result<Vec<Configuration>> {
        let filter = ConfigurationFilter {
            viewer_id: &user.user_id,
            viewer_handle: &user.handle,
            language: scope.language,
            states: scope.states,
        };
        let rows = self.store.forms.list_configurations(&filter, after, limit).await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            // Rows share the cache with single reads, so a list never re-parses a known revision.
            if let Some(configuration) = self.load(&row.configuration_id).await? {
                out.push(configuration);
            }
        }
        Ok(out)
    }

    /// Checks the wrapper and its document, listing every problem; `path_id` is the id an
    /// update addresses.
    async fn check(&self, body: &Value, path_id: Option<&str>) -> Result<(Wrapper, FormConfig)> {
        let mut problems = Problems::new();
        let Some(object) = body.as_object() else {
            return Err(Error::invalid("", "INVALID_TYPE", "the body must be an object"));
        };
        for key in object.keys().filter(|k| !["id", "config", "roles", "state"].contains(&k.as_str())) {
            problems.push(format!("/{key}"), "UNKNOWN_PROPERTY", "is not a property of the wrapper");
        }
        let id = match object.get("id") {
            None | Some(Value::Null) => None,
            Some(Value::String(id)) => Some(id.as_str()),
            Some(_) => {
                problems.push("/id", "INVALID_TYPE", "must be a string");
                None
            }
        };
        let config = match object.get("config") {
            Some(config) => config,
            None => {
                problems.push("/config", "REQUIRED", "is required");
                &Value::Null
            }
        };
        let editors = self.check_roles(object, &mut problems).await?;
        let state = match object.get("state") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s == ACTIVE => Some(ACTIVE),
            Some(Value::String(s)) if s == ARCHIVED => Some(ARCHIVED),
            Some(_) => {
                problems.push("/state", "INVALID_VALUE", "must be ACTIVE or ARCHIVED");
                None
            }
        };
        let new_id = path_id.and_then(|id| Uuid::try_parse(id).ok()).unwrap_or_else(Uuid::new_v4);
        let parsed = if config.is_null() && object.get("config").is_none() {
            None
        } else {
            match forms::validate_config(id.or(path_id), config, new_id) {
                Ok(parsed) => Some(parsed),
                Err(found) => {
                    for problem in found.into_vec() {
                        problems.push(problem.path, &problem.code, problem.message);
                    }
                    None
                }
            }
        };
        match parsed {
            Some(parsed) if problems.is_empty() => Ok((Wrapper { editors, state }, parsed)),
            _ => Err(problems.into()),
        }
    }

    /// `roles.editors`: handles of existing users, at most [`MAX_EDITORS`].
    async fn check_roles(&self, object: &Map<String, Value>, problems: &mut Problems) -> Result<Vec<String>> {
        let roles = match object.get("roles") {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(Value::Object(roles)) => roles,
            Some(_) => {
                problems.push("/roles", "INVALID_TYPE", "must be an object");
                return Ok(Vec::new());
            }
        };
        for key in roles.keys().filter(|k| k.as_str() != "editors") {
            problems.push(format!("/roles/{key}"), "UNKNOWN_PROPERTY", "only editors is a role");
        }
        let list = match roles.get("editors") {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(Value::Array(list)) if list.len() <= MAX_EDITORS => list,
            Some(Value::Array(_)) => {
                problems.push("/roles/editors", "TOO_LARGE", format!("names at most {MAX_EDITORS} editors"));
                return Ok(Vec::new());
            }
            Some(_) => {
                problems.push("/roles/editors", "INVALID_TYPE", "must be an array of handles");
                return Ok(Vec::new());
            }
        };
        let mut editors = Vec::new();
        for (i, entry) in list.iter().enumerate() {
            let path = format!("/roles/editors/{i}");
            let Some(handle) =
                account::check_handle(problems, &path, entry.as_str().map(|h| h.trim_start_matches('@')))
            else {
                continue;
            };
            if !self.store.users.handle_exists(&handle).await? {
                problems.push(path, "UNKNOWN_USER", "no user has this handle");
            } else if !editors.contains(&handle) {
                editors.push(handle);
            }
        }
        Ok(editors)
    }
}
