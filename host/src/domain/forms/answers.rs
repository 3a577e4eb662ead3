//! Answer rules: what one answer must satisfy (a rule of its field, so workflows apply it too
//! through [`Field::answer_problems`]), and the checks of `payload.fields`.

use serde_json::{Map, Value};

use super::codes;
use super::model::{Field, FieldType, FormConfig};
use crate::domain::document::answers::{answer_text, check_file_answer, is_missing};
use crate::domain::document::ids::parse_hyphenated_uuid;
use crate::domain::document::report::{Report, join};

const FIELDS_PATH: &str = "/payload/fields";

impl Field {
    /// What is wrong with one non-empty answer (or default value), as (code, message) pairs.
    /// `""` is never checked here: an empty answer skips `validation`, `minLength` and `maxLength`.
    pub fn answer_problems(&self, answer: &str) -> Vec<(&'static str, String)> {
        let mut found = Vec::new();
        if answer.is_empty() {
            return found;
        }
        match self.kind {
            FieldType::Dropdown => {
                if self.option_by_value(answer).is_none() {
                    let hint = if self.options.iter().any(|option| option.key == answer) {
                        " (answers use the option value, not its key)"
                    } else {
                        ""
                    };
                    found.push((codes::INVALID_OPTION, format!("'{}' is not an option value{hint}", clip(answer))));
                }
            }
            FieldType::Date => {
                if let Some(format) = &self.format
                    && let Err(message) = format.check(answer)
                {
                    found.push((codes::INVALID_DATE, message));
                }
            }
            FieldType::Text | FieldType::Textarea => {
                let chars = answer.chars().count() as u64;
                if let Some(min) = self.min_length
                    && chars < min
                {
                    found.push((codes::TOO_SHORT, format!("must be at least {min} characters")));
                }
                if let Some(max) = self.max_length
                    && chars > max
                {
                    found.push((codes::TOO_LONG, format!("must be at most {max} characters")));
                }
            }
            FieldType::File => {}
        }
        if let Some(pattern) = &self.validation
            && !pattern.is_match(answer)
        {
            found.push((codes::PATTERN_MISMATCH, format!("does not match {}", clip(pattern.as_str()))));
        }
        found
    }
}

/// At most 100 characters of a value, for messages.
fn clip(text: &str) -> String {
    let mut clipped: String = text.chars().take(100).collect();
    if clipped.len() < text.len() {
        clipped.push('…');
    }
    clipped
}

/// Checks `payload.fields` and returns the answers keyed by canonical field id. Non-file answers
/// are strings (`null` becomes `""`); file fields, always `[]`, are left out. With `fill_defaults`
/// (a create), a missing answer of a field that is not editable gets the field's default.
pub(crate) fn check_fields(
    config: &FormConfig,
    fields: Option<&Value>,
    fill_defaults: bool,
    report: &mut Report,
) -> Map<String, Value> {
    let mut answers = Map::new();
    let mut file_fields = Vec::new();
    match fields {
        None | Some(Value::Null) => {}
        Some(Value::Object(sent)) => {
            for (id_text, value) in sent {
                let path = join(FIELDS_PATH, id_text);
                let Some(field) = find_field(config, id_text, &path, report) else {
                    continue;
                };
                let id = field.id.to_string();
                if answers.contains_key(&id) || file_fields.contains(&field.id) {
                    report.push(path, codes::DUPLICATE_ID, "answers the same field twice");
                    continue;
                }
                if let Some(answer) = check_answer(field, value, &path, report) {
                    answers.insert(id, Value::String(answer));
                } else if field.kind == FieldType::File {
                    file_fields.push(field.id);
                }
            }
        }
        Some(_) => report.push(FIELDS_PATH, codes::INVALID_TYPE, "must be an object keyed by field id"),
    }
    if fill_defaults {
        for field in config.fields().filter(|f| !f.editable && f.kind != FieldType::File) {
            answers.entry(field.id.to_string()).or_insert_with(|| Value::String(field.default_value.clone()));
        }
    }
    answers
}

fn find_field<'c>(config: &'c FormConfig, id_text: &str, path: &str, report: &mut Report) -> Option<&'c Field> {
    let field = parse_hyphenated_uuid(id_text).and_then(|id| config.field(&id));
    if field.is_none() {
        let message = match config.field_by_key(id_text) {
            Some(by_key) => format!("answers are keyed by field id; '{id_text}' is the key of field {}", by_key.id),
            None => "is not a field id of this configuration".to_owned(),
        };
        report.push(path, codes::UNKNOWN_FIELD, message);
    }
    field
}

/// One answer, as the string to store; `None` for file fields and for answers with problems.
fn check_answer(field: &Field, value: &Value, path: &str, report: &mut Report) -> Option<String> {
    if field.kind == FieldType::File {
        check_file_answer(value, path, report);
        return None;
    }
    let answer = answer_text(value, path, report)?;
    if !field.editable && answer != field.default_value {
        report.push(path, codes::NOT_EDITABLE, "is not editable; send its default value or leave it out");
        return None;
    }
    let before = report.len();
    for (code, message) in field.answer_problems(answer) {
        report.push(path, code, message);
    }
    (report.len() == before).then(|| answer.to_owned())
}

/// `required` for a SUBMITTED instance: `""`, `null` and a missing answer are all missing.
/// File fields are left to the attachment routes, since their files arrive after the instance.
/// An answer that was sent but refused (and so left out of `answers`) is not missing: its own
/// problem is reported already.
pub(crate) fn check_required(config: &FormConfig, answers: &Map<String, Value>, report: &mut Report) {
    for field in config.fields().filter(|f| f.required && f.kind != FieldType::File) {
        let id = field.id.to_string();
        let path = join(FIELDS_PATH, &id);
        if is_missing(answers.get(&id)) && !report.has_problem_at(&path) {
            report.push(path, codes::REQUIRED, "is required to submit");
        }
    }
}
