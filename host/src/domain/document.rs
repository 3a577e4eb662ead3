//! The kernel that form and workflow documents share, so both follow the same rules and report
//! problems the same way: problem gathering under a cap ([`report`]), size bounds checked before
//! any rule ([`limits`]), ids, version, translations and `$.` references ([`context`],
//! [`translations`]), the shared parts of the documents' JSON Schemas ([`schema`]) and their error
//! mapping ([`schema_errors`]), the `{payload}` envelope and
//! the plumbing of answers ([`payload`], [`answers`]), and the detail codes of all of these.
//!
//! Nothing here knows a form field or a workflow network; those rules live in `forms` and
//! `workflows`, which use this module side by side.

pub(crate) mod answers;
pub(crate) mod context;
pub(crate) mod ids;
pub mod limits;
pub(crate) mod payload;
pub(crate) mod report;
pub(crate) mod schema;
pub(crate) mod schema_errors;
pub(crate) mod translations;

/// Where a configuration wrapper (`{id?, config}`) holds its document: problems inside it are
/// reported under this pointer.
pub(crate) const CONFIG_PATH: &str = "/config";

/// Where an instance or item body (`{payload: {...}}`) holds what the client sent.
pub(crate) const PAYLOAD_PATH: &str = "/payload";

/// The detail codes both documents report, stable for clients. `forms::codes` and
/// `workflows::codes` re-export them beside their own.
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
    /// A key used twice where it must be unique.
    pub const DUPLICATE_KEY: &str = "DUPLICATE_KEY";
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
    /// A number out of its range, or `minLength` above `maxLength`.
    pub const INVALID_RANGE: &str = "INVALID_RANGE";
    /// A property that this kind of field (or this configuration) does not take.
    pub const NOT_ALLOWED: &str = "NOT_ALLOWED";
    /// A document or payload over a size limit; nothing else was checked.
    pub const TOO_LARGE: &str = "TOO_LARGE";
    /// More problems than a response lists; the rest were dropped.
    pub const TOO_MANY_PROBLEMS: &str = "TOO_MANY_PROBLEMS";
    /// An answer for a field id the configuration does not have.
    pub const UNKNOWN_FIELD: &str = "UNKNOWN_FIELD";
    /// A property the interface does not define.
    pub const UNKNOWN_PROPERTY: &str = "UNKNOWN_PROPERTY";
    /// A different answer for a field that may not be changed.
    pub const NOT_EDITABLE: &str = "NOT_EDITABLE";
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
}
