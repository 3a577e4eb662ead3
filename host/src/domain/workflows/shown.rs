//! What a view holder sees of a form instance outside the item routes (conventions section 13):
//! `GET /v0/forms/{formId}` and attachment downloads show them only the fields (and the files of
//! the file fields) and the metadata that one of their views shows.

use std::collections::HashSet;

use serde_json::{Map, Value};
use uuid::Uuid;

use super::items::visible_in_view;
use super::model::View;
use crate::domain::forms::FormConfig;

/// The parts of an instance of one form that a set of views shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shown {
    fields: HashSet<Uuid>,
    metadata: HashSet<String>,
}

impl Shown {
    /// What any of `views` shows of an instance of `form`, overrides applied.
    pub fn by_views<'a>(views: impl IntoIterator<Item = &'a View>, form: &FormConfig) -> Self {
        let mut shown = Self::default();
        for view in views {
            shown.fields.extend(form.fields().filter(|field| visible_in_view(view, form, field)).map(|field| field.id));
            if let Some(rules) = view.form(&form.id()) {
                shown
                    .metadata
                    .extend(rules.metadata.iter().filter(|(_, rule)| rule.visible).map(|(name, _)| name.clone()));
            }
        }
        shown
    }

    /// Whether the field (and the files of a file field) with this id is shown.
    pub fn shows_field(&self, field_id: &str) -> bool {
        Uuid::try_parse(field_id).is_ok_and(|id| self.fields.contains(&id))
    }

    /// Keeps only the shown answers (keyed by field id) and metadata entries.
    pub fn reduce(&self, fields: &mut Map<String, Value>, metadata: &mut Map<String, Value>) {
        fields.retain(|id, _| self.shows_field(id));
        metadata.retain(|name, _| self.metadata.contains(name));
    }
}
