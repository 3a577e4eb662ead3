//! What every upload use case reads: the parts of a multipart request, one at a time, and the
//! receiving of a request's one file part (avatars, published assets). The HTTP edge implements
//! [`PartSource`] over the request body.

use std::sync::Arc;

use futures::StreamExt;

use crate::domain::file_names;
use crate::domain::problems::{Problem, Problems};
use crate::error::{Error, ErrorCode, Result};
use crate::infra::media::objects::{MediaObjects, StageError, StagedObjects, Written};
use crate::infra::media::{ByteStream, StorageKey, read_head};
use crate::services::resumable::{FinishedUpload, ResumableUploads};
use crate::store::SessionUser;

/// One part of a multipart upload, in the order the client sent it. A part with a file name is a
/// file; any other is text.
pub enum Part {
    Text {
        name: String,
        value: String,
    },
    File {
        name: String,
        filename: String,
        content_type: Option<String>,
        body: ByteStream,
    },
    /// A finished resumable upload named in place of a file part (conventions section 14); `None`
    /// when the id named no finished, unexpired, unused upload of the caller's.
    Upload(Option<FinishedUpload>),
}

/// The parts of an upload request, read one at a time (each file's bytes must be consumed or
/// dropped before the next part).
#[async_trait::async_trait]
pub trait PartSource: Send {
    async fn next_part(&mut self) -> Result<Option<Part>>;
    /// What to answer when a file's byte stream failed (request too large, malformed body...).
    fn stream_failure(&self) -> Error;
    /// Lowers the cap of the whole request to what the target can accept; refuses at once a
    /// request announced larger.
    fn limit_to(&mut self, bytes: u64) -> Result<()>;
    /// Moves the problems of a refusal to where this request names its files (the use cases
    /// report them at `/files/i` and `/file`, as a multipart request names them).
    fn relocate(&self, error: Error) -> Error {
        error
    }
}

/// The uploads a JSON body names in place of file parts: `{fieldIds, uploadIds}` for
/// attachments, `{uploadId}` for an asset. Yields each field id, then each upload, as the
/// multipart version yields its parts; problems move from `/files` to `/uploadIds` (from `/file`
/// to `/uploadId`).
pub struct NamedUploads {
    uploads: Arc<ResumableUploads>,
    user: SessionUser,
    field_ids: std::vec::IntoIter<String>,
    upload_ids: std::vec::IntoIter<String>,
    /// `/uploadIds` or `/uploadId`.
    at: &'static str,
}

impl NamedUploads {
    pub fn for_attachments(
        uploads: Arc<ResumableUploads>,
        user: &SessionUser,
        field_ids: Vec<String>,
        upload_ids: Vec<String>,
    ) -> Self {
        let (field_ids, upload_ids) = (field_ids.into_iter(), upload_ids.into_iter());
        Self { uploads, user: user.clone(), field_ids, upload_ids, at: "/uploadIds" }
    }

    pub fn for_asset(uploads: Arc<ResumableUploads>, user: &SessionUser, upload_id: String) -> Self {
        let (field_ids, upload_ids) = (Vec::new().into_iter(), vec![upload_id].into_iter());
        Self { uploads, user: user.clone(), field_ids, upload_ids, at: "/uploadId" }
    }
}

#[async_trait::async_trait]
impl PartSource for NamedUploads {
    async fn next_part(&mut self) -> Result<Option<Part>> {
        if let Some(value) = self.field_ids.next() {
            return Ok(Some(Part::Text { name: "fieldIds".into(), value }));
        }
        match self.upload_ids.next() {
            Some(id) => Ok(Some(Part::Upload(self.uploads.finished(&self.user, &id).await?))),
            None => Ok(None),
        }
    }

    fn stream_failure(&self) -> Error {
        Error::internal(anyhow::anyhow!("a stored upload has no byte stream to fail"))
    }

    fn limit_to(&mut self, _bytes: u64) -> Result<()> {
        Ok(())
    }

    fn relocate(&self, error: Error) -> Error {
        let from = if self.at == "/uploadId" { "/file" } else { "/files" };
        let moved = |path: String| match path.strip_prefix(from) {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("{}{rest}", self.at),
            _ => path,
        };
        match error {
            Error::Validation { message, details } => Error::Validation {
                message: message.replace(from, self.at),
                details: details.into_iter().map(|p| Problem { path: moved(p.path), ..p }).collect(),
            },
            Error::Rejected { code, message, details } => Error::Rejected {
                code,
                message: message.replace(from, self.at),
                details: details.into_iter().map(|p| Problem { path: moved(p.path), ..p }).collect(),
            },
            other => other,
        }
    }
}

/// The problem of an upload id that names nothing usable.
pub const UNKNOWN_UPLOAD: &str = "UNKNOWN_UPLOAD";
pub const UNKNOWN_UPLOAD_MESSAGE: &str = "names no finished, unexpired and unused upload of yours";

/// The name of the one part a single-file upload takes.
pub const FILE_PART: &str = "file";
/// Parts a single-file upload may carry: the file and a few stray ones to report.
const MAX_PARTS: usize = 8;

/// The file of a single-file upload, stored and not yet adopted by a row.
pub struct ReceivedFile {
    pub key: StorageKey,
    pub bytes: u64,
    /// The content's address.
    pub sha256: String,
    /// The type `judge` settled on.
    pub content_type: String,
}

/// Receives the one part named `file` of `source`, staged as an object of `kind` of at most `limit`
/// bytes. `judge` sees the part's declared type, its file name and its first bytes before anything
/// is stored and answers the type to keep (or refuses the file). A second file, an empty one, a
/// missing one and any other part are problems at their places, all listed; a wrong type or too
/// many bytes refuse at once.
pub async fn receive_file_part(
    objects: &MediaObjects,
    staged: &StagedObjects,
    source: &mut dyn PartSource,
    kind: &'static str,
    limit: u64,
    judge: impl Fn(Option<&str>, &str, &[u8]) -> Result<String>,
) -> Result<ReceivedFile> {
    let received = receive_one(objects, staged, &mut *source, kind, limit, judge).await;
    received.map_err(|error| source.relocate(error))
}

async fn receive_one(
    objects: &MediaObjects,
    staged: &StagedObjects,
    source: &mut dyn PartSource,
    kind: &'static str,
    limit: u64,
    judge: impl Fn(Option<&str>, &str, &[u8]) -> Result<String>,
) -> Result<ReceivedFile> {
    let mut problems = Problems::new();
    let mut received = None;
    let mut parts = 0;
    while let Some(part) = source.next_part().await? {
        parts += 1;
        if parts > MAX_PARTS {
            return Err(Error::invalid("", "TOO_MANY_PARTS", "send one part, named file"));
        }
        let is_file = matches!(&part, Part::Upload(_)) || matches!(&part, Part::File { name, .. } if name == FILE_PART);
        if is_file && received.is_some() {
            problems.push("/file", "TOO_MANY_FILES", "send one file");
            continue;
        }
        match part {
            Part::File { name, filename, content_type, body } if name == FILE_PART => {
                if file_names::disguises(&filename) {
                    problems.push("/file", file_names::CODE, file_names::MESSAGE);
                }
                let (head, rest) = read_head(body).await.map_err(|_| source.stream_failure())?;
                if head.is_empty() {
                    problems.push("/file", "EMPTY_FILE", "is empty");
                    continue;
                }
                let content_type = judge(content_type.as_deref(), &filename, &head)?;
                let body: ByteStream = Box::pin(futures::stream::once(async { Ok(head) }).chain(rest));
                match objects.stage(staged, kind, body, limit).await {
                    Ok(written) => {
                        let Written { key, bytes, sha256 } = written;
                        received = Some(ReceivedFile { key, bytes, sha256, content_type })
                    }
                    Err(StageError::TooLarge(limit)) => return Err(too_large("/file", limit)),
                    Err(StageError::Body(_)) => return Err(source.stream_failure()),
                    Err(StageError::Failed(error)) => return Err(error),
                }
            }
            Part::Upload(upload) => {
                let Some(upload) = upload else {
                    problems.push("/file", UNKNOWN_UPLOAD, UNKNOWN_UPLOAD_MESSAGE);
                    continue;
                };
                let content_type = judge(upload.content_type.as_deref(), &upload.filename, &upload.head)?;
                if upload.bytes > limit {
                    return Err(too_large("/file", limit));
                }
                let key = StorageKey::parse(&upload.storage_key)
                    .ok_or_else(|| Error::internal(anyhow::anyhow!("malformed storage key")))?;
                received = Some(ReceivedFile { key, bytes: upload.bytes, sha256: upload.sha256, content_type });
            }
            Part::Text { name, .. } | Part::File { name, .. } => {
                problems.push(format!("/{name}"), "UNKNOWN_PART", "only a file part named file is accepted")
            }
        }
    }
    if received.is_none() && !problems.has_code("EMPTY_FILE") && !problems.has_code(UNKNOWN_UPLOAD) {
        problems.push("/file", "REQUIRED", "a file part named file is required");
    }
    problems.finish(())?;
    received.ok_or_else(|| Error::internal(anyhow::anyhow!("no file was received")))
}

/// A refusal of a file larger than `limit` bytes: 413 with one problem at `path`.
pub fn too_large(path: impl Into<String>, limit: u64) -> Error {
    let mut problems = Problems::new();
    problems.push(path, "TOO_LARGE", format!("is larger than {limit} bytes"));
    Error::rejected(ErrorCode::PayloadTooLarge, problems)
}

/// A refusal of the file's type: 415 with one problem at `/file`.
pub fn wrong_type(code: &str, message: impl Into<String>) -> Error {
    let mut problems = Problems::new();
    problems.push("/file", code, message);
    Error::rejected(ErrorCode::UnsupportedMediaType, problems)
}
