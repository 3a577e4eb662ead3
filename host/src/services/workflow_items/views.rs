//! What the item use cases answer: an item through a view (its detail fields, the payload the
//! view shows, the moves open to it), a row of a view listing, and a trail entry. They are built
//! here from the stored rows, so the routes only map them to the wire.

use std::collections::{BTreeMap, HashMap};

use serde_json::value::RawValue;
use serde_json::{Map, Value};
use time::OffsetDateTime;
use uuid::Uuid;

use super::Item;
use crate::domain::forms::FormConfig;
use crate::domain::precondition::EntityTag;
use crate::domain::workflows::{self, DetailField, DetailRule, MetadataRule, View, ViewForm};
use crate::services::form_instances::Instance;
use crate::services::workflow_configurations::Workflow;
use crate::store::{ListedItem, StoredItem};

/// Where an item stands.
pub struct ItemPlace {
    pub item_id: String,
    pub item_type: String,
    pub workflow_configuration_id: String,
    pub workbasket_id: String,
}

impl From<StoredItem> for ItemPlace {
    fn from(item: StoredItem) -> Self {
        Self {
            item_id: item.item_id,
            item_type: item.item_type,
            workflow_configuration_id: item.workflow_configuration_id,
            workbasket_id: item.workbasket_id,
        }
    }
}

/// An item through a view (or as the workflow's creator), in the language asked for.
pub struct ItemDetail {
    pub place: ItemPlace,
    /// `{fieldId, key, type, label, value, editable, required}`, overrides applied.
    pub fields: Vec<DetailField>,
    /// `{configurationId, language, state, fields, metadata}` as far as the view shows them.
    pub payload: Value,
    pub transitions: Vec<AvailableTransition>,
    /// The entity tag: the item's place in the workflow and the form's answers.
    pub etag: EntityTag,
}

pub struct AvailableTransition {
    pub transition_id: String,
    pub label: Option<String>,
    pub target_workbasket_id: String,
}

impl Item {
    /// The item as the view shows it, labels in `language` (the form's default fills gaps).
    pub fn detail(self, language: Option<&str>) -> ItemDetail {
        detail_through(self.item, &self.workflow, self.view.as_ref(), &self.instance, language)
    }
}

/// `item` (of `workflow`, its form `instance`) as `view` shows it, or as its creator sees it when
/// there is no view: borrowing the workflow and the view, so that many items can be shown through
/// one (an export) without copying them.
pub fn detail_through(
    item: StoredItem,
    workflow: &Workflow,
    view: Option<&View>,
    instance: &Instance,
    language: Option<&str>,
) -> ItemDetail {
    let etag = super::item_etag(&item, workflow, instance);
    let form = &instance.configuration.parsed;
    let creator;
    let view = match view {
        Some(view) => view,
        None => {
            creator = creator_view(form);
            &creator
        }
    };
    let language = language.unwrap_or(form.default_language());
    let answers = instance.answers();
    let fields = workflows::detail_fields(view, form, &answers, language);
    let shown: Map<String, Value> = fields
        .iter()
        .map(|f| (f.field_id.to_string(), answers.get(&f.field_id.to_string()).cloned().unwrap_or(Value::Null)))
        .collect();
    let payload = serde_json::json!({
        "configurationId": instance.stored.configuration_id,
        "language": instance.stored.language,
        "state": instance.stored.state,
        "fields": shown,
        "metadata": workflows::visible_metadata(view, &form.id(), &instance.metadata()),
    });
    let network = &workflow.parsed;
    let workbasket = Uuid::try_parse(&item.workbasket_id).unwrap_or_default();
    let transitions = network
        .transitions_from(&workbasket)
        .iter()
        .map(|t| AvailableTransition {
            transition_id: t.id.to_string(),
            label: network.label(&t.label, language),
            target_workbasket_id: t.target_workbasket_id.to_string(),
        })
        .collect();
    ItemDetail { place: item.into(), fields, payload, transitions, etag }
}

/// Without a view, the creator sees every field of the form, as the form itself rules.
fn creator_view(form: &FormConfig) -> View {
    let metadata = ["timestamp", "tags", "summary", "location"]
        .into_iter()
        .map(|name| (name.to_owned(), MetadataRule { visible: true, editable: true }))
        .collect();
    let detail_fields =
        form.fields().map(|f| DetailRule { field_key: f.key.clone(), ..DetailRule::default() }).collect();
    View {
        id: Uuid::nil(),
        label: String::new(),
        description: None,
        workbasket_ids: Vec::new(),
        permission_slot: 0,
        forms: BTreeMap::from([(form.id(), ViewForm { list_fields: Vec::new(), detail_fields, metadata })]),
    }
}

/// An item in a view listing: the view's `listFields` by field key.
pub struct ViewItem {
    pub item_id: String,
    pub item_type: String,
    pub workbasket_id: String,
    pub configuration_id: String,
    pub fields: Map<String, Value>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

impl ViewItem {
    /// The row as `view` lists it; `form` is its configuration, `None` when it is gone.
    pub(super) fn new(row: ListedItem, view: &View, form: Option<&FormConfig>) -> Self {
        let fields = match form {
            Some(form) => workflows::list_fields(view, form, &listed_answers(view, form, &row.answers)),
            None => Map::new(),
        };
        Self {
            item_id: row.item.item_id,
            item_type: row.item.item_type,
            workbasket_id: row.item.workbasket_id,
            configuration_id: row.configuration_id,
            fields,
            created_at: row.item.created_at,
            updated_at: row.item.updated_at,
        }
    }
}

/// The answers a listing shows, parsed out of the stored answers without building the rest:
/// a page of 50 items otherwise spends most of its time materialising answers nobody sees.
fn listed_answers(view: &View, form: &FormConfig, stored: &str) -> Map<String, Value> {
    let Some(rules) = view.form(&form.id()) else { return Map::new() };
    let Ok(raw) = serde_json::from_str::<HashMap<&str, &RawValue>>(stored) else {
        return Map::new();
    };
    rules
        .list_fields
        .iter()
        .filter_map(|key| form.field_by_key(key))
        .filter_map(|field| {
            let id = field.id.to_string();
            let value = serde_json::from_str(raw.get(id.as_str())?.get()).ok()?;
            Some((id, value))
        })
        .collect()
}

/// One entry of an item's workflow audit trail.
pub struct WorkflowHistoryEntry {
    pub event_id: String,
    /// STARTED, MOVED or PATCHED.
    pub action: String,
    pub actor_id: String,
    pub actor_handle: String,
    pub from_workbasket_id: Option<String>,
    pub to_workbasket_id: Option<String>,
    pub transition_id: Option<String>,
    /// Field ids whose answers changed.
    pub changed_fields: Vec<String>,
    pub at: OffsetDateTime,
}

impl From<crate::store::WorkflowEvent> for WorkflowHistoryEntry {
    fn from(e: crate::store::WorkflowEvent) -> Self {
        Self {
            event_id: e.event_id,
            action: e.action,
            actor_id: e.actor_id,
            actor_handle: e.actor_handle,
            from_workbasket_id: e.from_workbasket_id,
            to_workbasket_id: e.to_workbasket_id,
            transition_id: e.transition_id,
            changed_fields: serde_json::from_str(&e.changed_fields).unwrap_or_default(),
            at: e.at,
        }
    }
}
