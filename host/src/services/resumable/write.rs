//! One write of bytes to a resumable upload, run as a task of its own: the bytes go to the media
//! store, and each durable step is recorded on the upload's row under the write's claim, so a
//! write that lost its claim stops where it stands.

use std::sync::Arc;
use std::time::Duration;

use time::OffsetDateTime;

use crate::error::Error;
use crate::infra::media::content::{ContentHasher, digest_of};
use crate::infra::media::{ByteStream, MediaError, MediaStore, Progress, Resumable, StorageKey};
use crate::store::{Store, StoredUpload, UploadAdvance};

/// One write of bytes to an upload, run as a task.
pub(super) struct Write {
    pub(super) store: Store,
    pub(super) backend: Arc<dyn MediaStore>,
    pub(super) expiry: Duration,
    pub(super) upload: StoredUpload,
    pub(super) offset: u64,
    pub(super) body: ByteStream,
    /// The claim this write holds (see [`ResumableUploads::write`](super::ResumableUploads)).
    pub(super) writer: String,
}

pub(super) enum WriteError {
    /// The row no longer stood where this write started.
    Lost,
    Database(Error),
    Media(MediaError),
}

impl Write {
    /// The upload as it stands after the write.
    pub(super) async fn run(self) -> Result<StoredUpload, WriteError> {
        let Self { store, backend, expiry, mut upload, offset, body, writer } = self;
        let key = StorageKey::parse(&upload.storage_key)
            .ok_or_else(|| WriteError::Database(Error::internal(anyhow::anyhow!("malformed storage key"))))?;
        let length = upload.length.max(0) as u64;
        let mut recorder = Recorder {
            store: store.clone(),
            upload_id: upload.upload_id.clone(),
            from: upload.received,
            state: upload.backend_state.clone(),
            hasher: match (&upload.hash_state, upload.received) {
                (None, 0) => Some(ContentHasher::default()),
                (None, _) => None,
                (Some(state), _) => Some(ContentHasher::resume(Some(state)).map_err(WriteError::Media)?),
            },
            expiry,
            writer: writer.clone(),
            failure: None,
        };
        let at = Resumable { key: &key, state: &upload.backend_state, received: offset, length };
        let appended = backend.resumable_append(at, body, &mut recorder).await;
        if let Some(failure) = recorder.failure.take() {
            return Err(failure);
        }
        appended.map_err(WriteError::Media)?;
        upload.received = recorder.from;
        upload.backend_state = recorder.state.clone();
        upload.expires_at = OffsetDateTime::now_utc() + expiry;
        if upload.received.max(0) as u64 == length && upload.finished_at.is_none() {
            let at = Resumable { key: &key, state: &upload.backend_state, received: length, length };
            let state = backend.resumable_finish(at).await.map_err(WriteError::Media)?;
            let hash_state = recorder.hasher.as_ref().map(ContentHasher::state);
            let sha256 = match recorder.hasher {
                Some(hasher) => hasher.digest(),
                None => digest_of(backend.as_ref(), &key).await.map_err(WriteError::Media)?.0,
            };
            let now = OffsetDateTime::now_utc();
            let advance = UploadAdvance {
                received: upload.received,
                backend_state: state.clone(),
                hash_state,
                sha256: Some(sha256.clone()),
                finished: true,
                at: now,
                expires_at: now + expiry,
                writer,
            };
            if !store.uploads.advance(&upload.upload_id, upload.received, advance).await.map_err(database)? {
                return Err(WriteError::Lost);
            }
            upload.backend_state = state;
            upload.sha256 = Some(sha256);
            upload.finished_at = Some(now);
            upload.expires_at = now + expiry;
        }
        Ok(upload)
    }
}

fn database(error: crate::store::StoreError) -> WriteError {
    WriteError::Database(error.into())
}

/// Records each durable step of a write on the upload's row.
struct Recorder {
    store: Store,
    upload_id: String,
    /// The received count the row holds (as this write last set it).
    from: i64,
    state: String,
    /// The hash of every byte so far; `None` for an upload begun before uploads were hashed,
    /// whose digest is read from its bytes once they are whole.
    hasher: Option<ContentHasher>,
    expiry: Duration,
    writer: String,
    failure: Option<WriteError>,
}

#[async_trait::async_trait]
impl Progress for Recorder {
    fn wrote(&mut self, bytes: &[u8]) {
        if let Some(hasher) = &mut self.hasher {
            hasher.update(bytes);
        }
    }

    async fn record(&mut self, received: u64, state: &str) -> Result<(), MediaError> {
        let now = OffsetDateTime::now_utc();
        let received = i64::try_from(received).unwrap_or(i64::MAX);
        let advance = UploadAdvance {
            received,
            backend_state: state.to_owned(),
            hash_state: self.hasher.as_ref().map(ContentHasher::state),
            sha256: None,
            finished: false,
            at: now,
            expires_at: now + self.expiry,
            writer: self.writer.clone(),
        };
        let failure = match self.store.uploads.advance(&self.upload_id, self.from, advance).await {
            Ok(true) => {
                self.from = received;
                self.state = state.to_owned();
                return Ok(());
            }
            Ok(false) => WriteError::Lost,
            Err(error) => database(error),
        };
        self.failure = Some(failure);
        Err(MediaError::Unavailable("recording an upload's progress failed".into()))
    }
}
