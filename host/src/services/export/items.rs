//! The export of a view's items: each item as `GET /v0/workflows/items/{itemId}` answers it through
//! that view.

use std::collections::HashMap;
use std::sync::Arc;

use time::OffsetDateTime;
use uuid::Uuid;

use super::{Configurations, ExportPermit, ItemExportRequest, check_configuration, key_of};
use crate::domain::workflows::{self, DetailField, View};
use crate::error::{Error, Result};
use crate::services::attachments::Attachment;
use crate::services::form_configurations::Configuration;
use crate::services::form_instances::{FormInstances, Instance};
use crate::services::workflow_configurations::{Workflow, WorkflowConfigurations};
use crate::services::workflow_items::{ItemDetail, detail_through};
use crate::store::{ExportFilter, ItemScope, SessionUser, Store, StoredAttachment};

/// A running export of a view's items.
pub struct ItemExport {
    store: Store,
    workflow: Workflow,
    view: View,
    workbaskets: Vec<String>,
    configuration_id: Option<String>,
    /// The configuration of a CSV export.
    configuration: Option<Configuration>,
    configurations: Configurations,
    language: Option<String>,
    page_rows: i64,
    after: Option<(i64, String)>,
    done: bool,
    _permit: ExportPermit,
}

/// An item as its read route answers it, with what a CSV row adds.
pub struct ExportedItem {
    pub detail: ItemDetail,
    pub configuration_id: String,
    pub state: String,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    /// The files of the file fields the view shows.
    pub attachments: Vec<Attachment>,
}

impl ItemExport {
    pub(super) async fn start(
        store: Store,
        instances: Arc<FormInstances>,
        workflows: &WorkflowConfigurations,
        user: &SessionUser,
        request: ItemExportRequest<'_>,
        page_rows: i64,
        permit: ExportPermit,
    ) -> Result<Self> {
        let not_found = || Error::not_found("view");
        let workflow = workflows.load(request.workflow_configuration_id, false).await?.ok_or_else(not_found)?;
        let view = Uuid::try_parse(request.view_id)
            .ok()
            .and_then(|id| workflow.parsed.view(&id).cloned())
            .ok_or_else(not_found)?;
        if !workflows.holds_slot(user, &workflow, view.permission_slot).await? {
            return Err(not_found());
        }
        check_configuration(request.format, request.configuration_id.as_deref())?;
        let configuration = match &request.configuration_id {
            Some(id) if request.format == crate::domain::export::ExportFormat::Csv => {
                let unknown = || {
                    Error::invalid(
                        "configurationId",
                        "UNKNOWN_CONFIGURATION",
                        "the view shows no form configuration with this id",
                    )
                };
                let form_id = Uuid::try_parse(id).map_err(|_| unknown())?;
                if view.form(&form_id).is_none() {
                    return Err(unknown());
                }
                Some(instances.configuration(id).await?.ok_or_else(unknown)?)
            }
            _ => None,
        };
        let workbaskets = view.workbasket_ids.iter().map(Uuid::to_string).collect();
        let configurations = Configurations::new(instances.clone());
        Ok(Self {
            store,
            workflow,
            view,
            workbaskets,
            configuration_id: request.configuration_id,
            configuration,
            configurations,
            language: request.language,
            page_rows,
            after: None,
            done: false,
            _permit: permit,
        })
    }

    /// The detail fields the view shows of the CSV export's configuration, in order: its columns
    /// after the fixed ones.
    pub fn csv_fields(&self) -> Vec<DetailField> {
        let Some(configuration) = &self.configuration else { return Vec::new() };
        let form = &configuration.parsed;
        workflows::detail_fields(
            &self.view,
            form,
            &serde_json::Map::new(),
            self.language.as_deref().unwrap_or(form.default_language()),
        )
    }

    /// The next items, or `None` when every one was handed out.
    pub async fn next_page(&mut self) -> Result<Option<Vec<ExportedItem>>> {
        if self.done {
            return Ok(None);
        }
        let scope = ItemScope {
            workflow_configuration_id: &self.workflow.stored.workflow_configuration_id,
            workbasket_ids: Some(self.workbaskets.as_slice()),
            not_owned_by: None,
        };
        let filter =
            ExportFilter { configuration_id: self.configuration_id.as_deref(), states: &[], updated_since: None };
        let rows = self.store.export.items(&scope, &filter, self.after.take(), self.page_rows).await?;
        self.done = (rows.len() as i64) < self.page_rows;
        if let Some((last, _)) = rows.last() {
            self.after = Some(key_of(last.created_at, &last.item_id));
        }
        let ids: Vec<String> = rows.iter().map(|(item, _)| item.item_id.clone()).collect();
        let mut files: HashMap<String, Vec<StoredAttachment>> = HashMap::new();
        for attachment in self.store.export.attachments(&ids).await? {
            files.entry(attachment.form_id.clone()).or_default().push(attachment);
        }
        let mut page = Vec::with_capacity(rows.len());
        for (item, stored) in rows {
            let Some(configuration) = self.configurations.get(&stored.configuration_id).await? else { continue };
            let (configuration_id, state) = (stored.configuration_id.clone(), stored.state.clone());
            let (created_at, updated_at) = (stored.created_at, stored.updated_at);
            let instance = Instance { stored, configuration, attachments: None };
            let detail = detail_through(item, &self.workflow, Some(&self.view), &instance, self.language.as_deref());
            let shown: Vec<String> = detail.fields.iter().map(|f| f.field_id.to_string()).collect();
            let attachments = files
                .remove(&detail.place.item_id)
                .unwrap_or_default()
                .into_iter()
                .filter(|a| shown.contains(&a.field_id))
                .map(Attachment::from)
                .collect();
            page.push(ExportedItem { detail, configuration_id, state, created_at, updated_at, attachments });
        }
        // A last page can be empty (the rows ended on a page boundary): then the export is over.
        Ok(if self.done && page.is_empty() { None } else { Some(page) })
    }
}
