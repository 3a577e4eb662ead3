//! `GET /v0/forms/export` and `GET /v0/workflows/items/export` (conventions section 14): the
//! body is written page by page as the use case hands pages out, and the next page is read only
//! when hyper asks for more, that is when the client has taken the last one.

use std::io;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde::Deserialize;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use utoipa::IntoParams;

use crate::domain::export::{self as rules, ExportFormat};
use crate::domain::forms::{Field, FieldType};
use crate::domain::problems::Problems;
use crate::domain::timestamp;
use crate::domain::workflows::DetailField;
use crate::http::error::{ApiResult, ErrorEnvelope};
use crate::http::extract::{ApiQuery, AuthUser};
use crate::http::forms::instances::{InstanceView, id_filter};
use crate::http::forms::parse_states;
use crate::http::workflows::items::ItemDetail;
use crate::services::attachments::Attachment;
use crate::services::export::{ExportedItem, Exports, FormExport, FormExportRequest, ItemExport, ItemExportRequest};
use crate::services::form_instances::FormRecord;

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct FormExportQuery {
    /// `jsonl` (the default): one instance per line as `GET /v0/forms/{formId}` answers it; `csv`: a header
    /// row, then one row per instance with a column per field of the one configuration named.
    #[param(pattern = "^(jsonl|csv)$")]
    format: Option<String>,
    /// A UUID; required for `csv`.
    #[param(pattern = "^\\s*(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})?\\s*$")]
    configuration_id: Option<String>,
    /// Comma-separated: DRAFT, SUBMITTED.
    #[param(pattern = "^\\s*(?:(?:DRAFT|SUBMITTED)\\s*)?(?:,\\s*(?:(?:DRAFT|SUBMITTED)\\s*)?)*$")]
    states: Option<String>,
    /// RFC 3339: only instances changed at or after this time.
    #[param(format = DateTime)]
    updated_since: Option<String>,
}

/// Every form instance the caller may read (their own, those of workflows they created, and those the views
/// they hold show, reduced to what those show), streamed as JSON lines or CSV.
#[utoipa::path(get, path = "/v0/forms/export", tag = "forms", params(FormExportQuery),
    security(("session" = [], "license" = [])),
    responses(
        (status = 200, description = "The instances, written as they are read; `Content-Disposition: attachment`",
            content((String = "application/jsonl"), (String = "text/csv"))),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED at the query parameter"),
        (status = 429, body = ErrorEnvelope, description = "RATE_LIMITED: the caller runs `export.max_running_per_user` exports"),
        (status = 503, body = ErrorEnvelope, description = "SERVICE_UNAVAILABLE: the server runs `export.max_running` exports")))]
pub async fn export_forms(
    State(exports): State<Arc<Exports>>,
    AuthUser(user): AuthUser,
    ApiQuery(query): ApiQuery<FormExportQuery>,
) -> ApiResult<Response> {
    let mut problems = Problems::new();
    let format = parse_format(query.format.as_deref(), &mut problems);
    let configuration_id = id_filter(query.configuration_id.as_deref(), "query.configurationId", &mut problems);
    let states = parse_states(query.states.as_deref(), &["DRAFT", "SUBMITTED"], &mut problems);
    let updated_since = parse_time(query.updated_since.as_deref(), "query.updatedSince", &mut problems);
    if let Some(format) = format {
        // A malformed id has its own problem already.
        let named = query.configuration_id.as_deref().is_some_and(|c| !c.trim().is_empty());
        rules::check_configuration(format, named, "query.configurationId", &mut problems);
    }
    problems.finish(())?;
    let format = format.unwrap_or(ExportFormat::JsonLines);
    let request = FormExportRequest { format, configuration_id, states, updated_since };
    let export = exports.forms(&user, request).await?;
    let fields = export.csv_fields();
    let rows = FormRows { export, format, fields };
    Ok(stream_response(rows, format, "forms"))
}

#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct ItemExportQuery {
    #[param(required = true, nullable = false, min_length = 1)]
    workflow_configuration_id: Option<String>,
    /// The view whose items are exported; the caller holds its permission slot (or created the workflow).
    #[param(required = true, nullable = false, min_length = 1)]
    workflow_view_id: Option<String>,
    /// `jsonl` (the default): one item per line as `GET /v0/workflows/items/{itemId}` answers it through the
    /// view; `csv`: a header row, then one row per item of the one configuration named, a column per detail
    /// field the view shows.
    #[param(pattern = "^(jsonl|csv)$")]
    format: Option<String>,
    /// Only items of this form configuration; required for `csv`.
    #[param(pattern = "^\\s*(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})?\\s*$")]
    configuration_id: Option<String>,
    /// Language of labels; the default language fills gaps.
    language: Option<String>,
}

/// The items of a view the caller holds, reduced to what the view shows, streamed as JSON lines or CSV.
#[utoipa::path(get, path = "/v0/workflows/items/export", tag = "workflows", params(ItemExportQuery),
    security(("session" = [], "license" = [])),
    responses(
        (status = 200, description = "The items, written as they are read; `Content-Disposition: attachment`",
            content((String = "application/jsonl"), (String = "text/csv"))),
        (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED at the query parameter"),
        (status = 404, body = ErrorEnvelope, description = "NOT_FOUND: no such view the caller holds"),
        (status = 429, body = ErrorEnvelope, description = "RATE_LIMITED: the caller runs `export.max_running_per_user` exports"),
        (status = 503, body = ErrorEnvelope, description = "SERVICE_UNAVAILABLE: the server runs `export.max_running` exports")))]
pub async fn export_items(
    State(exports): State<Arc<Exports>>,
    AuthUser(user): AuthUser,
    ApiQuery(query): ApiQuery<ItemExportQuery>,
) -> ApiResult<Response> {
    let mut problems = Problems::new();
    let workflow_id = problems.required("query.workflowConfigurationId", query.workflow_configuration_id.as_deref());
    let view_id = problems.required("query.workflowViewId", query.workflow_view_id.as_deref());
    let format = parse_format(query.format.as_deref(), &mut problems);
    let configuration_id = id_filter(query.configuration_id.as_deref(), "query.configurationId", &mut problems);
    if let Some(format) = format {
        // A malformed id has its own problem already.
        let named = query.configuration_id.as_deref().is_some_and(|c| !c.trim().is_empty());
        rules::check_configuration(format, named, "query.configurationId", &mut problems);
    }
    let (Some(workflow_id), Some(view_id)) = (workflow_id, view_id) else { return Err(problems.into()) };
    problems.finish(())?;
    let format = format.unwrap_or(ExportFormat::JsonLines);
    let request = ItemExportRequest {
        format,
        workflow_configuration_id: workflow_id,
        view_id,
        configuration_id,
        language: query.language,
    };
    let export = exports.items(&user, request).await?;
    let fields = export.csv_fields();
    let rows = ItemRows { export, format, fields };
    Ok(stream_response(rows, format, "items"))
}

fn parse_format(raw: Option<&str>, problems: &mut Problems) -> Option<ExportFormat> {
    let format = ExportFormat::parse(raw);
    if format.is_none() {
        problems.push("query.format", "INVALID_VALUE", "must be jsonl or csv");
    }
    format
}

/// An RFC 3339 time, exactly as given: blank or padded is not one (the document says `date-time`).
fn parse_time(raw: Option<&str>, path: &str, problems: &mut Problems) -> Option<OffsetDateTime> {
    match OffsetDateTime::parse(raw?, &Rfc3339) {
        Ok(at) => Some(at),
        Err(_) => {
            problems.push(path, "INVALID_TIMESTAMP", "must be an RFC 3339 time, such as 2026-11-27T09:30:00Z");
            None
        }
    }
}

/// Something that writes an export a chunk at a time.
#[async_trait::async_trait]
trait Chunks: Send + 'static {
    /// The bytes before the first row (a CSV header), if any.
    fn head(&self) -> Option<Vec<u8>>;
    /// The next page, written; `None` when the export is done.
    async fn next_chunk(&mut self) -> crate::error::Result<Option<Vec<u8>>>;
}

/// A `200` whose body is the export, read a page at a time as the client takes it.
fn stream_response<C: Chunks>(rows: C, format: ExportFormat, name: &str) -> Response {
    let head = rows.head().map(Bytes::from);
    let pages = futures::stream::unfold(Some(rows), |rows| async move {
        let mut rows = rows?;
        match rows.next_chunk().await {
            Ok(Some(chunk)) => Some((Ok::<_, io::Error>(Bytes::from(chunk)), Some(rows))),
            Ok(None) => None,
            Err(error) => {
                // The status is sent: cutting the body short is the one way left to say it failed.
                tracing::warn!(error = %error, "an export failed part way");
                Some((Err(io::Error::other("the export failed")), None))
            }
        }
    });
    let body = futures::stream::iter(head.map(Ok)).chain(pages);
    let mut response = Body::from_stream(body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(format.content_type()));
    let stamp = timestamp::format(OffsetDateTime::now_utc()).replace([':', '.'], "-");
    let disposition = format!("attachment; filename=\"{name}-{stamp}.{}\"", format.extension());
    if let Ok(value) = HeaderValue::from_str(&disposition) {
        headers.insert(header::CONTENT_DISPOSITION, value);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

struct FormRows {
    export: FormExport,
    format: ExportFormat,
    fields: Vec<Field>,
}

#[async_trait::async_trait]
impl Chunks for FormRows {
    fn head(&self) -> Option<Vec<u8>> {
        (self.format == ExportFormat::Csv).then(|| {
            let fixed = ["formId", "configurationId", "state", "createdAt", "updatedAt"].map(str::to_owned);
            csv_lines([fixed.into_iter().chain(self.fields.iter().map(|f| f.key.clone())).collect()])
        })
    }

    async fn next_chunk(&mut self) -> crate::error::Result<Option<Vec<u8>>> {
        let Some(records) = self.export.next_page().await? else { return Ok(None) };
        Ok(Some(match self.format {
            ExportFormat::JsonLines => json_lines(records.into_iter().map(InstanceView::from))?,
            ExportFormat::Csv => csv_lines(records.into_iter().map(|record| form_row(record, &self.fields))),
        }))
    }
}

fn form_row(record: FormRecord, fields: &[Field]) -> Vec<String> {
    let fixed = [
        record.form_id.clone(),
        record.configuration_id.clone(),
        record.state.clone(),
        timestamp::format(record.created_at),
        timestamp::format(record.updated_at),
    ];
    let cells = fields.iter().map(|field| {
        let id = field.id.to_string();
        match field.kind {
            FieldType::File => file_names(&record.attachments, &id),
            _ => rules::answer_text(record.fields.get(&id)),
        }
    });
    fixed.into_iter().chain(cells).collect()
}

struct ItemRows {
    export: ItemExport,
    format: ExportFormat,
    fields: Vec<DetailField>,
}

#[async_trait::async_trait]
impl Chunks for ItemRows {
    fn head(&self) -> Option<Vec<u8>> {
        (self.format == ExportFormat::Csv).then(|| {
            let fixed =
                ["itemId", "workbasketId", "configurationId", "state", "createdAt", "updatedAt"].map(str::to_owned);
            csv_lines([fixed.into_iter().chain(self.fields.iter().map(|f| f.key.clone())).collect()])
        })
    }

    async fn next_chunk(&mut self) -> crate::error::Result<Option<Vec<u8>>> {
        let Some(items) = self.export.next_page().await? else { return Ok(None) };
        Ok(Some(match self.format {
            ExportFormat::JsonLines => json_lines(items.into_iter().map(|item| ItemDetail::from(item.detail)))?,
            ExportFormat::Csv => csv_lines(items.into_iter().map(|item| item_row(item, &self.fields))),
        }))
    }
}

fn item_row(item: ExportedItem, fields: &[DetailField]) -> Vec<String> {
    let fixed = [
        item.detail.place.item_id.clone(),
        item.detail.place.workbasket_id.clone(),
        item.configuration_id.clone(),
        item.state.clone(),
        timestamp::format(item.created_at),
        timestamp::format(item.updated_at),
    ];
    let cells = fields.iter().map(|column| {
        let id = column.field_id.to_string();
        let shown = item.detail.fields.iter().find(|f| f.field_id == column.field_id);
        match (column.kind, shown) {
            (_, None) => String::new(),
            (FieldType::File, Some(_)) => file_names(&item.attachments, &id),
            (_, Some(field)) => rules::answer_text(Some(&field.value)),
        }
    });
    fixed.into_iter().chain(cells).collect()
}

/// The file names of a file field's attachments, joined.
fn file_names(attachments: &[Attachment], field_id: &str) -> String {
    attachments
        .iter()
        .filter(|a| a.field_id == field_id)
        .map(|a| a.filename.as_str())
        .collect::<Vec<_>>()
        .join(rules::CELL_JOINER)
}

/// CSV records (RFC 4180: quoted where needed, CRLF line ends), each cell defused.
fn csv_lines(records: impl IntoIterator<Item = Vec<String>>) -> Vec<u8> {
    let mut writer = csv::WriterBuilder::new().terminator(csv::Terminator::CRLF).from_writer(Vec::new());
    for record in records {
        // Writing to a Vec cannot fail for I/O, and every record is a list of strings.
        let _ = writer.write_record(record.into_iter().map(rules::defused));
    }
    writer.into_inner().unwrap_or_default()
}

/// One JSON document per line.
fn json_lines<T: serde::Serialize>(values: impl Iterator<Item = T>) -> crate::error::Result<Vec<u8>> {
    let mut out = Vec::new();
    for value in values {
        serde_json::to_writer(&mut out, &value).map_err(crate::error::Error::internal)?;
        out.push(b'\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_lines_quote_what_needs_it_and_defuse_formulas() {
        let line = csv_lines([["plain", "a,b", "say \"hi\"", "two\nlines", "=1+1", ""].map(str::to_owned).to_vec()]);
        assert_eq!(String::from_utf8(line).unwrap(), "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",'=1+1,\r\n");
    }
}
