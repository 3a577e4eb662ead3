//! Workflow configurations and the items that run through them: the configuration document's
//! rules, the parsed [`WorkflowConfig`] the HTTP layer caches, and how a view projects and
//! patches an item (a form instance).
//!
//! Problem paths are JSON Pointers into the request body: `/config/...` (and `/id`) for a
//! configuration wrapper `{id?, config}`, `/payload/...` for an item PATCH. Every check gathers
//! all the problems it finds; none stops at the first. Sizes are bounded before any rule runs
//! ([`limits`]), as for forms, so no document can hang a request.
//!
//! What every document needs (problem gathering, size walk, id, version, translation and `$.`
//! reference checks, schema error mapping, answer plumbing) comes from
//! [`crate::domain::document`], shared with forms, so both documents follow the same rules. Of
//! forms, only the public model at the root of [`crate::domain::forms`] is used, to cross-check
//! views and items against their form configurations.

mod grants;
mod items;
pub mod limits;
mod model;
mod network;
mod rules;
mod schema;
mod shown;
mod views;

#[cfg(test)]
mod tests;

pub use grants::{MAX_GRANTS, read_grants};
pub use items::{
    DetailField, ItemPatch, check_item_patch, detail_fields, editable_in_view, list_fields, visible_in_view,
    visible_metadata,
};
pub use model::{DetailRule, MetadataRule, Overrides, Transition, View, ViewForm, Workbasket, WorkflowConfig};
pub use rules::validate_workflow;
pub use schema::workflow_schema;
pub use shown::Shown;

/// The detail codes these rules report, stable for clients: those of every document (see
/// [`crate::domain::document::codes`]; answer codes among them, since item patches apply the form
/// field rules), and the ones only workflow rules report.
pub mod codes {
    pub use crate::domain::document::codes::*;

    /// `entryWorkbasketId`, a `targetWorkbasketId` or a view's `workbasketIds` entry names no
    /// workbasket of the document.
    pub const UNKNOWN_WORKBASKET: &str = "UNKNOWN_WORKBASKET";
    /// A workbasket that no chain of transitions from the entry workbasket reaches.
    pub const UNREACHABLE: &str = "UNREACHABLE";
    /// A non-terminal workbasket from which no terminal workbasket can be reached.
    pub const NO_TERMINAL_REACHABLE: &str = "NO_TERMINAL_REACHABLE";
    /// The network has no terminal workbasket at all.
    pub const NO_TERMINAL: &str = "NO_TERMINAL";
    /// A terminal workbasket with transitions.
    pub const TERMINAL_HAS_TRANSITIONS: &str = "TERMINAL_HAS_TRANSITIONS";
    /// A view `forms` key that is not in `integrations.forms.allowedConfigurationIds`.
    pub const NOT_ALLOWLISTED: &str = "NOT_ALLOWLISTED";
    /// A view `forms` key that names no existing form configuration.
    pub const UNKNOWN_FORM_CONFIGURATION: &str = "UNKNOWN_FORM_CONFIGURATION";
    /// A `listFields` entry or `detailFields[].fieldKey` that is no field key of that form.
    pub const UNKNOWN_FIELD_KEY: &str = "UNKNOWN_FIELD_KEY";
    /// View metadata for something the form configuration does not capture.
    pub const NOT_CAPTURED: &str = "NOT_CAPTURED";
}
