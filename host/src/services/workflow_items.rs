//! Workflow instances and items: start, list a view, read, patch and move (conventions 10, 13).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::domain::forms::{self, InstanceState, Mode};
use crate::domain::precondition::{EntityTag, Precondition};
use crate::domain::problems::Problems;
use crate::domain::workflows::{self, ItemPatch, View};
use crate::error::{Error, OnConflict, OnStale, Result, check_precondition};
use crate::services::form_configurations::Configuration;
use crate::services::form_instances::{FormInstances, Instance};
pub use crate::services::workflow_configurations::ITEM_TYPE_FORM;
use crate::services::workflow_configurations::{Workflow, WorkflowConfigurations};
use crate::store::{NewWorkflowEvent, SessionUser, Store, StoredItem};

mod views;

/// What the item use cases answer with; handlers map these to the wire.
pub use views::{AvailableTransition, ItemDetail, ItemPlace, ViewItem, WorkflowHistoryEntry, detail_through};

pub struct WorkflowItems {
    store: Store,
    workflows: Arc<WorkflowConfigurations>,
    instances: Arc<FormInstances>,
}

/// How a request reaches an item: through a view (holders of its slot) or as the creator.
#[derive(Clone, Copy)]
pub struct Access<'a> {
    pub workflow_configuration_id: Option<&'a str>,
    pub view_id: Option<&'a str>,
}

/// An item as a caller may see it.
pub struct Item {
    pub item: StoredItem,
    pub workflow: Workflow,
    pub view: Option<View>,
    pub instance: Instance,
}

impl Item {
    /// The entity tag of the item: its place in the workflow and the form's answers, and the
    /// documents that label them (the workflow's transitions, the form's fields).
    pub fn etag(&self) -> EntityTag {
        item_etag(&self.item, &self.workflow, &self.instance)
    }

    pub fn workbasket_id(&self) -> Uuid {
        Uuid::try_parse(&self.item.workbasket_id).unwrap_or_default()
    }
}

/// See [`Item::etag`].
fn item_etag(item: &StoredItem, workflow: &Workflow, instance: &Instance) -> EntityTag {
    EntityTag::of_revisions(&[
        item.revision,
        instance.stored.revision,
        workflow.stored.revision,
        instance.configuration.stored.revision,
    ])
}

/// `{workflowConfigurationId, itemType?, itemId, confirmSwitch?}`.
pub struct StartRequest<'a> {
    pub workflow_configuration_id: Option<&'a str>,
    pub item_type: Option<&'a str>,
    pub item_id: Option<&'a str>,
    pub confirm_switch: bool,
}

impl WorkflowItems {
    pub fn new(store: Store, workflows: Arc<WorkflowConfigurations>, instances: Arc<FormInstances>) -> Self {
        Self { store, workflows, instances }
    }

    /// Puts an item into the entry workbasket of a workflow.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
    pub async fn start(&self, user: &SessionUser, request: StartRequest<'_>) -> Result<ItemPlace> {
        let mut problems = Problems::new();
        let workflow_id = problems.required("/workflowConfigurationId", request.workflow_configuration_id);
        let item_id = problems.required("/itemId", request.item_id);
        if request.item_type.is_some_and(|t| t != ITEM_TYPE_FORM) {
            problems.push("/itemType", "INVALID_VALUE", "only FORM items exist");
        }
        let (Some(workflow_id), Some(item_id)) = (workflow_id, item_id) else { return Err(problems.into()) };
        problems.finish(())?;
        // The item first: for anyone it does not exist for, the answer says nothing of the workflow.
        let instance = self.instances.load(item_id).await?.ok_or_else(|| Error::not_found("item"))?;
        if instance.stored.owner_id != user.user_id && !self.holds_current_workflow(user, &instance).await? {
            // Creating a workflow of one's own gives no hold on anybody else's item.
            return Err(Error::not_found("item"));
        }
        let unknown =
            || Error::invalid("/workflowConfigurationId", "UNKNOWN_WORKFLOW", "no workflow configuration has this id");
        let workflow = self.workflows.load(workflow_id, false).await?.ok_or_else(unknown)?;
        // A workflow the user cannot see exists for them only as far as it takes their item's form.
        if !workflow.parsed.allows_form(&instance.configuration.parsed.id())
            && !self.workflows.is_visible_to(user, &workflow).await?
        {
            return Err(unknown());
        }
        self.start_loaded(user, &workflow, &instance, request.confirm_switch).await.map(ItemPlace::from)
    }

    /// Whether `user` created the workflow the instance sits in now: besides the item's creator,
    /// only they may move it to another workflow (conventions section 13).
    async fn holds_current_workflow(&self, user: &SessionUser, instance: &Instance) -> Result<bool> {
        let Some(current) = self.store.workflow_items.workflow_item(&instance.stored.form_id).await? else {
            return Ok(false);
        };
        let workflow = self.workflows.load(&current.workflow_configuration_id, false).await?;
        Ok(workflow.is_some_and(|workflow| workflow.is_owner(user)))
    }

    /// Starts `workflow` on an instance the caller may start it on.
    pub async fn start_loaded(
        &self,
        user: &SessionUser,
        workflow: &Workflow,
        instance: &Instance,
        confirm_switch: bool,
    ) -> Result<StoredItem> {
        let mut problems = Problems::new();
        // An unreadable state is not SUBMITTED.
        let state = InstanceState::parse(&instance.stored.state).unwrap_or(InstanceState::Draft);
        for (code, message) in workflow.start_refusals(&instance.configuration.parsed, state) {
            problems.push("/itemId", code, message);
        }
        problems.finish(())?;
        self.store
            .workflow_items
            .start_item(&instance.stored.form_id, workflow.start_by(user), confirm_switch, OffsetDateTime::now_utc())
            .await
            .on_conflict("the item already sits in a workflow; send confirmSwitch: true to move it")
    }

    /// The item, if the caller may reach it this way: through a view it holds the slot of and
    /// whose workbaskets hold the item, or, without a view, as the workflow's creator.
    pub async fn reach(&self, user: &SessionUser, item_id: &str, access: Access<'_>) -> Result<Item> {
        self.reach_as(user, item_id, access, false).await
    }

    /// `moving`: an item the view no longer shows has moved on, so a move through the view
    /// answers INVALID_TRANSITION rather than NOT_FOUND (the loser of a race sees this).
    async fn reach_as(&self, user: &SessionUser, item_id: &str, access: Access<'_>, moving: bool) -> Result<Item> {
        let not_found = || Error::not_found("item");
        let item_id = Uuid::try_parse(item_id).map_err(|_| not_found())?.to_string();
        let (item, stored_instance) =
            self.store.workflow_items.workflow_item_with_instance(&item_id).await?.ok_or_else(not_found)?;
        if access.workflow_configuration_id.is_some_and(|id| {
            Uuid::try_parse(id).map(|id| id.to_string()) != Ok(item.workflow_configuration_id.clone())
        }) {
            return Err(not_found());
        }
        let workflow = self.workflows.load(&item.workflow_configuration_id, false).await?.ok_or_else(not_found)?;
        let view = match access.view_id {
            Some(view_id) => {
                let view = Uuid::try_parse(view_id)
                    .ok()
                    .and_then(|id| workflow.parsed.view(&id).cloned())
                    .ok_or_else(not_found)?;
                if !self.workflows.holds_slot(user, &workflow, view.permission_slot).await? {
                    return Err(not_found());
                }
                let in_view = Uuid::try_parse(&item.workbasket_id).is_ok_and(|wb| view.shows_workbasket(&wb));
                if !in_view && moving {
                    return Err(Error::InvalidTransition(Cow::Borrowed(
                        "the item is no longer in a workbasket of this view",
                    )));
                } else if !in_view {
                    return Err(not_found());
                }
                Some(view)
            }
            None if workflow.is_owner(user) => None,
            None => return Err(not_found()),
        };
        let instance = self.instances.with_configuration(stored_instance).await?;
        Ok(Item { item, workflow, view, instance })
    }

    /// Moves the item along `transition_id`. Of two concurrent moves from the same workbasket
    /// only one succeeds; the other is INVALID_TRANSITION. With `if_match`, a changed item is 412.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
    pub async fn transition(
        &self,
        user: &SessionUser,
        item_id: &str,
        access: Access<'_>,
        transition_id: Option<&str>,
        precondition: &Precondition,
    ) -> Result<Item> {
        let mut problems = Problems::new();
        let transition_id = problems.required("/transitionId", transition_id);
        let Some(transition_id) = transition_id else { return Err(problems.into()) };
        // Transition ids are UUIDs: anything else is a malformed request, not a move unavailable here.
        let Some(transition_id) = crate::domain::document::ids::parse_hyphenated_uuid(transition_id) else {
            return Err(Error::invalid("/transitionId", "INVALID_UUID", "must be a UUID"));
        };
        let current = self.reach_as(user, item_id, access, true).await?;
        check_precondition(precondition, &current.etag())?;
        let from = current.workbasket_id();
        let transition = current.workflow.parsed.transition(&from, &transition_id).cloned().ok_or_else(|| {
            Error::InvalidTransition(Cow::Borrowed("the transition is not available in the item's workbasket"))
        })?;
        let to = transition.target_workbasket_id.to_string();
        let event = current.workflow.parsed.enable_logging().then(|| NewWorkflowEvent {
            actor_id: user.user_id.clone(),
            action: "MOVED",
            from_workbasket_id: Some(current.item.workbasket_id.clone()),
            to_workbasket_id: Some(to.clone()),
            transition_id: Some(transition.id.to_string()),
            changed_fields: "[]".into(),
        });
        let moved = self
            .store
            .workflow_items
            .move_item(
                &current.item.item_id,
                &current.item.workflow_configuration_id,
                &current.item.workbasket_id,
                &to,
                precondition.is_given().then_some((current.item.revision, current.instance.stored.revision)),
                event,
                OffsetDateTime::now_utc(),
            )
            .await?;
        match moved {
            Some(item) => Ok(Item { item, ..current }),
            None if precondition.is_given() => Err(Error::PreconditionFailed),
            None => Err(Error::InvalidTransition(Cow::Borrowed("the item moved meanwhile; fetch it again"))),
        }
    }

    /// Items in the view's workbaskets (optionally one of them), newest first.
    pub async fn list_view(
        &self,
        user: &SessionUser,
        workflow_id: &str,
        view_id: &str,
        workbasket_id: Option<&str>,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> Result<Vec<ViewItem>> {
        let not_found = || Error::not_found("view");
        let workflow = self.workflows.load(workflow_id, false).await?.ok_or_else(not_found)?;
        let view =
            Uuid::try_parse(view_id).ok().and_then(|id| workflow.parsed.view(&id).cloned()).ok_or_else(not_found)?;
        if !self.workflows.holds_slot(user, &workflow, view.permission_slot).await? {
            return Err(not_found());
        }
        let workbaskets: Vec<String> = match workbasket_id {
            Some(id) => {
                let id = Uuid::try_parse(id).ok().filter(|id| view.shows_workbasket(id)).ok_or_else(|| {
                    Error::invalid("workbasketId", "NOT_IN_VIEW", "the view does not show this workbasket")
                })?;
                vec![id.to_string()]
            }
            None => view.workbasket_ids.iter().map(Uuid::to_string).collect(),
        };
        let items = self
            .store
            .workflow_items
            .list_view_items(&workflow.stored.workflow_configuration_id, &workbaskets, after, limit)
            .await?;
        // Each configuration once, however many items of the page share it.
        let mut forms: BTreeMap<String, Option<Configuration>> = BTreeMap::new();
        for row in &items {
            if !forms.contains_key(&row.configuration_id) {
                let form = self.instances.configuration(&row.configuration_id).await?;
                forms.insert(row.configuration_id.clone(), form);
            }
        }
        Ok(items
            .into_iter()
            .map(|row| {
                let form = forms.get(&row.configuration_id).and_then(Option::as_ref).map(|c| &c.parsed);
                ViewItem::new(row, &view, form)
            })
            .collect())
    }

    pub async fn history(
        &self,
        user: &SessionUser,
        item_id: &str,
        access: Access<'_>,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> Result<Vec<WorkflowHistoryEntry>> {
        let item = self.reach(user, item_id, access).await?;
        let events = self.store.workflow_items.workflow_events(&item.item.item_id, after, limit).await?;
        Ok(events.into_iter().map(WorkflowHistoryEntry::from).collect())
    }

    /// Changes fields the view makes editable.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
    pub async fn patch(
        &self,
        user: &SessionUser,
        item_id: &str,
        access: Access<'_>,
        body: &Value,
        precondition: &Precondition,
    ) -> Result<Item> {
        let current = self.reach(user, item_id, access).await?;
        check_precondition(precondition, &current.etag())?;
        let config = &current.instance.configuration.parsed;
        let state = InstanceState::parse(&current.instance.stored.state).unwrap_or(InstanceState::Submitted);
        let patch = match &current.view {
            Some(view) => workflows::check_item_patch(view, config, body, state)?,
            // The creator acting without a view edits as the form itself allows.
            None => {
                let checked = forms::check_payload(config, body, Mode::Patch { current: state })?;
                forms::merge_patch(config, &current.instance.checked_payload(), checked.clone())?;
                ItemPatch { fields: checked.fields, metadata: checked.metadata }
            }
        };
        let before = current.instance.answers();
        let mut after = before.clone();
        after.extend(patch.fields.clone());
        let workflow_event = match current.workflow.parsed.enable_logging() {
            true => Some(NewWorkflowEvent {
                actor_id: user.user_id.clone(),
                action: "PATCHED",
                from_workbasket_id: None,
                to_workbasket_id: None,
                transition_id: None,
                changed_fields: serde_json::to_string(&forms::changed_fields(&before, &after))
                    .map_err(Error::internal)?,
            }),
            false => None,
        };
        let workflow_id = current.item.workflow_configuration_id.clone();
        // The answers are written (with the workflow's audit entry, in one transaction) only if
        // the form is still at the revision read above; a request that sent If-Match and lost
        // that race no longer matches, so it is 412 like a stale tag.
        let instance = self
            .instances
            .apply_checked_fields(
                user,
                &current.instance,
                patch.fields,
                patch.metadata,
                workflow_event.map(|event| (workflow_id.as_str(), event)),
                Some(current.item.changed(&current.instance.stored.owner_id, None, "UPDATED")),
            )
            .await
            .on_stale(precondition)?;
        Ok(Item { instance, ..current })
    }
}
