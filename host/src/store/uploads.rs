//! Rows of resumable uploads (`media_upload`, see migrations 0018 and 0021). A row is the truth of
//! what was acknowledged. A writer first claims the row at the offset it writes from (`claim`, a
//! compare-and-set on `received` that also takes the row's writer lease), and every advance of
//! `received` is a compare-and-set on the value the writer started from and on its claim, so two
//! writers, on one server or several, can never both write one upload.

use std::sync::Arc;

use sqlx::Row;
use sqlx::any::AnyRow;
use time::OffsetDateTime;

use super::{Db, Engine, StoreResult, from_millis, to_millis};

/// One resumable upload as stored.
#[derive(Clone, Debug)]
pub struct StoredUpload {
    pub upload_id: String,
    pub owner_id: String,
    pub length: i64,
    pub received: i64,
    /// The `Upload-Metadata` header as the client sent it, echoed on `HEAD`.
    pub metadata: String,
    pub filename: String,
    pub content_type: Option<String>,
    pub storage_key: String,
    /// The media backend's record of where the bytes are.
    pub backend_state: String,
    /// The hasher's state after `received` bytes (hex; `None` before the first byte).
    pub hash_state: Option<String>,
    /// The SHA-256 (lowercase hex) of the bytes once the upload is whole.
    pub sha256: Option<String>,
    /// When the bytes became the object under `storage_key`.
    pub finished_at: Option<OffsetDateTime>,
    pub created_at: OffsetDateTime,
    pub expires_at: OffsetDateTime,
}

const COLUMNS: &str = "upload_id, owner_id, length, received, metadata, filename, content_type, storage_key, \
                       backend_state, hash_state, sha256, finished_at, created_at, expires_at";

fn upload_from_row(row: &AnyRow) -> Result<StoredUpload, sqlx::Error> {
    Ok(StoredUpload {
        upload_id: row.try_get("upload_id")?,
        owner_id: row.try_get("owner_id")?,
        length: row.try_get("length")?,
        received: row.try_get("received")?,
        metadata: row.try_get("metadata")?,
        filename: row.try_get("filename")?,
        content_type: row.try_get("content_type")?,
        storage_key: row.try_get("storage_key")?,
        backend_state: row.try_get("backend_state")?,
        hash_state: row.try_get("hash_state")?,
        sha256: row.try_get("sha256")?,
        finished_at: row.try_get::<Option<i64>, _>("finished_at")?.map(from_millis),
        created_at: from_millis(row.try_get("created_at")?),
        expires_at: from_millis(row.try_get("expires_at")?),
    })
}

/// The bounds a new resumable upload must fit in, over unused uploads (declared lengths).
#[derive(Clone, Copy, Debug)]
pub struct OpenUploadBounds {
    /// Uploads one user holds.
    pub per_user: i64,
    pub bytes_per_user: i64,
    /// Bytes the uploads made under one license key (or gateway subscriber) hold.
    pub bytes_per_subject: i64,
    /// Bytes every unused upload on the database holds.
    pub bytes_in_all: i64,
}

/// The bound a new upload would pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenUploadRefusal {
    /// The user holds this many already.
    UserCount(i64),
    UserBytes,
    SubjectBytes,
    AllBytes,
}

/// Where an upload should stand after a write.
#[derive(Clone, Debug)]
pub struct UploadAdvance {
    pub received: i64,
    pub backend_state: String,
    /// The hasher's state after `received` bytes (`None`: unknown, for an upload begun before
    /// uploads were hashed).
    pub hash_state: Option<String>,
    /// The digest, when this advance finishes the upload.
    pub sha256: Option<String>,
    pub finished: bool,
    pub at: OffsetDateTime,
    pub expires_at: OffsetDateTime,
    /// The claim of the writer making this advance (see `claim`); a finishing advance ends it.
    pub writer: String,
}

#[derive(Clone, Debug)]
pub struct UploadRepo {
    db: Db,
}

impl UploadRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    /// Records a new upload unless its owner would pass `max_count` unused uploads or
    /// `max_bytes` declared bytes; `Ok(Err(held))` tells what they hold. The check and the insert
    /// are one transaction (on PostgreSQL the owner's user row is locked for it), so parallel
    /// creations cannot pass the bounds together.
    /// Records `upload`, made under `subject` (`QuotaSubject`), unless it would pass a bound.
    /// Creations take turns (the single writer on SQLite, a lock on PostgreSQL), so concurrent
    /// ones cannot pass a bound together.
    pub async fn create(
        &self,
        upload: StoredUpload,
        subject: &str,
        bounds: OpenUploadBounds,
    ) -> StoreResult<Result<(), OpenUploadRefusal>> {
        let upload = Arc::new(upload);
        let subject: Arc<str> = Arc::from(subject);
        let postgres = self.db.engine() == Engine::Postgres;
        self.db
            .write(move |conn| {
                let (upload, subject) = (upload.clone(), subject.clone());
                Box::pin(async move {
                    if postgres {
                        sqlx::query("select pg_advisory_xact_lock($1) is not null as locked")
                            .bind(CREATE_LOCK)
                            .execute(&mut *conn)
                            .await?;
                    }
                    if let Some(refusal) = refusal(conn, &upload, &subject, bounds).await? {
                        return Ok(Err(refusal));
                    }
                    sqlx::query(sqlx::AssertSqlSafe(format!(
                        "insert into media_upload ({COLUMNS}, subject) \
                         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)"
                    )))
                    .bind(upload.upload_id.clone())
                    .bind(upload.owner_id.clone())
                    .bind(upload.length)
                    .bind(upload.received)
                    .bind(upload.metadata.clone())
                    .bind(upload.filename.clone())
                    .bind(upload.content_type.clone())
                    .bind(upload.storage_key.clone())
                    .bind(upload.backend_state.clone())
                    .bind(upload.hash_state.clone())
                    .bind(upload.sha256.clone())
                    .bind(upload.finished_at.map(to_millis))
                    .bind(to_millis(upload.created_at))
                    .bind(to_millis(upload.expires_at))
                    .bind(subject.to_string())
                    .execute(&mut *conn)
                    .await?;
                    Ok(Ok(()))
                })
            })
            .await
    }

    pub async fn find(&self, upload_id: &str) -> StoreResult<Option<StoredUpload>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!("select {COLUMNS} from media_upload where upload_id = $1")))
            .bind(upload_id.to_owned())
            .fetch_optional(&self.db.pool)
            .await?;
        Ok(row.as_ref().map(upload_from_row).transpose()?)
    }

    /// Claims the right to write the upload from `from` received bytes for `writer` until `until`:
    /// false when it no longer stands at `from`, is finished, or another writer's claim is live at
    /// `now`. Nothing may reach the media store before this succeeds.
    pub async fn claim(
        &self,
        upload_id: &str,
        from: i64,
        writer: &str,
        until: OffsetDateTime,
        now: OffsetDateTime,
    ) -> StoreResult<bool> {
        let work = Arc::new((upload_id.to_owned(), writer.to_owned()));
        self.db
            .write(move |conn| {
                let work = work.clone();
                Box::pin(async move {
                    let (upload_id, writer) = &*work;
                    let done = sqlx::query(
                        "update media_upload set writer = $3, writer_until = $4
                         where upload_id = $1 and received = $2 and finished_at is null
                           and (writer is null or writer_until < $5)",
                    )
                    .bind(upload_id.clone())
                    .bind(from)
                    .bind(writer.clone())
                    .bind(to_millis(until))
                    .bind(to_millis(now))
                    .execute(&mut *conn)
                    .await?;
                    Ok(done.rows_affected() == 1)
                })
            })
            .await
    }

    /// Extends `writer`'s claim to `until`; false when the claim is no longer its own.
    pub async fn renew(&self, upload_id: &str, writer: &str, until: OffsetDateTime) -> StoreResult<bool> {
        self.set_claim(upload_id, writer, Some(until)).await
    }

    /// Ends `writer`'s claim, if it still holds it.
    pub async fn release(&self, upload_id: &str, writer: &str) -> StoreResult<()> {
        self.set_claim(upload_id, writer, None).await.map(drop)
    }

    async fn set_claim(&self, upload_id: &str, writer: &str, until: Option<OffsetDateTime>) -> StoreResult<bool> {
        let work = Arc::new((upload_id.to_owned(), writer.to_owned()));
        self.db
            .write(move |conn| {
                let work = work.clone();
                Box::pin(async move {
                    let (upload_id, writer) = &*work;
                    let set = if until.is_some() { "writer_until = $3" } else { "writer = null, writer_until = null" };
                    let mut update = sqlx::query(sqlx::AssertSqlSafe(format!(
                        "update media_upload set {set} where upload_id = $1 and writer = $2"
                    )))
                    .bind(upload_id.clone())
                    .bind(writer.clone());
                    if let Some(until) = until {
                        update = update.bind(to_millis(until));
                    }
                    Ok(update.execute(&mut *conn).await?.rows_affected() == 1)
                })
            })
            .await
    }

    /// Moves the upload from `from` received bytes to `advance`; false when it no longer stands at
    /// `from` or the advance's writer no longer holds the claim (another writer moved it, or it was
    /// removed).
    pub async fn advance(&self, upload_id: &str, from: i64, advance: UploadAdvance) -> StoreResult<bool> {
        let work = Arc::new((upload_id.to_owned(), advance));
        self.db
            .write(move |conn| {
                let work = work.clone();
                Box::pin(async move {
                    let (upload_id, advance) = &*work;
                    let (finished_at, claim) = if advance.finished {
                        ("coalesce(finished_at, $9)", ", writer = null, writer_until = null")
                    } else {
                        ("finished_at", "")
                    };
                    let mut update = sqlx::query(sqlx::AssertSqlSafe(format!(
                        "update media_upload set received = $3, backend_state = $4, expires_at = $5,
                         hash_state = $6, sha256 = coalesce($7, sha256), finished_at = {finished_at}{claim}
                         where upload_id = $1 and received = $2 and writer = $8"
                    )))
                    .bind(upload_id.clone())
                    .bind(from)
                    .bind(advance.received)
                    .bind(advance.backend_state.clone())
                    .bind(to_millis(advance.expires_at))
                    .bind(advance.hash_state.clone())
                    .bind(advance.sha256.clone())
                    .bind(advance.writer.clone());
                    if advance.finished {
                        update = update.bind(to_millis(advance.at));
                    }
                    let done = update.execute(&mut *conn).await?;
                    Ok(done.rows_affected() == 1)
                })
            })
            .await
    }

    /// Forgets an upload whose bytes were removed.
    pub async fn remove(&self, upload_id: &str) -> StoreResult<()> {
        let id = upload_id.to_owned();
        self.db
            .write(move |conn| {
                let id = id.clone();
                Box::pin(async move {
                    sqlx::query("delete from media_upload where upload_id = $1").bind(id).execute(&mut *conn).await?;
                    Ok(())
                })
            })
            .await
    }

    /// Uploads past `before`, oldest first: the sweeper's work.
    pub async fn expired(&self, before: OffsetDateTime, limit: i64) -> StoreResult<Vec<StoredUpload>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {COLUMNS} from media_upload where expires_at < $1 order by expires_at limit $2"
        )))
        .bind(to_millis(before))
        .bind(limit)
        .fetch_all(&self.db.pool)
        .await?;
        Ok(rows.iter().map(upload_from_row).collect::<Result<_, _>>()?)
    }

    /// Storage keys of every upload, finished or not: the sweeper must leave their bytes alone.
    pub async fn keys(&self) -> StoreResult<Vec<String>> {
        let rows = sqlx::query("select storage_key from media_upload").fetch_all(&self.db.pool).await?;
        Ok(rows.iter().map(|row| row.try_get("storage_key")).collect::<Result<_, _>>()?)
    }
}

/// What `owner_id` holds: every unexpired upload not yet used, finished or not (a finished one
/// takes its room until it is used, ended or expired, so finishing uploads cannot fill a disk).
/// The advisory lock creations take turns under on PostgreSQL (an arbitrary constant).
const CREATE_LOCK: i64 = 0x7472_6c75_706c;

/// The bound `upload` would pass, counting the unused uploads at its creation.
async fn refusal(
    conn: &mut sqlx::AnyConnection,
    upload: &StoredUpload,
    subject: &str,
    bounds: OpenUploadBounds,
) -> Result<Option<OpenUploadRefusal>, sqlx::Error> {
    let row = sqlx::query(
        "select count(case when owner_id = $1 then 1 end) as user_count, \
                cast(coalesce(sum(case when owner_id = $1 then length end), 0) as bigint) as user_bytes, \
                cast(coalesce(sum(case when subject = $2 then length end), 0) as bigint) as subject_bytes, \
                cast(coalesce(sum(length), 0) as bigint) as all_bytes \
         from media_upload where expires_at > $3",
    )
    .bind(upload.owner_id.clone())
    .bind(subject.to_owned())
    .bind(to_millis(upload.created_at))
    .fetch_one(conn)
    .await?;
    let user_count: i64 = row.try_get("user_count")?;
    let over = |held: i64, bound: i64| held.saturating_add(upload.length) > bound;
    Ok(if user_count + 1 > bounds.per_user {
        Some(OpenUploadRefusal::UserCount(user_count))
    } else if over(row.try_get("user_bytes")?, bounds.bytes_per_user) {
        Some(OpenUploadRefusal::UserBytes)
    } else if over(row.try_get("subject_bytes")?, bounds.bytes_per_subject) {
        Some(OpenUploadRefusal::SubjectBytes)
    } else if over(row.try_get("all_bytes")?, bounds.bytes_in_all) {
        Some(OpenUploadRefusal::AllBytes)
    } else {
        None
    })
}

/// The storage-key kind of finished resumable uploads.
pub const UPLOAD_KIND: &str = "uploads";

/// Whether `storage_key` names a resumable upload's bytes.
fn is_upload_key(storage_key: &str) -> bool {
    storage_key.strip_prefix(UPLOAD_KIND).is_some_and(|rest| rest.starts_with('/'))
}

/// Whether every upload among `storage_keys` (those of kind [`UPLOAD_KIND`]; others pass) is
/// finished, unexpired and still unused. Writes nothing, so a caller may still return without
/// writing; on PostgreSQL it locks those rows until the transaction ends, so a parallel use of the
/// same upload waits and then finds it gone.
pub(super) async fn claimable(
    conn: &mut sqlx::AnyConnection,
    engine: Engine,
    storage_keys: &[&str],
    now: OffsetDateTime,
) -> Result<bool, sqlx::Error> {
    let lock = if engine == Engine::Postgres { " for update" } else { "" };
    for key in storage_keys.iter().filter(|k| is_upload_key(k)) {
        let found = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select upload_id from media_upload
             where storage_key = $1 and finished_at is not null and expires_at > $2{lock}"
        )))
        .bind((*key).to_owned())
        .bind(to_millis(now))
        .fetch_optional(&mut *conn)
        .await?;
        if found.is_none() {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Takes over uploads' bytes for the rows written in the same transaction (after
/// [`claimable`]): their upload rows go, so each is used once.
pub(super) async fn consume(conn: &mut sqlx::AnyConnection, storage_keys: &[&str]) -> Result<(), sqlx::Error> {
    for key in storage_keys.iter().filter(|k| is_upload_key(k)) {
        sqlx::query("delete from media_upload where storage_key = $1")
            .bind((*key).to_owned())
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}
