//! The validated workflow configuration: built only by [`super::validate_workflow`], cheap to
//! clone and share between threads.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use serde_json::Value;
use uuid::Uuid;

/// A validated workflow configuration. Clones share one allocation.
#[derive(Clone, Debug)]
pub struct WorkflowConfig(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    document: Value,
    id: Uuid,
    version: String,
    default_language: String,
    languages: Vec<String>,
    enable_logging: bool,
    entry_workbasket_id: Uuid,
    workbaskets: Vec<Workbasket>,
    views: Vec<View>,
    allowed_forms: Vec<Uuid>,
    workbasket_index: HashMap<Uuid, usize>,
    view_index: HashMap<Uuid, usize>,
}

/// A workbasket (a state of the process) and the moves out of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Workbasket {
    pub id: Uuid,
    /// `$.` path of the label.
    pub label: String,
    pub order: f64,
    pub terminal: bool,
    /// In document order; empty for a terminal workbasket.
    pub transitions: Vec<Transition>,
}

/// One allowed move out of a workbasket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transition {
    pub id: Uuid,
    pub target_workbasket_id: Uuid,
    /// `$.` path of the label.
    pub label: String,
}

/// A queue over some workbaskets, usable by holders of its permission slot.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    pub id: Uuid,
    /// `$.` path of the label.
    pub label: String,
    /// `$.` path of the description, if any.
    pub description: Option<String>,
    pub workbasket_ids: Vec<Uuid>,
    pub permission_slot: u32,
    /// What the view shows of items of each form configuration it names.
    pub forms: BTreeMap<Uuid, ViewForm>,
}

impl View {
    /// The presentation rules for items of this form configuration, if the view names it.
    pub fn form(&self, form_config_id: &Uuid) -> Option<&ViewForm> {
        self.forms.get(form_config_id)
    }

    /// Whether items in this workbasket are listed by the view.
    pub fn shows_workbasket(&self, workbasket_id: &Uuid) -> bool {
        self.workbasket_ids.contains(workbasket_id)
    }
}

/// The presentation rules of one form configuration in one view.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ViewForm {
    /// Field keys shown in lists, in document order.
    pub list_fields: Vec<String>,
    /// Fields shown (and maybe editable) in an item's detail, in document order.
    pub detail_fields: Vec<DetailRule>,
    /// Rules for `timestamp`, `tags`, `summary`, `location`; a missing key is hidden.
    pub metadata: BTreeMap<String, MetadataRule>,
}

impl ViewForm {
    pub fn detail_rule(&self, field_key: &str) -> Option<&DetailRule> {
        self.detail_fields.iter().find(|rule| rule.field_key == field_key)
    }
}

/// One `detailFields` entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DetailRule {
    pub field_key: String,
    pub overrides: Overrides,
}

/// Overrides of a form field's own flags in one view. A flag that is set wins over the form
/// field's; an unset one leaves the form field's flag in force.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    pub editable: Option<bool>,
    pub required: Option<bool>,
    pub visible: Option<bool>,
}

/// How one kind of metadata shows in a view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MetadataRule {
    pub visible: bool,
    pub editable: bool,
}

/// The parts the rules produce, assembled into a [`WorkflowConfig`].
pub(crate) struct WorkflowParts {
    pub(crate) document: Value,
    pub(crate) id: Uuid,
    pub(crate) version: String,
    pub(crate) default_language: String,
    pub(crate) languages: Vec<String>,
    pub(crate) enable_logging: bool,
    pub(crate) entry_workbasket_id: Uuid,
    pub(crate) workbaskets: Vec<Workbasket>,
    pub(crate) views: Vec<View>,
    pub(crate) allowed_forms: Vec<Uuid>,
}

impl WorkflowConfig {
    pub(crate) fn new(parts: WorkflowParts) -> Self {
        let workbasket_index = parts.workbaskets.iter().enumerate().map(|(i, w)| (w.id, i)).collect();
        let view_index = parts.views.iter().enumerate().map(|(i, v)| (v.id, i)).collect();
        Self(Arc::new(Inner {
            document: parts.document,
            id: parts.id,
            version: parts.version,
            default_language: parts.default_language,
            languages: parts.languages,
            enable_logging: parts.enable_logging,
            entry_workbasket_id: parts.entry_workbasket_id,
            workbaskets: parts.workbaskets,
            views: parts.views,
            allowed_forms: parts.allowed_forms,
            workbasket_index,
            view_index,
        }))
    }

    /// The document as validated, with `id` set to [`Self::id`].
    pub fn document(&self) -> &Value {
        &self.0.document
    }

    pub fn id(&self) -> Uuid {
        self.0.id
    }

    /// The contract version the document names (major 1).
    pub fn version(&self) -> &str {
        &self.0.version
    }

    pub fn default_language(&self) -> &str {
        &self.0.default_language
    }

    /// The languages holding a bundle in `translations`, sorted; the default is among them.
    pub fn languages(&self) -> &[String] {
        &self.0.languages
    }

    pub fn has_language(&self, language: &str) -> bool {
        self.0.languages.iter().any(|l| l == language)
    }

    /// `controls.enableLogging` (missing is `false`).
    pub fn enable_logging(&self) -> bool {
        self.0.enable_logging
    }

    /// Where a new instance starts.
    pub fn entry_workbasket_id(&self) -> Uuid {
        self.0.entry_workbasket_id
    }

    /// Workbaskets in document order.
    pub fn workbaskets(&self) -> &[Workbasket] {
        &self.0.workbaskets
    }

    pub fn workbasket(&self, id: &Uuid) -> Option<&Workbasket> {
        self.0.workbasket_index.get(id).map(|&i| &self.0.workbaskets[i])
    }

    /// The moves out of a workbasket; empty for a terminal or unknown one.
    pub fn transitions_from(&self, workbasket_id: &Uuid) -> &[Transition] {
        self.workbasket(workbasket_id).map(|w| w.transitions.as_slice()).unwrap_or_default()
    }

    /// The transition `transition_id` when it is available in `workbasket_id`.
    pub fn transition(&self, workbasket_id: &Uuid, transition_id: &Uuid) -> Option<&Transition> {
        self.transitions_from(workbasket_id).iter().find(|t| t.id == *transition_id)
    }

    /// Views in document order.
    pub fn views(&self) -> &[View] {
        &self.0.views
    }

    pub fn view(&self, id: &Uuid) -> Option<&View> {
        self.0.view_index.get(id).map(|&i| &self.0.views[i])
    }

    /// `integrations.forms.allowedConfigurationIds`, in document order.
    pub fn allowed_form_ids(&self) -> &[Uuid] {
        &self.0.allowed_forms
    }

    pub fn allows_form(&self, form_config_id: &Uuid) -> bool {
        self.0.allowed_forms.contains(form_config_id)
    }

    /// Every permission slot a view uses.
    pub fn slots(&self) -> BTreeSet<u32> {
        self.0.views.iter().map(|view| view.permission_slot).collect()
    }

    /// The text a `$.` path names, in `language` when its bundle has it, else in the default
    /// language. `None` for a path that is not a `$.` path or leads to no string.
    pub fn label(&self, path: &str, language: &str) -> Option<String> {
        resolve_text(&self.0.document["translations"], path, language, &self.0.default_language)
    }
}

/// Resolves a `$.` path in `translations[language]`, falling back to `translations[default]`.
pub(crate) fn resolve_text(translations: &Value, path: &str, language: &str, default: &str) -> Option<String> {
    let reference = path.strip_prefix("$.")?;
    let lookup = |language: &str| {
        let bundle = translations.get(language).filter(|_| language != "defaultLanguage")?;
        reference
            .split('.')
            .try_fold(bundle, |node, segment| if segment.is_empty() { None } else { node.get(segment) })
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    lookup(language).or_else(|| lookup(default))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn workflow_config_can_be_shared_between_threads() {
        fn assert_shareable<T: Send + Sync + Clone + 'static>() {}
        assert_shareable::<WorkflowConfig>();
    }

    #[test]
    fn texts_resolve_in_the_language_then_the_default() {
        let translations = json!({
            "defaultLanguage": "en",
            "en": {"workbaskets": {"a": {"label": "A"}, "b": {"label": "B"}}},
            "de": {"workbaskets": {"a": {"label": "A (de)"}}}
        });
        let resolve = |path, language| resolve_text(&translations, path, language, "en");
        assert_eq!(resolve("$.workbaskets.a.label", "de").as_deref(), Some("A (de)"));
        assert_eq!(resolve("$.workbaskets.b.label", "de").as_deref(), Some("B"));
        assert_eq!(resolve("$.workbaskets.b.label", "fr").as_deref(), Some("B"));
        assert_eq!(resolve("$.workbaskets.c.label", "en"), None);
        assert_eq!(resolve("$.workbaskets", "en"), None);
        assert_eq!(resolve("workbaskets.a.label", "en"), None);
        assert_eq!(resolve("$..a", "en"), None);
    }
}
