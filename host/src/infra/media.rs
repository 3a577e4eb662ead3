//! Media bytes: where attachments and avatars are stored, independent of HTTP.
//!
//! The backends (`local`, `s3`) know no database; [`objects`] ties them to the store's record of
//! which objects exist, so that bytes and rows never disagree for long. The rest of the service
//! sees only [`MediaStore`] and opaque [`StorageKey`]s; no path, bucket or key ever leaves the
//! server. Both backends stream: an object is written from a stream of chunks
//! and read back as one, so memory stays flat whatever the size.

pub mod addressing;
mod appender;
pub mod content;
mod limited;
mod local;
pub mod objects;
mod s3;
pub mod sniff;

use std::io;
use std::ops::Range;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use futures::Stream;

pub use limited::{Tripwire, limited};
pub use local::LocalStore;
pub use s3::S3Store;
pub use sniff::{SniffOutcome, judge_type, read_head};

use crate::config::media::{MediaBackend, MediaConfig};

/// Chunks of an object, in order.
pub type ByteStream = Pin<Box<dyn Stream<Item = io::Result<Bytes>> + Send>>;

/// The internal name of a stored object: `<kind>/<uuid>` (lowercase letters, digits, `-`, one `/`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StorageKey(String);

impl StorageKey {
    /// A new, unique key for an object of `kind` (`forms`, `avatars`, `assets`).
    pub fn generate(kind: &'static str) -> Self {
        Self(format!("{kind}/{}", uuid::Uuid::now_v7()))
    }

    /// Accepts only keys this service could have generated, so a key read back from the database
    /// can never address anything outside the store's own namespace.
    pub fn parse(text: &str) -> Option<Self> {
        let (kind, id) = text.split_once('/')?;
        let plain =
            |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        (plain(kind) && plain(id)).then(|| Self(text.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[derive(Debug, thiserror::Error)]
pub enum MediaError {
    /// The object does not exist (its bytes are missing).
    #[error("no such object")]
    NotFound,
    /// The store could not be reached or failed; the detail is for logs only.
    #[error("media store unavailable: {0}")]
    Unavailable(String),
    /// The stream being stored failed (the client went away or a limit tripped).
    #[error("upload stream failed: {0}")]
    Body(io::Error),
}

/// A readable object, or the requested range of it.
pub struct Object {
    /// Bytes `body` yields.
    pub length: u64,
    pub body: ByteStream,
}

/// Where a resumable upload stands: the backend state recorded last and the bytes it holds.
#[derive(Clone, Copy, Debug)]
pub struct Resumable<'a> {
    /// The object the upload becomes once finished.
    pub key: &'a StorageKey,
    /// What the backend recorded last ([`Progress::record`]); opaque to everyone else.
    pub state: &'a str,
    /// Bytes acknowledged so far.
    pub received: u64,
    /// Bytes the whole upload has.
    pub length: u64,
}

/// Records a resumable upload's progress as the backend makes it durable, so that a crash or a
/// dropped connection loses nothing recorded.
#[async_trait::async_trait]
pub trait Progress: Send {
    /// `bytes` follow what the upload held before, in order; the next `record` counts them. Each
    /// byte passes here once over all the writes of an upload (the content's address is hashed
    /// from them), so a backend that sends bytes again (a kept tail) passes only the new ones.
    fn wrote(&mut self, bytes: &[u8]);
    /// The upload now holds `received` bytes, described by `state`. An error ends the write.
    async fn record(&mut self, received: u64, state: &str) -> Result<(), MediaError>;
}

/// An object store. Implementations must make an object visible only once it is complete: a
/// failed or interrupted `put` leaves nothing readable under the key.
#[async_trait::async_trait]
pub trait MediaStore: Send + Sync + 'static {
    /// Stores the stream under `key` and returns its length. When the stream yields an error,
    /// nothing is stored and the error comes back as [`MediaError::Body`].
    async fn put(&self, key: &StorageKey, body: ByteStream) -> Result<u64, MediaError>;
    /// The object's bytes, or the half-open `range` of them (which the caller has checked against
    /// the stored length).
    async fn get(&self, key: &StorageKey, range: Option<Range<u64>>) -> Result<Object, MediaError>;
    /// Removes the object; a missing object is not an error.
    async fn delete(&self, key: &StorageKey) -> Result<(), MediaError>;
    /// Succeeds when the store answers (readiness).
    async fn check(&self) -> Result<(), MediaError>;
    /// The state of a new, empty resumable upload of `key`.
    async fn resumable_begin(&self, key: &StorageKey) -> Result<String, MediaError>;
    /// Appends `body` (at most `length - received` bytes; the caller limits it) to the upload,
    /// recording each durable step through `progress`. What the body gave before it failed is
    /// kept as far as the backend can, and recorded before the error comes back.
    async fn resumable_append(
        &self,
        at: Resumable<'_>,
        body: ByteStream,
        progress: &mut dyn Progress,
    ) -> Result<(), MediaError>;
    /// Makes a fully received upload the object `at.key`; returns the state to record. Safe to
    /// call again after a crash, whether or not the first call got through.
    async fn resumable_finish(&self, at: Resumable<'_>) -> Result<String, MediaError>;
    /// Removes what an unfinished upload holds. Safe to call again.
    async fn resumable_abort(&self, key: &StorageKey, state: &str) -> Result<(), MediaError>;
    /// Clears leftovers of interrupted writes older than `grace` that the backend keeps outside
    /// its objects (temporary files, unfinished multipart uploads), except those of `live` keys
    /// (uploads still announced as running); returns how many.
    async fn remove_stale(
        &self,
        _grace: std::time::Duration,
        _live: &std::collections::HashSet<String>,
    ) -> Result<usize, MediaError> {
        Ok(0)
    }
}

/// Opens the backend the configuration names.
pub fn open(config: &MediaConfig, data_dir: &std::path::Path) -> anyhow::Result<Arc<dyn MediaStore>> {
    Ok(match config.backend {
        MediaBackend::Local => Arc::new(LocalStore::open(&data_dir.join("media"))?),
        MediaBackend::S3 => Arc::new(S3Store::new(&config.s3)?),
    })
}
