use sqlx::Row;
use sqlx::any::AnyRow;
use time::OffsetDateTime;

use super::keyset::{BindKeyset, Keyset};
use super::{Db, StoreError, StoreResult, from_millis, to_millis};

/// A stored space with its general settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredSpace {
    pub space_id: String,
    pub owner_id: String,
    pub name: String,
    pub display_name: String,
    pub summary: String,
    /// Moves on with every change of the general settings.
    pub revision: i64,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

/// A space as one of its members sees it: with the member's role (`owner` or `member`).
#[derive(Clone, Debug)]
pub struct MemberSpace {
    pub space: StoredSpace,
    pub role: String,
}

/// The general settings a create writes.
pub struct NewSpaceRow<'a> {
    pub space_id: &'a str,
    pub owner_id: &'a str,
    pub name: &'a str,
    pub display_name: &'a str,
    pub summary: &'a str,
}

/// A sparse change of the general settings; `None` keeps the stored value.
pub struct SpaceChange<'a> {
    pub name: Option<&'a str>,
    pub display_name: Option<&'a str>,
    pub summary: Option<&'a str>,
}

/// A module connected to a space, with its configuration as JSON text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpaceModule {
    pub module_id: String,
    pub config: String,
}

const SPACE_COLUMNS: &str =
    "s.space_id, s.owner_id, s.name, s.display_name, s.summary, s.revision, s.created_at, s.updated_at";

/// The columns a write returns (no alias there).
const RETURNED: &str = "space_id, owner_id, name, display_name, summary, revision, created_at, updated_at";

/// What a stale `update_space` is: the revision moved on after the use case checked it.
pub const STALE_SPACE: &str = "space.revision";
/// What a stale `replace_space_modules` is: the connected set moved on after the use case checked it.
pub const STALE_SPACE_MODULES: &str = "space.modules_revision";

fn space_from_row(row: &AnyRow) -> Result<StoredSpace, sqlx::Error> {
    Ok(StoredSpace {
        space_id: row.try_get("space_id")?,
        owner_id: row.try_get("owner_id")?,
        name: row.try_get("name")?,
        display_name: row.try_get("display_name")?,
        summary: row.try_get("summary")?,
        revision: row.try_get("revision")?,
        created_at: from_millis(row.try_get("created_at")?),
        updated_at: from_millis(row.try_get("updated_at")?),
    })
}

/// The repository of spaces, members and connected modules.
#[derive(Clone, Debug)]
pub struct SpaceRepo {
    db: Db,
}

impl SpaceRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    /// Inserts a space and its owner's membership in one transaction; a taken name is `Conflict`.
    #[tracing::instrument(skip_all, fields(space_id = new.space_id))]
    /// Writes a space and its owner's membership; `None` (nothing written) when the owner already
    /// owns `max_owned` spaces. The count and the insert share the write transaction.
    pub async fn insert_space(
        &self,
        new: &NewSpaceRow<'_>,
        max_owned: i64,
        now: OffsetDateTime,
    ) -> StoreResult<Option<StoredSpace>> {
        let mut tx = self.db.writer.begin().await?;
        let owned: i64 = sqlx::query_scalar("select count(*) from space_member where user_id = $1 and role = 'owner'")
            .bind(new.owner_id.to_owned())
            .fetch_one(&mut *tx)
            .await?;
        if owned >= max_owned {
            return Ok(None);
        }
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "insert into space (space_id, owner_id, name, display_name, summary, created_at, updated_at) \
             values ($1, $2, $3, $4, $5, $6, $6) returning {RETURNED}"
        )))
        .bind(new.space_id.to_owned())
        .bind(new.owner_id.to_owned())
        .bind(new.name.to_owned())
        .bind(new.display_name.to_owned())
        .bind(new.summary.to_owned())
        .bind(to_millis(now))
        .fetch_one(&mut *tx)
        .await?;
        sqlx::query("insert into space_member (space_id, user_id, role, created_at) values ($1, $2, 'owner', $3)")
            .bind(new.space_id.to_owned())
            .bind(new.owner_id.to_owned())
            .bind(to_millis(now))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(Some(space_from_row(&row)?))
    }

    #[tracing::instrument(skip_all, fields(space_id))]
    pub async fn space(&self, space_id: &str) -> StoreResult<Option<StoredSpace>> {
        let row =
            sqlx::query(sqlx::AssertSqlSafe(format!("select {SPACE_COLUMNS} from space s where s.space_id = $1")))
                .bind(space_id.to_owned())
                .fetch_optional(&self.db.pool)
                .await?;
        Ok(row.map(|row| space_from_row(&row)).transpose()?)
    }

    /// The role of a user in a space (`owner` or `member`), or `None` for a non-member.
    #[tracing::instrument(skip_all, fields(space_id, user_id))]
    pub async fn space_role(&self, space_id: &str, user_id: &str) -> StoreResult<Option<String>> {
        let row = sqlx::query("select role from space_member where space_id = $1 and user_id = $2")
            .bind(space_id.to_owned())
            .bind(user_id.to_owned())
            .fetch_optional(&self.db.pool)
            .await?;
        Ok(row.map(|row| row.try_get("role")).transpose()?)
    }

    /// Makes a user a member with `role`, or changes the role of a member.
    #[tracing::instrument(skip_all, fields(space_id, user_id))]
    pub async fn upsert_space_member(
        &self,
        space_id: &str,
        user_id: &str,
        role: &str,
        now: OffsetDateTime,
    ) -> StoreResult<()> {
        sqlx::query(
            "insert into space_member (space_id, user_id, role, created_at) values ($1, $2, $3, $4) \
             on conflict (space_id, user_id) do update set role = excluded.role",
        )
        .bind(space_id.to_owned())
        .bind(user_id.to_owned())
        .bind(role.to_owned())
        .bind(to_millis(now))
        .execute(&self.db.writer)
        .await?;
        Ok(())
    }

    /// The spaces a user is a member of, newest first, after the `(created_at, id)` key of the
    /// previous page.
    #[tracing::instrument(skip_all, fields(user_id))]
    pub async fn member_spaces(
        &self,
        user_id: &str,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> StoreResult<Vec<MemberSpace>> {
        let keyset = Keyset::newest_first(after);
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {SPACE_COLUMNS}, m.role from space_member m join space s on s.space_id = m.space_id \
             where m.user_id = $1 and {after} \
             {order} limit $4",
            after = keyset.after("s.created_at", "s.space_id", 2),
            order = keyset.order_by("s.created_at", "s.space_id"),
        )))
        .bind(user_id.to_owned())
        .bind_keyset(keyset)
        .bind(limit)
        .fetch_all(&self.db.pool)
        .await?;
        rows.iter().map(|row| Ok(MemberSpace { space: space_from_row(row)?, role: row.try_get("role")? })).collect()
    }

    /// Applies a sparse change of the general settings; a taken name is `Conflict`, a missing
    /// space `NotFound`. With `expected_revision`, a space no longer at it is `Conflict`
    /// ([`STALE_SPACE`]) and nothing is written.
    #[tracing::instrument(skip_all, fields(space_id))]
    pub async fn update_space(
        &self,
        space_id: &str,
        change: &SpaceChange<'_>,
        expected_revision: Option<i64>,
        now: OffsetDateTime,
    ) -> StoreResult<StoredSpace> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "update space set name = coalesce($2, name), display_name = coalesce($3, display_name), \
             summary = coalesce($4, summary), revision = revision + 1, updated_at = $5 \
             where space_id = $1 and ($6 < 0 or revision = $6) returning {RETURNED}"
        )))
        .bind(space_id.to_owned())
        .bind(change.name.map(str::to_owned))
        .bind(change.display_name.map(str::to_owned))
        .bind(change.summary.map(str::to_owned))
        .bind(to_millis(now))
        .bind(expected_revision.unwrap_or(-1))
        .fetch_optional(&self.db.writer)
        .await?;
        match row {
            Some(row) => Ok(space_from_row(&row)?),
            None if expected_revision.is_some() => Err(StoreError::Conflict(STALE_SPACE.into())),
            None => Err(StoreError::NotFound),
        }
    }

    /// The modules connected to a space, in the order they were given, and the revision of that
    /// set (0 for no such space).
    #[tracing::instrument(skip_all, fields(space_id))]
    pub async fn space_modules(&self, space_id: &str) -> StoreResult<(i64, Vec<SpaceModule>)> {
        let rows = sqlx::query(
            "select s.modules_revision, m.module_id, m.config from space s \
             left join space_module m on m.space_id = s.space_id where s.space_id = $1 order by m.position",
        )
        .bind(space_id.to_owned())
        .fetch_all(&self.db.pool)
        .await?;
        let revision = match rows.first() {
            Some(row) => row.try_get("modules_revision")?,
            None => 0,
        };
        let mut modules = Vec::with_capacity(rows.len());
        for row in &rows {
            if let Some(module_id) = row.try_get::<Option<String>, _>("module_id")? {
                modules.push(SpaceModule { module_id, config: row.try_get("config")? });
            }
        }
        Ok((revision, modules))
    }

    /// Replaces the connected set of a space in one transaction and answers its new revision. With
    /// `expected_revision`, writes only while the set is still at it (`Conflict(STALE_SPACE_MODULES)`
    /// otherwise). The revision moves on first, so two replacements of one set take turns.
    #[tracing::instrument(skip_all, fields(space_id))]
    pub async fn replace_space_modules(
        &self,
        space_id: &str,
        modules: &[SpaceModule],
        expected_revision: Option<i64>,
    ) -> StoreResult<i64> {
        let mut tx = self.db.writer.begin().await?;
        let revision: Option<i64> = sqlx::query_scalar(
            "update space set modules_revision = modules_revision + 1 \
             where space_id = $1 and ($2 < 0 or modules_revision = $2) returning modules_revision",
        )
        .bind(space_id.to_owned())
        .bind(expected_revision.unwrap_or(-1))
        .fetch_optional(&mut *tx)
        .await?;
        let Some(revision) = revision else {
            return Err(StoreError::stale_or_missing(expected_revision.is_some(), STALE_SPACE_MODULES));
        };
        sqlx::query("delete from space_module where space_id = $1").bind(space_id.to_owned()).execute(&mut *tx).await?;
        for (position, module) in modules.iter().enumerate() {
            sqlx::query("insert into space_module (space_id, module_id, config, position) values ($1, $2, $3, $4)")
                .bind(space_id.to_owned())
                .bind(module.module_id.clone())
                .bind(module.config.clone())
                .bind(position as i64)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(revision)
    }
}
