use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};
use time::OffsetDateTime;

use super::audit::{self, AuditEntry, NewEntry, Trail};
use super::forms::states_list;
use super::keyset::{BindKeyset, Keyset};
use super::media::{JOINED, StoredAttachment, attachment_named};
use super::outbox::Outbox;
use super::workflow_items::{NewItemStart, NewWorkflowEvent, OnStarted, StoredItem, insert_workflow_event, start_in};
use super::{Db, StoreError, StoreResult, from_millis, to_millis};

/// A stored form instance; answers, metadata and integrations are JSON text.
#[derive(Clone, Debug)]
pub struct StoredInstance {
    pub form_id: String,
    pub configuration_id: String,
    pub owner_id: String,
    pub state: String,
    pub language: String,
    pub answers: String,
    pub metadata: Option<String>,
    pub integrations: Option<String>,
    pub space_id: Option<String>,
    pub revision: i64,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

/// The columns a create or an update writes.
pub struct InstanceContent<'a> {
    pub state: &'a str,
    pub language: &'a str,
    pub answers: &'a str,
    pub metadata: Option<&'a str>,
    pub integrations: Option<&'a str>,
    pub space_id: Option<&'a str>,
}

/// One entry of an instance's audit trail.
#[derive(Clone, Debug)]
pub struct InstanceEvent {
    pub event_id: String,
    pub actor_id: String,
    pub actor_handle: String,
    pub action: String,
    /// JSON array of field ids.
    pub changed_fields: String,
    pub state: String,
    pub at: OffsetDateTime,
}

/// An audit entry to write with a change.
pub struct NewEvent<'a> {
    pub actor_id: &'a str,
    pub action: &'a str,
    pub changed_fields: &'a str,
}

pub struct InstanceFilter<'a> {
    pub owner_id: &'a str,
    pub configuration_id: Option<&'a str>,
    pub space_id: Option<&'a str>,
    pub states: &'a [String],
}

pub(super) const INSTANCE_COLUMNS: &str = "form_id, configuration_id, owner_id, state, language, answers, metadata, integrations, space_id, revision, created_at, updated_at";

/// [`INSTANCE_COLUMNS`] of the alias `i`, for statements that join other tables.
const JOINED_INSTANCE_COLUMNS: &str = "i.form_id, i.configuration_id, i.owner_id, i.state, i.language, i.answers, \
    i.metadata, i.integrations, i.space_id, i.revision, i.created_at, i.updated_at";

pub(super) fn instance_from_row(row: &AnyRow) -> Result<StoredInstance, sqlx::Error> {
    Ok(StoredInstance {
        form_id: row.try_get("form_id")?,
        configuration_id: row.try_get("configuration_id")?,
        owner_id: row.try_get("owner_id")?,
        state: row.try_get("state")?,
        language: row.try_get("language")?,
        answers: row.try_get("answers")?,
        metadata: row.try_get("metadata")?,
        integrations: row.try_get("integrations")?,
        space_id: row.try_get("space_id")?,
        revision: row.try_get("revision")?,
        created_at: from_millis(row.try_get("created_at")?),
        updated_at: from_millis(row.try_get("updated_at")?),
    })
}

/// The repository of form instances and their audit trail.
#[derive(Clone, Debug)]
pub struct InstanceRepo {
    db: Db,
}

impl InstanceRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    /// Inserts an instance, and its first audit entry when `event` is given, and starts the workflow
    /// it requests (`start`), in one transaction (on SQLite, one shared with other waiting writes;
    /// see `batch`).
    #[tracing::instrument(skip_all)]
    // The row, its audit entry and what it causes are one write: one argument each.
    #[allow(clippy::too_many_arguments)]
    pub async fn insert_instance(
        &self,
        form_id: &str,
        configuration_id: &str,
        owner_id: &str,
        content: &InstanceContent<'_>,
        event: Option<&NewEvent<'_>>,
        outbox: &std::sync::Arc<Outbox>,
        start: Option<NewItemStart>,
        now: OffsetDateTime,
    ) -> StoreResult<(StoredInstance, Option<StoredItem>)> {
        let insert = std::sync::Arc::new(OwnedInsert {
            form_id: form_id.to_owned(),
            configuration_id: configuration_id.to_owned(),
            owner_id: owner_id.to_owned(),
            state: content.state.to_owned(),
            language: content.language.to_owned(),
            answers: content.answers.to_owned(),
            metadata: content.metadata.map(str::to_owned),
            integrations: content.integrations.map(str::to_owned),
            space_id: content.space_id.map(str::to_owned),
            event: event.map(|e| (e.actor_id.to_owned(), e.action.to_owned(), e.changed_fields.to_owned())),
            outbox: outbox.clone(),
            start,
            now,
        });
        let written = self
            .db
            .write(move |conn| {
                let insert = insert.clone();
                Box::pin(async move { insert.run(conn).await })
            })
            .await?;
        self.db.committed_with(outbox, written.1.is_some()).await;
        Ok(written)
    }

    #[tracing::instrument(skip_all, fields(form_id))]
    pub async fn instance(&self, form_id: &str) -> StoreResult<Option<StoredInstance>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {INSTANCE_COLUMNS} from form_instance where form_id = $1"
        )))
        .bind(form_id.to_owned())
        .fetch_optional(&self.db.pool)
        .await?;
        Ok(row.map(|row| instance_from_row(&row)).transpose()?)
    }

    /// An instance and the descriptors of its attachments (oldest first), in one statement: the
    /// instance read is the hottest read of the service, and on SQLite every statement costs two
    /// hand-offs to the driver's worker thread.
    pub async fn instance_with_attachments(
        &self,
        form_id: &str,
    ) -> StoreResult<Option<(StoredInstance, Vec<StoredAttachment>)>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {JOINED_INSTANCE_COLUMNS}, a.part_key as a_part_key, a.field_id as a_field_id, \
               a.content_type as a_content_type, a.bytes as a_bytes, a.filename as a_filename, \
               a.storage_key as a_storage_key, a.sha256 as a_sha256, a.created_at as a_created_at \
             from form_instance i left join form_attachment a on a.form_id = i.form_id \
             where i.form_id = $1 order by a.created_at, a.part_key"
        )))
        .bind(form_id.to_owned())
        .fetch_all(&self.db.pool)
        .await?;
        let Some(first) = rows.first() else { return Ok(None) };
        let instance = instance_from_row(first)?;
        let mut attachments = Vec::new();
        for row in &rows {
            // A left join: an instance without attachments gives one row of nulls.
            if row.try_get::<Option<String>, _>(JOINED.part_key)?.is_some() {
                attachments.push(attachment_named(row, &JOINED, instance.form_id.clone())?);
            }
        }
        Ok(Some((instance, attachments)))
    }

    /// Writes new content when the revision still matches (else `Conflict`), with its audit
    /// entry and, for a change made through a workflow item, the workflow's audit entry
    /// (`(workflow configuration id, event)`), and starts the workflow it requests (`start`, unless
    /// the item already sits in one), in one transaction.
    #[tracing::instrument(skip_all, fields(form_id))]
    // The row, its audit entries and what it causes are one write: one argument each.
    #[allow(clippy::too_many_arguments)]
    pub async fn update_instance(
        &self,
        form_id: &str,
        expected_revision: i64,
        content: &InstanceContent<'_>,
        event: Option<&NewEvent<'_>>,
        workflow_event: Option<(&str, &NewWorkflowEvent)>,
        outbox: &Outbox,
        start: Option<&NewItemStart>,
        now: OffsetDateTime,
    ) -> StoreResult<(StoredInstance, Option<StoredItem>)> {
        let mut tx = self.db.writer.begin().await?;
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "update form_instance set state = $3, language = $4, answers = $5, metadata = $6, integrations = $7, space_id = $8, \
             revision = revision + 1, updated_at = $9 where form_id = $1 and revision = $2 returning {INSTANCE_COLUMNS}"
        )))
        .bind(form_id.to_owned())
        .bind(expected_revision)
        .bind(content.state.to_owned())
        .bind(content.language.to_owned())
        .bind(content.answers.to_owned())
        .bind(content.metadata.map(str::to_owned))
        .bind(content.integrations.map(str::to_owned))
        .bind(content.space_id.map(str::to_owned))
        .bind(to_millis(now))
        .fetch_optional(&mut *tx)
        .await?
        .ok_or_else(|| StoreError::Conflict("form_instance.revision".into()))?;
        if let Some(event) = event {
            insert_event(&mut tx, form_id, event, content.state, now).await?;
        }
        if let Some((workflow_configuration_id, event)) = workflow_event {
            insert_workflow_event(&mut tx, form_id, workflow_configuration_id, event, now).await?;
        }
        outbox.write_in(&mut tx, now).await?;
        let started = match start {
            Some(start) => start_in(&mut tx, form_id, start, OnStarted::Keep, now).await?,
            None => None,
        };
        tx.commit().await?;
        self.db.committed_with(outbox, started.is_some()).await;
        Ok((instance_from_row(&row)?, started))
    }

    /// The owner's instances, newest first, after the `(created_at, id)` key of the previous page.
    #[tracing::instrument(skip_all)]
    pub async fn list_instances(
        &self,
        filter: &InstanceFilter<'_>,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> StoreResult<Vec<StoredInstance>> {
        let keyset = Keyset::newest_first(after);
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {INSTANCE_COLUMNS} from form_instance \
             where owner_id = $1 and ($2 = '' or configuration_id = $2) and ($3 = '' or space_id = $3) \
               and ($4 = '' or $4 like '%,' || state || ',%') \
               and {after} \
             {order} limit $7",
            after = keyset.after("created_at", "form_id", 5),
            order = keyset.order_by("created_at", "form_id"),
        )))
        .bind(filter.owner_id.to_owned())
        .bind(filter.configuration_id.unwrap_or_default().to_owned())
        .bind(filter.space_id.unwrap_or_default().to_owned())
        .bind(states_list(filter.states))
        .bind_keyset(keyset)
        .bind(limit)
        .fetch_all(&self.db.pool)
        .await?;
        Ok(rows.iter().map(instance_from_row).collect::<Result<_, _>>()?)
    }

    /// The audit trail of an instance, oldest first, after the `(at, id)` key of the previous page.
    pub async fn instance_events(
        &self,
        form_id: &str,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> StoreResult<Vec<InstanceEvent>> {
        let entries = audit::page(&self.db.pool, &INSTANCE_TRAIL, form_id, after, limit).await?;
        Ok(entries.into_iter().map(InstanceEvent::from).collect())
    }
}

/// The trail of form instances: each entry also records the state the instance was left in.
const INSTANCE_TRAIL: Trail = Trail { table: "form_instance_event", subject: "form_id", details: &["state"] };

impl From<AuditEntry> for InstanceEvent {
    fn from(mut entry: AuditEntry) -> Self {
        Self {
            state: entry.detail("state").unwrap_or_default(),
            event_id: entry.event_id,
            actor_id: entry.actor_id,
            actor_handle: entry.actor_handle,
            action: entry.action,
            changed_fields: entry.changed_fields,
            at: entry.at,
        }
    }
}

/// An instance insert that owns its values, so a batch can run it again after a rollback.
struct OwnedInsert {
    form_id: String,
    configuration_id: String,
    owner_id: String,
    state: String,
    language: String,
    answers: String,
    metadata: Option<String>,
    integrations: Option<String>,
    space_id: Option<String>,
    /// Actor, action and changed fields of the audit entry, when logging is on.
    event: Option<(String, String, String)>,
    /// What the insert causes, written with it.
    outbox: std::sync::Arc<Outbox>,
    /// The workflow the instance requests.
    start: Option<NewItemStart>,
    now: OffsetDateTime,
}

impl OwnedInsert {
    async fn run(&self, conn: &mut AnyConnection) -> StoreResult<(StoredInstance, Option<StoredItem>)> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "insert into form_instance ({INSTANCE_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1, $10, $10) \
             returning {INSTANCE_COLUMNS}"
        )))
        .bind(self.form_id.clone())
        .bind(self.configuration_id.clone())
        .bind(self.owner_id.clone())
        .bind(self.state.clone())
        .bind(self.language.clone())
        .bind(self.answers.clone())
        .bind(self.metadata.clone())
        .bind(self.integrations.clone())
        .bind(self.space_id.clone())
        .bind(to_millis(self.now))
        .fetch_one(&mut *conn)
        .await?;
        if let Some((actor_id, action, changed_fields)) = &self.event {
            let event = NewEvent { actor_id, action, changed_fields };
            insert_event(conn, &self.form_id, &event, &self.state, self.now).await?;
        }
        self.outbox.write_in(conn, self.now).await?;
        let started = match &self.start {
            // A new instance has no item yet: Keep never keeps anything here.
            Some(start) => start_in(conn, &self.form_id, start, OnStarted::Keep, self.now).await?,
            None => None,
        };
        Ok((instance_from_row(&row)?, started))
    }
}

async fn insert_event(
    conn: &mut AnyConnection,
    form_id: &str,
    event: &NewEvent<'_>,
    state: &str,
    now: OffsetDateTime,
) -> StoreResult<()> {
    let entry = NewEntry {
        actor_id: event.actor_id,
        action: event.action,
        changed_fields: event.changed_fields,
        details: &[Some(state)],
    };
    audit::append(conn, &INSTANCE_TRAIL, form_id, &entry, now).await
}
