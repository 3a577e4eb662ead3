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
}

/// What a snapshot copy holds: the storage keys of every media object its rows name (attachments,
/// avatars, uploaded assets), each once since rows with identical bytes share one, and its
/// schema version. The copy is opened read-only and immutable, so
/// nothing (no journal) is written beside it: the backup's disk may be full.
pub async fn snapshot_contents(path: &Path) -> StoreResult<(Vec<String>, i64)> {
    use sqlx::sqlite::SqliteConnectOptions;
    use sqlx::{ConnectOptions, Connection};
    let mut conn = SqliteConnectOptions::new().filename(path).read_only(true).immutable(true).connect().await?;
    let rows = sqlx::query(
        "select storage_key from form_attachment \
         union select storage_key from user_avatar \
         union select storage_key from published_asset where storage_key is not null \
         order by 1",
    )
    .fetch_all(&mut conn)
    .await?;
    let keys = rows.iter().map(|row| row.get::<String, _>(0)).collect();
    let version = sqlx::query("select coalesce(max(version), 0) from _sqlx_migrations where success = 1")
        .fetch_one(&mut conn)
        .await?
        .get::<i64, _>(0);
    conn.close().await?;
    Ok((keys, version))
}
