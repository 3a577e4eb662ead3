//! How a view shows an item (a form instance) and what a PATCH through it may change.
//!
//! Flags of a detail field are the form field's own unless the view's `overrides` set them: a
//! set override wins, whichever way it points. A field that ends up invisible is not shown and
//! so not editable either.

use serde::{Serialize, Serializer};
use serde_json::{Map, Value, json};
use uuid::Uuid;

use super::codes;
use super::model::{DetailRule, View, resolve_text};
use crate::domain::document::PAYLOAD_PATH;
use crate::domain::document::answers::{answer_text, check_file_answer, is_missing};
use crate::domain::document::ids::parse_hyphenated_uuid;
use crate::domain::document::payload::open_payload;
use crate::domain::document::report::{Report, join};
use crate::domain::forms::{Field, FieldType, FormConfig, InstanceState, Mode, check_payload};
use crate::domain::problems::{Problem, Problems};

/// One detail field of an item as a view shows it (conventions 13).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailField {
    pub field_id: Uuid,
    pub key: String,
    #[serde(rename = "type", serialize_with = "field_type_name")]
    pub kind: FieldType,
    /// The field label in the requested language, else the form's default language.
    pub label: Option<String>,
    /// The stored answer; `null` when there is none (file fields: the caller lists attachments).
    pub value: Value,
    pub editable: bool,
    pub required: bool,
}

fn field_type_name<S: Serializer>(kind: &FieldType, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(kind.as_str())
}

/// The flags of a form field in a view, overrides applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Effective {
    visible: bool,
    editable: bool,
    required: bool,
}

fn effective(field: &Field, rule: &DetailRule) -> Effective {
    let visible = rule.overrides.visible.unwrap_or(field.visible);
    Effective {
        visible,
        editable: visible && rule.overrides.editable.unwrap_or(field.editable),
        required: rule.overrides.required.unwrap_or(field.required),
    }
}

/// The view's visible detail fields of an item of `form`, in the view's order, with answers
/// (`answers` keyed by field id) and labels in `language`. Empty when the view does not name the
/// form; detail keys the form no longer has are skipped.
pub fn detail_fields(view: &View, form: &FormConfig, answers: &Map<String, Value>, language: &str) -> Vec<DetailField> {
    let Some(rules) = view.form(&form.id()) else { return Vec::new() };
    let translations = &form.document()["translations"];
    rules
        .detail_fields
        .iter()
        .filter_map(|rule| {
            let field = form.field_by_key(&rule.field_key)?;
            let flags = effective(field, rule);
            flags.visible.then(|| DetailField {
                field_id: field.id,
                key: field.key.clone(),
                kind: field.kind,
                label: field
                    .texts
                    .label
                    .as_deref()
                    .and_then(|path| resolve_text(translations, path, language, form.default_language())),
                value: answers.get(&field.id.to_string()).cloned().unwrap_or(Value::Null),
                editable: flags.editable,
                required: flags.required,
            })
        })
        .collect()
}

/// The view's list fields of an item of `form`: field key to answer (`null` when none).
pub fn list_fields(view: &View, form: &FormConfig, answers: &Map<String, Value>) -> Map<String, Value> {
    let Some(rules) = view.form(&form.id()) else { return Map::new() };
    rules
        .list_fields
        .iter()
        .filter_map(|key| {
            let field = form.field_by_key(key)?;
            Some((key.clone(), answers.get(&field.id.to_string()).cloned().unwrap_or(Value::Null)))
        })
        .collect()
}

/// The item's metadata reduced to what the view makes visible for this form configuration.
pub fn visible_metadata(view: &View, form_config_id: &Uuid, metadata: &Map<String, Value>) -> Map<String, Value> {
    let Some(rules) = view.form(form_config_id) else { return Map::new() };
    metadata
        .iter()
        .filter(|(name, _)| rules.metadata.get(*name).is_some_and(|rule| rule.visible))
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect()
}

/// A checked item PATCH, to lay over the stored instance payload.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ItemPatch {
    /// Answers by canonical (lower-case) field id; strings, `""` for a cleared answer.
    pub fields: Map<String, Value>,
    /// Metadata to set; `null` removes the stored value.
    pub metadata: Map<String, Value>,
}

/// Checks `PATCH /v0/workflows/items/{itemId}` (`{payload: {fields: {fieldId: value}, metadata?}}`)
/// for an instance of `form` in `state`, seen through `view`, listing every problem.
///
/// Each field must be a visible, editable detail field of the view (else `NOT_EDITABLE` at
/// `/payload/fields/<fieldId>`, even when the value is unchanged); its answer follows the form's
/// rules; when the instance is SUBMITTED a field required in the view (override applied) may not
/// be cleared. File fields take only `[]` and are left out: files go through the media routes.
/// Metadata must be editable in the view and follows the form's metadata rules.
pub fn check_item_patch(
    view: &View,
    form: &FormConfig,
    body: &Value,
    state: InstanceState,
) -> Result<ItemPatch, Problems> {
    let mut report = Report::default();
    let Some(payload) = open_payload(body, &mut report) else {
        return Err(report.into_problems());
    };
    for name in payload.keys().filter(|name| !["fields", "metadata"].contains(&name.as_str())) {
        report.push(join(PAYLOAD_PATH, name), codes::UNKNOWN_PROPERTY, "an item PATCH takes fields and metadata only");
    }
    let fields = check_fields(view, form, payload.get("fields"), state, &mut report);
    let (metadata, more) = check_metadata(view, form, payload.get("metadata"), state, &mut report);
    let mut problems = report.into_problems();
    for problem in more {
        problems.push(problem.path, &problem.code, problem.message);
    }
    problems.finish(ItemPatch { fields, metadata })
}

fn check_fields(
    view: &View,
    form: &FormConfig,
    value: Option<&Value>,
    state: InstanceState,
    report: &mut Report,
) -> Map<String, Value> {
    let base = join(PAYLOAD_PATH, "fields");
    let mut out = Map::new();
    let sent = match value {
        None | Some(Value::Null) => return out,
        Some(Value::Object(sent)) => sent,
        Some(_) => {
            report.push(base, codes::INVALID_TYPE, "must be an object keyed by field id");
            return out;
        }
    };
    let rules = view.form(&form.id());
    let mut done = Vec::new();
    for (id_text, value) in sent {
        let path = join(&base, id_text);
        let field = parse_hyphenated_uuid(id_text).and_then(|id| form.field(&id));
        let Some(field) = field else {
            report.push(path, codes::UNKNOWN_FIELD, "is not a field id of this item's form configuration");
            continue;
        };
        if done.contains(&field.id) {
            report.push(path, codes::DUPLICATE_ID, "answers the same field twice");
            continue;
        }
        done.push(field.id);
        let flags = rules.and_then(|r| r.detail_rule(&field.key)).map(|rule| effective(field, rule));
        let Some(flags) = flags.filter(|f| f.editable) else {
            report.push(path, codes::NOT_EDITABLE, "is not an editable field of this view");
            continue;
        };
        if field.kind == FieldType::File {
            check_file_answer(value, &path, report);
            continue;
        }
        let Some(answer) = answer_text(value, &path, report) else { continue };
        if state == InstanceState::Submitted && flags.required && is_missing(Some(value)) {
            report.push(path, codes::REQUIRED, "is required in this view and cannot be cleared");
            continue;
        }
        let problems = field.answer_problems(answer);
        if problems.is_empty() {
            out.insert(field.id.to_string(), Value::String(answer.to_owned()));
        }
        for (code, message) in problems {
            report.push(path.clone(), code, message);
        }
    }
    out
}

/// Metadata the view makes editable, checked by the form's own metadata rules. Returns what to
/// store and the form rules' problems.
fn check_metadata(
    view: &View,
    form: &FormConfig,
    value: Option<&Value>,
    state: InstanceState,
    report: &mut Report,
) -> (Map<String, Value>, Vec<Problem>) {
    let base = join(PAYLOAD_PATH, "metadata");
    let sent = match value {
        None | Some(Value::Null) => return (Map::new(), Vec::new()),
        Some(Value::Object(sent)) => sent,
        Some(_) => {
            report.push(base, codes::INVALID_TYPE, "must be an object");
            return (Map::new(), Vec::new());
        }
    };
    let rules = view.form(&form.id());
    let mut editable = Map::new();
    for (name, value) in sent {
        if rules.and_then(|r| r.metadata.get(name)).is_some_and(|rule| rule.visible && rule.editable) {
            editable.insert(name.clone(), value.clone());
        } else {
            report.push(join(&base, name), codes::NOT_EDITABLE, "is not editable in this view");
        }
    }
    if editable.is_empty() {
        return (Map::new(), Vec::new());
    }
    let synthesized = json!({"payload": {"metadata": editable}});
    match check_payload(form, &synthesized, Mode::Patch { current: state }) {
        Ok(checked) => (checked.metadata, Vec::new()),
        Err(problems) => (Map::new(), problems.into_vec()),
    }
}

/// Whether holders of `view` may change `field` of an item of `form` (its attachments included):
/// a visible, editable detail field of the view, overrides applied.
pub fn editable_in_view(view: &View, form: &FormConfig, field: &Field) -> bool {
    view.form(&form.id())
        .and_then(|rules| rules.detail_rule(&field.key))
        .is_some_and(|rule| effective(field, rule).editable)
}

/// Whether holders of `view` see `field` of an item of `form`.
pub fn visible_in_view(view: &View, form: &FormConfig, field: &Field) -> bool {
    view.form(&form.id())
        .and_then(|rules| rules.detail_rule(&field.key))
        .is_some_and(|rule| effective(field, rule).visible)
}
