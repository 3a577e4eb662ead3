//! Workflow configurations and their permission grants (conventions section 10).

use std::borrow::Cow;
use std::collections::HashMap;
use std::time::Duration;

use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::domain::forms::{FormConfig, InstanceState};
use crate::domain::precondition::{EntityTag, Precondition};
use crate::domain::problems::Problems;
use crate::domain::workflows::{self, WorkflowConfig};
use crate::error::{Error, OnConflict, OnStale, Result, check_precondition};
use crate::infra::cache::RevisionCache;
use crate::infra::stale::{self, Stale};
use crate::services::form_configurations::CACHED_DOCUMENT_BYTES;
use crate::services::form_configurations::{Configuration, FormConfigurations};
use crate::store::{Grant, Grants, NewItemStart, NewWorkflowEvent, SessionUser, Store, StoredWorkflow};

/// Who holds which permission slots of a workflow, as the permissions use cases answer it.
pub struct SlotHolder {
    pub user_id: String,
    pub handle: String,
    pub slots: Vec<i64>,
}

impl From<Grant> for SlotHolder {
    fn from(g: Grant) -> Self {
        Self { user_id: g.user_id, handle: g.handle, slots: g.slots }
    }
}

/// A stored workflow with its parsed document.
#[derive(Clone)]
pub struct Workflow {
    /// Shared: the document text is large and every item request reads the workflow.
    pub stored: std::sync::Arc<StoredWorkflow>,
    pub parsed: WorkflowConfig,
}

impl Workflow {
    pub fn is_owner(&self, user: &SessionUser) -> bool {
        self.stored.owner_id == user.user_id
    }

    /// Every change of the document moves the revision on.
    pub fn etag(&self) -> EntityTag {
        EntityTag::of_revisions(&[self.stored.revision])
    }

    /// Why this workflow may not start on an instance of `form` in `state`, as (code, message) pairs for
    /// the caller to place: its allowlist must hold the form, the form must allow workflow starts, and only
    /// SUBMITTED instances enter a workflow (conventions 11).
    pub fn start_refusals(&self, form: &FormConfig, state: InstanceState) -> Vec<(&'static str, &'static str)> {
        let mut refusals = Vec::new();
        if !self.parsed.allows_form(&form.id()) {
            refusals.push(("FORM_NOT_ALLOWED", "the form configuration is not in the workflow's allowlist"));
        }
        if !form.flags().allow_workflow_starts {
            refusals.push(("WORKFLOW_STARTS_DISABLED", "the form configuration does not allow workflow starts"));
        }
        if state != InstanceState::Submitted {
            refusals.push(("NOT_SUBMITTED", "only SUBMITTED forms can enter a workflow"));
        }
        refusals
    }

    /// `user` putting a form item into this workflow's entry workbasket, with the audit entry when
    /// the workflow keeps a trail.
    pub fn start_by(&self, user: &SessionUser) -> NewItemStart {
        let entry = self.parsed.entry_workbasket_id().to_string();
        NewItemStart {
            item_type: ITEM_TYPE_FORM,
            workflow_configuration_id: self.stored.workflow_configuration_id.clone(),
            event: self.parsed.enable_logging().then(|| NewWorkflowEvent {
                actor_id: user.user_id.clone(),
                action: "STARTED",
                from_workbasket_id: None,
                to_workbasket_id: Some(entry.clone()),
                transition_id: None,
                changed_fields: "[]".into(),
            }),
            entry_workbasket_id: entry,
            started_by: user.user_id.clone(),
        }
    }
}

/// The one kind of workflow item: a form instance.
pub const ITEM_TYPE_FORM: &str = "FORM";

pub struct WorkflowConfigurations {
    store: Store,
    forms: std::sync::Arc<FormConfigurations>,
    cache: RevisionCache<Workflow>,
}

impl WorkflowConfigurations {
    pub fn new(store: Store, forms: std::sync::Arc<FormConfigurations>, ttl: Duration) -> Self {
        Self { store, forms, cache: RevisionCache::new(ttl, CACHED_DOCUMENT_BYTES) }
    }

    /// Checks `{id?, config}` without storing.
    pub async fn validate(&self, user: &SessionUser, body: &Value) -> Result<WorkflowConfig> {
        self.check(user, body, None).await
    }

    #[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
    pub async fn create(&self, user: &SessionUser, body: &Value) -> Result<Workflow> {
        let parsed = self.check(user, body, None).await?;
        let document = serde_json::to_string(parsed.document()).map_err(Error::internal)?;
        let stored = self
            .store
            .workflows
            .insert_workflow(&parsed.id().to_string(), &user.user_id, &document, OffsetDateTime::now_utc())
            .await
            .on_conflict("a workflow configuration with this id exists")?;
        let workflow = Workflow { stored: stored.into(), parsed };
        self.remember(&workflow);
        Ok(workflow)
    }

    /// Replaces the document; only the creator may. With a precondition, a document changed
    /// since is 412.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
    pub async fn update(
        &self,
        user: &SessionUser,
        id: &str,
        body: &Value,
        precondition: &Precondition,
    ) -> Result<Workflow> {
        let current = self.visible(user, id, true).await?;
        if !current.is_owner(user) {
            return Err(Error::Forbidden(Cow::Borrowed("only the creator may change this workflow configuration")));
        }
        check_precondition(precondition, &current.etag())?;
        let parsed = self.check(user, body, Some(&current.stored.workflow_configuration_id)).await?;
        let document = serde_json::to_string(parsed.document()).map_err(Error::internal)?;
        let stored = self
            .store
            .workflows
            .update_workflow(
                &current.stored.workflow_configuration_id,
                &document,
                current.stored.revision,
                OffsetDateTime::now_utc(),
            )
            .await
            .on_conflict("the configuration changed meanwhile; read it and try again")
            .on_stale(precondition)?;
        let workflow = Workflow { stored: stored.into(), parsed };
        self.remember(&workflow);
        stale::announce(&self.store, Stale::Workflow(workflow.stored.workflow_configuration_id.clone())).await;
        Ok(workflow)
    }

    /// Drops a workflow configuration another server changed.
    pub fn forget(&self, id: &str) {
        self.cache.forget(id);
    }

    pub fn forget_all(&self) {
        self.cache.clear();
    }

    /// The workflow if the user created it or holds one of its slots, else NOT_FOUND.
    pub async fn visible(&self, user: &SessionUser, id: &str, fresh: bool) -> Result<Workflow> {
        let workflow = self.load(id, fresh).await?.ok_or_else(|| Error::not_found("workflow configuration"))?;
        if self.is_visible_to(user, &workflow).await? {
            Ok(workflow)
        } else {
            Err(Error::not_found("workflow configuration"))
        }
    }

    /// Whether the user created the workflow or holds one of its slots.
    pub async fn is_visible_to(&self, user: &SessionUser, workflow: &Workflow) -> Result<bool> {
        Ok(workflow.is_owner(user)
            || !self
                .store
                .workflows
                .workflow_slots(&workflow.stored.workflow_configuration_id, &user.user_id)
                .await?
                .is_empty())
    }

    /// Whether the user may use a view of this workflow: the creator holds every slot.
    pub async fn holds_slot(&self, user: &SessionUser, workflow: &Workflow, slot: u32) -> Result<bool> {
        if workflow.is_owner(user) {
            return Ok(true);
        }
        let slots =
            self.store.workflows.workflow_slots(&workflow.stored.workflow_configuration_id, &user.user_id).await?;
        Ok(slots.contains(&i64::from(slot)))
    }

    /// Loads by id through the cache (parsed documents are reused while their revision holds).
    pub async fn load(&self, id: &str, fresh: bool) -> Result<Option<Workflow>> {
        let Ok(uuid) = Uuid::try_parse(id) else { return Ok(None) };
        let id = uuid.to_string();
        if !fresh && let Some(cached) = self.cache.fresh(&id) {
            return Ok(Some(cached));
        }
        let Some(stored) = self.store.workflows.workflow(&id).await? else { return Ok(None) };
        if let Some(cached) = self.cache.confirm(&id, stored.revision) {
            return Ok(Some(Workflow { stored: stored.into(), parsed: cached.parsed }));
        }
        let document: Value = serde_json::from_str(&stored.document).map_err(Error::internal)?;
        let forms: HashMap<Uuid, FormConfig> =
            self.referenced_forms(&document).await?.into_iter().map(|(id, c)| (id, c.parsed)).collect();
        let parsed = workflows::validate_workflow(Some(&id), &document, uuid, &|form_id| forms.get(&form_id).cloned())
            .map_err(|problems| {
                Error::internal(anyhow::anyhow!("stored workflow {id} no longer validates: {:?}", problems.into_vec()))
            })?;
        let workflow = Workflow { stored: stored.into(), parsed };
        self.remember(&workflow);
        Ok(Some(workflow))
    }

    pub async fn list(&self, user: &SessionUser, after: Option<(i64, String)>, limit: i64) -> Result<Vec<Workflow>> {
        let rows = self.store.workflows.list_workflows(&user.user_id, after, limit).await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            if let Some(workflow) = self.load(&row.workflow_configuration_id, false).await? {
                out.push(workflow);
            }
        }
        Ok(out)
    }

    pub async fn grants(&self, user: &SessionUser, id: &str) -> Result<(EntityTag, Vec<SlotHolder>)> {
        let workflow = self.visible(user, id, false).await?;
        let grants = self.store.workflows.workflow_grants(&workflow.stored.workflow_configuration_id).await?;
        Ok(tagged_grants(grants))
    }

    /// Replaces every grant: `{grants: [{handle, slots: [n]}]}`; creator only. With a precondition,
    /// grants changed since are 412.
    pub async fn replace_grants(
        &self,
        user: &SessionUser,
        id: &str,
        body: &Value,
        precondition: &Precondition,
    ) -> Result<(EntityTag, Vec<SlotHolder>)> {
        let workflow = self.visible(user, id, false).await?;
        if !workflow.is_owner(user) {
            return Err(Error::Forbidden(Cow::Borrowed("only the creator may grant slots")));
        }
        let mut problems = Problems::new();
        let (entries, wanted) = workflows::read_grants(body, &workflow.parsed.slots(), &mut problems);
        let handles: Vec<String> = wanted.keys().cloned().collect();
        let ids: HashMap<String, String> =
            self.store.workflows.user_ids_by_handle(&handles).await?.into_iter().collect();
        for (i, entry) in entries.iter().enumerate() {
            if let Some(handle) = entry.get("handle").and_then(Value::as_str)
                && wanted.contains_key(handle)
                && !ids.contains_key(handle)
            {
                problems.push(format!("/grants/{i}/handle"), "UNKNOWN_USER", "no user has this handle");
            }
        }
        problems.finish(())?;
        let pairs: Vec<(String, i64)> = wanted
            .iter()
            .flat_map(|(handle, slots)| {
                let user_id = ids[handle].clone();
                slots.iter().map(move |slot| (user_id.clone(), *slot))
            })
            .collect();
        let id = &workflow.stored.workflow_configuration_id;
        let mut expected_revision = None;
        if precondition.is_given() {
            let current = self.store.workflows.workflow_grants(id).await?;
            check_precondition(precondition, &grants_tag(current.revision))?;
            expected_revision = Some(current.revision);
        }
        let grants = self
            .store
            .workflows
            .replace_workflow_grants(id, &pairs, expected_revision)
            .await
            .map_err(Error::from)
            .on_stale(precondition)?;
        Ok(tagged_grants(grants))
    }

    fn remember(&self, workflow: &Workflow) {
        let stored = &workflow.stored;
        self.cache.insert(
            stored.workflow_configuration_id.clone(),
            stored.revision,
            stored.document.len(),
            workflow.clone(),
        );
    }

    /// Checks the wrapper; the form configurations it names must be readable by the user.
    async fn check(&self, user: &SessionUser, body: &Value, path_id: Option<&str>) -> Result<WorkflowConfig> {
        let mut problems = Problems::new();
        let Some(object) = body.as_object() else {
            return Err(Error::invalid("", "INVALID_TYPE", "the body must be an object"));
        };
        for key in object.keys().filter(|k| !["id", "config"].contains(&k.as_str())) {
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
        if let Some(path_id) = path_id {
            for (path, sent) in [("/id", id), ("/config/id", body.pointer("/config/id").and_then(Value::as_str))] {
                if sent.is_some_and(|sent| !sent.eq_ignore_ascii_case(path_id)) {
                    problems.push(path, "ID_MISMATCH", "must be the id in the path");
                }
            }
        }
        let Some(config) = object.get("config") else {
            problems.push("/config", "REQUIRED", "is required");
            return Err(problems.into());
        };
        // Only form configurations the user may read count as existing.
        let readable: HashMap<Uuid, FormConfig> = self
            .referenced_forms(config)
            .await?
            .into_iter()
            .filter(|(_, configuration)| configuration.may_read(user))
            .map(|(id, configuration)| (id, configuration.parsed))
            .collect();
        let new_id = path_id.and_then(|id| Uuid::try_parse(id).ok()).unwrap_or_else(Uuid::new_v4);
        let checked =
            workflows::validate_workflow(id.or(path_id), config, new_id, &|form_id| readable.get(&form_id).cloned());
        match checked {
            Ok(parsed) if problems.is_empty() => Ok(parsed),
            Ok(_) => Err(problems.into()),
            Err(found) => {
                for problem in found.into_vec() {
                    if !(problem.code == "ID_MISMATCH" && problems.has_code("ID_MISMATCH")) {
                        problems.push(problem.path, &problem.code, problem.message);
                    }
                }
                Err(problems.into())
            }
        }
    }

    /// The form configurations a workflow document names as view `forms` keys.
    async fn referenced_forms(&self, config: &Value) -> Result<HashMap<Uuid, Configuration>> {
        let mut ids: Vec<Uuid> = Vec::new();
        if let Some(views) = config.get("views").and_then(Value::as_array) {
            for view in views.iter().take(1_000) {
                if let Some(forms) = view.get("forms").and_then(Value::as_object) {
                    ids.extend(forms.keys().filter_map(|k| Uuid::try_parse(k).ok()));
                }
            }
        }
        ids.sort_unstable();
        ids.dedup();
        let mut out = HashMap::new();
        for id in ids.into_iter().take(200) {
            if let Some(configuration) = self.forms.load(&id.to_string()).await? {
                out.insert(id, configuration);
            }
        }
        Ok(out)
    }
}

/// The strong tag of a configuration's grants at `revision` (handles never change, so the revision
/// names what a reader sees).
fn grants_tag(revision: i64) -> EntityTag {
    EntityTag::of_revisions(&[revision])
}

fn tagged_grants(grants: Grants) -> (EntityTag, Vec<SlotHolder>) {
    (grants_tag(grants.revision), grants.grants.into_iter().map(SlotHolder::from).collect())
}
