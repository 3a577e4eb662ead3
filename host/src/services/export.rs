//! Exports (conventions section 14): every form instance a user may read, or the items of a view,
//! handed out a page at a time so that an export of a million rows holds one page in memory.
//!
//! A use case here answers a cursor; the route writes each page as it comes and asks for the next
//! only when the client has taken the last, so a client that stops reading stops the export. How
//! many exports run at once is bounded per server and per user ([`ExportGate`]).

mod forms;
mod items;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use time::OffsetDateTime;

pub use forms::FormExport;
pub use items::{ExportedItem, ItemExport};

use crate::config::export::ExportConfig;
use crate::domain::export::ExportFormat;
use crate::domain::problems::Problems;
use crate::error::{Error, Result};
use crate::services::form_configurations::Configuration;
use crate::services::form_instances::FormInstances;
use crate::services::instance_access::InstanceAccess;
use crate::services::workflow_configurations::WorkflowConfigurations;
use crate::store::{SessionUser, Store};

/// Seconds a refused export is told to wait.
const RETRY_AFTER_SECONDS: u64 = 5;

/// What `GET /v0/forms/export` asks for, its query already parsed.
pub struct FormExportRequest {
    pub format: ExportFormat,
    pub configuration_id: Option<String>,
    /// Any of these states; all when empty.
    pub states: Vec<String>,
    pub updated_since: Option<OffsetDateTime>,
}

/// What `GET /v0/workflows/items/export` asks for.
pub struct ItemExportRequest<'a> {
    pub format: ExportFormat,
    pub workflow_configuration_id: &'a str,
    pub view_id: &'a str,
    pub configuration_id: Option<String>,
    pub language: Option<String>,
}

pub struct Exports {
    store: Store,
    instances: Arc<FormInstances>,
    workflows: Arc<WorkflowConfigurations>,
    access: Arc<InstanceAccess>,
    page_rows: i64,
    gate: Arc<ExportGate>,
}

impl Exports {
    pub fn new(
        store: Store,
        instances: Arc<FormInstances>,
        workflows: Arc<WorkflowConfigurations>,
        access: Arc<InstanceAccess>,
        config: &ExportConfig,
    ) -> Self {
        let gate = Arc::new(ExportGate {
            max_running: config.max_running.max(1),
            max_per_user: config.max_running_per_user.max(1),
            running: Mutex::new(Running::default()),
        });
        Self { store, instances, workflows, access, page_rows: config.page_rows(), gate }
    }

    /// Starts an export of every instance `user` may read (see [`FormExport`]).
    pub async fn forms(&self, user: &SessionUser, request: FormExportRequest) -> Result<FormExport> {
        let permit = self.gate.enter(&user.user_id)?;
        FormExport::start(
            self.store.clone(),
            self.instances.clone(),
            &self.access,
            user,
            request,
            self.page_rows,
            permit,
        )
        .await
    }

    /// Starts an export of the items of a view `user` holds (see [`ItemExport`]).
    pub async fn items(&self, user: &SessionUser, request: ItemExportRequest<'_>) -> Result<ItemExport> {
        let permit = self.gate.enter(&user.user_id)?;
        ItemExport::start(
            self.store.clone(),
            self.instances.clone(),
            &self.workflows,
            user,
            request,
            self.page_rows,
            permit,
        )
        .await
    }

    /// Exports running now (for the metrics).
    pub fn running(&self) -> usize {
        self.gate.lock().total
    }
}

/// The CSV rule of [`crate::domain::export::check_configuration`], for callers that did not check it.
fn check_configuration(format: ExportFormat, configuration_id: Option<&str>) -> Result<()> {
    let mut problems = Problems::new();
    crate::domain::export::check_configuration(format, configuration_id.is_some(), "configurationId", &mut problems);
    Ok(problems.finish(())?)
}
/// Counts running exports, overall and per user.
struct ExportGate {
    max_running: usize,
    max_per_user: usize,
    running: Mutex<Running>,
}

#[derive(Default)]
struct Running {
    total: usize,
    by_user: HashMap<String, usize>,
}

impl ExportGate {
    fn lock(&self) -> std::sync::MutexGuard<'_, Running> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn enter(self: &Arc<Self>, user_id: &str) -> Result<ExportPermit> {
        let mut running = self.lock();
        if running.total >= self.max_running {
            return Err(Error::ServiceUnavailable { retry_after_seconds: RETRY_AFTER_SECONDS });
        }
        let mine = running.by_user.entry(user_id.to_owned()).or_default();
        if *mine >= self.max_per_user {
            crate::infra::metrics::rate_limit_refused("exports_per_user");
            return Err(Error::RateLimited { retry_after_seconds: RETRY_AFTER_SECONDS });
        }
        *mine += 1;
        running.total += 1;
        Ok(ExportPermit { gate: self.clone(), user_id: user_id.to_owned() })
    }
}

/// One running export; dropped when the export ends, however it ends (done, failed, or the
/// client gone).
pub struct ExportPermit {
    gate: Arc<ExportGate>,
    user_id: String,
}

impl Drop for ExportPermit {
    fn drop(&mut self) {
        let mut running = self.gate.lock();
        running.total -= 1;
        if let Some(mine) = running.by_user.get_mut(&self.user_id) {
            *mine -= 1;
            if *mine == 0 {
                running.by_user.remove(&self.user_id);
            }
        }
    }
}

/// Configurations read during one export, by id: the rows of a page share few.
struct Configurations {
    instances: Arc<FormInstances>,
    known: HashMap<String, Option<Configuration>>,
}

impl Configurations {
    fn new(instances: Arc<FormInstances>) -> Self {
        Self { instances, known: HashMap::new() }
    }

    /// The configuration, `None` when it is gone.
    async fn get(&mut self, configuration_id: &str) -> Result<Option<Configuration>> {
        if let Some(found) = self.known.get(configuration_id) {
            return Ok(found.clone());
        }
        let found = self.instances.configuration(configuration_id).await?;
        self.known.insert(configuration_id.to_owned(), found.clone());
        Ok(found)
    }
}

/// The `(created_at, id)` key a page continues after.
fn key_of(at: OffsetDateTime, id: &str) -> (i64, String) {
    (crate::store::to_millis(at), id.to_owned())
}
