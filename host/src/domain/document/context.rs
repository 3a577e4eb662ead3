//! What the rules share while walking one configuration document: the report, the ids used so
//! far and the default language's bundle, with the checks every document makes of its id,
//! version, structural ids and `$.` texts.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};
use uuid::Uuid;

use super::CONFIG_PATH;
use super::codes;
use super::ids::parse_uuid_v4;
use super::report::{Report, join};

static SEMVER: LazyLock<Regex> = LazyLock::new(|| {
    let ident = "(?:0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)";
    Regex::new(&format!(
        r"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:-{ident}(?:\.{ident})*)?(?:\+[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*)?$"
    ))
    .expect("valid regex")
});

/// The shared state of one document walk. Ids are unique across the whole document, whatever
/// kind of thing they name, so one map holds them all.
pub(crate) struct Context<'r> {
    pub(crate) report: &'r mut Report,
    /// The default language's bundle, when it exists (references are not checked without it).
    bundle: Option<Value>,
    ids: HashMap<Uuid, String>,
}

impl<'r> Context<'r> {
    pub(crate) fn new(report: &'r mut Report, bundle: Option<Value>) -> Self {
        Self { report, bundle, ids: HashMap::new() }
    }

    /// The document's id: the wrapper's or `config.id` (they must agree when both are given),
    /// else `new_id`.
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
            Some(value) => Some(self.id(Some(value), &join(CONFIG_PATH, "id"))),
        };
        match (wrapper, inner) {
            (Some(Some(outer)), Some(Some(inner))) if outer != inner => {
                self.report.push("/id", codes::ID_MISMATCH, format!("disagrees with config.id ({inner})"));
                None
            }
            (Some(None), _) | (_, Some(None)) => None,
            (Some(Some(id)), _) | (None, Some(Some(id))) => {
                self.ids.entry(id).or_insert_with(|| join(CONFIG_PATH, "id"));
                Some(id)
            }
            (None, None) => {
                self.ids.insert(new_id, join(CONFIG_PATH, "id"));
                Some(new_id)
            }
        }
    }

    /// The contract version the document names; only major 1 is supported.
    pub(crate) fn version(&mut self, root: &Map<String, Value>) -> Option<String> {
        let version = root.get("version")?.as_str()?;
        let path = join(CONFIG_PATH, "version");
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

/// The items of a value that should be an array; none when it is missing or not one (the schema
/// reports that), so the rules can walk what is there.
pub(crate) fn array(value: Option<&Value>) -> &[Value] {
    value.and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
}
