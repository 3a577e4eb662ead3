//! Validating a configuration document: size first, then the schema, then the rules across the
//! document (ids, keys, version, translations and `$.` references). Field rules are in
//! `field_rules`.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};
use uuid::Uuid;

use crate::domain::problems::Problems;

use super::codes;
use super::field_rules::check_field;
use super::limits::{
    CONFIG_BOUNDS, MAX_FIELDS, MAX_KEY_CHARS, MAX_LANGUAGES, MAX_OPTIONS, MAX_OPTIONS_PER_FIELD, MAX_PAGES, check_size,
};
use super::model::{ConfigParts, Flags, FormConfig, Page, parse_uuid_v4};
use super::regex_rules::PatternCompiler;
use super::report::{Report, join};
use super::schema::check_shape;

pub(crate) const BASE: &str = "/config";

pub(crate) static SEMVER: LazyLock<Regex> = LazyLock::new(|| {
    let ident = "(?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)";
    Regex::new(&format!(
        r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:-{ident}(?:\.{ident})*)?(?:\+[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*)?$"
    ))
    .expect("valid regex")
});

static LANGUAGE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8})*$").expect("valid regex"));

/// Validates a configuration wrapper's `id` and `config`, listing every problem.
///
/// The id is the wrapper's or `config.id` (they must agree when both are given), else `new_id`;
/// the returned document carries it as `id`.
pub fn validate_config(wrapper_id: Option<&str>, config: &Value, new_id: Uuid) -> Result<FormConfig, Problems> {
    let mut report = Report::default();
    if let Err(exceeded) = check_size(config, BASE, &CONFIG_BOUNDS) {
        report.push(exceeded.path, codes::TOO_LARGE, exceeded.message);
        return Err(report.into_problems());
    }
    let Some(root) = config.as_object() else {
        report.push(BASE, codes::INVALID_TYPE, "must be an object");
        return Err(report.into_problems());
    };
    if let Err((path, message)) = check_counts(root) {
        report.push(path, codes::TOO_LARGE, message);
        return Err(report.into_problems());
    }
    check_shape(config, BASE, &mut report);

    let (default_language, languages, bundle) = check_translations(root, &mut report);
    let mut cx = Context::new(&mut report, bundle);
    let id = cx.resolve_id(wrapper_id, root, new_id);
    let version = cx.version(root);
    let flags = read_flags(root);
    let pages: Vec<Option<Page>> = array(root.get("pages"))
        .iter()
        .enumerate()
        .map(|(index, page)| check_page(&mut cx, page, &join(&join(BASE, "pages"), index)))
        .collect();
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
        })
    })();
    match parts {
        Some(parts) => report.finish(|| FormConfig::new(parts)),
        None if report.is_empty() => {
            report.push(BASE, codes::INVALID_VALUE, "could not be read");
            Err(report.into_problems())
        }
        None => Err(report.into_problems()),
    }
}

/// What the checks share while walking one document.
pub(crate) struct Context<'r> {
    pub(crate) report: &'r mut Report,
    /// The default language's bundle, when it exists (references are not checked without it).
    bundle: Option<Value>,
    ids: HashMap<Uuid, String>,
    page_keys: HashMap<String, String>,
    field_keys: HashMap<String, String>,
    pub(crate) patterns: PatternCompiler,
}

impl<'r> Context<'r> {
    pub(crate) fn new(report: &'r mut Report, bundle: Option<Value>) -> Self {
        Self {
            report,
            bundle,
            ids: HashMap::new(),
            page_keys: HashMap::new(),
            field_keys: HashMap::new(),
            patterns: PatternCompiler::default(),
        }
    }

    pub(crate) fn resolve_id(
        &mut self,
        wrapper_id: Option<&str>,
        root: &Map<String, Value>,
        new_id: Uuid,
    ) -> Option<Uuid> {
        let wrapper = wrapper_id.map(|text| {
            let parsed = parse_uuid_v4(text);
            if parsed.is_none() {
                self.report.push("/id", codes::INVALID_UUID, "must be a UUID v4");
            }
            parsed
        });
        let inner = match root.get("id") {
            None | Some(Value::Null) => None,
            Some(value) => Some(self.id(Some(value), &join(BASE, "id"))),
        };
        match (wrapper, inner) {
            (Some(Some(outer)), Some(Some(inner))) if outer != inner => {
                self.report.push("/id", codes::ID_MISMATCH, format!("disagrees with config.id ({inner})"));
                None
            }
            (Some(None), _) | (_, Some(None)) => None,
            (Some(Some(id)), _) | (None, Some(Some(id))) => {
                self.ids.entry(id).or_insert_with(|| join(BASE, "id"));
                Some(id)
            }
            (None, None) => {
                self.ids.insert(new_id, join(BASE, "id"));
                Some(new_id)
            }
        }
    }

    pub(crate) fn version(&mut self, root: &Map<String, Value>) -> Option<String> {
        let version = root.get("version")?.as_str()?;
        let path = join(BASE, "version");
        let Some(captures) = SEMVER.captures(version) else {
            self.report.push(path, codes::INVALID_VERSION, "must be a semantic version such as 1.0.0");
            return None;
        };
        if &captures[1] != "1" {
            self.report.push(path, codes::UNSUPPORTED_VERSION, "only contract major version 1 (1.0.0) is supported");
            return None;
        }
        Some(version.to_owned())
    }

    /// A structural id: a UUID v4 not used before in the document.
    pub(crate) fn id(&mut self, value: Option<&Value>, path: &str) -> Option<Uuid> {
        let text = value?.as_str()?;
        let Some(id) = parse_uuid_v4(text) else {
            self.report.push(path, codes::INVALID_UUID, "must be a UUID v4");
            return None;
        };
        if let Some(first) = self.ids.get(&id) {
            self.report.push(path, codes::DUPLICATE_ID, format!("is already used at {first}"));
            return None;
        }
        self.ids.insert(id, path.to_owned());
        Some(id)
    }

    /// A page key, unique among page keys of the document.
    fn page_key(&mut self, value: Option<&Value>, path: &str) -> Option<String> {
        let key = self.key(value, path)?;
        unique(self.report, &mut self.page_keys, key, path, "page key")
    }

    /// A field key, unique among field keys of the whole document.
    pub(crate) fn field_key(&mut self, value: Option<&Value>, path: &str) -> Option<String> {
        let key = self.key(value, path)?;
        unique(self.report, &mut self.field_keys, key, path, "field key")
    }

    /// A key that can stand as one segment of a `$.` path.
    pub(crate) fn key(&mut self, value: Option<&Value>, path: &str) -> Option<String> {
        let key = value?.as_str()?;
        let bad = key.is_empty()
            || key.chars().count() > MAX_KEY_CHARS
            || key.chars().any(|c| c == '.' || c.is_whitespace() || c.is_control());
        if bad {
            self.report.push(
                path,
                codes::INVALID_KEY,
                format!("must be 1 to {MAX_KEY_CHARS} characters without dots, spaces or control characters"),
            );
            return None;
        }
        Some(key.to_owned())
    }

    /// A structural text: a `$.` path that resolves to a string of the default bundle. `""` and a
    /// missing property mean no text.
    pub(crate) fn text_ref(&mut self, object: &Map<String, Value>, name: &str, base: &str) -> Option<String> {
        let text = object.get(name)?.as_str().filter(|text| !text.is_empty())?;
        let path = join(base, name);
        let Some(reference) = text.strip_prefix("$.") else {
            self.report.push(path, codes::LITERAL_TEXT, "must be a $. path into translations, not literal text");
            return None;
        };
        let bundle = self.bundle.as_ref()?;
        let resolved = reference
            .split('.')
            .try_fold(bundle, |node, segment| if segment.is_empty() { None } else { node.get(segment) })
            .is_some_and(Value::is_string);
        if !resolved {
            self.report.push(path, codes::UNRESOLVED_REFERENCE, "does not lead to a text of the default language");
        }
        Some(text.to_owned())
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

pub(crate) fn array(value: Option<&Value>) -> &[Value] {
    value.and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
}

/// Page, field, option and language counts, checked before the schema walks the document.
fn check_counts(root: &Map<String, Value>) -> Result<(), (String, String)> {
    let pages = array(root.get("pages"));
    if pages.len() > MAX_PAGES {
        return Err((join(BASE, "pages"), format!("has more than {MAX_PAGES} pages")));
    }
    let (mut fields, mut options) = (0, 0);
    for (p, page) in pages.iter().enumerate() {
        for (f, field) in array(page.get("fields")).iter().enumerate() {
            fields += 1;
            let count = array(field.get("options")).len();
            options += count;
            let path = || join(&join(&join(&join(BASE, "pages"), p), "fields"), f);
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
    let languages = root.get("translations").and_then(Value::as_object).map_or(0, Map::len);
    if languages > MAX_LANGUAGES + 1 {
        return Err((join(BASE, "translations"), format!("has more than {MAX_LANGUAGES} languages")));
    }
    Ok(())
}

/// The default language, the sorted language codes and the default bundle (cloned, so the
/// context does not borrow the document).
pub(crate) fn check_translations(
    root: &Map<String, Value>,
    report: &mut Report,
) -> (Option<String>, Vec<String>, Option<Value>) {
    let Some(translations) = root.get("translations").and_then(Value::as_object) else {
        return (None, Vec::new(), None);
    };
    let base = join(BASE, "translations");
    let mut languages = Vec::new();
    for (code, bundle) in translations {
        if code == "defaultLanguage" {
            continue;
        }
        if !LANGUAGE.is_match(code) {
            report.push(join(&base, code), codes::INVALID_LANGUAGE, "is not a language code such as en or de-CH");
        } else if bundle.is_object() {
            languages.push(code.clone());
        }
    }
    languages.sort();
    let Some(default) = translations.get("defaultLanguage").and_then(Value::as_str) else {
        return (None, languages, None);
    };
    let bundle = translations.get(default).filter(|bundle| bundle.is_object()).cloned();
    if bundle.is_none() {
        report.push(
            join(&base, "defaultLanguage"),
            codes::INVALID_LANGUAGE,
            format!("names '{default}', which is not a bundle of translations"),
        );
        return (None, languages, None);
    }
    (Some(default.to_owned()), languages, bundle)
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

fn check_page(cx: &mut Context<'_>, page: &Value, path: &str) -> Option<Page> {
    let object = page.as_object()?;
    let id = cx.id(object.get("id"), &join(path, "id"));
    let key = cx.page_key(object.get("key"), &join(path, "key"));
    let order = object.get("order").and_then(Value::as_f64);
    let title = cx.text_ref(object, "title", path);
    let description = cx.text_ref(object, "description", path);
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
