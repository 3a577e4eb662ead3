//! Validating a configuration document: size first, then the schema, then the rules across the
//! document (ids, keys, version, translations and `$.` references). Field rules are in
//! `field_rules`; what every document checks is in [`crate::domain::document`].

use std::collections::HashMap;

use serde_json::{Map, Value};
use uuid::Uuid;

use super::codes;
use super::field_rules::check_field;
use super::limits::{MAX_FIELDS, MAX_KEY_CHARS, MAX_OPTIONS, MAX_OPTIONS_PER_FIELD, MAX_PAGES};
use super::model::{ConfigParts, Flags, FormConfig, Page};
use super::regex_rules::PatternCompiler;
use super::schema::check_shape;
use crate::domain::document::CONFIG_PATH;
use crate::domain::document::context::{Context, array};
use crate::domain::document::limits::{CONFIG_BOUNDS, check_size};
use crate::domain::document::report::{Report, join};
use crate::domain::document::translations::{check_translations, count_languages};
use crate::domain::problems::Problems;

/// Validates a configuration wrapper's `id` and `config`, listing every problem.
///
/// The id is the wrapper's or `config.id` (they must agree when both are given), else `new_id`;
/// the returned document carries it as `id`.
pub fn validate_config(wrapper_id: Option<&str>, config: &Value, new_id: Uuid) -> Result<FormConfig, Problems> {
    let mut report = Report::default();
    if let Err(exceeded) = check_size(config, CONFIG_PATH, &CONFIG_BOUNDS) {
        report.push(exceeded.path, codes::TOO_LARGE, exceeded.message);
        return Err(report.into_problems());
    }
    let Some(root) = config.as_object() else {
        report.push(CONFIG_PATH, codes::INVALID_TYPE, "must be an object");
        return Err(report.into_problems());
    };
    if let Err((path, message)) = check_counts(root) {
        report.push(path, codes::TOO_LARGE, message);
        return Err(report.into_problems());
    }
    check_shape(config, CONFIG_PATH, &mut report);

    let (default_language, languages, bundle) = check_translations(root, &mut report);
    let mut cx = FormContext::new(&mut report, bundle);
    let id = cx.document.resolve_id(wrapper_id, root, new_id);
    let version = cx.document.version(root);
    let flags = read_flags(root);
    let pages: Vec<Option<Page>> = array(root.get("pages"))
        .iter()
        .enumerate()
        .map(|(index, page)| check_page(&mut cx, page, &join(&join(CONFIG_PATH, "pages"), index)))
        .collect();
    let pattern_bytes = cx.patterns.spent();
    drop(cx);

    let parts = (|| {
        let mut document = config.clone();
        let id = id?;
        document["id"] = Value::String(id.to_string());
        Some(ConfigParts {
            document,
            id,
            version: version?,
            default_language: default_language?,
            languages,
            flags,
            pages: pages.into_iter().collect::<Option<Vec<_>>>()?,
            pattern_bytes,
        })
    })();
    match parts {
        Some(parts) => report.finish(|| FormConfig::new(parts)),
        None if report.is_empty() => {
            report.push(CONFIG_PATH, codes::INVALID_VALUE, "could not be read");
            Err(report.into_problems())
        }
        None => Err(report.into_problems()),
    }
}

/// The walk of a form configuration: what every document tracks, plus the page and field keys
/// and the pattern budget that only form rules need.
pub(super) struct FormContext<'r> {
    pub(super) document: Context<'r>,
    page_keys: HashMap<String, String>,
    field_keys: HashMap<String, String>,
    pub(super) patterns: PatternCompiler,
}

impl<'r> FormContext<'r> {
    fn new(report: &'r mut Report, bundle: Option<Value>) -> Self {
        Self {
            document: Context::new(report, bundle),
            page_keys: HashMap::new(),
            field_keys: HashMap::new(),
            patterns: PatternCompiler::default(),
        }
    }

    /// A page key, unique among page keys of the document.
    fn page_key(&mut self, value: Option<&Value>, path: &str) -> Option<String> {
        let key = self.key(value, path)?;
        unique(self.document.report, &mut self.page_keys, key, path, "page key")
    }

    /// A field key, unique among field keys of the whole document.
    pub(super) fn field_key(&mut self, value: Option<&Value>, path: &str) -> Option<String> {
        let key = self.key(value, path)?;
        unique(self.document.report, &mut self.field_keys, key, path, "field key")
    }

    /// A key that can stand as one segment of a `$.` path.
    pub(super) fn key(&mut self, value: Option<&Value>, path: &str) -> Option<String> {
        let key = value?.as_str()?;
        let bad = key.is_empty()
            || key.chars().count() > MAX_KEY_CHARS
            || key.chars().any(|c| c == '.' || c.is_whitespace() || c.is_control());
        if bad {
            self.document.report.push(
                path,
                codes::INVALID_KEY,
                format!("must be 1 to {MAX_KEY_CHARS} characters without dots, spaces or control characters"),
            );
            return None;
        }
        Some(key.to_owned())
    }
}

fn unique(
    report: &mut Report,
    seen: &mut HashMap<String, String>,
    key: String,
    path: &str,
    what: &str,
) -> Option<String> {
    if let Some(first) = seen.get(&key) {
        report.push(path, codes::DUPLICATE_KEY, format!("{what} '{key}' is already used at {first}"));
        return None;
    }
    seen.insert(key.clone(), path.to_owned());
    Some(key)
}

/// Page, field, option and language counts, checked before the schema walks the document.
fn check_counts(root: &Map<String, Value>) -> Result<(), (String, String)> {
    let pages = array(root.get("pages"));
    if pages.len() > MAX_PAGES {
        return Err((join(CONFIG_PATH, "pages"), format!("has more than {MAX_PAGES} pages")));
    }
    let (mut fields, mut options) = (0, 0);
    for (p, page) in pages.iter().enumerate() {
        for (f, field) in array(page.get("fields")).iter().enumerate() {
            fields += 1;
            let count = array(field.get("options")).len();
            options += count;
            let path = || join(&join(&join(&join(CONFIG_PATH, "pages"), p), "fields"), f);
            if fields > MAX_FIELDS {
                return Err((path(), format!("the document has more than {MAX_FIELDS} fields")));
            }
            if count > MAX_OPTIONS_PER_FIELD {
                return Err((join(&path(), "options"), format!("has more than {MAX_OPTIONS_PER_FIELD} options")));
            }
            if options > MAX_OPTIONS {
                return Err((join(&path(), "options"), format!("the document has more than {MAX_OPTIONS} options")));
            }
        }
    }
    count_languages(root)
}

fn read_flags(root: &Map<String, Value>) -> Flags {
    let flag =
        |group: &str, name: &str| root.get(group).and_then(|g| g.get(name)).and_then(Value::as_bool) == Some(true);
    Flags {
        enable_logging: flag("controls", "enableLogging"),
        capture_timestamp: flag("metadata", "captureTimestamp"),
        capture_tags: flag("metadata", "captureTags"),
        capture_summary: flag("metadata", "captureSummary"),
        capture_location: flag("metadata", "captureLocation"),
        allow_space_associations: flag("integrations", "allowSpaceAssociations"),
        allow_workflow_starts: flag("integrations", "allowWorkflowStarts"),
    }
}

fn check_page(cx: &mut FormContext<'_>, page: &Value, path: &str) -> Option<Page> {
    let object = page.as_object()?;
    let id = cx.document.id(object.get("id"), &join(path, "id"));
    let key = cx.page_key(object.get("key"), &join(path, "key"));
    let order = object.get("order").and_then(Value::as_f64);
    let title = cx.document.text_ref(object, "title", path);
    let description = cx.document.text_ref(object, "description", path);
    let fields_path = join(path, "fields");
    let fields: Vec<_> = array(object.get("fields"))
        .iter()
        .enumerate()
        .map(|(index, field)| check_field(cx, field, &join(&fields_path, index), key.as_deref()))
        .collect();
    Some(Page {
        id: id?,
        key: key?,
        order: order?,
        title,
        description,
        fields: fields.into_iter().collect::<Option<Vec<_>>>()?,
    })
}
