//! Form instances: create, read, sparse update, list, and the audit trail.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::{Map, Value};
use time::OffsetDateTime;

use crate::domain::forms::{self, CheckedPayload, InstanceState, Mode};
use crate::domain::jobs::SpaceEventKind;
use crate::domain::live::LiveEvent;
use crate::domain::precondition::{EntityTag, Precondition};
use crate::error::{Error, OnConflict, OnStale, Result, check_precondition};
use crate::services::form_configurations::{Configuration, FormConfigurations};
use crate::services::space_events::{SpaceEvents, items};
use crate::services::spaces::Spaces;
use crate::services::workflow_configurations::WorkflowConfigurations;
use crate::store::{InstanceContent, NewEvent, NewWorkflowEvent, Outbox, SessionUser, Store, StoredAttachment};

/// The records and filter of instance use cases: handlers show these, and reach them only through the use case.
use crate::store::{InstanceFilter, StoredInstance};

mod record;
mod references;

/// What the instance use cases answer with; handlers map these to the wire.
pub use record::{Attachment, FormRecord, HistoryEntry, InstanceQuery, InstanceSummary};

pub struct FormInstances {
    store: Store,
    configurations: Arc<FormConfigurations>,
    workflows: Arc<WorkflowConfigurations>,
    spaces: Arc<Spaces>,
    events: Arc<SpaceEvents>,
}

/// An instance with the configuration it was filled against.
pub struct Instance {
    pub stored: StoredInstance,
    pub configuration: Configuration,
    /// The attachment descriptors, when they were read with the instance (see [`FormInstances::load`]).
    pub attachments: Option<Vec<StoredAttachment>>,
}

impl Instance {
    /// Every change of answers, state, metadata or files moves the instance's revision on; the
    /// configuration's decides which fields show.
    pub fn etag(&self) -> EntityTag {
        EntityTag::of_revisions(&[self.stored.revision, self.configuration.stored.revision])
    }

    /// The stored payload in the shape the form rules check and merge.
    pub fn checked_payload(&self) -> CheckedPayload {
        let config = &self.configuration.parsed;
        CheckedPayload {
            configuration_id: config.id(),
            language: Some(self.stored.language.clone()),
            state: InstanceState::parse(&self.stored.state).unwrap_or(InstanceState::Submitted),
            fields: self.answers(),
            metadata: self.metadata(),
            integrations: self.integrations(),
        }
    }

    pub fn answers(&self) -> Map<String, Value> {
        forms::stored_object(Some(&self.stored.answers))
    }
    pub fn metadata(&self) -> Map<String, Value> {
        forms::stored_object(self.stored.metadata.as_deref())
    }
    pub fn integrations(&self) -> Map<String, Value> {
        forms::stored_object(self.stored.integrations.as_deref())
    }
}

/// The changed field ids as the audit trail stores them, or `None` when the configuration keeps
/// no audit trail (then nothing is serialized).
fn audit_fields<I>(configuration: &Configuration, fields: I) -> Result<Option<String>>
where
    I: IntoIterator,
    I::Item: serde::Serialize,
{
    if !configuration.parsed.flags().enable_logging {
        return Ok(None);
    }
    let fields: Vec<I::Item> = fields.into_iter().collect();
    serde_json::to_string(&fields).map(Some).map_err(Error::internal)
}

fn to_text(map: &Map<String, Value>) -> Option<String> {
    if map.is_empty() { None } else { Some(Value::Object(map.clone()).to_string()) }
}

impl FormInstances {
    pub fn new(
        store: Store,
        configurations: Arc<FormConfigurations>,
        workflows: Arc<WorkflowConfigurations>,
        spaces: Arc<Spaces>,
        events: Arc<SpaceEvents>,
    ) -> Self {
        Self { store, configurations, workflows, spaces, events }
    }

    /// Creates an instance from `{payload}`; the configuration must be readable and ACTIVE. A SUBMITTED
    /// instance that names a workflow starts it in the same transaction (conventions 11).
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
    pub async fn create(&self, user: &SessionUser, body: &Value) -> Result<FormRecord> {
        let configuration_id = forms::payload_configuration_id(body)?;
        let configuration = match self.configurations.load(&configuration_id.to_string()).await? {
            Some(c) if c.may_read(user) => c,
            _ => {
                return Err(Error::invalid(
                    "/payload/configurationId",
                    "UNKNOWN_CONFIGURATION",
                    "no form configuration with this id is visible to you",
                ));
            }
        };
        if !configuration.is_active() {
            return Err(Error::Conflict(Cow::Borrowed("the form configuration is archived")));
        }
        let checked = forms::check_payload(&configuration.parsed, body, Mode::Create)?;
        self.check_references(user, &checked).await?;
        let language = checked.language.clone().unwrap_or_else(|| configuration.parsed.default_language().to_owned());
        let answers = Value::Object(checked.fields.clone()).to_string();
        let metadata = to_text(&checked.metadata);
        let integrations = to_text(&checked.integrations);
        let changed = audit_fields(&configuration, checked.fields.keys())?;
        let event = changed.as_deref().map(|changed_fields| NewEvent {
            actor_id: &user.user_id,
            action: "CREATED",
            changed_fields,
        });
        let form_id = uuid::Uuid::new_v4().to_string();
        let space_id = checked.space_id().map(|id| id.to_string());
        let content = InstanceContent {
            state: checked.state.as_str(),
            language: &language,
            answers: &answers,
            metadata: metadata.as_deref(),
            integrations: integrations.as_deref(),
            space_id: space_id.as_deref(),
        };
        let configuration_id = &configuration.stored.configuration_id;
        let start = self.requested_start(user, &configuration, &checked, None).await?;
        let outbox =
            Arc::new(self.outbox(SpaceEventKind::FormInstanceCreated, &form_id, configuration_id, &content).await);
        let (stored, _) = self
            .store
            .instances
            .insert_instance(
                &form_id,
                configuration_id,
                &user.user_id,
                &content,
                event.as_ref(),
                &outbox,
                start,
                OffsetDateTime::now_utc(),
            )
            .await?;
        self.events.committed(&outbox);
        // A new instance has no files yet.
        Ok(Instance { stored, configuration, attachments: Some(Vec::new()) }.into())
    }

    /// The instance if the user may read it (its creator), else NOT_FOUND.
    pub async fn readable(&self, user: &SessionUser, form_id: &str) -> Result<Instance> {
        self.load(form_id)
            .await?
            .filter(|instance| instance.stored.owner_id == user.user_id)
            .ok_or_else(|| Error::not_found("form"))
    }

    /// Applies a sparse `{payload}` over the stored instance; with a precondition, an instance
    /// changed since is 412. An instance SUBMITTED with a workflow named and not yet in one starts it in
    /// the same transaction (conventions 11).
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, form_id))]
    pub async fn update(
        &self,
        user: &SessionUser,
        form_id: &str,
        body: &Value,
        precondition: &Precondition,
    ) -> Result<FormRecord> {
        let current = self.readable(user, form_id).await?;
        check_precondition(precondition, &current.etag())?;
        let config = &current.configuration.parsed;
        let state = InstanceState::parse(&current.stored.state).unwrap_or(InstanceState::Submitted);
        let requested = body.pointer("/payload/state").and_then(Value::as_str).and_then(InstanceState::parse);
        if let Some(requested) = requested
            && forms::next_state(state, requested).is_none()
        {
            return Err(Error::InvalidTransition(Cow::Borrowed("a SUBMITTED form cannot go back to DRAFT")));
        }
        let patch = forms::check_payload(config, body, Mode::Patch { current: state })?;
        self.check_references(user, &patch).await?;
        // Submitting, or naming a workflow, is what starts one; other changes of a submitted form start nothing.
        let may_start = state != InstanceState::Submitted || patch.workflow_configuration_id().is_some();
        let stored_payload = current.checked_payload();
        let merged = forms::merge_patch(config, &stored_payload, patch)?;
        let changed =
            audit_fields(&current.configuration, forms::changed_fields(&stored_payload.fields, &merged.fields))?;
        let action = if state != merged.state { "SUBMITTED" } else { "UPDATED" };
        let event =
            changed.as_deref().map(|changed_fields| NewEvent { actor_id: &user.user_id, action, changed_fields });
        let (answers, metadata, integrations) = (
            Value::Object(merged.fields.clone()).to_string(),
            to_text(&merged.metadata),
            to_text(&merged.integrations),
        );
        let space_id = merged.space_id().map(|id| id.to_string());
        let content = InstanceContent {
            state: merged.state.as_str(),
            language: merged.language.as_deref().unwrap_or(config.default_language()),
            answers: &answers,
            metadata: metadata.as_deref(),
            integrations: integrations.as_deref(),
            space_id: space_id.as_deref(),
        };
        let form_id = &current.stored.form_id;
        let configuration_id = &current.stored.configuration_id;
        let start = if may_start {
            self.requested_start(user, &current.configuration, &merged, Some(form_id)).await?
        } else {
            None
        };
        let outbox =
            Arc::new(self.outbox(SpaceEventKind::FormInstanceUpdated, form_id, configuration_id, &content).await);
        let (stored, _) = self
            .store
            .instances
            .update_instance(
                form_id,
                current.stored.revision,
                &content,
                event.as_ref(),
                None,
                &outbox,
                start.as_ref(),
                OffsetDateTime::now_utc(),
            )
            .await
            .on_conflict("the form changed meanwhile; read it and try again")
            .on_stale(precondition)?;
        self.events.committed(&outbox);
        // Answered with its files, as a read answers it.
        self.record(Instance { stored, configuration: current.configuration, attachments: current.attachments }).await
    }

    /// Writes answers already checked against a workflow view (their editability and the form's
    /// rules) over the stored ones; `expected_revision` guards against lost updates.
    pub async fn apply_checked_fields(
        &self,
        actor: &SessionUser,
        instance: &Instance,
        fields: Map<String, Value>,
        metadata: Map<String, Value>,
        workflow_event: Option<(&str, NewWorkflowEvent)>,
        live: Option<LiveEvent>,
    ) -> Result<Instance> {
        let before = instance.answers();
        let mut after = before.clone();
        after.extend(fields);
        let mut stored_metadata = instance.metadata();
        for (name, value) in metadata {
            if value.is_null() {
                stored_metadata.remove(&name);
            } else {
                stored_metadata.insert(name, value);
            }
        }
        let changed = audit_fields(&instance.configuration, forms::changed_fields(&before, &after))?;
        let event = changed.as_deref().map(|changed_fields| NewEvent {
            actor_id: &actor.user_id,
            action: "UPDATED",
            changed_fields,
        });
        let stored = &instance.stored;
        let (answers, metadata) = (Value::Object(after).to_string(), to_text(&stored_metadata));
        let content = InstanceContent {
            state: &stored.state,
            language: &stored.language,
            answers: &answers,
            metadata: metadata.as_deref(),
            integrations: stored.integrations.as_deref(),
            space_id: stored.space_id.as_deref(),
        };
        let mut outbox =
            self.outbox(SpaceEventKind::FormInstanceUpdated, &stored.form_id, &stored.configuration_id, &content).await;
        if let Some(live) = live {
            outbox = outbox.live(live);
        }
        let outbox = Arc::new(outbox);
        let (updated, _) = self
            .store
            .instances
            .update_instance(
                &stored.form_id,
                stored.revision,
                &content,
                event.as_ref(),
                workflow_event.as_ref().map(|(id, e)| (*id, e)),
                &outbox,
                None,
                OffsetDateTime::now_utc(),
            )
            .await
            .on_conflict("the form changed meanwhile; read it and try again")?;
        self.events.committed(&outbox);
        Ok(Instance { stored: updated, configuration: instance.configuration.clone(), attachments: None })
    }

    /// The event a change of an instance in a space queues with the change, for the space's
    /// modules (delivered in the background with [`event_item`]); none outside a space.
    async fn outbox(
        &self,
        kind: SpaceEventKind,
        form_id: &str,
        configuration_id: &str,
        content: &InstanceContent<'_>,
    ) -> Outbox {
        let Some(space_id) = content.space_id else { return Outbox::new() };
        self.events.outbox(space_id, kind, form_id, items::instance_content(form_id, configuration_id, content)).await
    }

    /// Pairs a stored instance with its (cached) configuration.
    pub async fn with_configuration(&self, stored: StoredInstance) -> Result<Instance> {
        let configuration = self
            .configurations
            .load(&stored.configuration_id)
            .await?
            .ok_or_else(|| Error::internal(anyhow::anyhow!("instance without configuration")))?;
        Ok(Instance { stored, configuration, attachments: None })
    }

    /// An instance by id whatever its owner, for callers that have checked access themselves;
    /// its attachment descriptors come with it, in the same statement.
    pub async fn load(&self, form_id: &str) -> Result<Option<Instance>> {
        let Ok(id) = uuid::Uuid::try_parse(form_id) else { return Ok(None) };
        match self.store.instances.instance_with_attachments(&id.to_string()).await? {
            Some((stored, attachments)) => {
                let instance = self.with_configuration(stored).await?;
                Ok(Some(Instance { attachments: Some(attachments), ..instance }))
            }
            None => Ok(None),
        }
    }

    /// The caller's instances, newest first.
    pub async fn list(
        &self,
        user: &SessionUser,
        query: &InstanceQuery<'_>,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> Result<Vec<InstanceSummary>> {
        let filter = InstanceFilter {
            owner_id: &user.user_id,
            configuration_id: query.configuration_id,
            space_id: query.space_id,
            states: query.states,
        };
        let rows = self.store.instances.list_instances(&filter, after, limit).await?;
        Ok(rows.into_iter().map(InstanceSummary::from).collect())
    }

    /// The instance as answered, its file fields holding their attachments.
    pub async fn record(&self, instance: Instance) -> Result<FormRecord> {
        let has_files = instance.configuration.parsed.fields().any(|f| f.kind == forms::FieldType::File);
        let attachments = match (has_files, &instance.attachments) {
            (false, _) => Vec::new(),
            (true, Some(read)) => read.clone(),
            (true, None) => self.store.media.attachments(&instance.stored.form_id).await?,
        };
        let mut record = FormRecord::from(instance);
        record.attachments = attachments.into_iter().map(Into::into).collect();
        Ok(record)
    }

    /// A configuration by id (cached), for use cases over many instances.
    pub async fn configuration(&self, configuration_id: &str) -> Result<Option<Configuration>> {
        self.configurations.load(configuration_id).await
    }

    pub async fn history(
        &self,
        user: &SessionUser,
        form_id: &str,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> Result<Vec<HistoryEntry>> {
        let instance = self.readable(user, form_id).await?;
        let events = self.store.instances.instance_events(&instance.stored.form_id, after, limit).await?;
        Ok(events.into_iter().map(HistoryEntry::from).collect())
    }
}
