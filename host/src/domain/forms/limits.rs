//! Size limits of a form configuration's own structure (pages, fields, options, keys and
//! patterns), checked before its rules so an absurd document costs little. The document as a
//! whole is also held to the bounds of [`crate::domain::document::limits`].

/// Most pages in a configuration.
pub const MAX_PAGES: usize = 500;
/// Most fields in a configuration, over all its pages.
pub const MAX_FIELDS: usize = 2_000;
/// Most options of one dropdown.
pub const MAX_OPTIONS_PER_FIELD: usize = 1_000;
/// Most options in a configuration, over all its dropdowns.
pub const MAX_OPTIONS: usize = 20_000;
/// Longest page, field or option key, in characters.
pub const MAX_KEY_CHARS: usize = 128;
/// Longest `validation` pattern, in characters.
pub const MAX_PATTERN_CHARS: usize = 1_000;
/// Most heap one compiled `validation` pattern may take (the `regex` crate's `size_limit`).
pub const REGEX_SIZE_LIMIT: usize = 2 * 1024 * 1024;
/// Most heap all distinct patterns of one document may take together, as estimated when compiled
/// (their lazy-DFA caches included). Counted again when a parsed configuration is cached.
pub const REGEX_DOCUMENT_BUDGET: usize = 32 * 1024 * 1024;
/// Most memory one lazy-DFA cache of a pattern may grow to (the `regex` crate's
/// `dfa_size_limit`); past it the crate clears the cache or falls back to a slower linear engine.
pub const REGEX_DFA_CACHE_BYTES: usize = 32 * 1024;
/// Most distinct `validation` patterns in one configuration.
pub const MAX_DISTINCT_PATTERNS: usize = 200;
