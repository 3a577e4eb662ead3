//! Exports (conventions section 14): the two formats, and how an answer becomes a CSV cell.
//!
//! A CSV export has one column per field of one form configuration, named by field key; each cell
//! holds the answer as text. A cell a spreadsheet would read as a formula is defused.

use serde_json::Value;

use crate::domain::problems::Problems;

/// What an export is written as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// One JSON document per line, each exactly as the read route answers it.
    JsonLines,
    /// RFC 4180, UTF-8, a header row.
    Csv,
}

impl ExportFormat {
    /// `jsonl` (also when left out) or `csv`, exactly: the document states the two words as an enum, which
    /// typed clients send as they are.
    pub fn parse(raw: Option<&str>) -> Option<Self> {
        match raw.unwrap_or("jsonl") {
            "jsonl" => Some(Self::JsonLines),
            "csv" => Some(Self::Csv),
            _ => None,
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Self::JsonLines => "application/jsonl; charset=utf-8",
            Self::Csv => "text/csv; charset=utf-8",
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Self::JsonLines => "jsonl",
            Self::Csv => "csv",
        }
    }
}

/// A CSV export has one column per field of one form configuration, so it must name one: when it
/// names none (`named` false), a problem at `path`.
pub fn check_configuration(format: ExportFormat, named: bool, path: &str, problems: &mut Problems) {
    if format == ExportFormat::Csv && !named {
        problems.push(path, "REQUIRED", "a CSV export has one column per field of one form configuration: name it");
    }
}

/// What joins several values in one cell (a file field's file names, a list's entries).
pub const CELL_JOINER: &str = "; ";

/// An answer as the text of its cell: a string as it is, a number or a boolean as JSON writes it,
/// nothing for `null`, a list's entries joined by [`CELL_JOINER`], an object as compact JSON.
pub fn answer_text(answer: Option<&Value>) -> String {
    match answer {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(entries)) => {
            entries.iter().map(|entry| answer_text(Some(entry))).collect::<Vec<_>>().join(CELL_JOINER)
        }
        Some(other) => other.to_string(),
    }
}

/// The cell a spreadsheet shows as text: one that begins with `=`, `+`, `-` or `@` (a formula to
/// Excel, LibreOffice and Sheets) gets a leading `'`; so does one beginning with a tab or a carriage
/// return, which some spreadsheets skip before reading a formula (OWASP's CSV injection advice).
pub fn defused(cell: String) -> String {
    match cell.as_bytes().first() {
        Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r') => format!("'{cell}"),
        _ => cell,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn formats_parse_with_jsonl_the_default() {
        assert_eq!(ExportFormat::parse(None), Some(ExportFormat::JsonLines));
        assert_eq!(ExportFormat::parse(Some("jsonl")), Some(ExportFormat::JsonLines));
        assert_eq!(ExportFormat::parse(Some(" ")), None);
        assert_eq!(ExportFormat::parse(Some(" csv")), None);
        assert_eq!(ExportFormat::parse(Some("csv")), Some(ExportFormat::Csv));
        assert_eq!(ExportFormat::parse(Some("xlsx")), None);
    }

    #[test]
    fn answers_become_text() {
        assert_eq!(answer_text(None), "");
        assert_eq!(answer_text(Some(&Value::Null)), "");
        assert_eq!(answer_text(Some(&json!("a \"b\", c"))), "a \"b\", c");
        assert_eq!(answer_text(Some(&json!(12.5))), "12.5");
        assert_eq!(answer_text(Some(&json!(true))), "true");
        assert_eq!(answer_text(Some(&json!(["x", 2, null]))), "x; 2; ");
        assert_eq!(answer_text(Some(&json!({"a": 1}))), "{\"a\":1}");
    }

    #[test]
    fn formula_cells_are_defused_and_others_kept() {
        for formula in ["=1+2", "+1", "-2", "@SUM(A1)", "\t=1", "\r=1"] {
            assert_eq!(defused(formula.to_owned()), format!("'{formula}"));
        }
        for plain in ["", "plain", " =not at the start", "'quoted"] {
            assert_eq!(defused(plain.to_owned()), plain);
        }
    }
}
