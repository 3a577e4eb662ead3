//! The export of every form instance a user may read with `GET /v0/forms/{formId}`: their own
//! instances first, then, workflow by workflow, the instances in workflows they created (all of
//! each) and in the workbaskets of views they hold (what those views show).

use std::collections::HashMap;
use std::sync::Arc;

use uuid::Uuid;

use super::{Configurations, ExportPermit, FormExportRequest, check_configuration, key_of};
use crate::domain::export::ExportFormat;
use crate::domain::forms::Field;
use crate::domain::workflows::Shown;
use crate::error::{Error, Result};
use crate::services::form_configurations::Configuration;
use crate::services::form_instances::{FormInstances, FormRecord, Instance};
use crate::services::instance_access::{InstanceAccess, WorkflowReach};
use crate::store::{ExportFilter, ItemScope, SessionUser, Store, StoredAttachment, StoredInstance};

/// A running export of instances; [`FormExport::next_page`] hands out the next records.
pub struct FormExport {
    store: Store,
    instances: Arc<FormInstances>,
    user_id: String,
    request: FormExportRequest,
    page_rows: i64,
    /// The configuration of a CSV export, whose fields are its columns.
    configuration: Option<Configuration>,
    /// Configurations read so far, by id: a page's rows share few.
    configurations: Configurations,
    /// Where the export stands: the own instances, then the workflows in `workflows`.
    phase: Phase,
    after: Option<(i64, String)>,
    workflows: Vec<Reach>,
    _permit: ExportPermit,
}

enum Phase {
    Owned,
    Workflow(usize),
    Done,
}

/// How the user reaches the instances of one workflow, and what its views showed so far.
struct Reach {
    reach: WorkflowReach,
    /// What the held views show, by `(workbasket, configuration)`.
    shown: HashMap<(String, String), Shown>,
}

impl FormExport {
    pub(super) async fn start(
        store: Store,
        instances: Arc<FormInstances>,
        access: &InstanceAccess,
        user: &SessionUser,
        request: FormExportRequest,
        page_rows: i64,
        permit: ExportPermit,
    ) -> Result<Self> {
        check_configuration(request.format, request.configuration_id.as_deref())?;
        let configuration = match (&request.configuration_id, request.format) {
            (Some(id), ExportFormat::Csv) => Some(instances.configuration(id).await?.ok_or_else(|| {
                Error::invalid("configurationId", "UNKNOWN_CONFIGURATION", "no form configuration has this id")
            })?),
            _ => None,
        };
        let reaches = access.workflow_reaches(user).await?;
        let reaches = reaches.into_iter().map(|reach| Reach { reach, shown: HashMap::new() }).collect();
        let configurations = Configurations::new(instances.clone());
        Ok(Self {
            store,
            instances,
            user_id: user.user_id.clone(),
            request,
            page_rows,
            configuration,
            configurations,
            phase: Phase::Owned,
            after: None,
            workflows: reaches,
            _permit: permit,
        })
    }

    /// The CSV export's fields, in document order: its columns after the fixed ones.
    pub fn csv_fields(&self) -> Vec<Field> {
        self.configuration.as_ref().map(|c| c.parsed.fields().cloned().collect()).unwrap_or_default()
    }

    /// The next records, or `None` when every one was handed out.
    pub async fn next_page(&mut self) -> Result<Option<Vec<FormRecord>>> {
        while let Some(rows) = self.next_rows().await? {
            let records = self.records(rows).await?;
            // A page can come out empty (its instances' configurations are gone): read on.
            if !records.is_empty() {
                return Ok(Some(records));
            }
        }
        Ok(None)
    }

    /// The next page of rows where the export stands, each with what the reader sees of it; moves
    /// on to the next phase after a page shorter than a full one.
    async fn next_rows(&mut self) -> Result<Option<Vec<(StoredInstance, Option<Shown>)>>> {
        let filter = ExportFilter {
            configuration_id: self.request.configuration_id.as_deref(),
            states: &self.request.states,
            updated_since: self.request.updated_since,
        };
        let after = self.after.take();
        let rows = match self.phase {
            Phase::Done => return Ok(None),
            Phase::Owned => {
                let rows = self.store.export.owned_instances(&self.user_id, &filter, after, self.page_rows).await?;
                self.after = rows.last().map(|last| key_of(last.created_at, &last.form_id));
                rows.into_iter().map(|row| (row, None)).collect::<Vec<_>>()
            }
            Phase::Workflow(index) => {
                let reach = &self.workflows[index].reach;
                let scope = ItemScope {
                    workflow_configuration_id: &reach.workflow.stored.workflow_configuration_id,
                    workbasket_ids: reach.workbaskets.as_deref(),
                    not_owned_by: Some(&self.user_id),
                };
                let rows = self.store.export.items(&scope, &filter, after, self.page_rows).await?;
                self.after = rows.last().map(|(item, _)| key_of(item.created_at, &item.item_id));
                let mut shown_rows = Vec::with_capacity(rows.len());
                for (item, instance) in rows {
                    let shown = self.shown(index, &item.workbasket_id, &instance.configuration_id).await?;
                    shown_rows.push((instance, shown));
                }
                shown_rows
            }
        };
        if (rows.len() as i64) < self.page_rows {
            self.after = None;
            self.phase = match self.phase {
                Phase::Owned if !self.workflows.is_empty() => Phase::Workflow(0),
                Phase::Workflow(index) if index + 1 < self.workflows.len() => Phase::Workflow(index + 1),
                _ => Phase::Done,
            };
        }
        Ok(Some(rows))
    }

    /// What the views `reach` holds show of an instance of `configuration_id` in `workbasket_id`:
    /// `Ok(None)` when everything (the workflow's creator).
    async fn shown(&mut self, index: usize, workbasket_id: &str, configuration_id: &str) -> Result<Option<Shown>> {
        let Some(form) = self.configurations.get(configuration_id).await? else { return Ok(Some(Shown::default())) };
        let reach = &mut self.workflows[index];
        let Some(held) = &reach.reach.held else { return Ok(None) };
        let key = (workbasket_id.to_owned(), configuration_id.to_owned());
        if let Some(shown) = reach.shown.get(&key) {
            return Ok(Some(shown.clone()));
        }
        let workbasket = Uuid::try_parse(workbasket_id).unwrap_or_default();
        let shown = Shown::by_views(held.iter().filter(|v| v.shows_workbasket(&workbasket)), &form.parsed);
        reach.shown.insert(key, shown.clone());
        Ok(Some(shown))
    }

    /// The rows as the read route answers them, with their attachments, reduced where a view
    /// shows only part of them.
    async fn records(&mut self, rows: Vec<(StoredInstance, Option<Shown>)>) -> Result<Vec<FormRecord>> {
        let ids: Vec<String> = rows.iter().map(|(row, _)| row.form_id.clone()).collect();
        let mut attachments: HashMap<String, Vec<StoredAttachment>> = HashMap::new();
        for attachment in self.store.export.attachments(&ids).await? {
            attachments.entry(attachment.form_id.clone()).or_default().push(attachment);
        }
        let mut records = Vec::with_capacity(rows.len());
        for (stored, shown) in rows {
            // An instance whose configuration is gone cannot be shown (its read answers 500 too).
            let Some(configuration) = self.configurations.get(&stored.configuration_id).await? else { continue };
            let files = attachments.remove(&stored.form_id).unwrap_or_default();
            let instance = Instance { stored, configuration, attachments: Some(files) };
            let mut record = self.instances.record(instance).await?;
            if let Some(shown) = shown {
                record.reduce_to(&shown);
            }
            records.push(record);
        }
        Ok(records)
    }
}
