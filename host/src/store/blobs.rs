//! Bytes stored once (conventions section 14, "Stored bytes"): `media_blob` names each distinct
//! content by its SHA-256, with the one object holding it and how many rows name it.
//!
//! Every change runs inside the transaction that adds or removes the naming row, so the count
//! never disagrees with the rows. The last reference deletes the blob and queues its object for
//! the sweeper in that same transaction: a later upload of the same bytes then starts a blob (and
//! an object) of its own, and the sweep can never take bytes that a row has just come to name.

use sqlx::Row;

use super::media::{add_pending, remove_pending};
use super::{Db, StoreResult};

/// Where a new row's bytes ended up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Adopted {
    /// The object the row names: the staged one when these bytes are new, else the one that
    /// already held them.
    pub storage_key: String,
    /// The staged object, when identical bytes were held already: nothing names it any more. It
    /// is queued for the sweeper; the caller may remove it at once.
    pub freed: Option<String>,
}

/// Records that one more row names the bytes `sha256` (`bytes` long), just written as `staged`.
pub(super) async fn adopt(
    conn: &mut sqlx::AnyConnection,
    staged: &str,
    sha256: &str,
    bytes: i64,
) -> Result<Adopted, sqlx::Error> {
    let holder: String = sqlx::query(
        "insert into media_blob (sha256, storage_key, bytes, refs) values ($1, $2, $3, 1)
         on conflict (sha256) do update set refs = media_blob.refs + excluded.refs
         returning storage_key",
    )
    .bind(sha256.to_owned())
    .bind(staged.to_owned())
    .bind(bytes)
    .fetch_one(&mut *conn)
    .await?
    .try_get("storage_key")?;
    if holder == staged {
        remove_pending(conn, staged).await?;
        return Ok(Adopted { storage_key: holder, freed: None });
    }
    add_pending(conn, staged, 0).await?;
    Ok(Adopted { storage_key: holder, freed: Some(staged.to_owned()) })
}

/// One row fewer names the object `storage_key`. Answers the key when nothing names it now (it
/// is queued for the sweeper; the caller may remove it at once).
pub(super) async fn release(conn: &mut sqlx::AnyConnection, storage_key: &str) -> Result<Option<String>, sqlx::Error> {
    let left = sqlx::query("update media_blob set refs = refs - 1 where storage_key = $1 returning refs")
        .bind(storage_key.to_owned())
        .fetch_optional(&mut *conn)
        .await?
        .map(|row| row.try_get::<i64, _>("refs"))
        .transpose()?;
    match left {
        Some(left) if left > 0 => return Ok(None),
        Some(_) => {
            sqlx::query("delete from media_blob where storage_key = $1")
                .bind(storage_key.to_owned())
                .execute(&mut *conn)
                .await?;
        }
        // Bytes written before content addressing, not yet addressed: the row was their only name.
        None => {}
    }
    add_pending(conn, storage_key, 0).await?;
    Ok(Some(storage_key.to_owned()))
}

/// The tables whose rows name stored bytes.
const NAMING_TABLES: [&str; 3] = ["form_attachment", "user_avatar", "published_asset"];

/// The repository of content addresses, for moving bytes written before them (`media::addressing`).
#[derive(Clone, Debug)]
pub struct BlobRepo {
    db: Db,
}

/// An object that rows name without its SHA-256 yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unaddressed {
    pub storage_key: String,
    pub bytes: i64,
}

impl BlobRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    /// Up to `limit` objects named by rows without a SHA-256, in key order after `after`.
    pub async fn unaddressed(&self, after: &str, limit: i64) -> StoreResult<Vec<Unaddressed>> {
        let rows = sqlx::query(
            "select storage_key, max(bytes) as bytes from (
               select storage_key, bytes from form_attachment where sha256 is null
               union all select storage_key, bytes from user_avatar where sha256 is null
               union all select storage_key, bytes from published_asset
                 where sha256 is null and storage_key is not null
             ) unaddressed where storage_key > $1 group by storage_key order by storage_key limit $2",
        )
        .bind(after.to_owned())
        .bind(limit)
        .fetch_all(&self.db.pool)
        .await?;
        rows.iter()
            .map(|row| Ok(Unaddressed { storage_key: row.try_get("storage_key")?, bytes: row.try_get("bytes")? }))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(Into::into)
    }

    /// Gives the rows naming `storage_key` without a SHA-256 the address `sha256`, in one
    /// transaction: when another object holds those bytes already, the rows name it instead and
    /// `storage_key` is queued for removal (returned, so the caller may remove it at once).
    /// Rows that went (or were addressed) meanwhile are left alone, so this is safe to repeat.
    pub async fn address(&self, storage_key: &str, sha256: &str, bytes: i64) -> StoreResult<Option<String>> {
        let work = std::sync::Arc::new((storage_key.to_owned(), sha256.to_owned()));
        self.db
            .write(move |conn| {
                let work = work.clone();
                Box::pin(async move {
                    let (key, sha256) = &*work;
                    let mut named = 0i64;
                    for table in NAMING_TABLES {
                        let sql = format!("update {table} set sha256 = $1 where storage_key = $2 and sha256 is null");
                        let done = sqlx::query(sqlx::AssertSqlSafe(sql))
                            .bind(sha256.clone())
                            .bind(key.clone())
                            .execute(&mut *conn)
                            .await?;
                        named += done.rows_affected() as i64;
                    }
                    if named == 0 {
                        return Ok(None);
                    }
                    let holder: String = sqlx::query(
                        "insert into media_blob (sha256, storage_key, bytes, refs) values ($1, $2, $3, $4)
                         on conflict (sha256) do update set refs = media_blob.refs + excluded.refs
                         returning storage_key",
                    )
                    .bind(sha256.clone())
                    .bind(key.clone())
                    .bind(bytes)
                    .bind(named)
                    .fetch_one(&mut *conn)
                    .await?
                    .try_get("storage_key")?;
                    if &holder == key {
                        return Ok(None);
                    }
                    for table in NAMING_TABLES {
                        let sql = format!("update {table} set storage_key = $1 where storage_key = $2");
                        sqlx::query(sqlx::AssertSqlSafe(sql))
                            .bind(holder.clone())
                            .bind(key.clone())
                            .execute(&mut *conn)
                            .await?;
                    }
                    add_pending(conn, key, 0).await?;
                    Ok(Some(key.clone()))
                })
            })
            .await
    }

    /// How many distinct contents are stored and their bytes (for the operator and the tests).
    pub async fn totals(&self) -> StoreResult<(i64, i64)> {
        let row = sqlx::query("select count(*) as n, coalesce(sum(bytes), 0) as total from media_blob")
            .fetch_one(&self.db.pool)
            .await?;
        Ok((row.try_get("n")?, row.try_get("total")?))
    }
}
