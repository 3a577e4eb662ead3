use sqlx::Row;
use sqlx::any::AnyRow;
use time::OffsetDateTime;

use super::{Db, StoreError, StoreResult, from_millis, to_millis};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct License {
    pub license_id: String,
    pub plan: String,
    pub created_at: OffsetDateTime,
    pub revoked_at: Option<OffsetDateTime>,
}

fn license_from_row(row: &AnyRow) -> Result<License, sqlx::Error> {
    Ok(License {
        license_id: row.try_get("license_id")?,
        plan: row.try_get("plan")?,
        created_at: from_millis(row.try_get("created_at")?),
        revoked_at: row.try_get::<Option<i64>, _>("revoked_at")?.map(from_millis),
    })
}

/// The repository of license keys.
#[derive(Clone, Debug)]
pub struct LicenseRepo {
    db: Db,
}

impl LicenseRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    pub async fn insert_license(&self, key_digest: &str, plan: &str, now: OffsetDateTime) -> StoreResult<License> {
        let row = sqlx::query(
            "insert into license_key (license_id, key_digest, plan, created_at, revoked_at) values ($1, $2, $3, $4, null) \
             returning license_id, plan, created_at, revoked_at",
        )
        .bind(uuid::Uuid::new_v4().to_string())
        .bind(key_digest.to_owned())
        .bind(plan.to_owned())
        .bind(to_millis(now))
        .fetch_one(&self.db.writer)
        .await?;
        Ok(license_from_row(&row)?)
    }

    /// The license with this key digest, revoked or not.
    #[tracing::instrument(skip_all)]
    pub async fn license_by_digest(&self, key_digest: &str) -> StoreResult<Option<License>> {
        let row = sqlx::query("select license_id, plan, created_at, revoked_at from license_key where key_digest = $1")
            .bind(key_digest.to_owned())
            .fetch_optional(&self.db.pool)
            .await?;
        Ok(row.map(|row| license_from_row(&row)).transpose()?)
    }

    /// Revokes by license id or by key digest; `NotFound` when neither names a live license.
    pub async fn revoke_license(&self, id_or_digest: &str, now: OffsetDateTime) -> StoreResult<License> {
        let row = sqlx::query(
            "update license_key set revoked_at = $2 where (license_id = $1 or key_digest = $1) and revoked_at is null \
             returning license_id, plan, created_at, revoked_at",
        )
        .bind(id_or_digest.to_owned())
        .bind(to_millis(now))
        .fetch_optional(&self.db.writer)
        .await?
        .ok_or(StoreError::NotFound)?;
        Ok(license_from_row(&row)?)
    }

    pub async fn licenses(&self) -> StoreResult<Vec<License>> {
        let rows = sqlx::query(
            "select license_id, plan, created_at, revoked_at from license_key order by created_at, license_id",
        )
        .fetch_all(&self.db.pool)
        .await?;
        Ok(rows.iter().map(license_from_row).collect::<Result<_, _>>()?)
    }
}
