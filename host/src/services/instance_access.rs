//! Who may read a form instance, and what of it (conventions 11 and 13): its creator and the creator of
//! the workflow it sits in read all of it; a holder of views of that workflow whose workbaskets hold it
//! reads what those views show. The instance read, its attachments and the export decide here.

use std::sync::Arc;

use uuid::Uuid;

use crate::domain::workflows::{Shown, View};
use crate::error::{Error, Result};
use crate::services::form_instances::{FormInstances, FormRecord, Instance};
use crate::services::workflow_configurations::{Workflow, WorkflowConfigurations};
use crate::store::{SessionUser, Store};

/// Reading instances by the read policy.
pub struct InstanceAccess {
    store: Store,
    instances: Arc<FormInstances>,
    workflows: Arc<WorkflowConfigurations>,
}

/// An instance read outside the item routes, and what of it the reader sees.
pub struct ReadableForm {
    pub instance: Instance,
    /// `None`: all of it; else only these fields, files and metadata.
    pub shown: Option<Shown>,
}

/// How a user reaches the instances of one workflow besides their own.
pub struct WorkflowReach {
    pub workflow: Workflow,
    /// `None`: all of them (its creator); else the views they hold.
    pub held: Option<Vec<View>>,
    /// The workbaskets the held views show, sorted (`None`: every one).
    pub workbaskets: Option<Vec<String>>,
}

impl InstanceAccess {
    pub fn new(store: Store, instances: Arc<FormInstances>, workflows: Arc<WorkflowConfigurations>) -> Self {
        Self { store, instances, workflows }
    }

    /// A form as the caller may read it ([`Self::readable_form`]), with its attachments; a view
    /// holder sees only what their views show.
    pub async fn read_form(&self, user: &SessionUser, form_id: &str) -> Result<FormRecord> {
        let readable = self.readable_form(user, form_id).await?;
        let mut record = self.instances.record(readable.instance).await?;
        if let Some(shown) = &readable.shown {
            record.reduce_to(shown);
        }
        Ok(record)
    }

    /// The instance if the user may read it, and what of it they see; NOT_FOUND for anyone else.
    pub async fn readable_form(&self, user: &SessionUser, form_id: &str) -> Result<ReadableForm> {
        let not_found = || Error::not_found("form");
        let instance = self.instances.load(form_id).await?.ok_or_else(not_found)?;
        if instance.stored.owner_id == user.user_id {
            return Ok(ReadableForm { instance, shown: None });
        }
        match self.shown_to_holder(user, &instance).await? {
            Some(shown) => Ok(ReadableForm { instance, shown }),
            None => Err(not_found()),
        }
    }

    /// What a user who did not create the instance sees of it: `None` when nothing (it does not
    /// exist for them), `Some(None)` all of it (they created its workflow), else what the views
    /// they hold over its workbasket show.
    async fn shown_to_holder(&self, user: &SessionUser, instance: &Instance) -> Result<Option<Option<Shown>>> {
        let Some(item) = self.store.workflow_items.workflow_item(&instance.stored.form_id).await? else {
            return Ok(None);
        };
        let Some(workflow) = self.workflows.load(&item.workflow_configuration_id, false).await? else {
            return Ok(None);
        };
        if workflow.is_owner(user) {
            return Ok(Some(None));
        }
        let Ok(workbasket) = Uuid::try_parse(&item.workbasket_id) else { return Ok(None) };
        let slots =
            self.store.workflows.workflow_slots(&workflow.stored.workflow_configuration_id, &user.user_id).await?;
        let held: Vec<&View> =
            held_views(&workflow, &slots).filter(|view| view.shows_workbasket(&workbasket)).collect();
        if held.is_empty() {
            return Ok(None);
        }
        Ok(Some(Some(Shown::by_views(held, &instance.configuration.parsed))))
    }

    /// The workflows whose instances the user reads besides their own: those they created (all of
    /// their instances) and those where they hold a view (the workbaskets it shows).
    pub async fn workflow_reaches(&self, user: &SessionUser) -> Result<Vec<WorkflowReach>> {
        const PAGE: i64 = 500;
        let mut reaches = Vec::new();
        let mut after = None;
        loop {
            let page = self.store.workflows.list_workflows(&user.user_id, after.take(), PAGE).await?;
            let full = page.len() as i64 == PAGE;
            if let Some(last) = page.last() {
                after = Some((crate::store::to_millis(last.created_at), last.workflow_configuration_id.clone()));
            }
            for stored in page {
                let Some(workflow) = self.workflows.load(&stored.workflow_configuration_id, false).await? else {
                    continue;
                };
                if workflow.is_owner(user) {
                    reaches.push(WorkflowReach { workflow, held: None, workbaskets: None });
                    continue;
                }
                let slots =
                    self.store.workflows.workflow_slots(&stored.workflow_configuration_id, &user.user_id).await?;
                let held: Vec<View> = held_views(&workflow, &slots).cloned().collect();
                let mut workbaskets: Vec<String> =
                    held.iter().flat_map(|v| v.workbasket_ids.iter().map(Uuid::to_string)).collect();
                workbaskets.sort();
                workbaskets.dedup();
                if !workbaskets.is_empty() {
                    reaches.push(WorkflowReach { workflow, held: Some(held), workbaskets: Some(workbaskets) });
                }
            }
            if !full {
                return Ok(reaches);
            }
        }
    }
}

/// The views of `workflow` whose permission slot is among `slots`.
fn held_views<'a>(workflow: &'a Workflow, slots: &'a [i64]) -> impl Iterator<Item = &'a View> {
    workflow.parsed.views().iter().filter(|view| slots.contains(&i64::from(view.permission_slot)))
}
