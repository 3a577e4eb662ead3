//! What a backup of the embedded deployment reads from the database: a consistent copy of it, the
//! media objects its rows name, and its schema version. SQLite only: PostgreSQL has its own tools.

use std::path::Path;

use sqlx::Row;

use super::{Engine, Store, StoreError, StoreResult};

impl Store {
    /// Writes a consistent copy of the SQLite database to `path` (a new or empty file) while the
    /// server goes on writing: `VACUUM INTO` reads one snapshot, as any reader does in WAL mode.
    pub async fn snapshot_into(&self, path: &Path) -> StoreResult<()> {
        if self.db.engine != Engine::Sqlite {
            return Err(StoreError::Other(anyhow::anyhow!("a snapshot copy is for the embedded SQLite database")));
        }
        let path = path.to_str().ok_or_else(|| StoreError::Other(anyhow::anyhow!("the backup path is not UTF-8")))?;
        sqlx::query("vacuum into $1").bind(path.to_owned()).execute(&self.db.pool).await?;
        Ok(())
    }

    /// The storage keys of every media object a row names: attachments, avatars, uploaded assets.
    pub async fn named_objects(&self) -> StoreResult<Vec<String>> {
        let rows = sqlx::query(
            "select storage_key from form_attachment \
             union all select storage_key from user_avatar \
             union all select storage_key from published_asset where storage_key is not null \
             order by 1",
        )
        .fetch_all(&self.db.pool)
        .await?;
        Ok(rows.iter().map(|row| row.get::<String, _>(0)).collect())
    }

    /// The newest migration applied to this database (0 when none is).
    pub async fn schema_version(&self) -> StoreResult<i64> {
        let row = sqlx::query("select coalesce(max(version), 0) from _sqlx_migrations where success = true")
            .fetch_one(&self.db.pool)
            .await?;
        Ok(row.get::<i64, _>(0))
    }
}
