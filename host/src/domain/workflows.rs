//! Workflow configurations and the items that run through them: the configuration document's
//! rules, the parsed [`WorkflowConfig`] the HTTP layer caches, and how a view projects and
//! patches an item (a form instance).
//!
//! Problem paths are JSON Pointers into the request body: `/config/...` (and `/id`) for a
//! configuration wrapper `{id?, config}`, `/payload/...` for an item PATCH. Every check gathers
//! all the problems it finds; none stops at the first. Sizes are bounded before any rule runs
//! ([`limits`]), as for forms, so no document can hang a request.
//!
//! The helpers of the forms module (problem gathering, size walk, id, version, translation and
//! `$.` reference checks, answer checks) are reused, so both documents follow the same rules.

mod items;
pub mod limits;
mod model;
mod network;
mod rules;
mod schema;
mod views;

#[cfg(test)]
mod tests;

pub use items::{
    DetailField, ItemPatch, check_item_patch, detail_fields, editable_in_view, list_fields, visible_in_view,
    visible_metadata,
};
pub use model::{DetailRule, MetadataRule, Overrides, Transition, View, ViewForm, Workbasket, WorkflowConfig};
pub use rules::validate_workflow;
pub use schema::workflow_schema;

/// The detail codes these rules report, stable for clients. Codes shared with forms keep their
/// meaning there (see [`crate::domain::forms::codes`]).
pub mod codes {
    pub use crate::domain::forms::codes::{
        DUPLICATE_ID, DUPLICATE_KEY, ID_MISMATCH, INVALID_LANGUAGE, INVALID_RANGE, INVALID_TYPE, INVALID_UUID,
        INVALID_VALUE, INVALID_VERSION, LITERAL_TEXT, NOT_ALLOWED, NOT_EDITABLE, REQUIRED, TOO_LARGE,
        TOO_MANY_PROBLEMS, UNKNOWN_FIELD, UNKNOWN_PROPERTY, UNRESOLVED_REFERENCE, UNSUPPORTED_VERSION,
    };
    // Answer codes (PATTERN_MISMATCH, TOO_SHORT, ...) come from the form rules in item patches.
    pub use crate::domain::forms::codes::{INVALID_DATE, INVALID_OPTION, PATTERN_MISMATCH, TOO_LONG, TOO_SHORT};

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
