use sqlx::Row;
use sqlx::any::AnyRow;
use time::OffsetDateTime;

use super::keyset::{BindKeyset, Keyset};
use super::{Db, StoreError, StoreResult, from_millis, to_millis};

/// A stored workflow configuration; the document is the validated JSON as text.
#[derive(Clone, Debug)]
pub struct StoredWorkflow {
    pub workflow_configuration_id: String,
    pub owner_id: String,
    pub document: String,
    pub revision: i64,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

/// One user's permission slots on a workflow configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    pub user_id: String,
    pub handle: String,
    pub slots: Vec<i64>,
}

/// Every grant of a configuration, by handle, and the revision of that set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grants {
    pub revision: i64,
    pub grants: Vec<Grant>,
}

/// What a stale `replace_workflow_grants` is: the grants moved on after the use case checked them.
pub const STALE_GRANTS: &str = "workflow_configuration.grants_revision";

const WORKFLOW_COLUMNS: &str =
    "w.workflow_configuration_id, w.owner_id, w.document, w.revision, w.created_at, w.updated_at";

fn workflow_from_row(row: &AnyRow) -> Result<StoredWorkflow, sqlx::Error> {
    Ok(StoredWorkflow {
        workflow_configuration_id: row.try_get("workflow_configuration_id")?,
        owner_id: row.try_get("owner_id")?,
        document: row.try_get("document")?,
        revision: row.try_get("revision")?,
        created_at: from_millis(row.try_get("created_at")?),
        updated_at: from_millis(row.try_get("updated_at")?),
    })
}

/// The repository of workflow configurations and permission grants.
#[derive(Clone, Debug)]
pub struct WorkflowRepo {
    db: Db,
}

impl WorkflowRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    /// Inserts a workflow configuration; a taken id is `Conflict`.
    #[tracing::instrument(skip_all)]
    pub async fn insert_workflow(
        &self,
        id: &str,
        owner_id: &str,
        document: &str,
        now: OffsetDateTime,
    ) -> StoreResult<StoredWorkflow> {
        let row = sqlx::query(
            "insert into workflow_configuration (workflow_configuration_id, owner_id, document, revision, created_at, updated_at) \
             values ($1, $2, $3, 1, $4, $4) \
             returning workflow_configuration_id, owner_id, document, revision, created_at, updated_at",
        )
        .bind(id.to_owned())
        .bind(owner_id.to_owned())
        .bind(document.to_owned())
        .bind(to_millis(now))
        .fetch_one(&self.db.writer)
        .await?;
        Ok(workflow_from_row(&row)?)
    }

    pub async fn workflow(&self, id: &str) -> StoreResult<Option<StoredWorkflow>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {WORKFLOW_COLUMNS} from workflow_configuration w where w.workflow_configuration_id = $1"
        )))
        .bind(id.to_owned())
        .fetch_optional(&self.db.pool)
        .await?;
        Ok(row.map(|row| workflow_from_row(&row)).transpose()?)
    }

    /// Replaces the document when the revision still matches, else `Conflict`.
    pub async fn update_workflow(
        &self,
        id: &str,
        document: &str,
        expected_revision: i64,
        now: OffsetDateTime,
    ) -> StoreResult<StoredWorkflow> {
        let row = sqlx::query(
            "update workflow_configuration set document = $2, revision = revision + 1, updated_at = $3 \
             where workflow_configuration_id = $1 and revision = $4 \
             returning workflow_configuration_id, owner_id, document, revision, created_at, updated_at",
        )
        .bind(id.to_owned())
        .bind(document.to_owned())
        .bind(to_millis(now))
        .bind(expected_revision)
        .fetch_optional(&self.db.writer)
        .await?
        .ok_or_else(|| StoreError::Conflict("workflow_configuration.revision".into()))?;
        Ok(workflow_from_row(&row)?)
    }

    /// Configurations the viewer owns or holds a slot of, newest first.
    pub async fn list_workflows(
        &self,
        viewer_id: &str,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> StoreResult<Vec<StoredWorkflow>> {
        let keyset = Keyset::newest_first(after);
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {WORKFLOW_COLUMNS} from workflow_configuration w \
             where (w.owner_id = $1 or exists (select 1 from workflow_grant g where g.workflow_configuration_id = w.workflow_configuration_id and g.user_id = $1)) \
               and {after} \
             {order} limit $4",
            after = keyset.after("w.created_at", "w.workflow_configuration_id", 2),
            order = keyset.order_by("w.created_at", "w.workflow_configuration_id"),
        )))
        .bind(viewer_id.to_owned())
        .bind_keyset(keyset)
        .bind(limit)
        .fetch_all(&self.db.pool)
        .await?;
        Ok(rows.iter().map(workflow_from_row).collect::<Result<_, _>>()?)
    }

    /// Every grant of a configuration, by handle, with the revision of the set.
    pub async fn workflow_grants(&self, id: &str) -> StoreResult<Grants> {
        let mut conn = self.db.pool.acquire().await?;
        Self::workflow_grants_in(&mut conn, id).await
    }

    /// One statement, so the grants and their revision agree.
    async fn workflow_grants_in(conn: &mut sqlx::AnyConnection, id: &str) -> StoreResult<Grants> {
        let rows = sqlx::query(
            "select w.grants_revision, g.user_id, u.handle, g.slot from workflow_configuration w \
             left join workflow_grant g on g.workflow_configuration_id = w.workflow_configuration_id \
             left join app_user u on u.user_id = g.user_id \
             where w.workflow_configuration_id = $1 order by u.handle, g.slot",
        )
        .bind(id.to_owned())
        .fetch_all(&mut *conn)
        .await?;
        let revision = match rows.first() {
            Some(row) => row.try_get("grants_revision")?,
            None => return Err(StoreError::NotFound),
        };
        let mut grants: Vec<Grant> = Vec::new();
        for row in rows {
            let Some(user_id) = row.try_get::<Option<String>, _>("user_id")? else { continue };
            let slot: i64 = row.try_get("slot")?;
            match grants.last_mut() {
                Some(last) if last.user_id == user_id => last.slots.push(slot),
                _ => grants.push(Grant { user_id, handle: row.try_get("handle")?, slots: vec![slot] }),
            }
        }
        Ok(Grants { revision, grants })
    }

    /// Replaces every grant of a configuration with `(user id, slot)` pairs, in one transaction,
    /// and answers the new set. With `expected_revision`, writes only while the grants are still at
    /// it (`Conflict(STALE_GRANTS)` otherwise). The revision moves on first, so two replacements take
    /// turns.
    pub async fn replace_workflow_grants(
        &self,
        id: &str,
        grants: &[(String, i64)],
        expected_revision: Option<i64>,
    ) -> StoreResult<Grants> {
        let mut tx = self.db.writer.begin().await?;
        let moved = sqlx::query(
            "update workflow_configuration set grants_revision = grants_revision + 1 \
             where workflow_configuration_id = $1 and ($2 < 0 or grants_revision = $2)",
        )
        .bind(id.to_owned())
        .bind(expected_revision.unwrap_or(-1))
        .execute(&mut *tx)
        .await?;
        if moved.rows_affected() == 0 {
            return Err(StoreError::stale_or_missing(expected_revision.is_some(), STALE_GRANTS));
        }
        sqlx::query("delete from workflow_grant where workflow_configuration_id = $1")
            .bind(id.to_owned())
            .execute(&mut *tx)
            .await?;
        for (user_id, slot) in grants {
            sqlx::query("insert into workflow_grant (workflow_configuration_id, user_id, slot) values ($1, $2, $3)")
                .bind(id.to_owned())
                .bind(user_id.clone())
                .bind(*slot)
                .execute(&mut *tx)
                .await?;
        }
        let replaced = Self::workflow_grants_in(&mut tx, id).await?;
        tx.commit().await?;
        Ok(replaced)
    }

    /// The slots a user holds on a configuration (not counting ownership).
    pub async fn workflow_slots(&self, id: &str, user_id: &str) -> StoreResult<Vec<i64>> {
        let rows = sqlx::query("select slot from workflow_grant where workflow_configuration_id = $1 and user_id = $2")
            .bind(id.to_owned())
            .bind(user_id.to_owned())
            .fetch_all(&self.db.pool)
            .await?;
        rows.iter().map(|row| Ok(row.try_get("slot")?)).collect()
    }

    /// User ids by handle, for the handles that exist.
    pub async fn user_ids_by_handle(&self, handles: &[String]) -> StoreResult<Vec<(String, String)>> {
        let mut out = Vec::with_capacity(handles.len());
        for handle in handles {
            let row = sqlx::query("select user_id from app_user where handle = $1")
                .bind(handle.clone())
                .fetch_optional(&self.db.pool)
                .await?;
            if let Some(row) = row {
                out.push((handle.clone(), row.try_get("user_id")?));
            }
        }
        Ok(out)
    }
}
