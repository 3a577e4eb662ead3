//! The S3-compatible backend, through rust-s3.
//!
//! Uploads do not use rust-s3's `put_object_stream`: it sends up to ten 8 MiB parts at once (sized
//! from free system memory) and cannot be aborted by the caller when the upload future is dropped.
//! Here one part is sent while the next is read, so an upload holds about three parts (the one
//! being read, the one being sent and rust-s3's copy of it as the request body) whatever its size.
//!
//! Downloads are a series of ranged GETs fetched as the consumer pulls. One long GET would be
//! simpler, but rust-s3's request timeout covers reading the whole body, so a slow client would
//! trip it on a large object.

use std::collections::HashSet;
use std::io;
use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, ensure};
use bytes::Bytes;
use futures::stream::Fuse;
use futures::{StreamExt, TryFutureExt};
use s3::error::S3Error;
use s3::{Bucket, Region, creds::Credentials};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::{ByteStream, MediaError, MediaStore, Object, Progress, Resumable, StorageKey};
use crate::config::media::S3Config;

/// Size of each multipart part, and the largest object sent in one PUT. S3 wants at least 5 MiB
/// for every part but the last.
const PART_SIZE: usize = 8 * 1024 * 1024;
/// S3's smallest part but the last.
const MIN_PART_SIZE: usize = 5 * 1024 * 1024;
/// S3's limit on parts in one multipart upload.
const MAX_PARTS: u32 = 10_000;
/// Bytes fetched per ranged GET when reading.
const READ_CHUNK: u64 = 4 * 1024 * 1024;
/// Ranged GETs in flight per reader: the next chunk arrives while the client drains this one.
const READ_AHEAD: usize = 2;
/// Objects are served with the Content-Type the database records, not the store's.
const CONTENT_TYPE: &str = "application/octet-stream";

/// Objects in one bucket of an S3-compatible store, named by their storage key.
pub struct S3Store {
    bucket: Arc<Bucket>,
}

impl S3Store {
    /// Configures the client; nothing is sent until the first request (see [`MediaStore::check`]).
    pub fn new(config: &S3Config) -> anyhow::Result<Self> {
        for (value, name) in [
            (&config.endpoint, "endpoint"),
            (&config.region, "region"),
            (&config.bucket, "bucket"),
            (&config.access_key, "access_key"),
            (&config.secret_key, "secret_key"),
        ] {
            ensure!(!value.trim().is_empty(), "media.s3.{name} must be set for the s3 media backend");
        }
        let region = Region::Custom {
            region: config.region.clone(),
            endpoint: config.endpoint.trim_end_matches('/').to_owned(),
        };
        // Both keys always: with `None` rust-s3 would fall back to AWS_* variables or a profile file.
        let credentials = Credentials::new(Some(&config.access_key), Some(&config.secret_key), None, None, None)
            .context("reading the S3 credentials")?;
        let mut bucket = Bucket::new(&config.bucket, region, credentials).context("configuring the S3 bucket")?;
        if config.path_style {
            bucket = bucket.with_path_style();
        }
        bucket.set_request_timeout(Some(Duration::from_secs(config.timeout_seconds.max(1))));
        Ok(Self { bucket: Arc::from(bucket) })
    }

    async fn put_multipart(&self, path: &str, first: Vec<u8>, mut parts: Parts) -> Result<u64, MediaError> {
        let mut upload = PendingUpload::initiate(self.bucket.clone(), path.to_owned()).await?;
        let mut sent = Vec::new();
        let mut total = 0u64;
        let mut part = first;
        loop {
            let number = sent.len() as u32 + 1;
            if number > MAX_PARTS {
                upload.abort().await;
                return Err(MediaError::Body(io::Error::other("object too large for a multipart upload")));
            }
            total += part.len() as u64;
            let last = part.len() < PART_SIZE;
            let send =
                self.bucket.put_multipart_chunk(part, path, number, upload.id(), CONTENT_TYPE).map_err(Failure::Store);
            let read = async { if last { Ok(Vec::new()) } else { parts.next().await.map_err(Failure::Body) } };
            // Whichever fails first ends the upload; the other side is dropped.
            match futures::future::try_join(send, read).await {
                Ok((done, next)) => {
                    sent.push(done);
                    if next.is_empty() {
                        break;
                    }
                    part = next;
                }
                Err(failure) => {
                    upload.abort().await;
                    return Err(match failure {
                        Failure::Body(error) => MediaError::Body(error),
                        Failure::Store(error) => unavailable("upload part", error),
                    });
                }
            }
        }
        match self.bucket.complete_multipart_upload(path, upload.id(), sent).await {
            Ok(_) => {
                upload.upload_id = None;
                Ok(total)
            }
            Err(error) => {
                upload.abort().await;
                // The completion may have reached the store before the error; the key is ours alone.
                let _ = self.bucket.delete_object(path).await;
                Err(unavailable("complete upload", error))
            }
        }
    }
}

#[async_trait::async_trait]
impl MediaStore for S3Store {
    async fn put(&self, key: &StorageKey, body: ByteStream) -> Result<u64, MediaError> {
        let mut parts = Parts { body: body.fuse(), carry: Bytes::new() };
        let first = parts.next().await.map_err(MediaError::Body)?;
        if first.len() < PART_SIZE {
            // The whole stream fit in one part: a plain PUT is atomic on its own.
            let length = first.len() as u64;
            self.bucket.put_object(key.as_str(), &first).await.map_err(|e| unavailable("put", e))?;
            return Ok(length);
        }
        self.put_multipart(key.as_str(), first, parts).await
    }

    async fn get(&self, key: &StorageKey, range: Option<Range<u64>>) -> Result<Object, MediaError> {
        let (head, _) = self.bucket.head_object(key.as_str()).await.map_err(|e| not_found_or("head", e))?;
        let size = head
            .content_length
            .and_then(|length| u64::try_from(length).ok())
            .ok_or_else(|| MediaError::Unavailable("head: no content length".into()))?;
        // The caller checked the range against the recorded length; clamp so `length` stays true.
        let range = range.unwrap_or(0..size);
        let end = range.end.min(size);
        let start = range.start.min(end);
        Ok(Object { length: end - start, body: ranged_body(self.bucket.clone(), key.as_str().to_owned(), start..end) })
    }

    async fn delete(&self, key: &StorageKey) -> Result<(), MediaError> {
        match self.bucket.delete_object(key.as_str()).await {
            Ok(_) => Ok(()),
            Err(error) if is_not_found(&error) => Ok(()),
            Err(error) => Err(unavailable("delete", error)),
        }
    }

    async fn check(&self) -> Result<(), MediaError> {
        self.bucket.list_page(String::new(), None, None, None, Some(1)).await.map_err(|e| unavailable("list", e))?;
        Ok(())
    }

    /// Aborts multipart uploads of ours older than `grace`: a process killed mid-upload never
    /// ran its abort, and the store keeps those parts (invisible, but taking space) for good.
    async fn remove_stale(&self, grace: Duration, live: &HashSet<String>) -> Result<usize, MediaError> {
        let pages = match self.bucket.list_multiparts_uploads(None, None).await {
            Ok(pages) => pages,
            // A store without the listing has nothing this backend could clear.
            Err(S3Error::HttpFailWithBody(501, _)) => return Ok(0),
            Err(error) => return Err(unavailable("list uploads", error)),
        };
        let cutoff = OffsetDateTime::now_utc() - grace;
        let mut aborted = 0;
        for upload in pages.into_iter().flat_map(|page| page.uploads) {
            // The bucket may hold other keys; only names this service generates are its own, and
            // an upload whose announcement is being refreshed is still running.
            let ours = StorageKey::parse(&upload.key).is_some() && !live.contains(&upload.key);
            let stale = OffsetDateTime::parse(&upload.initiated, &Rfc3339).is_ok_and(|at| at < cutoff);
            if !(ours && stale) {
                continue;
            }
            match self.bucket.abort_upload(&upload.key, &upload.id).await {
                Ok(()) => aborted += 1,
                Err(error) if is_not_found(&error) => {}
                Err(error) => return Err(unavailable("abort upload", error)),
            }
        }
        Ok(aborted)
    }

    async fn resumable_begin(&self, key: &StorageKey) -> Result<String, MediaError> {
        let started = self
            .bucket
            .initiate_multipart_upload(key.as_str(), CONTENT_TYPE)
            .await
            .map_err(|e| unavailable("initiate", e))?;
        Ok(ResumableState { upload_id: started.upload_id, ..ResumableState::default() }.to_text())
    }

    /// Each part is up to `PART_SIZE` bytes of the body (after the kept tail). A shorter rest that
    /// is not the upload's end cannot be a part unless it has `MIN_PART_SIZE` bytes: it is kept as
    /// the tail object and sent again, in front of the next bytes, by the next append.
    async fn resumable_append(
        &self,
        at: Resumable<'_>,
        body: ByteStream,
        progress: &mut dyn Progress,
    ) -> Result<(), MediaError> {
        let mut state = ResumableState::parse(at.state)?;
        let path = at.key.as_str();
        let tail_path = tail_of(at.key);
        let carry = if state.tail > 0 {
            // Only the recorded length counts: a crash may have left a longer tail unrecorded.
            fetch_range(&self.bucket, &tail_path, 0..state.tail)
                .await
                .map_err(|e| MediaError::Unavailable(format!("s3 read tail: {e}")))?
        } else {
            Bytes::new()
        };
        let mut parts = Parts { body: body.fuse(), carry };
        // The kept tail went through `progress.wrote` when it was first received.
        let mut passed = at.received;
        loop {
            let (part, failure) = parts.next_keeping().await;
            let ended = part.len() < PART_SIZE || failure.is_some();
            if part.is_empty() {
                return failure.map_or(Ok(()), |e| Err(MediaError::Body(e)));
            }
            let length = part.len() as u64;
            let (start, end) = (state.part_bytes, state.part_bytes + length);
            let completes = end >= at.length;
            // Counted before it is sent: a failed send ends the write, and the next one resumes
            // from the hash state recorded with the last durable step.
            if end > passed {
                progress.wrote(&part[(passed - start) as usize..]);
                passed = end;
            }
            if part.len() >= MIN_PART_SIZE || completes {
                let number = state.parts.len() as u32 + 1;
                if number > MAX_PARTS {
                    return Err(MediaError::Body(io::Error::other("upload too large for a multipart upload")));
                }
                let sent = self
                    .bucket
                    .put_multipart_chunk(part, path, number, &state.upload_id, CONTENT_TYPE)
                    .await
                    .map_err(|e| unavailable("upload part", e))?;
                state.parts.push((sent.part_number, sent.etag));
                state.part_bytes += length;
                state.tail = 0;
            } else {
                self.bucket.put_object(&tail_path, &part).await.map_err(|e| unavailable("put tail", e))?;
                state.tail = length;
            }
            progress.record(state.part_bytes + state.tail, &state.to_text()).await?;
            if let Some(error) = failure {
                return Err(MediaError::Body(error));
            }
            if ended {
                return Ok(());
            }
        }
    }

    async fn resumable_finish(&self, at: Resumable<'_>) -> Result<String, MediaError> {
        let mut state = ResumableState::parse(at.state)?;
        if !state.finished {
            let parts =
                state.parts.iter().map(|(n, etag)| s3::serde_types::Part { part_number: *n, etag: etag.clone() });
            let completed =
                self.bucket.complete_multipart_upload(at.key.as_str(), &state.upload_id, parts.collect()).await;
            if let Err(error) = completed {
                // A completion that got through before a crash leaves the whole object in place.
                let (head, _) = self
                    .bucket
                    .head_object(at.key.as_str())
                    .await
                    .map_err(|_| unavailable("complete upload", error))?;
                if head.content_length.and_then(|l| u64::try_from(l).ok()) != Some(at.length) {
                    return Err(MediaError::Unavailable("s3 complete upload: the object is not whole".into()));
                }
            }
            state.finished = true;
        }
        self.delete(&StorageKey(tail_of(at.key))).await?;
        Ok(state.to_text())
    }

    async fn resumable_abort(&self, key: &StorageKey, state: &str) -> Result<(), MediaError> {
        let state = ResumableState::parse(state)?;
        if !state.finished {
            match self.bucket.abort_upload(key.as_str(), &state.upload_id).await {
                Ok(()) => {}
                Err(error) if is_not_found(&error) => {}
                Err(error) => return Err(unavailable("abort upload", error)),
            }
        }
        self.delete(&StorageKey(tail_of(key))).await
    }
}

/// Where a resumable upload stands on S3: its multipart upload, the parts sent, and how many
/// bytes wait in the tail object.
#[derive(Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResumableState {
    upload_id: String,
    /// `(part number, ETag)`, in order.
    parts: Vec<(u32, String)>,
    part_bytes: u64,
    tail: u64,
    finished: bool,
}

impl ResumableState {
    fn parse(text: &str) -> Result<Self, MediaError> {
        serde_json::from_str(text).map_err(|e| MediaError::Unavailable(format!("a resumable upload's state: {e}")))
    }

    fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// The object holding an upload's bytes that cannot be a part yet.
fn tail_of(key: &StorageKey) -> String {
    format!("{}-tail", key.as_str())
}

/// Cuts the upload stream into parts of exactly `PART_SIZE` bytes (the last one shorter).
struct Parts {
    body: Fuse<ByteStream>,
    /// The rest of a chunk that straddled a part boundary.
    carry: Bytes,
}

impl Parts {
    /// The next part, shorter than `PART_SIZE` only at the end of the stream (empty after it).
    /// A stream error comes back unchanged, so the caller can still downcast it.
    async fn next(&mut self) -> io::Result<Vec<u8>> {
        match self.next_keeping().await {
            (_, Some(error)) => Err(error),
            (part, None) => Ok(part),
        }
    }

    /// Like `next`, but a stream error comes back with the bytes read before it.
    async fn next_keeping(&mut self) -> (Vec<u8>, Option<io::Error>) {
        let mut part = Vec::new();
        loop {
            let take = (PART_SIZE - part.len()).min(self.carry.len());
            part.extend_from_slice(&self.carry.split_to(take));
            if part.len() == PART_SIZE {
                return (part, None);
            }
            match self.body.next().await {
                Some(Ok(chunk)) => self.carry = chunk,
                Some(Err(error)) => return (part, Some(error)),
                None => return (part, None),
            }
        }
    }
}

enum Failure {
    Body(io::Error),
    Store(S3Error),
}

/// A multipart upload that is aborted unless completed, even when the `put` future is dropped
/// (the client went away): its parts are invisible but would otherwise take space for good.
struct PendingUpload {
    bucket: Arc<Bucket>,
    path: String,
    upload_id: Option<String>,
}

impl PendingUpload {
    /// Starts the upload in a task of its own: when the caller is dropped while the store is still
    /// answering, the upload it created is aborted as soon as its id arrives, not left behind.
    async fn initiate(bucket: Arc<Bucket>, path: String) -> Result<Self, MediaError> {
        let (answer, answered) = tokio::sync::oneshot::channel();
        let (task_bucket, task_path) = (bucket.clone(), path.clone());
        tokio::spawn(async move {
            let started = task_bucket.initiate_multipart_upload(&task_path, CONTENT_TYPE).await;
            if let Err(Ok(orphan)) = answer.send(started) {
                abort_upload(&task_bucket, &task_path, &orphan.upload_id).await;
            }
        });
        let started = answered
            .await
            .map_err(|_| MediaError::Unavailable("initiate: the task ended without an answer".into()))?
            .map_err(|e| unavailable("initiate", e))?;
        Ok(Self { bucket, path, upload_id: Some(started.upload_id) })
    }

    fn id(&self) -> &str {
        self.upload_id.as_deref().unwrap_or_default()
    }

    async fn abort(&mut self) {
        if let Some(id) = self.upload_id.take() {
            abort_upload(&self.bucket, &self.path, &id).await;
        }
    }
}

impl Drop for PendingUpload {
    fn drop(&mut self) {
        let (Some(id), Ok(runtime)) = (self.upload_id.take(), tokio::runtime::Handle::try_current()) else {
            return;
        };
        let (bucket, path) = (self.bucket.clone(), std::mem::take(&mut self.path));
        runtime.spawn(async move { abort_upload(&bucket, &path, &id).await });
    }
}

async fn abort_upload(bucket: &Bucket, path: &str, upload_id: &str) {
    if let Err(error) = bucket.abort_upload(path, upload_id).await {
        tracing::warn!(%error, "aborting an unfinished S3 multipart upload failed");
    }
}

/// `range` of the object at `path`, one ranged GET per `READ_CHUNK`, started only as the
/// consumer pulls.
fn ranged_body(bucket: Arc<Bucket>, path: String, range: Range<u64>) -> ByteStream {
    let end = range.end;
    let starts = range.step_by(READ_CHUNK as usize);
    let chunks = futures::stream::iter(starts)
        .map(move |from| {
            let (bucket, path) = (bucket.clone(), path.clone());
            async move { fetch_range(&bucket, &path, from..(from + READ_CHUNK).min(end)).await }
        })
        .buffered(READ_AHEAD);
    Box::pin(chunks)
}

async fn fetch_range(bucket: &Bucket, path: &str, range: Range<u64>) -> io::Result<Bytes> {
    let response = bucket.get_object_range(path, range.start, Some(range.end - 1)).await.map_err(|error| {
        let kind = if is_not_found(&error) { io::ErrorKind::NotFound } else { io::ErrorKind::Other };
        io::Error::new(kind, format!("reading from the S3 store: {error}"))
    })?;
    let bytes = response.into_bytes();
    // A short or full-object answer would silently corrupt the response the client receives.
    if bytes.len() as u64 != range.end - range.start {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the S3 store returned a different range"));
    }
    Ok(bytes)
}

fn is_not_found(error: &S3Error) -> bool {
    matches!(error, S3Error::HttpFailWithBody(404, _))
}

fn not_found_or(operation: &str, error: S3Error) -> MediaError {
    if is_not_found(&error) { MediaError::NotFound } else { unavailable(operation, error) }
}

/// Any other failure (connection refused, timeout, 5xx, refused credentials) makes the store
/// unavailable; the message names the operation and is only logged.
fn unavailable(operation: &str, error: S3Error) -> MediaError {
    MediaError::Unavailable(format!("s3 {operation}: {error}"))
}
