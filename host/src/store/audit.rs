//! The one implementation of audit trails: who did what to a subject, when, and which fields it
//! changed. Form instances and workflow items each keep a trail in a table of their own (their
//! details differ: an instance records its state, an item its move between workbaskets), but
//! writing an entry and paging through a trail are the same for both, and live here.

use std::collections::BTreeMap;

use sqlx::{AnyConnection, AnyPool, Row};
use time::OffsetDateTime;

use super::keyset::{BindKeyset, Keyset};
use super::{StoreResult, from_millis, to_millis};

/// Where a kind of subject keeps its trail.
pub struct Trail {
    pub table: &'static str,
    /// The column naming the subject (`form_id`, `item_id`).
    pub subject: &'static str,
    /// The columns only this trail has, each an optional text.
    pub details: &'static [&'static str],
}

/// An entry as read back, with the actor's handle.
#[derive(Clone, Debug)]
pub struct AuditEntry {
    pub event_id: String,
    pub actor_id: String,
    pub actor_handle: String,
    pub action: String,
    /// JSON array of field ids.
    pub changed_fields: String,
    /// The trail's own columns, by name.
    pub details: BTreeMap<&'static str, Option<String>>,
    pub at: OffsetDateTime,
}

impl AuditEntry {
    /// The value of one of the trail's own columns.
    pub fn detail(&mut self, column: &str) -> Option<String> {
        self.details.get_mut(column).and_then(Option::take)
    }
}

/// An entry to write, in the same transaction as the change it records.
pub struct NewEntry<'a> {
    pub actor_id: &'a str,
    pub action: &'a str,
    pub changed_fields: &'a str,
    /// Values of the trail's own columns, in the order of [`Trail::details`].
    pub details: &'a [Option<&'a str>],
}

/// Writes `entry` for `subject_id`.
pub async fn append(
    conn: &mut AnyConnection,
    trail: &Trail,
    subject_id: &str,
    entry: &NewEntry<'_>,
    now: OffsetDateTime,
) -> StoreResult<()> {
    debug_assert_eq!(entry.details.len(), trail.details.len());
    let columns: String = trail.details.iter().map(|c| format!(", {c}")).collect();
    let values: String = (0..trail.details.len()).map(|i| format!(", ${}", i + 7)).collect();
    let sql = format!(
        "insert into {table} (event_id, {subject}, actor_id, action, changed_fields, at{columns}) \
         values ($1, $2, $3, $4, $5, $6{values})",
        table = trail.table,
        subject = trail.subject,
    );
    // A v7 uuid sorts by time, so entries written in the same millisecond keep their order.
    let mut query = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(uuid::Uuid::now_v7().to_string())
        .bind(subject_id.to_owned())
        .bind(entry.actor_id.to_owned())
        .bind(entry.action.to_owned())
        .bind(entry.changed_fields.to_owned())
        .bind(to_millis(now));
    for value in entry.details {
        query = query.bind(value.map(str::to_owned));
    }
    query.execute(&mut *conn).await?;
    Ok(())
}

/// A subject's trail, oldest first, after the `(at, id)` key of the previous page.
pub async fn page(
    pool: &AnyPool,
    trail: &Trail,
    subject_id: &str,
    after: Option<(i64, String)>,
    limit: i64,
) -> StoreResult<Vec<AuditEntry>> {
    let keyset = Keyset::oldest_first(after);
    let columns: String = trail.details.iter().map(|c| format!(", e.{c}")).collect();
    let sql = format!(
        "select e.event_id, e.actor_id, u.handle, e.action, e.changed_fields, e.at{columns} \
         from {table} e join app_user u on u.user_id = e.actor_id \
         where e.{subject} = $1 and {after} {order} limit $4",
        table = trail.table,
        subject = trail.subject,
        after = keyset.after("e.at", "e.event_id", 2),
        order = keyset.order_by("e.at", "e.event_id"),
    );
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(subject_id.to_owned())
        .bind_keyset(keyset)
        .bind(limit)
        .fetch_all(pool)
        .await?;
    rows.iter()
        .map(|row| {
            let mut details = BTreeMap::new();
            for column in trail.details {
                details.insert(*column, row.try_get::<Option<String>, _>(*column)?);
            }
            Ok(AuditEntry {
                event_id: row.try_get("event_id")?,
                actor_id: row.try_get("actor_id")?,
                actor_handle: row.try_get("handle")?,
                action: row.try_get("action")?,
                changed_fields: row.try_get("changed_fields")?,
                details,
                at: from_millis(row.try_get("at")?),
            })
        })
        .collect()
}
