//! Modules as spaces use them: the catalogue, the connected set of a space (replaced whole and
//! validated against each module's configuration schema), and requests to a module's own routes.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Map, Value};
use trellis_modules::{
    CallerRole, ConfigError, Invocation, Method, ModuleFailure, ModuleHost, ModuleKind, ModuleRequest, ModuleResponse,
    ModuleSummary,
};

use crate::domain::precondition::{EntityTag, Precondition};
use crate::domain::problems::Problems;
use crate::domain::spaces::Role;
use crate::error::{Error, OnStale, Result, check_precondition};
use crate::services::operators;
use crate::services::spaces::Spaces;
use crate::store::{SessionUser, SpaceModule, Store};

/// Largest request body passed to a module's routes, in bytes.
pub const MAX_REQUEST_BODY_BYTES: usize = 1024 * 1024;

pub struct Modules {
    host: ModuleHost,
    spaces: Arc<Spaces>,
    store: Store,
}

/// A connected module with its configuration, as `GET` answers and `PUT` takes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Connected {
    pub module_id: String,
    pub config: Value,
}

/// A request to a module's routes, as it arrived.
pub struct RouteRequest<'a> {
    pub method: &'a str,
    /// The path after the module id, starting with `/`.
    pub path: String,
    pub query: &'a str,
    pub body: Vec<u8>,
}

impl Modules {
    pub fn new(host: ModuleHost, spaces: Arc<Spaces>, store: Store) -> Self {
        Self { host, spaces, store }
    }

    /// The modules refused at start, for a platform operator (FORBIDDEN for anyone else).
    pub async fn refused(&self, user: &SessionUser) -> Result<Vec<trellis_modules::RefusedModule>> {
        operators::require(&self.store, user).await?;
        Ok(self.host.refused().to_vec())
    }

    /// Each enabled module's call metrics since start, for a platform operator (FORBIDDEN for anyone else).
    pub async fn metrics(&self, user: &SessionUser) -> Result<Vec<trellis_modules::ModuleMetricsReport>> {
        operators::require(&self.store, user).await?;
        Ok(self.host.metrics())
    }

    pub fn host(&self) -> &ModuleHost {
        &self.host
    }

    /// Every module this deployment enables.
    pub fn catalogue(&self) -> Vec<ModuleSummary> {
        self.host.catalogue()
    }

    /// The modules connected to a space, with the set's tag; members only.
    pub async fn connected(&self, user: &SessionUser, space_id: &str) -> Result<(EntityTag, Vec<Connected>)> {
        let (space_id, role) = self.spaces.member_role(user, space_id).await?;
        // A module's configuration is the space's administration (it may hold a key for another
        // service), not its content: a channel's reader neither reads it nor calls the modules.
        if role == Role::Reader {
            return Err(Error::Forbidden(Cow::Borrowed("the space's modules are for its members")));
        }
        let set = self.spaces.module_set(&space_id).await?;
        Ok((set.etag(), set.modules.iter().map(view).collect()))
    }

    /// Replaces the connected set with `{modules: [{moduleId, config}]}`; owner only. Every problem
    /// of the body is listed: unknown or duplicate modules at `/modules/{i}/moduleId`, schema
    /// violations at `/modules/{i}/config/...`.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
    pub async fn replace(
        &self,
        user: &SessionUser,
        space_id: &str,
        body: &Map<String, Value>,
        precondition: &Precondition,
    ) -> Result<(EntityTag, Vec<Connected>)> {
        let space_id = self.spaces.require_owner(user, space_id).await?;
        let modules = self.parse_connected(body)?;
        let mut expected_revision = None;
        if precondition.is_given() {
            let current = self.spaces.stored_module_set(&space_id).await?;
            check_precondition(precondition, &current.etag())?;
            expected_revision = Some(current.revision);
        }
        let rows = modules
            .iter()
            .map(|m| SpaceModule { module_id: m.module_id.clone(), config: m.config.to_string() })
            .collect();
        let set = self.spaces.replace_modules(&space_id, rows, expected_revision).await.on_stale(precondition)?;
        Ok((set.etag(), modules))
    }

    fn parse_connected(&self, body: &Map<String, Value>) -> Result<Vec<Connected>, Problems> {
        let mut problems = Problems::new();
        for key in body.keys().filter(|key| *key != "modules") {
            problems.push(format!("/{}", escape(key)), "UNKNOWN_FIELD", "is not a property of this body");
        }
        let entries = match body.get("modules") {
            Some(Value::Array(entries)) => entries.as_slice(),
            Some(_) => {
                problems.push("/modules", "INVALID_TYPE", "must be an array");
                &[]
            }
            None => {
                problems.push("/modules", "REQUIRED", "is required");
                &[]
            }
        };
        let mut seen = HashSet::new();
        let mut connected = Vec::with_capacity(entries.len());
        for (index, entry) in entries.iter().enumerate() {
            let at = format!("/modules/{index}");
            if let Some(module) = self.parse_entry(&at, entry, &mut seen, &mut problems) {
                connected.push(module);
            }
        }
        problems.finish(connected)
    }

    fn parse_entry(
        &self,
        at: &str,
        entry: &Value,
        seen: &mut HashSet<String>,
        problems: &mut Problems,
    ) -> Option<Connected> {
        let Some(entry) = entry.as_object() else {
            problems.push(at, "INVALID_TYPE", "must be an object {moduleId, config}");
            return None;
        };
        for key in entry.keys().filter(|key| !matches!(key.as_str(), "moduleId" | "config")) {
            problems.push(format!("{at}/{}", escape(key)), "UNKNOWN_FIELD", "is not a property of a connected module");
        }
        let id_path = format!("{at}/moduleId");
        let module_id = match entry.get("moduleId") {
            Some(Value::String(id)) => id.as_str(),
            Some(_) => {
                problems.push(id_path, "INVALID_TYPE", "must be a string");
                return None;
            }
            None => {
                problems.push(id_path, "REQUIRED", "is required");
                return None;
            }
        };
        let config = match entry.get("config") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(config) => config.clone(),
        };
        match self.host.summary(module_id) {
            None => problems.push(&id_path, "UNKNOWN_MODULE", "no module with this id is enabled in this deployment"),
            // Analysis steps connect too: they analyse the space's published assets after the deployment's.
            Some(summary) if !matches!(summary.kind, ModuleKind::Space | ModuleKind::AnalysisStep) => {
                problems.push(&id_path, "NOT_A_SPACE_MODULE", format!("is a {} module", summary.kind))
            }
            Some(_) if !seen.insert(module_id.to_owned()) => {
                problems.push(&id_path, "DUPLICATE_MODULE", "is connected more than once")
            }
            Some(_) => match self.host.validate_config(module_id, &config) {
                Ok(()) => return Some(Connected { module_id: module_id.to_owned(), config }),
                Err(ConfigError::UnknownModule) => {
                    problems.push(&id_path, "UNKNOWN_MODULE", "no module with this id is enabled in this deployment")
                }
                Err(ConfigError::Invalid(found)) => {
                    for problem in found {
                        problems.push(format!("{at}/config{}", problem.path), "INVALID_CONFIG", problem.message);
                    }
                }
            },
        }
        None
    }

    /// Passes a request to a connected module's routes. Non-members and modules not connected to
    /// the space answer NOT_FOUND, readers through a channel FORBIDDEN; a module that fails answers
    /// MODULE_FAILED.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id, module_id))]
    pub async fn request(
        &self,
        user: &SessionUser,
        space_id: &str,
        module_id: &str,
        request: RouteRequest<'_>,
    ) -> Result<ModuleResponse> {
        // A module route may write the module's state: readers through a channel are refused.
        let (space_id, role) = self.spaces.writer_role(user, space_id).await?;
        let modules = self.spaces.connected_modules(&space_id).await?;
        let module = modules
            .iter()
            .find(|m| m.module_id == module_id)
            .ok_or_else(|| Error::not_found("module connected to this space"))?;
        let method = Method::parse(request.method)
            .ok_or(Error::NotFound(Cow::Borrowed("modules serve GET, POST, PUT, PATCH and DELETE only")))?;
        let invocation = Invocation { space_id, config_json: module.config.clone() };
        let request = ModuleRequest {
            method,
            path: request.path,
            query: request.query.to_owned(),
            body: request.body,
            caller_user_id: user.user_id.clone(),
            caller_handle: user.handle.clone(),
            caller_role: match role {
                Role::Owner => CallerRole::Owner,
                // Readers were refused above.
                Role::Member | Role::Reader => CallerRole::Member,
            },
        };
        self.host.handle_request(module_id, invocation, request).await.map_err(|failure| match failure {
            ModuleFailure::Unknown | ModuleFailure::WrongKind { .. } => {
                Error::NotFound(Cow::Borrowed("this module is not enabled in this deployment"))
            }
            // The module or the space is at a bound: try again shortly (issue 11, finding 5).
            ModuleFailure::Busy { retry_after, .. } => Error::AtBound {
                retry_after_seconds: retry_after.as_secs_f64().ceil().max(1.0) as u64,
                message: Cow::Owned(self.host.describe_request_failure(module_id, &failure)),
            },
            // Other calls kept changing what this one compared-and-swapped, even taking turns: nothing
            // was written, and trying again once they are done will do.
            ModuleFailure::Conflict { .. } => Error::Contended {
                retry_after_seconds: 1,
                message: Cow::Owned(self.host.describe_request_failure(module_id, &failure)),
            },
            failure => Error::ModuleFailed(Cow::Owned(self.host.describe_request_failure(module_id, &failure))),
        })
    }
}

fn view(module: &SpaceModule) -> Connected {
    Connected {
        module_id: module.module_id.clone(),
        config: serde_json::from_str(&module.config).unwrap_or(Value::Object(Map::new())),
    }
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}
