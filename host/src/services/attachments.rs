//! Form attachments (interface "Form attachments (media)", conventions 8 and 11): upload all or
//! nothing, read back, remove.

use std::sync::Arc;

use bytes::Bytes;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::config::media::MediaConfig;
use crate::domain::entitlement::Entitlement;
use crate::domain::forms::{Field, FieldType, FormConfig};
use crate::domain::problems::Problems;
use crate::domain::workflows::{Shown, View, editable_in_view, visible_in_view};
use crate::error::{Error, ErrorCode, Result};
use crate::infra::media::objects::MediaObjects;
use crate::infra::media::{Object, SniffOutcome, judge_type};
use crate::infra::quotas;
pub use crate::services::form_instances::Attachment;
use crate::services::form_instances::{FormInstances, Instance};
use crate::services::instance_access::InstanceAccess;
use crate::services::licenses::Caller;
use crate::services::uploads::{PartSource, UNKNOWN_UPLOAD, UNKNOWN_UPLOAD_MESSAGE};
use crate::services::workflow_items::{Access, WorkflowItems};
use crate::store::{AttachRefusal, SessionUser, Store, StoredAttachment};

mod receive;

/// Parts beyond a `fieldIds` and a `files` part per file that a request may carry (to be reported).
const MAX_STRAY_PARTS: usize = 8;
/// Room for one part's boundary and headers when a request's cap is derived from its form.
const PART_FRAMING_BYTES: u64 = 4 * 1024;

pub struct Attachments {
    store: Store,
    objects: MediaObjects,
    instances: Arc<FormInstances>,
    workflow_items: Arc<WorkflowItems>,
    access: Arc<InstanceAccess>,
    default_max_file_bytes: u64,
    max_files_per_request: usize,
    max_request_bytes: u64,
    max_file_bytes: u64,
}

/// The instance an upload or removal acts on, and the view it acts through (if any).
struct Target {
    instance: Instance,
    view: Option<View>,
    /// Read without a view by a view holder: the fields whose files they see (conventions 13).
    shown: Option<Shown>,
}

/// What a request's file became: stored (not yet recorded), empty, or an upload id naming nothing
/// usable (already reported).
enum Slot {
    File(Received),
    Empty,
    Unknown,
}

/// A file that was written to the store (or finished as a resumable upload), not yet recorded.
struct Received {
    storage_key: String,
    bytes: u64,
    sha256: String,
    filename: String,
    declared: Option<String>,
    head: Bytes,
}

impl Attachments {
    pub fn new(
        store: Store,
        objects: MediaObjects,
        instances: Arc<FormInstances>,
        workflow_items: Arc<WorkflowItems>,
        access: Arc<InstanceAccess>,
        config: &MediaConfig,
    ) -> Self {
        Self {
            store,
            objects,
            instances,
            workflow_items,
            access,
            default_max_file_bytes: config.default_max_file_bytes,
            max_files_per_request: config.max_files_per_request,
            max_request_bytes: config.max_request_bytes,
            max_file_bytes: config.max_file_bytes,
        }
    }

    /// The most bytes one upload request may carry (`media.max_request_bytes`); a form's own cap is
    /// narrower once its parts are read.
    pub fn max_request_bytes(&self) -> u64 {
        self.max_request_bytes
    }

    /// Stores every file of the request against its field, or nothing.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, form_id))]
    pub async fn upload(
        &self,
        user: &SessionUser,
        caller: &Caller,
        form_id: &str,
        access: Access<'_>,
        source: &mut dyn PartSource,
    ) -> Result<Vec<Attachment>> {
        let uploaded = self.upload_parts(user, caller, form_id, access, &mut *source).await;
        uploaded.map_err(|error| source.relocate(error))
    }

    async fn upload_parts(
        &self,
        user: &SessionUser,
        caller: &Caller,
        form_id: &str,
        access: Access<'_>,
        source: &mut dyn PartSource,
    ) -> Result<Vec<Attachment>> {
        let target = self.target(user, form_id, access, true).await?;
        let caller = &caller.spending(&user.user_id);
        let config = target.instance.configuration.parsed.clone();
        source.limit_to(self.request_cap(&config))?;
        let staged = self.objects.staging();
        let received = self.receive(&config, &staged, source).await?;
        let records = self.judge(&target, &config, &received.field_ids, &received.files, received.problems)?;
        let count = records.len() as u64;
        let bytes = records.iter().map(|r| r.bytes.max(0) as u64).sum::<u64>();
        quotas::take_all(
            &self.store,
            caller,
            &[(Entitlement::FormUploads, count), (Entitlement::FormUploadBytes, bytes)],
        )
        .await?;
        let caps = caps_of(&config, &records);
        let stored =
            self.store.media.insert_attachments(&target.instance.stored.form_id, &user.user_id, records, caps).await;
        let refusal = match stored {
            Ok(Ok((stored, freed))) => {
                staged.adopted();
                // Bytes already stored under another attachment's name: the fresh copy goes.
                self.objects.discard_freed_later(freed);
                return Ok(stored.into_iter().map(Attachment::from).collect());
            }
            Ok(Err(refusal)) => refusal_error(refusal, &received.field_ids, &received.files),
            Err(error) => error.into(),
        };
        quotas::refund(&self.store, caller, Entitlement::FormUploads, count).await?;
        quotas::refund(&self.store, caller, Entitlement::FormUploadBytes, bytes).await?;
        Err(refusal)
    }

    /// Checks every pairing and file; the records to write when all pass.
    fn judge(
        &self,
        target: &Target,
        config: &FormConfig,
        field_ids: &[String],
        files: &[Slot],
        mut problems: Problems,
    ) -> Result<Vec<StoredAttachment>> {
        check_pairing(target, config, field_ids, files, &mut problems);
        if !problems.is_empty() {
            return Err(problems.into());
        }
        let mut too_large = Problems::new();
        let mut wrong_type = Problems::new();
        let mut records = Vec::new();
        let now = OffsetDateTime::now_utc();
        for (index, (id, file)) in field_ids.iter().zip(files).enumerate() {
            let (Some(field), Slot::File(file)) = (file_field(config, id), file) else { continue };
            let limit = self.max_bytes(field);
            if file.bytes > limit {
                too_large.push(format!("/files/{index}"), "TOO_LARGE", format!("is larger than {limit} bytes"));
                continue;
            }
            let content_type = match judge_type(file.declared.as_deref(), &file.filename, &file.head) {
                SniffOutcome::Agreed(content_type) => content_type,
                SniffOutcome::Mismatch { claimed, sniffed } => {
                    let found = sniffed.as_deref().unwrap_or("no known signature");
                    wrong_type.push(
                        format!("/files/{index}"),
                        "TYPE_MISMATCH",
                        format!("claims {claimed} but its bytes show {found}"),
                    );
                    continue;
                }
            };
            let rule = field.file.clone().unwrap_or_default();
            if !rule.accepts(&content_type, &file.filename) {
                wrong_type.push(
                    format!("/files/{index}"),
                    "NOT_ACCEPTED",
                    format!("{content_type} ({}) is not accepted by the field", file.filename),
                );
                continue;
            }
            records.push(StoredAttachment {
                part_key: Uuid::new_v4().simple().to_string(),
                form_id: target.instance.stored.form_id.clone(),
                field_id: field.id.to_string(),
                content_type,
                bytes: file.bytes as i64,
                filename: file.filename.clone(),
                storage_key: file.storage_key.clone(),
                sha256: Some(file.sha256.clone()),
                created_at: now,
            });
        }
        if !too_large.is_empty() {
            return Err(Error::rejected(ErrorCode::PayloadTooLarge, too_large));
        }
        if !wrong_type.is_empty() {
            return Err(Error::rejected(ErrorCode::UnsupportedMediaType, wrong_type));
        }
        Ok(records)
    }

    /// The instance if the caller may act on it this way: its creator, or (with both workflow
    /// parameters) a holder of a view that shows the item. `edit` also requires the creator
    /// acting without a view, or a view at all.
    async fn target(&self, user: &SessionUser, form_id: &str, access: Access<'_>, edit: bool) -> Result<Target> {
        match (access.workflow_configuration_id, access.view_id) {
            (Some(_), Some(_)) => {
                let item = self.workflow_items.reach(user, form_id, access).await?;
                Ok(Target { instance: item.instance, view: item.view, shown: None })
            }
            (None, None) if edit => {
                Ok(Target { instance: self.instances.readable(user, form_id).await?, view: None, shown: None })
            }
            (None, None) => {
                let readable = self.access.readable_form(user, form_id).await?;
                Ok(Target { instance: readable.instance, view: None, shown: readable.shown })
            }
            (Some(_), None) => Err(Error::invalid(
                "workflowViewId",
                "REQUIRED",
                "workflowConfigurationId and workflowViewId go together",
            )),
            (None, Some(_)) => Err(Error::invalid(
                "workflowConfigurationId",
                "REQUIRED",
                "workflowConfigurationId and workflowViewId go together",
            )),
        }
    }

    /// An attachment the caller may read, and its bytes (or the half-open `range`).
    pub async fn open(
        &self,
        user: &SessionUser,
        form_id: &str,
        part_key: &str,
        access: Access<'_>,
    ) -> Result<Attachment> {
        let target = self.target(user, form_id, access, false).await?;
        let attachment = self
            .store
            .media
            .attachment(&target.instance.stored.form_id, part_key)
            .await?
            .ok_or_else(|| Error::not_found("attachment"))?;
        let config = &target.instance.configuration.parsed;
        let visible = match (&target.view, &target.shown) {
            (Some(view), _) => {
                file_field(config, &attachment.field_id).is_some_and(|f| visible_in_view(view, config, f))
            }
            (None, Some(shown)) => shown.shows_field(&attachment.field_id),
            (None, None) => true,
        };
        if !visible {
            return Err(Error::not_found("attachment"));
        }
        Ok(attachment.into())
    }

    pub async fn bytes(&self, attachment: &Attachment, range: Option<std::ops::Range<u64>>) -> Result<Object> {
        self.objects.read(&attachment.storage_key, range).await
    }

    /// Removes an attachment of `field_id` and then its bytes.
    pub async fn remove(
        &self,
        user: &SessionUser,
        form_id: &str,
        part_key: &str,
        field_id: Option<&str>,
        access: Access<'_>,
    ) -> Result<()> {
        let Some(field_id) = field_id else {
            return Err(Error::invalid("fieldId", "REQUIRED", "names the field the part belongs to"));
        };
        let target = self.target(user, form_id, access, true).await?;
        let config = &target.instance.configuration.parsed;
        let form_id = &target.instance.stored.form_id;
        let attachment = self.store.media.attachment(form_id, part_key).await?;
        let Some(attachment) = attachment.filter(|a| a.field_id.eq_ignore_ascii_case(field_id)) else {
            return Err(Error::not_found("attachment"));
        };
        if let Some(view) = &target.view {
            let editable = file_field(config, &attachment.field_id).is_some_and(|f| editable_in_view(view, config, f));
            if !editable {
                return Err(Error::invalid("fieldId", "NOT_EDITABLE", "is not an editable field of this view"));
            }
        }
        if let Some((_, freed)) = self.store.media.delete_attachment(form_id, part_key).await? {
            self.objects.discard_freed(freed).await;
        }
        Ok(())
    }

    /// A field's cap: its `file.maxBytes` (else the deployment's default), never above the
    /// deployment's ceiling `media.max_file_bytes`.
    fn max_bytes(&self, field: &Field) -> u64 {
        field
            .file
            .as_ref()
            .and_then(|rule| rule.max_bytes)
            .unwrap_or(self.default_max_file_bytes)
            .min(self.max_file_bytes)
    }

    /// The most a request to an instance of `config` can carry: each file field's cap times the
    /// files it may take in one request, plus room for the multipart framing; never more than the
    /// deployment's request cap.
    fn request_cap(&self, config: &FormConfig) -> u64 {
        let files = self.max_files_per_request as u64;
        let payload: u64 = config
            .fields()
            .filter(|f| f.kind == FieldType::File)
            .map(|f| {
                let count = f.file.as_ref().and_then(|rule| rule.max_attachments()).unwrap_or(files).min(files);
                self.max_bytes(f).saturating_mul(count)
            })
            .fold(0, u64::saturating_add);
        let framing = (2 * files + MAX_STRAY_PARTS as u64) * PART_FRAMING_BYTES;
        payload.saturating_add(framing).min(self.max_request_bytes)
    }

    fn largest_max_bytes(&self, config: &FormConfig) -> u64 {
        config.fields().filter(|f| f.kind == FieldType::File).map(|f| self.max_bytes(f)).max().unwrap_or(0)
    }
}

fn file_field<'a>(config: &'a FormConfig, id: &str) -> Option<&'a Field> {
    let id = Uuid::try_parse(id).ok()?;
    config.field(&id).filter(|f| f.kind == FieldType::File)
}

/// For each field receiving files, the most it may hold.
fn caps_of(config: &FormConfig, records: &[StoredAttachment]) -> Vec<(String, i64)> {
    let mut caps: Vec<(String, i64)> = Vec::new();
    for record in records {
        if caps.iter().any(|(id, _)| id == &record.field_id) {
            continue;
        }
        let cap = file_field(config, &record.field_id)
            .and_then(|f| f.file.clone().unwrap_or_default().max_attachments())
            .map(|n| i64::try_from(n).unwrap_or(i64::MAX));
        if let Some(cap) = cap {
            caps.push((record.field_id.clone(), cap));
        }
    }
    caps
}

/// `field_ids` as sent, so a problem points at the first entry naming the field.
fn refusal_error(refusal: AttachRefusal, field_ids: &[String], files: &[Slot]) -> Error {
    match refusal {
        AttachRefusal::NoInstance => Error::not_found("form"),
        AttachRefusal::UploadGone(key) => {
            let named = |slot: &Slot| matches!(slot, Slot::File(file) if file.storage_key == key);
            let index = files.iter().position(named).unwrap_or(0);
            Error::invalid(format!("/files/{index}"), UNKNOWN_UPLOAD, UNKNOWN_UPLOAD_MESSAGE)
        }
        AttachRefusal::TooManyFiles(fields) => {
            let mut problems = Problems::new();
            for (field_id, would_hold) in fields {
                let index = field_ids
                    .iter()
                    .position(|sent| Uuid::try_parse(sent).is_ok_and(|id| id.to_string() == field_id))
                    .unwrap_or(0);
                problems.push(
                    format!("/fieldIds/{index}"),
                    "MAX_FILES_EXCEEDED",
                    format!("the field would hold {would_hold} files, more than it allows"),
                );
            }
            Error::rejected(ErrorCode::MaxFilesExceeded, problems)
        }
    }
}

/// Each file pairs with a file field (editable in the view, when one is used) by position, and none is
/// empty.
fn check_pairing(target: &Target, config: &FormConfig, field_ids: &[String], files: &[Slot], problems: &mut Problems) {
    if files.is_empty() {
        problems.push("/files", "REQUIRED", "at least one file is required");
    }
    if field_ids.len() != files.len() {
        problems.push(
            "/fieldIds",
            "COUNT_MISMATCH",
            format!("has {} entries but files has {}; they pair by position", field_ids.len(), files.len()),
        );
    }
    for (index, id) in field_ids.iter().enumerate() {
        let path = format!("/fieldIds/{index}");
        let field = Uuid::try_parse(id).ok().filter(|_| id.len() == 36).and_then(|id| config.field(&id));
        match field {
            None => problems.push(path, "UNKNOWN_FIELD", "is not a field id of this form's configuration"),
            Some(field) if field.kind != FieldType::File => {
                problems.push(path, "NOT_A_FILE_FIELD", "is not a file field")
            }
            Some(field) if target.view.as_ref().is_some_and(|v| !editable_in_view(v, config, field)) => {
                problems.push(path, "NOT_EDITABLE", "is not an editable field of this view")
            }
            Some(_) => {}
        }
    }
    for (index, file) in files.iter().enumerate() {
        if matches!(file, Slot::Empty) {
            problems.push(format!("/files/{index}"), "EMPTY_FILE", "is empty");
        }
    }
}
