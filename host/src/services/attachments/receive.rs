//! Reading an attachment upload's parts in order: each file pairs by position with a `fieldIds` entry
//! and is staged in the media store as it streams (within its field's cap); a finished resumable upload
//! stands in for a file part.

use futures::StreamExt;

use super::{Attachments, MAX_STRAY_PARTS, Received, Slot, file_field};
use crate::domain::file_names;
use crate::domain::forms::FormConfig;
use crate::domain::problems::Problems;
use crate::error::{Error, Result};
use crate::infra::media::objects::{StageError, StagedObjects};
use crate::infra::media::{ByteStream, read_head};
use crate::services::resumable::FinishedUpload;
use crate::services::uploads::{Part, PartSource, UNKNOWN_UPLOAD, UNKNOWN_UPLOAD_MESSAGE, too_large};

/// What a request's parts gave: the field ids and the files in their order, and the problems found on
/// the way (judged with the rest once every part is read).
pub(super) struct ReceivedParts {
    pub(super) field_ids: Vec<String>,
    pub(super) files: Vec<Slot>,
    pub(super) problems: Problems,
}

/// A file part as it arrives.
struct FilePart {
    filename: String,
    content_type: Option<String>,
    body: ByteStream,
}

impl Attachments {
    /// Reads every part; stops at once for too many parts or files, a file over its cap, or a broken body.
    pub(super) async fn receive(
        &self,
        config: &FormConfig,
        staged: &StagedObjects,
        source: &mut dyn PartSource,
    ) -> Result<ReceivedParts> {
        let mut received = ReceivedParts { field_ids: Vec::new(), files: Vec::new(), problems: Problems::new() };
        // Each file comes with its field id; a few stray parts are reported, not more.
        let max_parts = 2 * self.max_files_per_request + MAX_STRAY_PARTS;
        let mut parts = 0;
        while let Some(part) = source.next_part().await? {
            parts += 1;
            if parts > max_parts {
                return Err(Error::invalid(
                    "",
                    "TOO_MANY_PARTS",
                    format!("one request has at most {max_parts} parts: a fieldIds and a files part per file"),
                ));
            }
            let is_file =
                matches!(&part, Part::Upload(_)) || matches!(&part, Part::File { name, .. } if name == "files");
            if is_file && received.files.len() >= self.max_files_per_request {
                return Err(Error::invalid(
                    "/files",
                    "TOO_MANY_FILES",
                    format!("one request takes at most {} files", self.max_files_per_request),
                ));
            }
            match part {
                Part::Text { name, value } if name == "fieldIds" => received.field_ids.push(value),
                Part::Upload(upload) => received.add_upload(upload),
                Part::Text { name, .. } | Part::File { name, .. } if name != "files" => received.problems.push(
                    format!("/{name}"),
                    "UNKNOWN_PART",
                    "only fieldIds and files parts are accepted",
                ),
                Part::Text { .. } => {
                    received.problems.push("/files", "NOT_A_FILE", "files parts must carry a file (a filename)")
                }
                Part::File { filename, content_type, body, .. } => {
                    let file = FilePart { filename, content_type, body };
                    let slot = self.stage_file(config, staged, &mut received, file, &mut *source).await?;
                    received.files.push(slot);
                }
            }
        }
        Ok(received)
    }

    /// Writes one file part to the staging area, within the cap of the field it pairs with (the largest
    /// of the form while its field id has not come yet; the field's own cap is checked when judged).
    async fn stage_file(
        &self,
        config: &FormConfig,
        staged: &StagedObjects,
        received: &mut ReceivedParts,
        file: FilePart,
        source: &mut dyn PartSource,
    ) -> Result<Slot> {
        let index = received.files.len();
        if file_names::disguises(&file.filename) {
            received.problems.push(format!("/files/{index}"), file_names::CODE, file_names::MESSAGE);
        }
        let field = received.field_ids.get(index).and_then(|id| file_field(config, id));
        let limit = match field {
            Some(field) => self.max_bytes(field),
            None => self.largest_max_bytes(config),
        };
        let (head, rest) = read_head(file.body).await.map_err(|_| source.stream_failure())?;
        if head.is_empty() {
            return Ok(Slot::Empty);
        }
        let first = head.clone();
        let body: ByteStream = Box::pin(futures::stream::once(async move { Ok(first) }).chain(rest));
        let written = match self.objects.stage(staged, "forms", body, limit).await {
            Ok(written) => written,
            Err(StageError::TooLarge(limit)) => return Err(too_large(format!("/files/{index}"), limit)),
            Err(StageError::Body(_)) => return Err(source.stream_failure()),
            Err(StageError::Failed(error)) => return Err(error),
        };
        Ok(Slot::File(Received {
            storage_key: written.key.as_str().to_owned(),
            bytes: written.bytes,
            sha256: written.sha256,
            filename: file_names::clean(&file.filename),
            declared: file.content_type,
            head,
        }))
    }
}

impl ReceivedParts {
    /// A finished resumable upload in place of a file part; one that named none is a problem at its place.
    fn add_upload(&mut self, upload: Option<FinishedUpload>) {
        let Some(upload) = upload else {
            self.problems.push(format!("/files/{}", self.files.len()), UNKNOWN_UPLOAD, UNKNOWN_UPLOAD_MESSAGE);
            self.files.push(Slot::Unknown);
            return;
        };
        self.files.push(Slot::File(Received {
            storage_key: upload.storage_key,
            bytes: upload.bytes,
            sha256: upload.sha256,
            filename: upload.filename,
            declared: upload.content_type,
            head: upload.head,
        }));
    }
}
