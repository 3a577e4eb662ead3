//! The pages an export reads: instances and items in keyset order, oldest first, each page one
//! statement that seeks an index, so a deep page costs what the first does and the export holds
//! no more than a page.

use time::OffsetDateTime;

use super::forms::states_list;
use super::instances::{INSTANCE_COLUMNS, instance_from_row};
use super::keyset::{BindKeyset, Keyset};
use super::media::{ATTACHMENT_COLUMNS, attachment_from_row};
use super::workflow_items::{ITEM_WITH_INSTANCE_COLUMNS, item_with_instance_from_row};
use super::{Db, StoreResult, StoredAttachment, StoredInstance, StoredItem, placeholders, rows_in_chunks, to_millis};

/// What an export of instances is narrowed to.
pub struct ExportFilter<'a> {
    pub configuration_id: Option<&'a str>,
    /// Any of these states; all when empty.
    pub states: &'a [String],
    /// Only instances changed at or after this time.
    pub updated_since: Option<OffsetDateTime>,
}

impl ExportFilter<'_> {
    fn since(&self) -> i64 {
        self.updated_since.map_or(i64::MIN, to_millis)
    }
}

/// The items of one workflow an export reads.
pub struct ItemScope<'a> {
    pub workflow_configuration_id: &'a str,
    /// Only items in these workbaskets; every item of the workflow when `None`.
    pub workbasket_ids: Option<&'a [String]>,
    /// Leaves out the instances of this owner (already exported as theirs).
    pub not_owned_by: Option<&'a str>,
}

#[derive(Clone, Debug)]
pub struct ExportRepo {
    db: Db,
}

impl ExportRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    /// The owner's instances, oldest first, after the `(created_at, form_id)` key of the previous page.
    pub async fn owned_instances(
        &self,
        owner_id: &str,
        filter: &ExportFilter<'_>,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> StoreResult<Vec<StoredInstance>> {
        let keyset = Keyset::oldest_first(after);
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {INSTANCE_COLUMNS} from form_instance \
             where owner_id = $1 and ($2 = '' or configuration_id = $2) \
               and ($3 = '' or $3 like '%,' || state || ',%') and updated_at >= $4 \
               and {after} \
             {order} limit $7",
            after = keyset.after("created_at", "form_id", 5),
            order = keyset.order_by("created_at", "form_id"),
        )))
        .bind(owner_id.to_owned())
        .bind(filter.configuration_id.unwrap_or_default().to_owned())
        .bind(states_list(filter.states))
        .bind(filter.since())
        .bind_keyset(keyset)
        .bind(limit)
        .fetch_all(&self.db.pool)
        .await?;
        Ok(rows.iter().map(instance_from_row).collect::<Result<_, _>>()?)
    }

    /// Items of one workflow with their instances, oldest first, after the `(created_at, item_id)`
    /// key of the previous page.
    pub async fn items(
        &self,
        scope: &ItemScope<'_>,
        filter: &ExportFilter<'_>,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> StoreResult<Vec<(StoredItem, StoredInstance)>> {
        let workbaskets = scope.workbasket_ids.unwrap_or_default();
        if scope.workbasket_ids.is_some() && workbaskets.is_empty() {
            return Ok(Vec::new());
        }
        let keyset = Keyset::oldest_first(after);
        let in_workbaskets = match scope.workbasket_ids {
            Some(ids) => format!("and i.workbasket_id in ({})", placeholders(9, ids.len())),
            None => String::new(),
        };
        let sql = format!(
            "select {ITEM_WITH_INSTANCE_COLUMNS} \
             from workflow_item i join form_instance f on f.form_id = i.item_id \
             where i.workflow_configuration_id = $1 and ($2 = '' or f.owner_id <> $2) \
               and ($3 = '' or f.configuration_id = $3) and ($4 = '' or $4 like '%,' || f.state || ',%') \
               and f.updated_at >= $5 and {after} {in_workbaskets} \
             {order} limit $8",
            after = keyset.after("i.created_at", "i.item_id", 6),
            order = keyset.order_by("i.created_at", "i.item_id"),
        );
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(scope.workflow_configuration_id.to_owned())
            .bind(scope.not_owned_by.unwrap_or_default().to_owned())
            .bind(filter.configuration_id.unwrap_or_default().to_owned())
            .bind(states_list(filter.states))
            .bind(filter.since())
            .bind_keyset(keyset)
            .bind(limit);
        for id in workbaskets {
            query = query.bind(id.clone());
        }
        let rows = query.fetch_all(&self.db.pool).await?;
        Ok(rows.iter().map(item_with_instance_from_row).collect::<Result<_, _>>()?)
    }

    /// The attachments of these instances, each instance's oldest first.
    pub async fn attachments(&self, form_ids: &[String]) -> StoreResult<Vec<StoredAttachment>> {
        let rows = rows_in_chunks(&self.db, None, form_ids, |list| {
            format!(
                "select {ATTACHMENT_COLUMNS} from form_attachment where form_id in ({list}) \
                 order by form_id, created_at, part_key"
            )
        })
        .await?;
        let found = rows.iter().map(attachment_from_row).collect::<Result<_, _>>()?;
        Ok(found)
    }
}
