//! Writing, reading and removing media objects so that the database and the store agree.
//!
//! Every object is announced in `media_pending` before its bytes are written and adopted by its
//! row in one transaction afterwards (see `store::media`). Whatever fails in between (an error, a
//! client that goes away, a crash) leaves at most an announced object, which [`MediaObjects::sweep`]
//! removes once it is due.

use std::collections::HashSet;
use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use time::OffsetDateTime;

use crate::config::media::MediaConfig;
use crate::error::Error;
use crate::infra::media::content::hashing;
use crate::infra::media::{ByteStream, MediaError, MediaStore, Object, StorageKey, limited};
use crate::store::Store;

#[derive(Clone)]
pub struct MediaObjects {
    store: Store,
    objects: Arc<dyn MediaStore>,
    grace: Duration,
    retry_after_seconds: u64,
    /// Keys this process is writing or about to adopt: its own sweeper never takes them for
    /// abandoned ones, however late a renewal of their announcements runs on a busy machine.
    staging: Arc<Mutex<HashSet<String>>>,
}

/// An object as written.
#[derive(Clone, Debug)]
pub struct Written {
    pub key: StorageKey,
    pub bytes: u64,
    /// The content's address: the SHA-256 of the bytes, lowercase hex.
    pub sha256: String,
}

/// Why an object was not stored.
#[derive(Debug)]
pub enum StageError {
    /// The stream passed the limit (bytes).
    TooLarge(u64),
    /// The stream itself failed: the client went away or sent a malformed body.
    Body(std::io::Error),
    /// The store or the database failed.
    Failed(Error),
}

impl MediaObjects {
    pub fn new(store: Store, objects: Arc<dyn MediaStore>, config: &MediaConfig) -> Self {
        Self {
            store,
            objects,
            grace: Duration::from_secs(config.sweep_grace_seconds),
            retry_after_seconds: config.retry_after_seconds,
            staging: Arc::default(),
        }
    }

    pub fn unavailable(&self) -> Error {
        Error::MediaUnavailable { retry_after_seconds: self.retry_after_seconds }
    }

    /// What a client hears of a failed `operation` (`check`, `read`, `write`), counted in the metrics.
    pub(crate) fn media_error(&self, operation: &'static str, error: MediaError) -> Error {
        match error {
            MediaError::NotFound => {
                crate::infra::metrics::media_error(operation, "missing");
                tracing::error!("stored bytes are missing");
                self.unavailable()
            }
            MediaError::Unavailable(cause) => {
                crate::infra::metrics::media_error(operation, "unavailable");
                tracing::warn!(cause = %cause, "media store unavailable");
                self.unavailable()
            }
            MediaError::Body(error) => Error::internal(error),
        }
    }

    /// Announces and writes one object of `kind`, at most `limit` bytes, hashing it on the way.
    /// On success the object is recorded in `staged`; the caller adopts it with a row (which may
    /// name identical bytes stored before instead) or lets `staged` discard it.
    pub async fn stage(
        &self,
        staged: &StagedObjects,
        kind: &'static str,
        body: ByteStream,
        limit: u64,
    ) -> Result<Written, StageError> {
        let key = StorageKey::generate(kind);
        // Recorded as announced now; the sweeper adds the grace configured when it runs, so a
        // restart with a shorter grace (0 after a crash) clears what the old process left.
        let announced = OffsetDateTime::now_utc();
        self.store.media.media_pending(key.as_str(), announced).await.map_err(|e| StageError::Failed(e.into()))?;
        staged.push(key.clone());
        let (body, tripwire) = limited(body, limit);
        let (body, hash) = hashing(body);
        match self.objects.put(&key, body).await {
            Ok(bytes) => Ok(Written { key, bytes, sha256: hash.digest() }),
            Err(_) if tripwire.tripped() => Err(StageError::TooLarge(limit)),
            Err(MediaError::Body(error)) => Err(StageError::Body(error)),
            Err(other) => Err(StageError::Failed(self.media_error("write", other))),
        }
    }

    /// The backend itself, for the resumable uploads that drive it step by step.
    pub(crate) fn backend(&self) -> Arc<dyn MediaStore> {
        self.objects.clone()
    }

    /// Whether the store answers (readiness).
    pub async fn check(&self) -> Result<(), Error> {
        self.objects.check().await.map_err(|e| self.media_error("check", e))
    }

    /// The bytes of a stored object (or a range of them).
    pub async fn read(&self, key: &str, range: Option<Range<u64>>) -> Result<Object, Error> {
        let key = StorageKey::parse(key).ok_or_else(|| Error::internal(anyhow::anyhow!("malformed storage key")))?;
        self.objects.get(&key, range).await.map_err(|e| self.media_error("read", e))
    }

    /// Removes objects a change left without a name (their keys as stored) now; they are queued
    /// for the sweeper already, which removes what fails here.
    pub async fn discard_freed(&self, keys: impl IntoIterator<Item = String>) {
        let keys: Vec<StorageKey> = keys.into_iter().filter_map(|k| StorageKey::parse(&k)).collect();
        if !keys.is_empty() {
            self.discard(keys).await;
        }
    }

    /// As [`MediaObjects::discard_freed`], in the background: an upload whose bytes were held
    /// already answers without waiting for its copy (up to a whole file) to be removed.
    pub fn discard_freed_later(&self, keys: impl IntoIterator<Item = String>) {
        let keys: Vec<String> = keys.into_iter().collect();
        if keys.is_empty() {
            return;
        }
        let objects = self.clone();
        tokio::spawn(async move { objects.discard_freed(keys).await });
    }

    /// Removes objects now; what cannot be removed stays announced for the sweeper.
    pub async fn discard(&self, keys: Vec<StorageKey>) {
        let mut removed = Vec::new();
        for key in keys {
            match self.objects.delete(&key).await {
                Ok(()) => removed.push(key.as_str().to_owned()),
                Err(error) => {
                    crate::infra::metrics::media_error("delete", "unavailable");
                    tracing::warn!(error = %error, "could not remove media now; the sweeper will")
                }
            }
        }
        if !removed.is_empty()
            && let Err(error) = self.store.media.media_forget(removed).await
        {
            tracing::warn!(error = %error, "could not forget removed media");
        }
    }

    /// Removes due objects: uploads whose row never committed and bytes orphaned by deletes.
    /// Returns how many were removed.
    pub async fn sweep(&self) -> anyhow::Result<usize> {
        let cutoff = OffsetDateTime::now_utc() - self.grace;
        let mut live: HashSet<String> = self.store.media.media_announced_since(cutoff).await?.into_iter().collect();
        // Resumable uploads live as long as their rows; they expire on their own clock.
        live.extend(self.store.uploads.keys().await?);
        live.extend(self.staging_now());
        let mut total = self.objects.remove_stale(self.grace, &live).await?;
        loop {
            let due = self.store.media.media_due(cutoff, 500).await?;
            let batch = due.len();
            // Renewed rather than skipped, so that the next batch does not find them again.
            let staging = self.staging_now();
            let (writing, due): (Vec<String>, Vec<String>) = due.into_iter().partition(|k| staging.contains(k));
            if !writing.is_empty() {
                self.store.media.media_renew(writing, OffsetDateTime::now_utc()).await?;
            }
            let keys: Vec<StorageKey> = due.iter().filter_map(|k| StorageKey::parse(k)).collect();
            let mut removed = Vec::new();
            for key in keys {
                match self.objects.delete(&key).await {
                    Ok(()) => removed.push(key.as_str().to_owned()),
                    Err(error) => {
                        tracing::warn!(error = %error, "sweeping media failed; retrying later");
                        self.store.media.media_forget(removed.clone()).await?;
                        return Ok(total + removed.len());
                    }
                }
            }
            // Malformed keys cannot name an object; forget them too.
            let malformed: Vec<String> = due.into_iter().filter(|k| StorageKey::parse(k).is_none()).collect();
            total += removed.len();
            removed.extend(malformed);
            self.store.media.media_forget(removed).await?;
            if batch < 500 {
                return Ok(total);
            }
        }
    }

    fn staging_now(&self) -> HashSet<String> {
        self.staging.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// A set of staged objects to adopt or discard.
    pub fn staging(&self) -> StagedObjects {
        StagedObjects {
            objects: self.clone(),
            keys: Arc::new(Mutex::new(Vec::new())),
            renewal: OnceLock::new(),
            adopted: false,
        }
    }

    /// Renews the announcements of `keys` every quarter of the sweeper's grace until aborted, so
    /// that an object whose writing (or whose row) takes longer than the grace is never taken for
    /// an abandoned one: on a timer, because a backend may pause reading the body for a while
    /// (an S3 part being sent) and the row comes after the last byte.
    fn keep_announced(&self, keys: Arc<Mutex<Vec<StorageKey>>>) -> tokio::task::AbortHandle {
        let every = (self.grace / 4).clamp(Duration::from_millis(100), Duration::from_secs(600));
        let store = self.store.clone();
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            ticks.tick().await;
            loop {
                ticks.tick().await;
                let keys: Vec<String> =
                    keys.lock().unwrap_or_else(|e| e.into_inner()).iter().map(|k| k.as_str().to_owned()).collect();
                if let Err(error) = store.media.media_renew(keys, OffsetDateTime::now_utc()).await {
                    tracing::warn!(error = %error, "renewing the announcements of uploads failed");
                }
            }
        })
        .abort_handle()
    }
}

/// Objects written for one request. Dropped without [`StagedObjects::adopted`] (an error, or a
/// client that went away and cancelled the handler), it removes them in the background.
pub struct StagedObjects {
    objects: MediaObjects,
    keys: Arc<Mutex<Vec<StorageKey>>>,
    /// Keeps the announcements fresh while the objects wait for their rows.
    renewal: OnceLock<tokio::task::AbortHandle>,
    adopted: bool,
}

impl StagedObjects {
    fn push(&self, key: StorageKey) {
        self.objects.staging.lock().unwrap_or_else(|e| e.into_inner()).insert(key.as_str().to_owned());
        self.keys.lock().unwrap_or_else(|e| e.into_inner()).push(key);
        self.renewal.get_or_init(|| self.objects.keep_announced(self.keys.clone()));
    }

    /// Their rows have committed: keep them.
    pub fn adopted(mut self) {
        self.adopted = true;
    }
}

impl Drop for StagedObjects {
    fn drop(&mut self) {
        if let Some(renewal) = self.renewal.get() {
            renewal.abort();
        }
        {
            let keys = self.keys.lock().unwrap_or_else(|e| e.into_inner());
            let mut staging = self.objects.staging.lock().unwrap_or_else(|e| e.into_inner());
            for key in keys.iter() {
                staging.remove(key.as_str());
            }
        }
        if self.adopted {
            return;
        }
        let keys = std::mem::take(&mut *self.keys.lock().unwrap_or_else(|e| e.into_inner()));
        if keys.is_empty() {
            return;
        }
        let objects = self.objects.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { objects.discard(keys).await });
        }
    }
}
