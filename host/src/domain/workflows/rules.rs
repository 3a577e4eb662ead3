//! Validating a workflow configuration document: size first, then the schema, then the rules
//! across the document. The network rules are in `network`, the view rules in `views`.

use std::collections::HashSet;

use serde_json::{Map, Value};
use uuid::Uuid;

use super::codes;
use super::limits::{
    MAX_ALLOWED_FORMS, MAX_FORMS_PER_VIEW, MAX_TRANSITIONS, MAX_VIEW_FIELDS, MAX_VIEWS, MAX_WORKBASKETS,
};
use super::model::{WorkflowConfig, WorkflowParts};
use super::network::check_network;
use super::schema::check_shape;
use super::views::check_views;
use crate::domain::document::CONFIG_PATH;
use crate::domain::document::context::{Context, array};
use crate::domain::document::ids::parse_uuid_v4;
use crate::domain::document::limits::{CONFIG_BOUNDS, check_size};
use crate::domain::document::report::{Report, join};
use crate::domain::document::translations::{check_translations, count_languages};
use crate::domain::forms::FormConfig;
use crate::domain::problems::Problems;

/// Validates a workflow configuration wrapper's `id` and `config`, listing every problem.
///
/// The id is the wrapper's or `config.id` (they must agree when both are given), else `new_id`;
/// the returned document carries it as `id`. `form` looks up a form configuration by id; it is
/// called at most once per distinct id named as a key of a view's `forms`.
pub fn validate_workflow(
    wrapper_id: Option<&str>,
    config: &Value,
    new_id: Uuid,
    form: &dyn Fn(Uuid) -> Option<FormConfig>,
) -> Result<WorkflowConfig, Problems> {
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
    let mut cx = Context::new(&mut report, bundle);
    let id = cx.resolve_id(wrapper_id, root, new_id);
    let version = cx.version(root);
    let network = check_network(&mut cx, root.get("network"));
    let allowed = check_allowlist(cx.report, root);
    let views = check_views(&mut cx, array(root.get("views")), &network.known, &allowed, form);
    drop(cx);

    let enable_logging =
        root.get("controls").and_then(|c| c.get("enableLogging")).and_then(Value::as_bool) == Some(true);
    let parts = (|| {
        let mut document = config.clone();
        let id = id?;
        document["id"] = Value::String(id.to_string());
        Some(WorkflowParts {
            document,
            id,
            version: version?,
            default_language: default_language?,
            languages,
            enable_logging,
            entry_workbasket_id: network.entry?,
            workbaskets: network.workbaskets?,
            views: views?,
            allowed_forms: allowed,
        })
    })();
    match parts {
        Some(parts) => report.finish(|| WorkflowConfig::new(parts)),
        None if report.is_empty() => {
            report.push(CONFIG_PATH, codes::INVALID_VALUE, "could not be read");
            Err(report.into_problems())
        }
        None => Err(report.into_problems()),
    }
}

/// A required `$.` text: missing is left to the schema, `""` is reported here.
pub(super) fn required_ref(
    cx: &mut Context<'_>,
    object: &Map<String, Value>,
    name: &str,
    base: &str,
) -> Option<String> {
    if object.get(name).and_then(Value::as_str) == Some("") {
        cx.report.push(join(base, name), codes::REQUIRED, "must be a $. path into translations");
        return None;
    }
    cx.text_ref(object, name, base)
}

/// A UUID v4 reference (not a new id): the parsed id, or `INVALID_UUID` at `path`.
pub(super) fn uuid_ref(report: &mut Report, value: Option<&Value>, path: &str) -> Option<Uuid> {
    let text = value?.as_str()?;
    let id = parse_uuid_v4(text);
    if id.is_none() {
        report.push(path, codes::INVALID_UUID, "must be a UUID v4");
    }
    id
}

/// `integrations.forms.allowedConfigurationIds`: the valid, distinct ids in document order.
fn check_allowlist(report: &mut Report, root: &Map<String, Value>) -> Vec<Uuid> {
    let base = join(&join(&join(CONFIG_PATH, "integrations"), "forms"), "allowedConfigurationIds");
    let entries =
        array(root.get("integrations").and_then(|i| i.get("forms")).and_then(|f| f.get("allowedConfigurationIds")));
    let mut seen = HashSet::new();
    let mut allowed = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        let path = join(&base, index);
        let Some(id) = uuid_ref(report, Some(entry), &path) else { continue };
        if seen.insert(id) {
            allowed.push(id);
        } else {
            report.push(path, codes::DUPLICATE_ID, "is already in the allowlist");
        }
    }
    allowed
}

/// Workbasket, transition, view, allowlist and language counts, before the schema walks the
/// document.
fn check_counts(root: &Map<String, Value>) -> Result<(), (String, String)> {
    let network = join(CONFIG_PATH, "network");
    let workbaskets = array(root.get("network").and_then(|n| n.get("workbaskets")));
    if workbaskets.len() > MAX_WORKBASKETS {
        return Err((join(&network, "workbaskets"), format!("has more than {MAX_WORKBASKETS} workbaskets")));
    }
    let mut transitions = 0;
    for (index, workbasket) in workbaskets.iter().enumerate() {
        transitions += array(workbasket.get("transitions")).len();
        if transitions > MAX_TRANSITIONS {
            let path = join(&join(&join(&network, "workbaskets"), index), "transitions");
            return Err((path, format!("the network has more than {MAX_TRANSITIONS} transitions")));
        }
    }
    let views = array(root.get("views"));
    if views.len() > MAX_VIEWS {
        return Err((join(CONFIG_PATH, "views"), format!("has more than {MAX_VIEWS} views")));
    }
    for (index, view) in views.iter().enumerate() {
        let Some(forms) = view.get("forms").and_then(Value::as_object) else { continue };
        let path = join(&join(&join(CONFIG_PATH, "views"), index), "forms");
        if forms.len() > MAX_FORMS_PER_VIEW {
            return Err((path, format!("names more than {MAX_FORMS_PER_VIEW} form configurations")));
        }
        for (key, entry) in forms {
            for name in ["listFields", "detailFields"] {
                if array(entry.get(name)).len() > MAX_VIEW_FIELDS {
                    return Err((join(&join(&path, key), name), format!("has more than {MAX_VIEW_FIELDS} entries")));
                }
            }
        }
    }
    let allowed = root.get("integrations").and_then(|i| i.get("forms")).and_then(|f| f.get("allowedConfigurationIds"));
    if array(allowed).len() > MAX_ALLOWED_FORMS {
        let path = join(&join(&join(CONFIG_PATH, "integrations"), "forms"), "allowedConfigurationIds");
        return Err((path, format!("has more than {MAX_ALLOWED_FORMS} entries")));
    }
    count_languages(root)
}
