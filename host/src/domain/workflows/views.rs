//! Views: their workbaskets, permission slot, and what they show of each form configuration.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Map, Value};
use uuid::Uuid;

use super::codes;
use super::limits::MAX_PERMISSION_SLOT;
use super::model::{DetailRule, MetadataRule, Overrides, View, ViewForm};
use super::rules::{required_ref, uuid_ref};
use crate::domain::document::CONFIG_PATH;
use crate::domain::document::context::{Context, array};
use crate::domain::document::report::{Report, join};
use crate::domain::forms::{Flags, FormConfig};

/// Reads one capture flag of a form configuration.
type Captured = fn(&Flags) -> bool;

/// The kinds of metadata a view can show, with the form flag that captures each.
pub(crate) const METADATA: [(&str, Captured); 4] = [
    ("timestamp", |f| f.capture_timestamp),
    ("tags", |f| f.capture_tags),
    ("summary", |f| f.capture_summary),
    ("location", |f| f.capture_location),
];

/// Form configurations looked up so far, so each id costs one call of the callback.
struct Forms<'f> {
    lookup: &'f dyn Fn(Uuid) -> Option<FormConfig>,
    found: HashMap<Uuid, Option<FormConfig>>,
}

impl Forms<'_> {
    fn get(&mut self, id: Uuid) -> Option<FormConfig> {
        let lookup = self.lookup;
        self.found.entry(id).or_insert_with(|| lookup(id)).clone()
    }
}

/// Checks every view; `Some` when all are sound.
pub(crate) fn check_views(
    cx: &mut Context<'_>,
    views: &[Value],
    workbaskets: &HashSet<Uuid>,
    allowed: &[Uuid],
    form: &dyn Fn(Uuid) -> Option<FormConfig>,
) -> Option<Vec<View>> {
    let mut forms = Forms { lookup: form, found: HashMap::new() };
    let list = join(CONFIG_PATH, "views");
    let checked: Vec<Option<View>> = views
        .iter()
        .enumerate()
        .map(|(index, view)| check_view(cx, view, &join(&list, index), workbaskets, allowed, &mut forms))
        .collect();
    checked.into_iter().collect()
}

fn check_view(
    cx: &mut Context<'_>,
    value: &Value,
    path: &str,
    workbaskets: &HashSet<Uuid>,
    allowed: &[Uuid],
    forms: &mut Forms<'_>,
) -> Option<View> {
    let object = value.as_object()?;
    let id = cx.id(object.get("id"), &join(path, "id"));
    let label = required_ref(cx, object, "label", path);
    let description = cx.text_ref(object, "description", path);

    let ids_path = join(path, "workbasketIds");
    let mut workbasket_ids = Vec::new();
    let mut sound = true;
    for (index, entry) in array(object.get("workbasketIds")).iter().enumerate() {
        let here = join(&ids_path, index);
        match uuid_ref(cx.report, Some(entry), &here) {
            Some(id) if !workbaskets.contains(&id) => {
                cx.report.push(here, codes::UNKNOWN_WORKBASKET, "names no workbasket of the network");
                sound = false;
            }
            Some(id) if workbasket_ids.contains(&id) => {
                cx.report.push(here, codes::DUPLICATE_ID, "is already listed by this view");
                sound = false;
            }
            Some(id) => workbasket_ids.push(id),
            None => sound = false,
        }
    }
    sound &= !workbasket_ids.is_empty();

    let permission_slot = object
        .get("permissionSlot")
        .and_then(Value::as_f64)
        .filter(|n| n.fract() == 0.0 && (0.0..=f64::from(MAX_PERMISSION_SLOT)).contains(n))
        .map(|n| n as u32);

    let forms_path = join(path, "forms");
    let mut view_forms = BTreeMap::new();
    if let Some(entries) = object.get("forms").and_then(Value::as_object) {
        for (key, entry) in entries {
            let here = join(&forms_path, key);
            let form_id = uuid_ref(cx.report, Some(&Value::String(key.clone())), &here);
            let config = form_id.and_then(|form_id| {
                if !allowed.contains(&form_id) {
                    cx.report.push(
                        &here,
                        codes::NOT_ALLOWLISTED,
                        "is not in integrations.forms.allowedConfigurationIds",
                    );
                }
                let config = forms.get(form_id);
                if config.is_none() {
                    cx.report.push(&here, codes::UNKNOWN_FORM_CONFIGURATION, "names no form configuration");
                }
                config
            });
            let checked = check_view_form(cx.report, entry, &here, config.as_ref());
            match (form_id, checked) {
                (Some(form_id), Some(checked)) => {
                    view_forms.insert(form_id, checked);
                }
                _ => sound = false,
            }
        }
    }
    if !sound {
        return None;
    }
    Some(View {
        id: id?,
        label: label?,
        description,
        workbasket_ids,
        permission_slot: permission_slot?,
        forms: view_forms,
    })
}

/// One entry of a view's `forms`. Field keys and captured metadata are checked against `form`
/// when it is known.
fn check_view_form(report: &mut Report, value: &Value, path: &str, form: Option<&FormConfig>) -> Option<ViewForm> {
    let object = value.as_object()?;
    let mut sound = true;
    let mut field_key = |report: &mut Report, value: Option<&Value>, here: &str, seen: &mut HashSet<String>| {
        let key = value.and_then(Value::as_str);
        let Some(key) = key else {
            sound = false;
            return None;
        };
        if let Some(form) = form
            && form.field_by_key(key).is_none()
        {
            report.push(here, codes::UNKNOWN_FIELD_KEY, format!("'{key}' is not a field key of form {}", form.id()));
            sound = false;
            return None;
        }
        if !seen.insert(key.to_owned()) {
            report.push(here, codes::DUPLICATE_KEY, format!("field key '{key}' is already listed"));
            sound = false;
            return None;
        }
        Some(key.to_owned())
    };

    let list_path = join(path, "listFields");
    let mut seen = HashSet::new();
    let list_fields: Vec<String> = array(object.get("listFields"))
        .iter()
        .enumerate()
        .filter_map(|(index, key)| field_key(report, Some(key), &join(&list_path, index), &mut seen))
        .collect();

    let detail_path = join(path, "detailFields");
    let mut seen = HashSet::new();
    let mut detail_fields = Vec::new();
    for (index, entry) in array(object.get("detailFields")).iter().enumerate() {
        let here = join(&detail_path, index);
        let Some(key) = field_key(report, entry.get("fieldKey"), &join(&here, "fieldKey"), &mut seen) else {
            continue;
        };
        detail_fields.push(DetailRule { field_key: key, overrides: read_overrides(entry.get("overrides")) });
    }

    let metadata = check_metadata(report, object.get("metadata"), &join(path, "metadata"), form);
    let metadata = metadata?;
    sound.then_some(ViewForm { list_fields, detail_fields, metadata })
}

/// Overrides as the schema allows them; anything else there was already reported.
fn read_overrides(value: Option<&Value>) -> Overrides {
    let flag = |name: &str| value.and_then(|o| o.get(name)).and_then(Value::as_bool);
    Overrides { editable: flag("editable"), required: flag("required"), visible: flag("visible") }
}

fn check_metadata(
    report: &mut Report,
    value: Option<&Value>,
    path: &str,
    form: Option<&FormConfig>,
) -> Option<BTreeMap<String, MetadataRule>> {
    let mut rules = BTreeMap::new();
    let Some(object) = value.and_then(Value::as_object) else {
        return value.is_none_or(Value::is_null).then_some(rules);
    };
    let mut sound = true;
    for (name, rule) in object {
        let Some((_, captured)) = METADATA.iter().find(|(known, _)| known == name) else {
            sound = false; // reported by the schema
            continue;
        };
        if let Some(form) = form
            && !captured(&form.flags())
        {
            report.push(join(path, name), codes::NOT_CAPTURED, format!("form {} does not capture {name}", form.id()));
            sound = false;
            continue;
        }
        let flag = |rule: &Map<String, Value>, name: &str| rule.get(name).and_then(Value::as_bool);
        match rule.as_object().map(|rule| (flag(rule, "visible"), flag(rule, "editable"))) {
            Some((Some(visible), Some(editable))) => {
                rules.insert(name.clone(), MetadataRule { visible, editable });
            }
            _ => sound = false, // reported by the schema
        }
    }
    sound.then_some(rules)
}
