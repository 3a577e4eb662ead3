//! Rows that describe stored media: form attachments, avatars (`avatars.rs`), and objects awaiting the
//! sweeper.
//!
//! Bytes are written before their row. Every object is first recorded in `media_pending` with the
//! time it was announced; the row that finally points at it removes that record in the same
//! transaction. An object whose record outlives the sweeper's grace time was never committed (or
//! was orphaned by a delete, recorded at 0) and is removed by the sweeper.

use std::sync::Arc;

use sqlx::Row;
use sqlx::any::AnyRow;
use time::OffsetDateTime;

use super::{Db, Engine, StoreResult, blobs, from_millis, to_millis};

mod avatars;

pub use avatars::StoredAvatar;

/// New bytes always arrive hashed: a row without its SHA-256 here is a bug of the caller.
fn unaddressed(storage_key: &str) -> sqlx::Error {
    sqlx::Error::Protocol(format!("object {storage_key} arrived without its SHA-256"))
}

/// One stored file of a form instance's file field.
#[derive(Clone, Debug)]
pub struct StoredAttachment {
    pub part_key: String,
    pub form_id: String,
    pub field_id: String,
    pub content_type: String,
    pub bytes: i64,
    pub filename: String,
    pub storage_key: String,
    /// The SHA-256 (lowercase hex) of the bytes; `None` for bytes written before content
    /// addressing until the start-up step has read them.
    pub sha256: Option<String>,
    pub created_at: OffsetDateTime,
}

/// Why attachments were not recorded.
#[derive(Debug)]
pub enum AttachRefusal {
    /// These fields would hold more files than allowed: `(field id, files it would hold)`.
    TooManyFiles(Vec<(String, i64)>),
    /// The instance is gone.
    NoInstance,
    /// A resumable upload among the files was used (or expired) meanwhile: its storage key.
    UploadGone(String),
}

pub(super) const ATTACHMENT_COLUMNS: &str =
    "part_key, form_id, field_id, content_type, bytes, filename, storage_key, sha256, created_at";

/// The names an attachment's columns have in a row: as selected from `form_attachment`, or as
/// aliased where another table is joined (see `InstanceRepo::instance_with_attachments`).
pub(super) struct AttachmentNames {
    pub part_key: &'static str,
    field_id: &'static str,
    content_type: &'static str,
    bytes: &'static str,
    filename: &'static str,
    storage_key: &'static str,
    sha256: &'static str,
    created_at: &'static str,
}

const PLAIN: AttachmentNames = AttachmentNames {
    part_key: "part_key",
    field_id: "field_id",
    content_type: "content_type",
    bytes: "bytes",
    filename: "filename",
    storage_key: "storage_key",
    sha256: "sha256",
    created_at: "created_at",
};

/// The `a_`-prefixed aliases of a joined attachment.
pub(super) const JOINED: AttachmentNames = AttachmentNames {
    part_key: "a_part_key",
    field_id: "a_field_id",
    content_type: "a_content_type",
    bytes: "a_bytes",
    filename: "a_filename",
    storage_key: "a_storage_key",
    sha256: "a_sha256",
    created_at: "a_created_at",
};

pub(super) fn attachment_from_row(row: &AnyRow) -> Result<StoredAttachment, sqlx::Error> {
    attachment_named(row, &PLAIN, row.try_get("form_id")?)
}

/// An attachment of `form_id` read from a row whose columns have `names`.
pub(super) fn attachment_named(
    row: &AnyRow,
    names: &AttachmentNames,
    form_id: String,
) -> Result<StoredAttachment, sqlx::Error> {
    Ok(StoredAttachment {
        part_key: row.try_get(names.part_key)?,
        form_id,
        field_id: row.try_get(names.field_id)?,
        content_type: row.try_get(names.content_type)?,
        bytes: row.try_get(names.bytes)?,
        filename: row.try_get(names.filename)?,
        storage_key: row.try_get(names.storage_key)?,
        sha256: row.try_get(names.sha256)?,
        created_at: from_millis(row.try_get(names.created_at)?),
    })
}

pub(super) async fn add_pending(
    conn: &mut sqlx::AnyConnection,
    storage_key: &str,
    noted_at: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "insert into media_pending (storage_key, noted_at) values ($1, $2)
         on conflict (storage_key) do update set noted_at = excluded.noted_at",
    )
    .bind(storage_key.to_owned())
    .bind(noted_at)
    .execute(conn)
    .await?;
    Ok(())
}

pub(super) async fn remove_pending(conn: &mut sqlx::AnyConnection, storage_key: &str) -> Result<(), sqlx::Error> {
    sqlx::query("delete from media_pending where storage_key = $1").bind(storage_key.to_owned()).execute(conn).await?;
    Ok(())
}

/// An instance's files are part of what it shows: a change of them moves its revision on, so its
/// entity tag changes and an update computed from the old state loses (conventions section 1).
async fn bump_revision(conn: &mut sqlx::AnyConnection, form_id: &str) -> Result<(), sqlx::Error> {
    sqlx::query("update form_instance set revision = revision + 1 where form_id = $1")
        .bind(form_id.to_owned())
        .execute(conn)
        .await?;
    Ok(())
}

/// The repository of media records: attachments, avatars and announced objects.
#[derive(Clone, Debug)]
pub struct MediaRepo {
    db: Db,
}

impl MediaRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    /// Records that an object is about to be written. `noted_at` is the moment the sweeper's grace
    /// time counts from (the announcement; 0 for bytes orphaned by a delete, due at once).
    pub async fn media_pending(&self, storage_key: &str, noted_at: OffsetDateTime) -> StoreResult<()> {
        let (key, due) = (storage_key.to_owned(), to_millis(noted_at));
        self.db
            .write(move |conn| {
                let key = key.clone();
                Box::pin(async move { Ok(add_pending(conn, &key, due).await?) })
            })
            .await
    }

    /// Keys announced (or renewed) after `since`: uploads still running.
    pub async fn media_announced_since(&self, since: OffsetDateTime) -> StoreResult<Vec<String>> {
        let rows = sqlx::query("select storage_key from media_pending where noted_at > $1")
            .bind(to_millis(since))
            .fetch_all(&self.db.pool)
            .await?;
        Ok(rows.iter().map(|row| row.try_get("storage_key")).collect::<Result<_, _>>()?)
    }

    /// Renews the announcements of objects still being written. An update only: an object adopted
    /// meanwhile has no announcement left, and must not get one back (the sweeper would take it).
    pub async fn media_renew(&self, storage_keys: Vec<String>, noted_at: OffsetDateTime) -> StoreResult<()> {
        let (keys, at) = (Arc::new(storage_keys), to_millis(noted_at));
        self.db
            .write(move |conn| {
                let keys = keys.clone();
                Box::pin(async move {
                    for key in keys.iter() {
                        sqlx::query("update media_pending set noted_at = $1 where storage_key = $2")
                            .bind(at)
                            .bind(key.clone())
                            .execute(&mut *conn)
                            .await?;
                    }
                    Ok(())
                })
            })
            .await
    }

    /// Forgets pending objects (after their bytes were removed).
    pub async fn media_forget(&self, storage_keys: Vec<String>) -> StoreResult<()> {
        let keys = Arc::new(storage_keys);
        self.db
            .write(move |conn| {
                let keys = keys.clone();
                Box::pin(async move {
                    for key in keys.iter() {
                        remove_pending(conn, key).await?;
                    }
                    Ok(())
                })
            })
            .await
    }

    /// Pending objects whose `noted_at` is at or before `cutoff` (now minus the sweeper's grace),
    /// oldest first.
    pub async fn media_due(&self, cutoff: OffsetDateTime, limit: i64) -> StoreResult<Vec<String>> {
        let rows = sqlx::query("select storage_key from media_pending where noted_at <= $1 order by noted_at limit $2")
            .bind(to_millis(cutoff))
            .bind(limit)
            .fetch_all(&self.db.pool)
            .await?;
        Ok(rows.iter().map(|row| row.try_get("storage_key")).collect::<Result<_, _>>()?)
    }

    /// Records new attachments of one instance in one transaction, unless a field would then hold
    /// more than its cap (`caps`: field id and most files; fields without a cap are absent).
    /// Serialised per instance, so concurrent uploads cannot both squeeze under a cap.
    pub async fn insert_attachments(
        &self,
        form_id: &str,
        uploaded_by: &str,
        attachments: Vec<StoredAttachment>,
        caps: Vec<(String, i64)>,
    ) -> StoreResult<Result<(Vec<StoredAttachment>, Vec<String>), AttachRefusal>> {
        let work = Arc::new((form_id.to_owned(), attachments, caps, uploaded_by.to_owned()));
        let engine = self.db.engine();
        self.db
            .write(move |conn| {
                let work = work.clone();
                Box::pin(async move {
                    let (form_id, attachments, caps, uploaded_by) = &*work;
                    let lock = match engine {
                        Engine::Postgres => "select form_id from form_instance where form_id = $1 for update",
                        // One writer at a time already.
                        Engine::Sqlite => "select form_id from form_instance where form_id = $1",
                    };
                    if sqlx::query(lock).bind(form_id.clone()).fetch_optional(&mut *conn).await?.is_none() {
                        return Ok(Err(AttachRefusal::NoInstance));
                    }
                    let over = over_caps(conn, form_id, attachments, caps).await?;
                    if !over.is_empty() {
                        return Ok(Err(AttachRefusal::TooManyFiles(over)));
                    }
                    let now = OffsetDateTime::now_utc();
                    for a in attachments {
                        if !super::uploads::claimable(conn, engine, &[&a.storage_key], now).await? {
                            return Ok(Err(AttachRefusal::UploadGone(a.storage_key.clone())));
                        }
                    }
                    // Blobs are taken in address order, so two requests sharing contents cannot
                    // wait on each other's rows (a deadlock on PostgreSQL).
                    let mut order: Vec<&StoredAttachment> = attachments.iter().collect();
                    order.sort_by(|a, b| a.sha256.cmp(&b.sha256));
                    let mut holders = std::collections::HashMap::new();
                    let mut freed = Vec::new();
                    for a in order {
                        let sha256 = a.sha256.as_deref().ok_or_else(|| unaddressed(&a.storage_key))?;
                        let adopted = blobs::adopt(conn, &a.storage_key, sha256, a.bytes).await?;
                        super::uploads::consume(conn, &[&a.storage_key]).await?;
                        freed.extend(adopted.freed);
                        holders.insert(a.part_key.clone(), adopted.storage_key);
                    }
                    let mut recorded = Vec::with_capacity(attachments.len());
                    for a in attachments {
                        let mut a = a.clone();
                        a.storage_key = holders.remove(&a.part_key).unwrap_or(a.storage_key);
                        insert_attachment(conn, &a, uploaded_by).await?;
                        recorded.push(a);
                    }
                    bump_revision(conn, form_id).await?;
                    Ok(Ok((recorded, freed)))
                })
            })
            .await
    }

    /// The instance's attachments, oldest first.
    pub async fn attachments(&self, form_id: &str) -> StoreResult<Vec<StoredAttachment>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {ATTACHMENT_COLUMNS} from form_attachment where form_id = $1 order by created_at, part_key"
        )))
        .bind(form_id.to_owned())
        .fetch_all(&self.db.pool)
        .await?;
        Ok(rows.iter().map(attachment_from_row).collect::<Result<_, _>>()?)
    }

    pub async fn attachment(&self, form_id: &str, part_key: &str) -> StoreResult<Option<StoredAttachment>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {ATTACHMENT_COLUMNS} from form_attachment where form_id = $1 and part_key = $2"
        )))
        .bind(form_id.to_owned())
        .bind(part_key.to_owned())
        .fetch_optional(&self.db.pool)
        .await?;
        Ok(row.as_ref().map(attachment_from_row).transpose()?)
    }

    /// Removes an attachment row and releases its bytes, in one transaction. Answers the removed
    /// attachment and its object when nothing names that any more.
    pub async fn delete_attachment(
        &self,
        form_id: &str,
        part_key: &str,
    ) -> StoreResult<Option<(StoredAttachment, Option<String>)>> {
        let ids = Arc::new((form_id.to_owned(), part_key.to_owned()));
        self.db
            .write(move |conn| {
                let ids = ids.clone();
                Box::pin(async move {
                    let row = sqlx::query(sqlx::AssertSqlSafe(format!(
                    "delete from form_attachment where form_id = $1 and part_key = $2 returning {ATTACHMENT_COLUMNS}"
                )))
                .bind(ids.0.clone())
                .bind(ids.1.clone())
                .fetch_optional(&mut *conn)
                .await?;
                    let Some(row) = row else { return Ok(None) };
                    let attachment = attachment_from_row(&row)?;
                    let freed = blobs::release(conn, &attachment.storage_key).await?;
                    bump_revision(conn, &ids.0).await?;
                    Ok(Some((attachment, freed)))
                })
            })
            .await
    }
}

/// The fields that would hold more files than their cap with `attachments` added: each with that count.
async fn over_caps(
    conn: &mut sqlx::AnyConnection,
    form_id: &str,
    attachments: &[StoredAttachment],
    caps: &[(String, i64)],
) -> Result<Vec<(String, i64)>, sqlx::Error> {
    let rows = sqlx::query("select field_id, count(*) as n from form_attachment where form_id = $1 group by field_id")
        .bind(form_id.to_owned())
        .fetch_all(&mut *conn)
        .await?;
    let mut over = Vec::new();
    for (field_id, cap) in caps {
        let stored = rows
            .iter()
            .find(|row| row.try_get::<String, _>("field_id").is_ok_and(|f| &f == field_id))
            .map(|row| row.try_get::<i64, _>("n"))
            .transpose()?
            .unwrap_or(0);
        let added = attachments.iter().filter(|a| &a.field_id == field_id).count() as i64;
        if added > 0 && stored + added > *cap {
            over.push((field_id.clone(), stored + added));
        }
    }
    Ok(over)
}

async fn insert_attachment(
    conn: &mut sqlx::AnyConnection,
    a: &StoredAttachment,
    uploaded_by: &str,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "insert into form_attachment (part_key, form_id, field_id, content_type, bytes, filename, \
           storage_key, sha256, uploaded_by, created_at) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(a.part_key.clone())
    .bind(a.form_id.clone())
    .bind(a.field_id.clone())
    .bind(a.content_type.clone())
    .bind(a.bytes)
    .bind(a.filename.clone())
    .bind(a.storage_key.clone())
    .bind(a.sha256.clone())
    .bind(uploaded_by.to_owned())
    .bind(to_millis(a.created_at))
    .execute(&mut *conn)
    .await?;
    Ok(())
}
