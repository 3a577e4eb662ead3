//! Resumable uploads (tus 1.0.0 at `/v0/media/uploads`, conventions section 14): create, append,
//! read where one stands, terminate, and hand a finished one to the route that uses it.
//!
//! The upload's row is the truth of what was acknowledged. Before any byte reaches the media store a
//! write claims the row at its offset (a compare-and-set in the database, so it holds across
//! servers): a PATCH that read an offset another one has since moved on from is refused there, and
//! can never rewrite acknowledged bytes. The claim is renewed while the write runs and the write
//! stops if a renewal fails, well before the claim could lapse. Bytes go straight to the media store
//! (see `MediaStore::resumable_append`), which records each durable step through [`Recorder`] as a
//! compare-and-set on the row and the claim, so a crash loses nothing acknowledged. A write runs in
//! a task of its own: a client that goes away mid-request still has what arrived recorded, and
//! resumes after it.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::config::media::MediaConfig;
use crate::domain::entitlement::QuotaSubject;
use crate::domain::problems::Problems;
use crate::domain::resumable::{parse_count, parse_metadata};
use crate::error::{Error, ErrorCode, Result};
use crate::infra::media::content::digest_of;
use crate::infra::media::objects::MediaObjects;
use crate::infra::media::{ByteStream, MediaError, MediaStore, StorageKey, limited, read_head};
use crate::store::{OpenUploadBounds, SessionUser, Store, StoredUpload, UPLOAD_KIND};

mod bounds;
mod claims;
mod write;
use claims::{CLAIM, Claim, Writing};
use write::{Write, WriteError};

/// Bytes read from a finished upload to judge its type (more than any signature needs).
const HEAD_BYTES: i64 = 64 * 1024;

/// Where an upload stands, as `HEAD` and every answer tell it.
#[derive(Clone, Debug)]
pub struct UploadStatus {
    pub upload_id: String,
    pub offset: u64,
    pub length: u64,
    /// `Upload-Metadata` as the client sent it.
    pub metadata: String,
    pub expires_at: OffsetDateTime,
}

impl From<&StoredUpload> for UploadStatus {
    fn from(upload: &StoredUpload) -> Self {
        Self {
            upload_id: upload.upload_id.clone(),
            offset: upload.received.max(0) as u64,
            length: upload.length.max(0) as u64,
            metadata: upload.metadata.clone(),
            expires_at: upload.expires_at,
        }
    }
}

/// What a creation request says, as its headers carried it.
pub struct NewUpload<'a> {
    pub length: Option<&'a str>,
    /// Whether `Upload-Defer-Length` was sent (not supported).
    pub defer_length: bool,
    pub metadata: Option<&'a str>,
}

/// Bytes sent with a request: the body and the `Content-Length` it announced.
pub struct SentBytes {
    pub body: ByteStream,
    pub announced: Option<u64>,
}

/// A finished upload about to be used in place of a file part.
pub struct FinishedUpload {
    pub upload_id: String,
    pub storage_key: String,
    pub bytes: u64,
    pub filename: String,
    pub content_type: Option<String>,
    /// The content's address.
    pub sha256: String,
    /// The first bytes, for judging the type.
    pub head: Bytes,
}

pub struct ResumableUploads {
    store: Store,
    objects: MediaObjects,
    backend: Arc<dyn MediaStore>,
    expiry: Duration,
    max_bytes: u64,
    open_bounds: OpenUploadBounds,
    /// Uploads a request of this server is writing: a second writer is refused at once (across
    /// servers the row's compare-and-set refuses it).
    writing: Arc<Mutex<HashSet<String>>>,
}

impl ResumableUploads {
    pub fn new(store: Store, objects: MediaObjects, config: &MediaConfig) -> Self {
        Self {
            backend: objects.backend(),
            store,
            objects,
            expiry: Duration::from_secs(config.upload_expiry_seconds),
            max_bytes: config.max_file_bytes,
            open_bounds: bounds::from_config(config),
            writing: Arc::default(),
        }
    }

    /// The largest upload accepted (`Tus-Max-Size`).
    pub fn max_size(&self) -> u64 {
        self.max_bytes
    }

    /// Creates an upload for `user` under `subject` (the caller's license key or gateway
    /// subscriber), and appends `first` when the request carried bytes (creation-with-upload).
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
    pub async fn create(
        &self,
        user: &SessionUser,
        subject: &QuotaSubject,
        request: NewUpload<'_>,
        first: Option<SentBytes>,
    ) -> Result<UploadStatus> {
        let mut problems = Problems::new();
        if request.defer_length {
            problems.push("header.Upload-Defer-Length", "NOT_SUPPORTED", "send Upload-Length instead");
        }
        let length = match parse_count(request.length) {
            Some(0) => {
                problems.push("header.Upload-Length", "EMPTY_FILE", "must be at least 1: an empty file is refused");
                0
            }
            Some(length) => length,
            None if request.defer_length => 0,
            None => {
                problems.push("header.Upload-Length", "REQUIRED", "the upload's length in bytes, as digits");
                0
            }
        };
        let raw_metadata = request.metadata.unwrap_or_default();
        let metadata = parse_metadata(raw_metadata, &mut problems);
        problems.finish(())?;
        if length > self.max_bytes {
            let mut problems = Problems::new();
            problems.push("header.Upload-Length", "TOO_LARGE", format!("is larger than {} bytes", self.max_bytes));
            return Err(Error::rejected(ErrorCode::PayloadTooLarge, problems));
        }
        if let Some(first) = &first
            && first.announced.is_some_and(|n| n > length)
        {
            return Err(too_much(length));
        }
        let upload_id = Uuid::new_v4().to_string();
        let key = StorageKey::generate(UPLOAD_KIND);
        let state = self.backend.resumable_begin(&key).await.map_err(|e| self.objects.media_error("write", e))?;
        let now = OffsetDateTime::now_utc();
        let row = StoredUpload {
            upload_id: upload_id.clone(),
            owner_id: user.user_id.clone(),
            length: i64::try_from(length).unwrap_or(i64::MAX),
            received: 0,
            metadata: raw_metadata.to_owned(),
            filename: crate::domain::file_names::clean(metadata.filename.as_deref().unwrap_or("file")),
            content_type: metadata.content_type,
            storage_key: key.as_str().to_owned(),
            backend_state: state.clone(),
            hash_state: None,
            sha256: None,
            finished_at: None,
            created_at: now,
            expires_at: now + self.expiry,
        };
        if let Err(refusal) = self.store.uploads.create(row.clone(), subject.as_str(), self.open_bounds).await? {
            // Nothing names the backend's fresh upload: let it go now.
            let _ = self.backend.resumable_abort(&key, &state).await;
            return Err(bounds::refused(refusal, &self.open_bounds));
        }
        match first {
            Some(first) => self.write(row, 0, first).await,
            None => Ok((&row).into()),
        }
    }

    /// Where the caller's upload stands.
    pub async fn status(&self, user: &SessionUser, upload_id: &str) -> Result<UploadStatus> {
        Ok((&self.owned(user, upload_id).await?).into())
    }

    /// Appends the request's bytes at `offset`, which must be where the upload stands.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, upload_id))]
    pub async fn append(
        &self,
        user: &SessionUser,
        upload_id: &str,
        offset: Option<&str>,
        sent: SentBytes,
    ) -> Result<UploadStatus> {
        let upload = self.owned(user, upload_id).await?;
        let Some(offset) = parse_count(offset) else {
            return Err(Error::invalid("header.Upload-Offset", "REQUIRED", "the offset in bytes, as digits"));
        };
        let received = upload.received.max(0) as u64;
        if offset != received {
            return Err(Error::Conflict(Cow::Owned(format!(
                "Upload-Offset is {offset} but the upload holds {received} bytes; HEAD tells where to resume"
            ))));
        }
        let remaining = (upload.length.max(0) as u64).saturating_sub(received);
        if sent.announced.is_some_and(|n| n > remaining) {
            return Err(too_much(remaining));
        }
        self.write(upload, offset, sent).await
    }

    /// Removes the caller's upload and its bytes.
    pub async fn terminate(&self, user: &SessionUser, upload_id: &str) -> Result<()> {
        // An expired upload may be terminated too: the sweeper would remove it anyway.
        let upload = self.own_row(user, upload_id).await?;
        let busy = || Error::Conflict(Cow::Borrowed("a request is writing this upload; try again when it ends"));
        let Some(_guard) = Writing::claim(&self.writing, &upload.upload_id) else { return Err(busy()) };
        // An unfinished upload is claimed like a write before its bytes go (a finished one takes no
        // writes), so a PATCH on any server that read the row a moment ago cannot write into bytes
        // being removed; the claim goes with the row.
        if upload.finished_at.is_none() {
            let now = OffsetDateTime::now_utc();
            let claimed = self.store.uploads.claim(&upload.upload_id, upload.received, "terminate", now + CLAIM, now);
            if !claimed.await? {
                return Err(busy());
            }
        }
        self.remove(&upload).await.map_err(|e| self.objects.media_error("delete", e))
    }

    /// The caller's finished, unexpired upload `upload_id`, with its first bytes; `None` when it is
    /// unknown, another user's, unfinished, expired or used.
    pub async fn finished(&self, user: &SessionUser, upload_id: &str) -> Result<Option<FinishedUpload>> {
        let Some(upload) = self.own_row(user, upload_id).await.ok() else { return Ok(None) };
        let usable = upload.finished_at.is_some() && upload.expires_at > OffsetDateTime::now_utc();
        let Some(key) = StorageKey::parse(&upload.storage_key).filter(|_| usable) else { return Ok(None) };
        let object = self.objects.read(key.as_str(), Some(0..upload.length.clamp(0, HEAD_BYTES) as u64)).await?;
        let (head, _) = read_head(object.body).await.map_err(|_| self.objects.unavailable())?;
        // The stored bytes are read again and must be those the row's digest names: stored-once bytes
        // are found by that digest, so an object that differs from it would be served to everyone
        // who ever uploads the genuine bytes.
        let stored = digest_of(self.backend.as_ref(), &key).await.map_err(|e| self.objects.media_error("read", e))?.0;
        let sha256 = match upload.sha256 {
            Some(sha256) if sha256 != stored => {
                tracing::error!(upload_id = %upload.upload_id, "a finished upload's bytes differ from their recorded digest");
                return Err(Error::Conflict(Cow::Borrowed(
                    "the upload's stored bytes differ from those it acknowledged; upload the file again",
                )));
            }
            Some(sha256) => sha256,
            // Finished before uploads were hashed.
            None => stored,
        };
        Ok(Some(FinishedUpload {
            upload_id: upload.upload_id,
            storage_key: upload.storage_key,
            bytes: upload.length.max(0) as u64,
            filename: upload.filename,
            content_type: upload.content_type,
            sha256,
            head,
        }))
    }

    /// Removes uploads that expired unused; returns how many.
    pub async fn sweep(&self) -> anyhow::Result<usize> {
        // A margin keeps a use that read the upload just before its expiry from racing the removal:
        // a minute, or the expiry itself where uploads live shorter.
        let before = OffsetDateTime::now_utc() - self.expiry.min(Duration::from_secs(60));
        let mut removed = 0;
        loop {
            let expired = self.store.uploads.expired(before, 100).await?;
            let batch = expired.len();
            for upload in expired {
                if let Err(error) = self.remove(&upload).await {
                    tracing::warn!(%error, "removing an expired upload failed; retrying later");
                    return Ok(removed);
                }
                removed += 1;
            }
            if batch < 100 {
                return Ok(removed);
            }
        }
    }

    /// The caller's upload, unless unknown or another user's (404) or expired (410).
    async fn owned(&self, user: &SessionUser, upload_id: &str) -> Result<StoredUpload> {
        let upload = self.own_row(user, upload_id).await?;
        if upload.expires_at <= OffsetDateTime::now_utc() {
            let mut problems = Problems::new();
            problems.push("", "EXPIRED", "the upload expired; create a new one");
            return Err(Error::rejected(ErrorCode::UploadExpired, problems));
        }
        Ok(upload)
    }

    async fn own_row(&self, user: &SessionUser, upload_id: &str) -> Result<StoredUpload> {
        let id = Uuid::try_parse(upload_id).ok().filter(|_| upload_id.len() == 36);
        let Some(id) = id else { return Err(Error::not_found("upload")) };
        match self.store.uploads.find(&id.to_string()).await? {
            Some(upload) if upload.owner_id == user.user_id => Ok(upload),
            _ => Err(Error::not_found("upload")),
        }
    }

    /// Removes an upload's bytes (unfinished or finished), then its row.
    async fn remove(&self, upload: &StoredUpload) -> Result<(), MediaError> {
        if let Some(key) = StorageKey::parse(&upload.storage_key) {
            self.backend.resumable_abort(&key, &upload.backend_state).await?;
            self.backend.delete(&key).await?;
        }
        self.store.uploads.remove(&upload.upload_id).await.map_err(|e| MediaError::Unavailable(e.to_string()))
    }

    /// Why a write from `offset` could not claim the upload, as its answer.
    async fn unclaimed(&self, upload_id: &str, offset: u64) -> Error {
        match self.store.uploads.find(upload_id).await {
            Ok(Some(upload)) if upload.received.max(0) as u64 != offset => Error::Conflict(Cow::Owned(format!(
                "Upload-Offset is {offset} but the upload holds {} bytes; HEAD tells where to resume",
                upload.received
            ))),
            Ok(Some(upload)) if upload.finished_at.is_some() => {
                Error::Conflict(Cow::Borrowed("the upload is complete; it takes no more bytes"))
            }
            Ok(Some(_)) => Error::Conflict(Cow::Borrowed("another request is writing this upload")),
            Ok(None) => Error::not_found("upload"),
            Err(error) => error.into(),
        }
    }

    /// Writes `sent` at `offset` in a task of its own (see the module's comment) and finishes the
    /// upload when it is whole.
    async fn write(&self, upload: StoredUpload, offset: u64, sent: SentBytes) -> Result<UploadStatus> {
        let Some(guard) = Writing::claim(&self.writing, &upload.upload_id) else {
            return Err(Error::Conflict(Cow::Borrowed("another request is writing this upload")));
        };
        if upload.finished_at.is_some() {
            // A complete upload takes no claim: an empty PATCH at its end answers where it stands.
            return empty(sent.body).await.map(|()| (&upload).into()).map_err(|()| too_much(0));
        }
        let writer = Uuid::new_v4().to_string();
        let now = OffsetDateTime::now_utc();
        let from = i64::try_from(offset).unwrap_or(i64::MAX);
        if !self.store.uploads.claim(&upload.upload_id, from, &writer, now + CLAIM, now).await? {
            return Err(self.unclaimed(&upload.upload_id, offset).await);
        }
        let remaining = (upload.length.max(0) as u64).saturating_sub(offset);
        let (body, tripwire) = limited(sent.body, remaining);
        let claim = Claim { store: self.store.clone(), upload_id: upload.upload_id.clone(), writer: writer.clone() };
        let task = Write {
            store: self.store.clone(),
            backend: self.backend.clone(),
            expiry: self.expiry,
            upload,
            offset,
            body,
            writer,
        };
        let outcome = tokio::spawn(async move {
            // A renewal that fails ends the write where it stands: what it recorded is kept.
            let outcome = tokio::select! {
                outcome = task.run() => outcome,
                () = claim.kept() => Err(WriteError::Lost),
            };
            claim.release().await;
            drop(guard);
            outcome
        })
        .await
        .map_err(Error::internal)?;
        match outcome {
            Ok(upload) => Ok((&upload).into()),
            Err(WriteError::Lost) => Err(Error::Conflict(Cow::Borrowed(
                "the upload moved on (or was removed) during the write; HEAD tells where it stands",
            ))),
            Err(WriteError::Database(error)) => Err(error),
            Err(WriteError::Media(MediaError::Body(_))) if tripwire.tripped() => Err(too_much(remaining)),
            Err(WriteError::Media(MediaError::Body(_))) => Err(body_failed()),
            Err(WriteError::Media(error)) => Err(self.objects.media_error("write", error)),
        }
    }
}

/// Reads `body` to its end: `Err` at its first byte.
async fn empty(mut body: ByteStream) -> std::result::Result<(), ()> {
    use futures::StreamExt;
    while let Some(piece) = body.next().await {
        if piece.map_or(true, |bytes| !bytes.is_empty()) {
            return Err(());
        }
    }
    Ok(())
}

fn too_much(remaining: u64) -> Error {
    let mut problems = Problems::new();
    problems.push("", "TOO_LARGE", format!("the body has more bytes than the {remaining} the upload still lacks"));
    Error::rejected(ErrorCode::PayloadTooLarge, problems)
}

fn body_failed() -> Error {
    Error::invalid("", "BODY_FAILED", "the body ended early or was malformed; HEAD tells what was kept")
}
