//! Form configurations and form instances: the configuration document's rules, the parsed
//! [`FormConfig`] the HTTP layer caches, and the rules an instance's answers must follow.
//!
//! Problem paths are JSON Pointers into the request body: `/config/...` (and `/id`) for a
//! configuration wrapper, `/payload/...` for an instance wrapper. Every check gathers all the
//! problems it finds; none stops at the first.
//!
//! Work is bounded before it starts: [`limits`] refuses absurd documents and payloads, and
//! `validation` patterns use the linear-time `regex` crate with size limits, so no input can hang a
//! request or blow its memory.

pub(crate) mod answers;
pub(crate) mod config_rules;
mod date_format;
mod field_rules;
pub mod limits;
pub(crate) mod model;
pub(crate) mod payload;
mod regex_rules;
pub(crate) mod report;
pub(crate) mod schema;

#[cfg(test)]
mod tests;

pub use config_rules::validate_config;
pub use date_format::DateFormat;
pub use model::{AcceptEntry, DropdownOption, Field, FieldType, FileRule, Flags, FormConfig, Page, TextRefs};
pub use payload::{
    CheckedPayload, InstanceState, Mode, changed_fields, check_payload, merge_patch, next_state,
    payload_configuration_id,
};
pub use regex_rules::AnswerPattern;
pub use schema::config_schema;

/// The detail codes these rules report, stable for clients.
pub mod codes {
    /// A required property or answer is missing (`""` and `null` count as missing for answers).
    pub const REQUIRED: &str = "REQUIRED";
    /// A value has the wrong JSON type.
    pub const INVALID_TYPE: &str = "INVALID_TYPE";
    /// A value is not one of the allowed values, or is malformed in a way no finer code names.
    pub const INVALID_VALUE: &str = "INVALID_VALUE";
    /// Not a UUID v4 in its hyphenated form.
    pub const INVALID_UUID: &str = "INVALID_UUID";
    /// The wrapper `id` and `config.id` disagree.
    pub const ID_MISMATCH: &str = "ID_MISMATCH";
    /// An id used twice in one document.
    pub const DUPLICATE_ID: &str = "DUPLICATE_ID";
    /// A page key, field key or option key used twice where it must be unique.
    pub const DUPLICATE_KEY: &str = "DUPLICATE_KEY";
    /// An option value used twice in one dropdown.
    pub const DUPLICATE_VALUE: &str = "DUPLICATE_VALUE";
    /// A page, field or option key that cannot be used in a `$.` path.
    pub const INVALID_KEY: &str = "INVALID_KEY";
    /// `version` is not a semantic version.
    pub const INVALID_VERSION: &str = "INVALID_VERSION";
    /// `version` has a major other than 1.
    pub const UNSUPPORTED_VERSION: &str = "UNSUPPORTED_VERSION";
    /// A language code that is malformed, or not a language of the configuration.
    pub const INVALID_LANGUAGE: &str = "INVALID_LANGUAGE";
    /// A `$.` path that does not lead to a string of the default language's bundle.
    pub const UNRESOLVED_REFERENCE: &str = "UNRESOLVED_REFERENCE";
    /// Literal display text where a `$.` path belongs.
    pub const LITERAL_TEXT: &str = "LITERAL_TEXT";
    /// A `validation` pattern that does not compile, is too long or too big.
    pub const INVALID_REGEX: &str = "INVALID_REGEX";
    /// A number out of its range, or `minLength` above `maxLength`.
    pub const INVALID_RANGE: &str = "INVALID_RANGE";
    /// A date `format` that is not made of the allowed tokens and separators.
    pub const INVALID_FORMAT: &str = "INVALID_FORMAT";
    /// A property that this kind of field (or this configuration) does not take.
    pub const NOT_ALLOWED: &str = "NOT_ALLOWED";
    /// A document or payload over a size limit; nothing else was checked.
    pub const TOO_LARGE: &str = "TOO_LARGE";
    /// More problems than a response lists; the rest were dropped.
    pub const TOO_MANY_PROBLEMS: &str = "TOO_MANY_PROBLEMS";
    /// An answer for a field id the configuration does not have.
    pub const UNKNOWN_FIELD: &str = "UNKNOWN_FIELD";
    /// A payload property the interface does not define.
    pub const UNKNOWN_PROPERTY: &str = "UNKNOWN_PROPERTY";
    /// An answer that does not match the field's `validation`.
    pub const PATTERN_MISMATCH: &str = "PATTERN_MISMATCH";
    /// An answer shorter than `minLength` characters.
    pub const TOO_SHORT: &str = "TOO_SHORT";
    /// An answer longer than `maxLength` characters.
    pub const TOO_LONG: &str = "TOO_LONG";
    /// A date answer that does not follow the field's format or is not a real calendar date.
    pub const INVALID_DATE: &str = "INVALID_DATE";
    /// A dropdown answer (or default) that is not one of its option values.
    pub const INVALID_OPTION: &str = "INVALID_OPTION";
    /// A different answer for a field with `editable: false`.
    pub const NOT_EDITABLE: &str = "NOT_EDITABLE";
    /// Metadata or an integration the configuration does not enable.
    pub const NOT_ENABLED: &str = "NOT_ENABLED";
    /// `configurationId` names another configuration.
    pub const CONFIGURATION_MISMATCH: &str = "CONFIGURATION_MISMATCH";
    /// A state change that is not allowed (SUBMITTED back to DRAFT).
    pub const INVALID_TRANSITION: &str = "INVALID_TRANSITION";
}
