use std::sync::Arc;

use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};
use time::OffsetDateTime;

use super::audit::{self, AuditEntry, NewEntry, Trail};
use super::instances::instance_from_row;
use super::keyset::{BindKeyset, Keyset};
use super::{Db, StoreError, StoreResult, StoredInstance, from_millis, placeholders, to_millis};
use crate::domain::live::LiveEvent;

/// Where an item stands in its workflow.
#[derive(Clone, Debug)]
pub struct StoredItem {
    pub item_id: String,
    pub item_type: String,
    pub workflow_configuration_id: String,
    pub workbasket_id: String,
    pub revision: i64,
    pub started_by: String,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

/// An item of a view listing with the form answers it shows.
#[derive(Clone, Debug)]
pub struct ListedItem {
    pub item: StoredItem,
    pub configuration_id: String,
    pub answers: String,
}

/// One entry of an item's workflow audit trail.
#[derive(Clone, Debug)]
pub struct WorkflowEvent {
    pub event_id: String,
    pub actor_id: String,
    pub actor_handle: String,
    pub action: String,
    pub from_workbasket_id: Option<String>,
    pub to_workbasket_id: Option<String>,
    pub transition_id: Option<String>,
    pub changed_fields: String,
    pub at: OffsetDateTime,
}

/// An audit entry to write.
#[derive(Clone, Debug)]
pub struct NewWorkflowEvent {
    pub actor_id: String,
    pub action: &'static str,
    pub from_workbasket_id: Option<String>,
    pub to_workbasket_id: Option<String>,
    pub transition_id: Option<String>,
    pub changed_fields: String,
}

const ITEM_COLUMNS: &str =
    "item_id, item_type, workflow_configuration_id, workbasket_id, revision, started_by, created_at, updated_at";

impl StoredItem {
    /// `item.changed` for this item, whose instance `creator_id` made (after a move, `from` names the
    /// workbasket it left). The creator, not whoever started the item in this workflow: after a
    /// switch that is the new workflow's starter, who may not read the item.
    pub fn changed(&self, creator_id: &str, from: Option<&str>, change: &str) -> LiveEvent {
        LiveEvent::item_changed(
            creator_id,
            &self.workflow_configuration_id,
            &self.item_id,
            &self.workbasket_id,
            from,
            change,
        )
    }
}

/// Who created the instance an item stands for (an item's id is its instance's).
async fn instance_creator(conn: &mut sqlx::AnyConnection, item_id: &str) -> Result<String, sqlx::Error> {
    sqlx::query_scalar("select owner_id from form_instance where form_id = $1")
        .bind(item_id.to_owned())
        .fetch_one(&mut *conn)
        .await
}

/// The columns of an item (alias `i`, its revision and times renamed) and of its instance (alias
/// `f`), for [`item_with_instance_from_row`].
pub(super) const ITEM_WITH_INSTANCE_COLUMNS: &str = "i.item_id, i.item_type, i.workflow_configuration_id, \
    i.workbasket_id, i.revision as item_revision, i.started_by, i.created_at as item_created_at, \
    i.updated_at as item_updated_at, f.form_id, f.configuration_id, f.owner_id, f.state, f.language, f.answers, \
    f.metadata, f.integrations, f.space_id, f.revision, f.created_at, f.updated_at";

/// An item and its instance, from a row selecting [`ITEM_WITH_INSTANCE_COLUMNS`].
pub(super) fn item_with_instance_from_row(row: &AnyRow) -> Result<(StoredItem, StoredInstance), sqlx::Error> {
    let item = StoredItem {
        item_id: row.try_get("item_id")?,
        item_type: row.try_get("item_type")?,
        workflow_configuration_id: row.try_get("workflow_configuration_id")?,
        workbasket_id: row.try_get("workbasket_id")?,
        revision: row.try_get("item_revision")?,
        started_by: row.try_get("started_by")?,
        created_at: from_millis(row.try_get("item_created_at")?),
        updated_at: from_millis(row.try_get("item_updated_at")?),
    };
    Ok((item, instance_from_row(row)?))
}

fn item_from_row(row: &AnyRow) -> Result<StoredItem, sqlx::Error> {
    Ok(StoredItem {
        item_id: row.try_get("item_id")?,
        item_type: row.try_get("item_type")?,
        workflow_configuration_id: row.try_get("workflow_configuration_id")?,
        workbasket_id: row.try_get("workbasket_id")?,
        revision: row.try_get("revision")?,
        started_by: row.try_get("started_by")?,
        created_at: from_millis(row.try_get("created_at")?),
        updated_at: from_millis(row.try_get("updated_at")?),
    })
}

/// An item's entry into a workflow, written in the transaction of the change that starts it.
#[derive(Clone, Debug)]
pub struct NewItemStart {
    pub item_type: &'static str,
    pub workflow_configuration_id: String,
    pub entry_workbasket_id: String,
    pub started_by: String,
    /// The audit entry, when the workflow keeps a trail.
    pub event: Option<NewWorkflowEvent>,
}

/// What a start does to an item that already sits in a workflow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnStarted {
    /// Refuses with `Conflict`.
    Refuse,
    /// Moves it onto the new workflow's entry (`confirmSwitch`).
    Switch,
    /// Leaves it where it is and starts nothing: a form submitted again does not restart its item.
    Keep,
}

/// Puts `item_id` in the entry workbasket of `start`'s workflow, with its audit entry and `item.changed`,
/// in the caller's transaction. `None` when [`OnStarted::Keep`] left an item where it was.
pub(super) async fn start_in(
    conn: &mut AnyConnection,
    item_id: &str,
    start: &NewItemStart,
    on_started: OnStarted,
    now: OffsetDateTime,
) -> StoreResult<Option<StoredItem>> {
    let on_conflict = match on_started {
        OnStarted::Refuse | OnStarted::Keep => "do nothing",
        OnStarted::Switch => {
            "do update set item_type = excluded.item_type, \
               workflow_configuration_id = excluded.workflow_configuration_id, workbasket_id = excluded.workbasket_id, \
               revision = workflow_item.revision + 1, started_by = excluded.started_by, updated_at = excluded.updated_at"
        }
    };
    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
        "insert into workflow_item ({ITEM_COLUMNS}) values ($1, $2, $3, $4, 1, $5, $6, $6) \
         on conflict (item_id) {on_conflict} returning {ITEM_COLUMNS}"
    )))
    .bind(item_id.to_owned())
    .bind(start.item_type.to_owned())
    .bind(start.workflow_configuration_id.clone())
    .bind(start.entry_workbasket_id.clone())
    .bind(start.started_by.clone())
    .bind(to_millis(now))
    .fetch_optional(&mut *conn)
    .await?;
    let item = match (row, on_started) {
        (Some(row), _) => item_from_row(&row)?,
        (None, OnStarted::Keep) => return Ok(None),
        (None, _) => return Err(StoreError::Conflict("workflow_item.item_id".into())),
    };
    if let Some(event) = &start.event {
        insert_workflow_event(conn, item_id, &start.workflow_configuration_id, event, now).await?;
    }
    let creator = instance_creator(conn, &item.item_id).await?;
    super::live::insert_in(conn, &[item.changed(&creator, None, "STARTED")], now).await?;
    Ok(Some(item))
}

struct Move {
    item_id: String,
    workflow_configuration_id: String,
    from_workbasket_id: String,
    to_workbasket_id: String,
    /// The item's and its form's revisions the caller saw (`If-Match`), when given.
    expected_revisions: Option<(i64, i64)>,
    event: Option<NewWorkflowEvent>,
    now: OffsetDateTime,
}

/// The repository of workflow items, their moves and audit trail.
#[derive(Clone, Debug)]
pub struct WorkflowItemRepo {
    db: Db,
}

impl WorkflowItemRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    pub async fn workflow_item(&self, item_id: &str) -> StoreResult<Option<StoredItem>> {
        let row =
            sqlx::query(sqlx::AssertSqlSafe(format!("select {ITEM_COLUMNS} from workflow_item where item_id = $1")))
                .bind(item_id.to_owned())
                .fetch_optional(&self.db.pool)
                .await?;
        Ok(row.map(|row| item_from_row(&row)).transpose()?)
    }

    /// An item with its form instance, in one round trip (every item route needs both).
    pub async fn workflow_item_with_instance(
        &self,
        item_id: &str,
    ) -> StoreResult<Option<(StoredItem, StoredInstance)>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {ITEM_WITH_INSTANCE_COLUMNS} \
             from workflow_item i join form_instance f on f.form_id = i.item_id where i.item_id = $1",
        )))
        .bind(item_id.to_owned())
        .fetch_optional(&self.db.pool)
        .await?;
        Ok(row.map(|row| item_with_instance_from_row(&row)).transpose()?)
    }

    /// Puts an item in the entry workbasket. An item already in a workflow is `Conflict` unless
    /// `allow_switch`, which moves it onto this one.
    #[tracing::instrument(skip_all)]
    pub async fn start_item(
        &self,
        item_id: &str,
        start: NewItemStart,
        allow_switch: bool,
        now: OffsetDateTime,
    ) -> StoreResult<StoredItem> {
        let on_started = if allow_switch { OnStarted::Switch } else { OnStarted::Refuse };
        let start = Arc::new((item_id.to_owned(), start));
        let item = self
            .db
            .write(move |conn| {
                let start = start.clone();
                Box::pin(async move {
                    let (item_id, start) = &*start;
                    let started = start_in(conn, item_id, start, on_started, now).await?;
                    started.ok_or_else(|| StoreError::Conflict("workflow_item.item_id".into()))
                })
            })
            .await;
        self.db.live_committed().await;
        item
    }

    /// Moves an item from `from` to `to` only if it is still in `from` (and, when given, item and
    /// form are still at `expected_revisions`): of two concurrent moves only one can succeed.
    /// `None` when it was not moved.
    #[allow(clippy::too_many_arguments)]
    #[tracing::instrument(skip_all)]
    pub async fn move_item(
        &self,
        item_id: &str,
        workflow_configuration_id: &str,
        from_workbasket_id: &str,
        to_workbasket_id: &str,
        expected_revisions: Option<(i64, i64)>,
        event: Option<NewWorkflowEvent>,
        now: OffsetDateTime,
    ) -> StoreResult<Option<StoredItem>> {
        let step = Arc::new(Move {
            item_id: item_id.to_owned(),
            workflow_configuration_id: workflow_configuration_id.to_owned(),
            from_workbasket_id: from_workbasket_id.to_owned(),
            to_workbasket_id: to_workbasket_id.to_owned(),
            expected_revisions,
            event,
            now,
        });
        let moved = self.db.write(move |conn| {
            let step = step.clone();
            Box::pin(async move {
                let row = sqlx::query(sqlx::AssertSqlSafe(format!(
                    "update workflow_item set workbasket_id = $4, revision = revision + 1, updated_at = $5 \
                     where item_id = $1 and workflow_configuration_id = $2 and workbasket_id = $3 \
                       and ($6 < 0 or (revision = $6 and (select f.revision from form_instance f where f.form_id = $1) = $7)) \
                     returning {ITEM_COLUMNS}"
                )))
                .bind(step.item_id.clone())
                .bind(step.workflow_configuration_id.clone())
                .bind(step.from_workbasket_id.clone())
                .bind(step.to_workbasket_id.clone())
                .bind(to_millis(step.now))
                .bind(step.expected_revisions.map_or(-1, |r| r.0))
                .bind(step.expected_revisions.map_or(-1, |r| r.1))
                .fetch_optional(&mut *conn)
                .await?;
                let Some(row) = row else { return Ok(None) };
                if let Some(event) = &step.event {
                    insert_workflow_event(conn, &step.item_id, &step.workflow_configuration_id, event, step.now)
                        .await?;
                }
                let item = item_from_row(&row)?;
                let creator = instance_creator(conn, &item.item_id).await?;
                let live = item.changed(&creator, Some(&step.from_workbasket_id), "MOVED");
                super::live::insert_in(conn, &[live], step.now).await?;
                Ok(Some(item))
            })
        })
        .await;
        self.db.live_committed().await;
        moved
    }

    /// Items of a workflow in the given workbaskets, newest first, with their form answers.
    #[tracing::instrument(skip_all)]
    pub async fn list_view_items(
        &self,
        workflow_configuration_id: &str,
        workbasket_ids: &[String],
        after: Option<(i64, String)>,
        limit: i64,
    ) -> StoreResult<Vec<ListedItem>> {
        if workbasket_ids.is_empty() {
            return Ok(Vec::new());
        }
        let keyset = Keyset::newest_first(after);
        let sql = format!(
            "select i.item_id, i.item_type, i.workflow_configuration_id, i.workbasket_id, i.revision, i.started_by, \
               i.created_at, i.updated_at, f.configuration_id, f.answers \
             from workflow_item i join form_instance f on f.form_id = i.item_id \
             where i.workflow_configuration_id = $1 and {after} \
               and i.workbasket_id in ({in_list}) \
             {order} limit $4",
            after = keyset.after("i.created_at", "i.item_id", 2),
            in_list = placeholders(5, workbasket_ids.len()),
            order = keyset.order_by("i.created_at", "i.item_id"),
        );
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(workflow_configuration_id.to_owned())
            .bind_keyset(keyset)
            .bind(limit);
        for id in workbasket_ids {
            query = query.bind(id.clone());
        }
        let rows = query.fetch_all(&self.db.pool).await?;
        rows.iter()
            .map(|row| {
                Ok(ListedItem {
                    item: item_from_row(row)?,
                    configuration_id: row.try_get("configuration_id")?,
                    answers: row.try_get("answers")?,
                })
            })
            .collect()
    }

    /// An item's workflow audit trail, oldest first.
    pub async fn workflow_events(
        &self,
        item_id: &str,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> StoreResult<Vec<WorkflowEvent>> {
        let entries = audit::page(&self.db.pool, &WORKFLOW_TRAIL, item_id, after, limit).await?;
        Ok(entries.into_iter().map(WorkflowEvent::from).collect())
    }
}

/// The trail of workflow items: each entry also records the workflow and the move it made.
const WORKFLOW_TRAIL: Trail = Trail {
    table: "workflow_event",
    subject: "item_id",
    details: &["workflow_configuration_id", "from_workbasket_id", "to_workbasket_id", "transition_id"],
};

impl From<AuditEntry> for WorkflowEvent {
    fn from(mut entry: AuditEntry) -> Self {
        Self {
            from_workbasket_id: entry.detail("from_workbasket_id"),
            to_workbasket_id: entry.detail("to_workbasket_id"),
            transition_id: entry.detail("transition_id"),
            event_id: entry.event_id,
            actor_id: entry.actor_id,
            actor_handle: entry.actor_handle,
            action: entry.action,
            changed_fields: entry.changed_fields,
            at: entry.at,
        }
    }
}

pub(super) async fn insert_workflow_event(
    conn: &mut AnyConnection,
    item_id: &str,
    workflow_configuration_id: &str,
    event: &NewWorkflowEvent,
    now: OffsetDateTime,
) -> StoreResult<()> {
    let entry = NewEntry {
        actor_id: &event.actor_id,
        action: event.action,
        changed_fields: &event.changed_fields,
        details: &[
            Some(workflow_configuration_id),
            event.from_workbasket_id.as_deref(),
            event.to_workbasket_id.as_deref(),
            event.transition_id.as_deref(),
        ],
    };
    audit::append(conn, &WORKFLOW_TRAIL, item_id, &entry, now).await
}
