//! What the instance use cases answer: an instance as its reader sees it, a list entry and a
//! trail entry, built here from the stored rows so the routes only map them to the wire.

use serde_json::{Map, Value};
use time::OffsetDateTime;

use super::Instance;
use crate::domain::forms::FieldType;
use crate::domain::precondition::EntityTag;
use crate::domain::workflows::Shown;
use crate::store::{InstanceEvent, StoredAttachment, StoredInstance};

/// One stored file of a form's file field, as the attachment use cases answer it.
#[derive(Clone, Debug)]
pub struct Attachment {
    pub field_id: String,
    /// Opaque; names the part in the download and delete routes.
    pub part_key: String,
    pub content_type: String,
    pub bytes: i64,
    pub filename: String,
    /// Where the bytes are; only the attachment use cases read it.
    pub(in crate::services) storage_key: String,
    /// The content's address (`None` until bytes stored before content addressing are read).
    pub sha256: Option<String>,
}

impl From<StoredAttachment> for Attachment {
    fn from(a: StoredAttachment) -> Self {
        Self {
            field_id: a.field_id,
            part_key: a.part_key,
            content_type: a.content_type,
            bytes: a.bytes,
            filename: a.filename,
            storage_key: a.storage_key,
            sha256: a.sha256,
        }
    }
}

/// An instance as answered: `fields` holds the answers by field id, every file field as an empty
/// list its `attachments` fill.
pub struct FormRecord {
    pub form_id: String,
    pub configuration_id: String,
    /// `DRAFT` or `SUBMITTED`.
    pub state: String,
    pub language: String,
    pub fields: Map<String, Value>,
    pub metadata: Map<String, Value>,
    pub integrations: Map<String, Value>,
    pub revision: i64,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    /// The descriptors of the files of the file fields, when they were read.
    pub attachments: Vec<Attachment>,
    /// The tag of the instance this record shows (see [`Instance::etag`]).
    pub etag: EntityTag,
}

impl From<Instance> for FormRecord {
    fn from(instance: Instance) -> Self {
        let mut fields = instance.answers();
        for field in instance.configuration.parsed.fields().filter(|f| f.kind == FieldType::File) {
            fields.insert(field.id.to_string(), Value::Array(Vec::new()));
        }
        let (metadata, integrations) = (instance.metadata(), instance.integrations());
        let etag = instance.etag();
        let stored = instance.stored;
        Self {
            form_id: stored.form_id,
            configuration_id: stored.configuration_id,
            state: stored.state,
            language: stored.language,
            fields,
            metadata,
            integrations,
            revision: stored.revision,
            created_at: stored.created_at,
            updated_at: stored.updated_at,
            attachments: Vec::new(),
            etag,
        }
    }
}

impl FormRecord {
    /// Keeps what `shown` shows: the answers, metadata and the files of the fields it shows.
    pub fn reduce_to(&mut self, shown: &Shown) {
        shown.reduce(&mut self.fields, &mut self.metadata);
        self.attachments.retain(|a| shown.shows_field(&a.field_id));
    }
}

/// A list entry: the instance without its answers.
pub struct InstanceSummary {
    pub form_id: String,
    pub configuration_id: String,
    pub state: String,
    pub language: String,
    pub space_id: Option<String>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

impl From<StoredInstance> for InstanceSummary {
    fn from(s: StoredInstance) -> Self {
        Self {
            form_id: s.form_id,
            configuration_id: s.configuration_id,
            state: s.state,
            language: s.language,
            space_id: s.space_id,
            created_at: s.created_at,
            updated_at: s.updated_at,
        }
    }
}

/// One entry of an instance's audit trail.
pub struct HistoryEntry {
    pub event_id: String,
    /// CREATED, UPDATED or SUBMITTED.
    pub action: String,
    pub actor_id: String,
    pub actor_handle: String,
    /// Field ids whose answers changed.
    pub changed_fields: Vec<String>,
    /// The instance's state after the change.
    pub state: String,
    pub at: OffsetDateTime,
}

impl From<InstanceEvent> for HistoryEntry {
    fn from(e: InstanceEvent) -> Self {
        Self {
            event_id: e.event_id,
            action: e.action,
            actor_id: e.actor_id,
            actor_handle: e.actor_handle,
            changed_fields: serde_json::from_str(&e.changed_fields).unwrap_or_default(),
            state: e.state,
            at: e.at,
        }
    }
}

/// What a list of the caller's instances is narrowed to.
pub struct InstanceQuery<'a> {
    pub configuration_id: Option<&'a str>,
    pub space_id: Option<&'a str>,
    /// Any of these states; all when empty.
    pub states: &'a [String],
}
