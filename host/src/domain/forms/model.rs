//! The validated configuration: built only by [`super::validate_config`], cheap to clone and share.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;
use uuid::Uuid;

use super::date_format::DateFormat;
use super::regex_rules::AnswerPattern;

/// A validated form configuration. Clones share one allocation, so the HTTP layer can cache it
/// (compiled patterns included) and hand it to any thread.
#[derive(Clone, Debug)]
pub struct FormConfig(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    document: Value,
    id: Uuid,
    version: String,
    default_language: String,
    languages: Vec<String>,
    flags: Flags,
    pages: Vec<Page>,
    by_id: HashMap<Uuid, (usize, usize)>,
    by_key: HashMap<String, (usize, usize)>,
    pattern_bytes: usize,
}

/// The switches of a configuration; a missing one is `false`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// `controls.enableLogging`: keep an audit trail of instance updates.
    pub enable_logging: bool,
    /// `metadata.captureTimestamp`.
    pub capture_timestamp: bool,
    /// `metadata.captureTags`.
    pub capture_tags: bool,
    /// `metadata.captureSummary`.
    pub capture_summary: bool,
    /// `metadata.captureLocation`.
    pub capture_location: bool,
    /// `integrations.allowSpaceAssociations`.
    pub allow_space_associations: bool,
    /// `integrations.allowWorkflowStarts`.
    pub allow_workflow_starts: bool,
}

/// A page, its fields in document order.
#[derive(Clone, Debug)]
pub struct Page {
    pub id: Uuid,
    pub key: String,
    pub order: f64,
    /// `$.` paths of the page texts.
    pub title: Option<String>,
    pub description: Option<String>,
    pub fields: Vec<Field>,
}

/// The `$.` paths of a field's texts; `None` where the field names none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TextRefs {
    pub label: Option<String>,
    pub placeholder: Option<String>,
    pub tooltip: Option<String>,
    pub description: Option<String>,
}

/// The kinds of field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldType {
    Text,
    Textarea,
    Date,
    Dropdown,
    File,
}

impl FieldType {
    /// The names used in documents, in the order of the interface.
    pub const NAMES: [&'static str; 5] = ["text", "textarea", "date", "dropdown", "file"];

    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "text" => Some(Self::Text),
            "textarea" => Some(Self::Textarea),
            "date" => Some(Self::Date),
            "dropdown" => Some(Self::Dropdown),
            "file" => Some(Self::File),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Textarea => "textarea",
            Self::Date => "date",
            Self::Dropdown => "dropdown",
            Self::File => "file",
        }
    }

    /// Text-like fields take `minLength` and `maxLength`.
    pub fn is_text_like(self) -> bool {
        matches!(self, Self::Text | Self::Textarea)
    }
}

/// A field with its rules ready to apply.
#[derive(Clone, Debug)]
pub struct Field {
    pub id: Uuid,
    pub key: String,
    /// The key of the page holding the field (its translations live under it).
    pub page_key: String,
    pub order: f64,
    pub kind: FieldType,
    /// The default answer; `""` starts blank.
    pub default_value: String,
    pub texts: TextRefs,
    pub validation: Option<AnswerPattern>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    /// Set on date fields only (their default when the document names none).
    pub format: Option<DateFormat>,
    pub visible: bool,
    pub editable: bool,
    pub required: bool,
    /// Dropdown options in document order; empty for other kinds.
    pub options: Vec<DropdownOption>,
    /// Set on file fields only (all defaults when the document has no `file` object).
    pub file: Option<FileRule>,
}

impl Field {
    /// The option whose `value` is `value`.
    pub fn option_by_value(&self, value: &str) -> Option<&DropdownOption> {
        self.options.iter().find(|option| option.value == value)
    }
}

/// One dropdown option. Answers use `value`; `key` names its translations.
#[derive(Clone, Debug, PartialEq)]
pub struct DropdownOption {
    pub id: Uuid,
    pub key: String,
    pub order: f64,
    pub value: String,
    pub label: Option<String>,
}

/// The upload rules of a file field.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileRule {
    /// Empty when the field accepts any file.
    pub accept: Vec<AcceptEntry>,
    pub max_bytes: Option<u64>,
    pub multiple: bool,
    /// Only with `multiple`.
    pub max_files: Option<u64>,
}

/// One `file.accept` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AcceptEntry {
    /// `type/subtype`, lower-cased; the subtype (or both) may be `*`.
    MimeType(String),
    /// `.ext`, lower-cased, dot included.
    Extension(String),
}

impl FileRule {
    /// How many files the field may hold: one unless `multiple`, then `maxFiles` (if any).
    pub fn max_attachments(&self) -> Option<u64> {
        if self.multiple { self.max_files } else { Some(1) }
    }

    /// Whether a file of this declared type and name passes `accept` (type by MIME entry, name by
    /// extension entry, case-insensitively). Sniffing the bytes is the caller's job.
    pub fn accepts(&self, content_type: &str, filename: &str) -> bool {
        if self.accept.is_empty() {
            return true;
        }
        let content_type = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        let filename = filename.to_lowercase();
        self.accept.iter().any(|entry| match entry {
            AcceptEntry::Extension(ext) => filename.ends_with(ext.as_str()) && filename.len() > ext.len(),
            AcceptEntry::MimeType(mime) => match mime.split_once('/') {
                Some(("*", "*")) => true,
                Some((kind, "*")) => content_type.split_once('/').is_some_and(|(k, _)| k == kind),
                _ => content_type == *mime,
            },
        })
    }
}

/// The parts of a configuration the rules produce, assembled into a [`FormConfig`].
pub(crate) struct ConfigParts {
    pub(crate) document: Value,
    pub(crate) id: Uuid,
    pub(crate) version: String,
    pub(crate) default_language: String,
    pub(crate) languages: Vec<String>,
    pub(crate) flags: Flags,
    pub(crate) pages: Vec<Page>,
    /// Memory charged for the compiled `validation` patterns.
    pub(crate) pattern_bytes: usize,
}

impl FormConfig {
    pub(crate) fn new(parts: ConfigParts) -> Self {
        let mut by_id = HashMap::new();
        let mut by_key = HashMap::new();
        for (p, page) in parts.pages.iter().enumerate() {
            for (f, field) in page.fields.iter().enumerate() {
                by_id.insert(field.id, (p, f));
                by_key.insert(field.key.clone(), (p, f));
            }
        }
        Self(Arc::new(Inner {
            document: parts.document,
            id: parts.id,
            version: parts.version,
            default_language: parts.default_language,
            languages: parts.languages,
            flags: parts.flags,
            pages: parts.pages,
            by_id,
            by_key,
            pattern_bytes: parts.pattern_bytes,
        }))
    }

    /// Memory the compiled `validation` patterns may take (their lazy-DFA caches included), so a
    /// cache of parsed configurations can weigh them.
    pub fn pattern_bytes(&self) -> usize {
        self.0.pattern_bytes
    }

    /// The document as validated, with `id` set to [`Self::id`].
    pub fn document(&self) -> &Value {
        &self.0.document
    }

    pub fn id(&self) -> Uuid {
        self.0.id
    }

    /// The contract version the document names (major 1).
    pub fn version(&self) -> &str {
        &self.0.version
    }

    pub fn default_language(&self) -> &str {
        &self.0.default_language
    }

    /// The languages holding a bundle in `translations`, sorted; the default is among them.
    pub fn languages(&self) -> &[String] {
        &self.0.languages
    }

    pub fn has_language(&self, language: &str) -> bool {
        self.0.languages.iter().any(|l| l == language)
    }

    pub fn flags(&self) -> Flags {
        self.0.flags
    }

    /// Pages in document order.
    pub fn pages(&self) -> &[Page] {
        &self.0.pages
    }

    /// Every field, page by page, in document order.
    pub fn fields(&self) -> impl Iterator<Item = &Field> {
        self.0.pages.iter().flat_map(|page| page.fields.iter())
    }

    pub fn field(&self, id: &Uuid) -> Option<&Field> {
        self.0.by_id.get(id).map(|&(p, f)| &self.0.pages[p].fields[f])
    }

    pub fn field_by_key(&self, key: &str) -> Option<&Field> {
        self.0.by_key.get(key).map(|&(p, f)| &self.0.pages[p].fields[f])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(accept: &[AcceptEntry]) -> FileRule {
        FileRule { accept: accept.to_vec(), ..FileRule::default() }
    }

    #[test]
    fn form_config_can_be_shared_between_threads() {
        fn assert_shareable<T: Send + Sync + Clone + 'static>() {}
        assert_shareable::<FormConfig>();
    }

    #[test]
    fn accept_matches_types_wildcards_and_extensions() {
        let rule = rule(&[AcceptEntry::MimeType("image/*".into()), AcceptEntry::Extension(".pdf".into())]);
        assert!(rule.accepts("image/png", "a.png"));
        assert!(rule.accepts("IMAGE/JPEG; q=1", "a"));
        assert!(rule.accepts("application/octet-stream", "Report.PDF"));
        assert!(!rule.accepts("application/octet-stream", ".pdf"));
        assert!(!rule.accepts("text/plain", "a.txt"));
        assert!(FileRule::default().accepts("anything/at-all", "x"));
    }

    #[test]
    fn max_attachments_is_one_unless_multiple() {
        assert_eq!(FileRule::default().max_attachments(), Some(1));
        let many = FileRule { multiple: true, max_files: Some(3), ..FileRule::default() };
        assert_eq!(many.max_attachments(), Some(3));
    }
}
