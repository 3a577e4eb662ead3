//! Exports (conventions section 14): `GET /v0/forms/export` and `GET /v0/workflows/items/export`.
//! Each JSON line is what the read route answers the same caller for that instance or item (across
//! page boundaries, with `export.page_rows` set small); who gets which instances, whole or reduced to
//! what their views show; CSV columns, cells, quoting and defused formulas; every refused query with
//! its problem paths; and the bounds on running exports, per user and per server.
//!
//! The helpers the export tests share are below; the tests are in the submodules.

mod bounds;
mod form_csv;
mod form_lines;
mod items;
mod queries;
mod readers;

use reqwest::{Method, Response, StatusCode};
use serde_json::Value;
use trellis_tests::{TestApp, body};

pub const FORMS_EXPORT: &str = "/v0/forms/export";
pub const ITEMS_EXPORT: &str = "/v0/workflows/items/export";

/// `GET /v0/forms/export` with `query` (encoded by the client).
pub async fn export_forms(app: &TestApp, token: &str, query: &[(&str, &str)]) -> Response {
    app.authed(Method::GET, FORMS_EXPORT, token).query(query).send().await.expect("request sent")
}

/// `GET /v0/workflows/items/export` with `query`.
pub async fn export_items(app: &TestApp, token: &str, query: &[(&str, &str)]) -> Response {
    app.authed(Method::GET, ITEMS_EXPORT, token).query(query).send().await.expect("request sent")
}

/// A whole export answer: its headers of interest and its body.
pub struct Export {
    pub content_type: String,
    pub disposition: String,
    pub text: String,
}

/// Reads a whole export, asserting 200.
pub async fn exported(response: Response) -> Export {
    let status = response.status();
    let header = |name: &str| {
        response.headers().get(name).map(|v| v.to_str().expect("an ASCII header").to_owned()).unwrap_or_default()
    };
    let (content_type, disposition) = (header("content-type"), header("content-disposition"));
    let text = response.text().await.expect("the whole export is read");
    assert_eq!(status, StatusCode::OK, "{text}");
    Export { content_type, disposition, text }
}

impl Export {
    /// Asserts the headers of a JSON lines export named `name` (`forms`, `items`).
    pub fn assert_json_lines(&self, name: &str) {
        assert_eq!(self.content_type, "application/jsonl; charset=utf-8");
        self.assert_attachment(name, "jsonl");
    }

    /// Asserts the headers of a CSV export named `name`.
    pub fn assert_csv(&self, name: &str) {
        assert_eq!(self.content_type, "text/csv; charset=utf-8");
        self.assert_attachment(name, "csv");
    }

    fn assert_attachment(&self, name: &str, extension: &str) {
        let prefix = format!("attachment; filename=\"{name}-");
        let suffix = format!(".{extension}\"");
        assert!(
            self.disposition.starts_with(&prefix) && self.disposition.ends_with(&suffix),
            "Content-Disposition: {}",
            self.disposition
        );
    }

    /// The lines of a JSON lines body, each parsed; every line ends with `\n`.
    pub fn lines(&self) -> Vec<Value> {
        if self.text.is_empty() {
            return Vec::new();
        }
        assert!(self.text.ends_with('\n'), "the last line ends with a line feed: {:?}", self.text);
        self.text
            .trim_end_matches('\n')
            .split('\n')
            .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("a line is not JSON: {line:?}")))
            .collect()
    }

    /// A CSV body: its header row and its records, parsed by an RFC 4180 reader. Asserts CRLF line
    /// ends (outside quoted cells, which the reader checks by parsing the same records).
    pub fn table(&self) -> (Vec<String>, Vec<Vec<String>>) {
        assert!(self.text.ends_with("\r\n"), "the last record ends with CRLF: {:?}", self.text);
        let header_line = self.text.split("\r\n").next().unwrap_or_default();
        assert!(!header_line.contains('\n'), "the header row ends with CRLF: {:?}", self.text);
        let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(self.text.as_bytes());
        let header = reader.headers().expect("a header row").iter().map(str::to_owned).collect();
        let rows = reader
            .records()
            .map(|record| record.expect("an RFC 4180 record").iter().map(str::to_owned).collect())
            .collect();
        (header, rows)
    }
}

/// The `key` member of each line, as text, in order.
pub fn ids_of(lines: &[Value], key: &str) -> Vec<String> {
    lines.iter().map(|line| line[key].as_str().unwrap_or_else(|| panic!("no {key} in {line}")).to_owned()).collect()
}

/// `ids` sorted, owned.
pub fn sorted_ids<S: AsRef<str>>(ids: &[S]) -> Vec<String> {
    let mut out: Vec<String> = ids.iter().map(|id| id.as_ref().to_owned()).collect();
    out.sort();
    out
}

/// The body of `GET path` for `token`'s user, asserting 200.
pub async fn read(app: &TestApp, token: &str, path: &str) -> Value {
    let response = app.get_authed(path, token).await;
    let status = response.status();
    let value = body(response).await;
    assert_eq!(status, StatusCode::OK, "{path}: {value}");
    value
}

/// Asserts that every line is what `GET /v0/forms/{formId}` answers `token`'s user for it, and
/// that no instance is exported twice.
pub async fn assert_lines_are_form_reads(app: &TestApp, token: &str, lines: &[Value]) {
    let ids = ids_of(lines, "formId");
    let mut unique = sorted_ids(&ids);
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "an instance is exported once: {ids:?}");
    for (line, id) in lines.iter().zip(&ids) {
        assert_eq!(line, &read(app, token, &format!("/v0/forms/{id}")).await, "the line of {id}");
    }
}

/// Whether `text` is an RFC 3339 time.
pub fn is_rfc3339(text: &str) -> bool {
    time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).is_ok()
}
