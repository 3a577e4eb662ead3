//! The `translations` object every document carries: its language codes and the default
//! language, whose bundle the `$.` texts of the document must resolve in.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use super::CONFIG_PATH;
use super::codes;
use super::limits::MAX_LANGUAGES;
use super::report::{Report, join};

/// A language code such as `en` or `de-CH`.
const LANGUAGE_CODE: &str = r"^[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8})*$";

static LANGUAGE: LazyLock<Regex> = LazyLock::new(|| Regex::new(LANGUAGE_CODE).expect("valid regex"));

/// The JSON Schema of `translations` (its `$defs` entry; the bundle is `#/$defs/bundle`): each
/// language code holds a bundle, `defaultLanguage` names one. Written with `patternProperties`
/// so that a typed client can say it (`{defaultLanguage: string; [code: string]: Bundle | string}`);
/// a key that is no language code is named by [`check_translations`].
pub(crate) fn translations_schema() -> Value {
    serde_json::json!({
        "type": "object",
        "required": ["defaultLanguage"],
        "properties": {"defaultLanguage": {"type": "string", "description": "Must exist as a sibling key."}},
        "patternProperties": {LANGUAGE_CODE: {"$ref": "#/$defs/bundle"}},
        "additionalProperties": {"type": "string", "description": "Only `defaultLanguage`: every other key is a language code."}
    })
}

/// The default language, the sorted language codes and the default bundle (cloned, so the
/// walk's context does not borrow the document).
pub(crate) fn check_translations(
    root: &Map<String, Value>,
    report: &mut Report,
) -> (Option<String>, Vec<String>, Option<Value>) {
    let Some(translations) = root.get("translations").and_then(Value::as_object) else {
        return (None, Vec::new(), None);
    };
    let base = join(CONFIG_PATH, "translations");
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

/// At most [`MAX_LANGUAGES`] bundles beside `defaultLanguage`, counted before the schema walks
/// the document: the path and message of a `TOO_LARGE` otherwise.
pub(crate) fn count_languages(root: &Map<String, Value>) -> Result<(), (String, String)> {
    let languages = root.get("translations").and_then(Value::as_object).map_or(0, Map::len);
    if languages > MAX_LANGUAGES + 1 {
        return Err((join(CONFIG_PATH, "translations"), format!("has more than {MAX_LANGUAGES} languages")));
    }
    Ok(())
}
