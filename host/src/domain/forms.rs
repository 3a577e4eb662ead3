//! Form configurations and form instances: the configuration document's rules, the parsed
//! [`FormConfig`] the HTTP layer caches, and the rules an instance's answers must follow.
//!
//! Problem paths are JSON Pointers into the request body: `/config/...` (and `/id`) for a
//! configuration wrapper, `/payload/...` for an instance wrapper. Every check gathers all the
//! problems it finds; none stops at the first.
//!
//! Work is bounded before it starts: the bounds of [`crate::domain::document::limits`] and the form
//! [`limits`] refuse absurd documents and payloads, and `validation` patterns use the linear-time
//! `regex` crate with size limits, so no input can hang a request or blow its memory.
//!
//! What any document needs (problem gathering, size walk, ids, version, translations, `$.`
//! references, schema error mapping, answer plumbing) is in [`crate::domain::document`], shared
//! with workflows. The items exported here are the public model workflows may cross-check.

mod answers;
mod config_rules;
mod date_format;
mod field_rules;
pub mod limits;
mod model;
mod payload;
mod regex_rules;
mod schema;

#[cfg(test)]
mod tests;

pub use config_rules::validate_config;
pub use date_format::DateFormat;
pub use model::{AcceptEntry, DropdownOption, Field, FieldType, FileRule, Flags, FormConfig, Page, TextRefs};
pub use payload::{
    CheckedPayload, InstanceState, Mode, changed_fields, check_payload, merge_patch, next_state,
    payload_configuration_id, stored_object,
};
pub use regex_rules::AnswerPattern;
pub use schema::config_schema;

/// The detail codes these rules report, stable for clients: those of every document, and the
/// ones only form rules report.
pub mod codes {
    pub use crate::domain::document::codes::*;

    /// An option value used twice in one dropdown.
    pub const DUPLICATE_VALUE: &str = "DUPLICATE_VALUE";
    /// A page, field or option key that cannot be used in a `$.` path.
    pub const INVALID_KEY: &str = "INVALID_KEY";
    /// A `validation` pattern that does not compile, is too long or too big.
    pub const INVALID_REGEX: &str = "INVALID_REGEX";
    /// A date `format` that is not made of the allowed tokens and separators.
    pub const INVALID_FORMAT: &str = "INVALID_FORMAT";
    /// Metadata or an integration the configuration does not enable.
    pub const NOT_ENABLED: &str = "NOT_ENABLED";
    /// `configurationId` names another configuration.
    pub const CONFIGURATION_MISMATCH: &str = "CONFIGURATION_MISMATCH";
    /// A state change that is not allowed (SUBMITTED back to DRAFT).
    pub const INVALID_TRANSITION: &str = "INVALID_TRANSITION";
}
