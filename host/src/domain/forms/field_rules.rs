//! The rules of one field: which properties its type takes, its pattern, lengths, date format,
//! options, file rules, and a default value that passes them.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};
use uuid::Uuid;

use super::codes;
use super::config_rules::FormContext;
use super::date_format::DateFormat;
use super::model::{AcceptEntry, DropdownOption, Field, FieldType, FileRule, TextRefs};
use crate::domain::document::context::array;
use crate::domain::document::report::join;

static MIME: LazyLock<Regex> = LazyLock::new(|| {
    let token = "[a-z0-9][a-z0-9!#$&^_.+-]{0,126}";
    Regex::new(&format!(r"^(?:\*/\*|{token}/(?:{token}|\*))$")).expect("valid regex")
});

static EXTENSION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\.[\p{L}\p{N}][\p{L}\p{N}._+-]{0,31}$").expect("valid regex"));

pub(super) fn check_field(
    cx: &mut FormContext<'_>,
    field: &Value,
    path: &str,
    page_key: Option<&str>,
) -> Option<Field> {
    let object = field.as_object()?;
    let id = cx.document.id(object.get("id"), &join(path, "id"));
    let key = cx.field_key(object.get("key"), &join(path, "key"));
    let order = object.get("order").and_then(Value::as_f64);
    let kind = object.get("type").and_then(Value::as_str).and_then(FieldType::parse);
    let texts = TextRefs {
        label: cx.document.text_ref(object, "label", path),
        placeholder: cx.document.text_ref(object, "placeholder", path),
        tooltip: cx.document.text_ref(object, "tooltip", path),
        description: cx.document.text_ref(object, "description", path),
    };
    let flag = |name: &str, default: bool| object.get(name).and_then(Value::as_bool).unwrap_or(default);
    let (visible, editable, required) = (flag("visible", true), flag("editable", true), flag("required", false));
    let kind = kind?;

    let mut rules = Field {
        id: id.unwrap_or_else(Uuid::nil),
        key: key.clone().unwrap_or_default(),
        page_key: page_key.unwrap_or_default().to_owned(),
        order: order.unwrap_or_default(),
        kind,
        default_value: String::new(),
        texts,
        validation: None,
        min_length: None,
        max_length: None,
        format: None,
        visible,
        editable,
        required,
        options: Vec::new(),
        file: None,
    };
    let mut sound = true;
    if let Some(source) = object.get("validation").and_then(Value::as_str).filter(|s| !s.is_empty()) {
        if kind == FieldType::File {
            sound &= not_allowed(cx, path, "validation", "file fields take no validation");
        } else {
            match cx.patterns.compile(source) {
                Ok(pattern) => rules.validation = Some(pattern),
                Err(message) => sound &= push(cx, join(path, "validation"), codes::INVALID_REGEX, message),
            }
        }
    }
    sound &= check_lengths(cx, object, path, &mut rules);
    sound &= check_format(cx, object, path, &mut rules);
    sound &= check_options(cx, object, path, &mut rules);
    sound &= check_file(cx, object, path, &mut rules);
    sound &= check_default(cx, object, path, &mut rules);
    (sound && id.is_some() && key.is_some() && order.is_some() && page_key.is_some()).then_some(rules)
}

/// Pushes a problem and answers `false`, so checks can fold soundness with `&=`.
fn push(cx: &mut FormContext<'_>, path: String, code: &'static str, message: impl Into<String>) -> bool {
    cx.document.report.push(path, code, message);
    false
}

fn not_allowed(cx: &mut FormContext<'_>, path: &str, name: &str, message: &str) -> bool {
    push(cx, join(path, name), codes::NOT_ALLOWED, message)
}

/// A non-negative whole number, also when written as `5.0` (JSON Schema counts that as an integer).
fn whole(value: Option<&Value>) -> Option<u64> {
    let number = value?.as_f64()?;
    (number >= 0.0 && number.fract() == 0.0 && number <= u64::MAX as f64).then_some(number as u64)
}

fn check_lengths(cx: &mut FormContext<'_>, object: &Map<String, Value>, path: &str, rules: &mut Field) -> bool {
    let mut sound = true;
    for name in ["minLength", "maxLength"] {
        if object.get(name).is_some_and(|v| !v.is_null()) && !rules.kind.is_text_like() {
            sound &= not_allowed(cx, path, name, "only text and textarea fields take length bounds");
        }
    }
    if !rules.kind.is_text_like() {
        return sound;
    }
    rules.min_length = whole(object.get("minLength"));
    rules.max_length = whole(object.get("maxLength"));
    if let (Some(min), Some(max)) = (rules.min_length, rules.max_length)
        && min > max
    {
        sound &= push(cx, join(path, "minLength"), codes::INVALID_RANGE, format!("{min} is above maxLength {max}"));
    }
    sound
}

fn check_format(cx: &mut FormContext<'_>, object: &Map<String, Value>, path: &str, rules: &mut Field) -> bool {
    let format = object.get("format").and_then(Value::as_str);
    if rules.kind != FieldType::Date {
        return format.is_none() || not_allowed(cx, path, "format", "only date fields take a format");
    }
    match DateFormat::parse(format.unwrap_or(DateFormat::DEFAULT)) {
        Ok(parsed) => {
            rules.format = Some(parsed);
            true
        }
        Err(message) => push(cx, join(path, "format"), codes::INVALID_FORMAT, message),
    }
}

fn check_options(cx: &mut FormContext<'_>, object: &Map<String, Value>, path: &str, rules: &mut Field) -> bool {
    let present = object.get("options").is_some_and(|v| !v.is_null());
    if rules.kind != FieldType::Dropdown {
        return !present || not_allowed(cx, path, "options", "only dropdown fields take options");
    }
    let items = array(object.get("options"));
    if items.is_empty() {
        if object.get("options").is_some_and(|v| !v.is_null() && !v.is_array()) {
            return false;
        }
        return push(cx, join(path, "options"), codes::REQUIRED, "a dropdown needs at least one option");
    }
    let base = join(path, "options");
    let (mut keys, mut values) = (HashMap::new(), HashMap::new());
    let mut sound = true;
    for (index, item) in items.iter().enumerate() {
        let here = join(&base, index);
        let Some(option) = item.as_object() else {
            sound = false;
            continue;
        };
        let id = cx.document.id(option.get("id"), &join(&here, "id"));
        let key_path = join(&here, "key");
        let key = cx.key(option.get("key"), &key_path);
        if let Some(key) = &key
            && let Some(first) = keys.insert(key.clone(), key_path.clone())
        {
            sound &= push(cx, key_path, codes::DUPLICATE_KEY, format!("option key '{key}' is already used at {first}"));
        }
        let value_path = join(&here, "value");
        let value = option.get("value").and_then(Value::as_str);
        match value {
            Some("") => sound &= push(cx, value_path, codes::INVALID_VALUE, "must not be empty"),
            Some(value) => {
                if let Some(first) = values.insert(value.to_owned(), value_path.clone()) {
                    sound &= push(cx, value_path, codes::DUPLICATE_VALUE, format!("is already used at {first}"));
                }
            }
            None => {}
        }
        let label = cx.document.text_ref(option, "label", &here);
        let order = option.get("order").and_then(Value::as_f64);
        match (id, key, order, value) {
            (Some(id), Some(key), Some(order), Some(value)) => {
                rules.options.push(DropdownOption { id, key, order, value: value.to_owned(), label });
            }
            _ => sound = false,
        }
    }
    sound
}

fn check_file(cx: &mut FormContext<'_>, object: &Map<String, Value>, path: &str, rules: &mut Field) -> bool {
    let file = object.get("file").filter(|v| !v.is_null());
    if rules.kind != FieldType::File {
        return file.is_none() || not_allowed(cx, path, "file", "only file fields take a file object");
    }
    let Some(file) = file else {
        rules.file = Some(FileRule::default());
        return true;
    };
    let Some(file) = file.as_object() else {
        return false;
    };
    let base = join(path, "file");
    let mut sound = true;
    let mut accept = Vec::new();
    let entries: Vec<(String, &str)> = match file.get("accept") {
        Some(Value::String(list)) => list.split(',').map(|entry| (join(&base, "accept"), entry)).collect(),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| item.as_str().map(|entry| (join(&join(&base, "accept"), i), entry)))
            .collect(),
        _ => Vec::new(),
    };
    for (entry_path, entry) in entries {
        match accept_entry(entry) {
            Some(parsed) => accept.push(parsed),
            None => {
                let message =
                    format!("'{}' is neither a MIME type (image/png, image/*) nor an extension (.pdf)", entry.trim());
                sound &= push(cx, entry_path, codes::INVALID_VALUE, message);
            }
        }
    }
    let multiple = file.get("multiple").and_then(Value::as_bool).unwrap_or(false);
    let max_files = whole(file.get("maxFiles"));
    if file.get("maxFiles").is_some_and(|v| !v.is_null()) && !multiple {
        sound &= not_allowed(cx, &base, "maxFiles", "maxFiles needs multiple: true");
    }
    let max_bytes = whole(file.get("maxBytes"));
    rules.file = Some(FileRule { accept, max_bytes, multiple, max_files });
    sound
}

fn accept_entry(entry: &str) -> Option<AcceptEntry> {
    let entry = entry.trim().to_lowercase();
    if entry.contains('/') {
        MIME.is_match(&entry).then_some(AcceptEntry::MimeType(entry))
    } else if entry.starts_with('.') {
        EXTENSION.is_match(&entry).then_some(AcceptEntry::Extension(entry))
    } else {
        None
    }
}

/// The default `value` must be an answer the field itself would accept.
fn check_default(cx: &mut FormContext<'_>, object: &Map<String, Value>, path: &str, rules: &mut Field) -> bool {
    let Some(value) = object.get("value").and_then(Value::as_str).filter(|v| !v.is_empty()) else {
        return true;
    };
    if rules.kind == FieldType::File {
        return not_allowed(cx, path, "value", "file fields take no default value");
    }
    let mut sound = true;
    for (code, message) in rules.answer_problems(value) {
        sound &= push(cx, join(path, "value"), code, format!("default {message}"));
    }
    rules.default_value = value.to_owned();
    sound
}
