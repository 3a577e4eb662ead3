//! Instance bodies (`{payload: {...}}`): state, language, answers, metadata and integrations, on
//! create and on sparse PATCH.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use uuid::Uuid;

use crate::domain::document::PAYLOAD_PATH;
use crate::domain::document::answers::is_missing;
use crate::domain::document::ids::{parse_hyphenated_uuid, parse_uuid_v4};
use crate::domain::document::payload::open_payload;
use crate::domain::document::report::{Report, join};
use crate::domain::problems::Problems;

use super::answers::{check_fields, check_required};
use super::codes;
use super::model::FormConfig;

const KNOWN: [&str; 6] = ["configurationId", "language", "state", "fields", "metadata", "integrations"];
/// 9999-12-31T23:59:59Z, the last second a four-digit year can write.
const MAX_TIMESTAMP: f64 = 253_402_300_799.0;
/// Altitude bounds in metres, generous on both sides.
const MAX_ALTITUDE: f64 = 100_000.0;

/// The states of a form instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum InstanceState {
    Draft,
    Submitted,
}

impl InstanceState {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "DRAFT" => Some(Self::Draft),
            "SUBMITTED" => Some(Self::Submitted),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "DRAFT",
            Self::Submitted => "SUBMITTED",
        }
    }
}

/// The state an instance may move to from `current`: DRAFT to SUBMITTED, or unchanged.
pub fn next_state(current: InstanceState, requested: InstanceState) -> Option<InstanceState> {
    match (current, requested) {
        (InstanceState::Submitted, InstanceState::Draft) => None,
        (_, requested) => Some(requested),
    }
}

/// What the body is checked as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A new instance: the whole set of answers; state defaults to SUBMITTED.
    Create,
    /// A sparse update of an instance now in `current`: only the sent slices. Merge the result
    /// over the stored payload with [`merge_patch`].
    Patch { current: InstanceState },
}

/// A checked instance body, ready to store (create) or to merge (patch).
#[derive(Clone, Debug, PartialEq)]
pub struct CheckedPayload {
    pub configuration_id: Uuid,
    /// Create: the language sent, else the configuration's default. Patch: the language sent, if any.
    pub language: Option<String>,
    /// The state after this request.
    pub state: InstanceState,
    /// Answers by canonical (lower-case) field id; strings, `""` for a cleared answer. File fields
    /// are not listed: their files are attachments.
    pub fields: Map<String, Value>,
    /// `timestamp`, `tags`, `summary`, `location` as sent, enabled ones only. In a patch, `null`
    /// removes the stored value.
    pub metadata: Map<String, Value>,
    /// `spaceId`, `workflowConfigurationId` (lower-case UUIDs), enabled ones only; `null` as above.
    pub integrations: Map<String, Value>,
}

impl CheckedPayload {
    pub fn space_id(&self) -> Option<Uuid> {
        self.integrations.get("spaceId").and_then(Value::as_str).and_then(|id| Uuid::try_parse(id).ok())
    }

    pub fn workflow_configuration_id(&self) -> Option<Uuid> {
        self.integrations.get("workflowConfigurationId").and_then(Value::as_str).and_then(|id| Uuid::try_parse(id).ok())
    }
}

/// Reads `payload.configurationId`, so the caller can load the configuration before
/// [`check_payload`].
pub fn payload_configuration_id(body: &Value) -> Result<Uuid, Problems> {
    let mut report = Report::default();
    let path = join(PAYLOAD_PATH, "configurationId");
    let id = match body.get("payload").and_then(|p| p.get("configurationId")) {
        None | Some(Value::Null) => {
            report.push(path, codes::REQUIRED, "is required");
            None
        }
        Some(Value::String(text)) => {
            let id = parse_uuid_v4(text);
            if id.is_none() {
                report.push(path, codes::INVALID_UUID, "must be a UUID v4");
            }
            id
        }
        Some(_) => {
            report.push(path, codes::INVALID_TYPE, "must be a string");
            None
        }
    };
    match id {
        Some(id) => Ok(id),
        None => Err(report.into_problems()),
    }
}

/// Checks an instance body against its configuration, listing every problem.
pub fn check_payload(config: &FormConfig, body: &Value, mode: Mode) -> Result<CheckedPayload, Problems> {
    let mut report = Report::default();
    let Some(payload) = open_payload(body, &mut report) else {
        return Err(report.into_problems());
    };
    for name in payload.keys().filter(|name| !KNOWN.contains(&name.as_str())) {
        report.push(join(PAYLOAD_PATH, name), codes::UNKNOWN_PROPERTY, "is not a payload property");
    }
    let creating = mode == Mode::Create;
    check_configuration_id(config, payload.get("configurationId"), creating, &mut report);
    let language = check_language(config, payload.get("language"), &mut report)
        .or_else(|| creating.then(|| config.default_language().to_owned()));
    let state = check_state(payload.get("state"), mode, &mut report);
    let fields = check_fields(config, payload.get("fields"), creating, &mut report);
    if creating && state == InstanceState::Submitted {
        check_required(config, &fields, &mut report);
    }
    let metadata = check_metadata(config, payload.get("metadata"), creating, &mut report);
    let integrations = check_integrations(config, payload.get("integrations"), creating, &mut report);
    report.finish(|| CheckedPayload { configuration_id: config.id(), language, state, fields, metadata, integrations })
}

/// Lays a checked patch over the stored payload and, when the result is SUBMITTED, checks
/// `required` on the merged answers.
pub fn merge_patch(
    config: &FormConfig,
    stored: &CheckedPayload,
    patch: CheckedPayload,
) -> Result<CheckedPayload, Problems> {
    let mut merged = stored.clone();
    merged.fields.extend(patch.fields);
    for (target, slice) in [(&mut merged.metadata, patch.metadata), (&mut merged.integrations, patch.integrations)] {
        for (name, value) in slice {
            if value.is_null() {
                target.remove(&name);
            } else {
                target.insert(name, value);
            }
        }
    }
    if patch.language.is_some() {
        merged.language = patch.language;
    }
    merged.state = patch.state;
    let mut report = Report::default();
    if merged.state == InstanceState::Submitted {
        check_required(config, &merged.fields, &mut report);
    }
    report.finish(|| merged)
}

/// The field ids whose answers differ, sorted; missing, `null` and `""` count as the same.
pub fn changed_fields(before: &Map<String, Value>, after: &Map<String, Value>) -> Vec<String> {
    let ids: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    ids.into_iter()
        .filter(|id| {
            let (old, new) = (before.get(*id), after.get(*id));
            !(is_missing(old) && is_missing(new)) && old != new
        })
        .cloned()
        .collect()
}

fn check_configuration_id(config: &FormConfig, value: Option<&Value>, creating: bool, report: &mut Report) {
    let path = join(PAYLOAD_PATH, "configurationId");
    match value {
        None | Some(Value::Null) if creating => report.push(path, codes::REQUIRED, "is required"),
        None | Some(Value::Null) => {}
        Some(Value::String(text)) => match parse_hyphenated_uuid(text) {
            Some(id) if id == config.id() => {}
            Some(_) => report.push(path, codes::CONFIGURATION_MISMATCH, "names another configuration"),
            None => report.push(path, codes::INVALID_UUID, "must be a UUID v4"),
        },
        Some(_) => report.push(path, codes::INVALID_TYPE, "must be a string"),
    }
}

fn check_language(config: &FormConfig, value: Option<&Value>, report: &mut Report) -> Option<String> {
    let path = join(PAYLOAD_PATH, "language");
    match value? {
        Value::Null => None,
        Value::String(language) if config.has_language(language) => Some(language.clone()),
        Value::String(_) => {
            let known = config.languages().join(", ");
            report.push(path, codes::INVALID_LANGUAGE, format!("is not a language of this configuration ({known})"));
            None
        }
        _ => {
            report.push(path, codes::INVALID_TYPE, "must be a string");
            None
        }
    }
}

fn check_state(value: Option<&Value>, mode: Mode, report: &mut Report) -> InstanceState {
    let path = join(PAYLOAD_PATH, "state");
    let current = match mode {
        Mode::Create => None,
        Mode::Patch { current } => Some(current),
    };
    let requested = match value {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => {
            let parsed = InstanceState::parse(text);
            if parsed.is_none() {
                report.push(path.clone(), codes::INVALID_VALUE, "must be DRAFT or SUBMITTED");
            }
            parsed
        }
        Some(_) => {
            report.push(path.clone(), codes::INVALID_TYPE, "must be a string");
            None
        }
    };
    match (current, requested) {
        (None, requested) => requested.unwrap_or(InstanceState::Submitted),
        (Some(current), None) => current,
        (Some(current), Some(requested)) => next_state(current, requested).unwrap_or_else(|| {
            report.push(path, codes::INVALID_TRANSITION, "a SUBMITTED instance cannot go back to DRAFT");
            current
        }),
    }
}

/// Checks the value of one metadata or integrations property and returns what to store.
type SliceCheck = fn(&Value, &str, &mut Report) -> Option<Value>;

/// Checks one optional object of flag-gated properties, given as `(name, enabled, check)`.
fn check_slice(
    value: Option<&Value>,
    base: &str,
    properties: &[(&str, bool, SliceCheck)],
    creating: bool,
    report: &mut Report,
) -> Map<String, Value> {
    let mut out = Map::new();
    let object = match value {
        None | Some(Value::Null) => return out,
        Some(Value::Object(object)) => object,
        Some(_) => {
            report.push(base, codes::INVALID_TYPE, "must be an object");
            return out;
        }
    };
    for (name, value) in object {
        let path = join(base, name);
        let Some((_, enabled, check)) = properties.iter().find(|(known, _, _)| known == name) else {
            report.push(path, codes::UNKNOWN_PROPERTY, "is not a property here");
            continue;
        };
        if value.is_null() {
            if !creating {
                out.insert(name.clone(), Value::Null);
            }
        } else if !enabled {
            report.push(path, codes::NOT_ENABLED, "is not enabled by the configuration");
        } else if let Some(checked) = check(value, &path, report) {
            out.insert(name.clone(), checked);
        }
    }
    out
}

fn check_metadata(
    config: &FormConfig,
    value: Option<&Value>,
    creating: bool,
    report: &mut Report,
) -> Map<String, Value> {
    let flags = config.flags();
    let properties: [(&str, bool, SliceCheck); 4] = [
        ("timestamp", flags.capture_timestamp, check_timestamp),
        ("tags", flags.capture_tags, check_string),
        ("summary", flags.capture_summary, check_string),
        ("location", flags.capture_location, check_location),
    ];
    check_slice(value, &join(PAYLOAD_PATH, "metadata"), &properties, creating, report)
}

fn check_integrations(
    config: &FormConfig,
    value: Option<&Value>,
    creating: bool,
    report: &mut Report,
) -> Map<String, Value> {
    let flags = config.flags();
    let properties: [(&str, bool, SliceCheck); 2] = [
        ("spaceId", flags.allow_space_associations, check_uuid),
        ("workflowConfigurationId", flags.allow_workflow_starts, check_uuid),
    ];
    check_slice(value, &join(PAYLOAD_PATH, "integrations"), &properties, creating, report)
}

fn check_timestamp(value: &Value, path: &str, report: &mut Report) -> Option<Value> {
    let Some(seconds) = value.as_f64() else {
        report.push(path, codes::INVALID_TYPE, "must be a number of seconds since the epoch");
        return None;
    };
    if !(0.0..=MAX_TIMESTAMP).contains(&seconds) {
        report.push(path, codes::INVALID_RANGE, "must be epoch seconds between 1970 and 9999");
        return None;
    }
    Some(value.clone())
}

fn check_string(value: &Value, path: &str, report: &mut Report) -> Option<Value> {
    if value.is_string() {
        Some(value.clone())
    } else {
        report.push(path, codes::INVALID_TYPE, "must be a string");
        None
    }
}

fn check_uuid(value: &Value, path: &str, report: &mut Report) -> Option<Value> {
    let Some(text) = value.as_str() else {
        report.push(path, codes::INVALID_TYPE, "must be a string");
        return None;
    };
    match parse_uuid_v4(text) {
        Some(id) => Some(Value::String(id.to_string())),
        None => {
            report.push(path, codes::INVALID_UUID, "must be a UUID v4");
            None
        }
    }
}

fn check_location(value: &Value, path: &str, report: &mut Report) -> Option<Value> {
    let Some(location) = value.as_object() else {
        report.push(path, codes::INVALID_TYPE, "must be an object with longitude, latitude and altitude");
        return None;
    };
    let before = report.len();
    let axes = [("longitude", 180.0, true), ("latitude", 90.0, true), ("altitude", MAX_ALTITUDE, false)];
    for name in location.keys().filter(|name| !axes.iter().any(|(axis, _, _)| axis == name)) {
        report.push(join(path, name), codes::UNKNOWN_PROPERTY, "is not a location property");
    }
    for (axis, bound, required) in axes {
        let here = join(path, axis);
        match location.get(axis) {
            None | Some(Value::Null) if required => report.push(here, codes::REQUIRED, "is required"),
            None | Some(Value::Null) => {}
            Some(Value::String(text)) => match text.parse::<f64>() {
                Ok(number) if number.is_finite() && (-bound..=bound).contains(&number) => {}
                Ok(number) if number.is_finite() => {
                    report.push(here, codes::INVALID_RANGE, format!("must be between -{bound} and {bound}"));
                }
                _ => report.push(here, codes::INVALID_VALUE, "must be a decimal number written as a string"),
            },
            Some(_) => report.push(here, codes::INVALID_TYPE, "must be a string such as \"12.5\""),
        }
    }
    (report.len() == before).then(|| value.clone())
}

/// A stored JSON object (answers, metadata, integrations) as a map; missing or unreadable text reads as
/// empty.
pub fn stored_object(text: Option<&str>) -> Map<String, Value> {
    text.and_then(|t| serde_json::from_str(t).ok()).unwrap_or_default()
}
