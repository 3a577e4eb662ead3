//! The Tags module's configuration and tag normalisation.

use serde::Deserialize;
use serde_json::{Value, json};

/// Index keys embed the encoded tag (see `store`): capping it keeps every key under the host's 512 bytes.
const MAX_ENCODED_TAG_BYTES: usize = 300;

/// A space's configuration of the module, validated by the host against [`schema`] before it gets here.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Config {
    /// When present, only these tags (normalised like any other) are kept or accepted.
    pub vocabulary: Option<Vec<String>>,
    /// How tags are normalised.
    pub normalise: Normalise,
    /// The most tags one item may carry.
    pub max_per_item: usize,
}

/// How tags are normalised.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Normalise {
    /// Whether tags are lower-cased.
    pub case: Case,
    /// Whether runs of whitespace inside a tag become one space (ends are always trimmed).
    pub collapse_whitespace: bool,
    /// The most characters a tag keeps; longer tags are cut.
    pub max_length: usize,
}

/// Tag case handling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Case {
    /// Lower-case every tag.
    Lower,
    /// Keep the case as written.
    Preserve,
}

impl Default for Config {
    fn default() -> Self {
        Self { vocabulary: None, normalise: Normalise::default(), max_per_item: 20 }
    }
}

impl Default for Normalise {
    fn default() -> Self {
        Self { case: Case::Lower, collapse_whitespace: true, max_length: 50 }
    }
}

/// The configuration's JSON Schema (draft 2020-12).
pub fn schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "vocabulary": {
                "description": "When present, only these tags are kept or accepted",
                "type": "array",
                "items": {"type": "string", "minLength": 1}
            },
            "normalise": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "case": {"enum": ["lower", "preserve"], "default": "lower"},
                    "collapseWhitespace": {"type": "boolean", "default": true},
                    "maxLength": {"type": "integer", "minimum": 1, "maximum": 200, "default": 50}
                }
            },
            "maxPerItem": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}
        }
    })
}

impl Config {
    /// `raw` normalised, or `None` when nothing is left of it.
    pub fn normalise(&self, raw: &str) -> Option<String> {
        let spaced = if self.normalise.collapse_whitespace {
            raw.split_whitespace().collect::<Vec<_>>().join(" ")
        } else {
            raw.trim().to_owned()
        };
        let cased = match self.normalise.case {
            Case::Lower => spaced.to_lowercase(),
            Case::Preserve => spaced,
        };
        let mut tag = String::new();
        let mut encoded = 0;
        for c in cased.chars().take(self.normalise.max_length) {
            encoded += crate::store::encoded_len(c);
            if encoded > MAX_ENCODED_TAG_BYTES {
                break;
            }
            tag.push(c);
        }
        let tag = tag.trim_end();
        (!tag.is_empty()).then(|| tag.to_owned())
    }

    /// Whether the vocabulary (if any) admits the normalised `tag`.
    pub fn admits(&self, tag: &str) -> bool {
        self.vocabulary
            .as_ref()
            .is_none_or(|vocabulary| vocabulary.iter().any(|word| self.normalise(word).as_deref() == Some(tag)))
    }

    /// The item tags `raw` describes: normalised, de-duplicated in first-seen order, filtered by the
    /// vocabulary and capped at `max_per_item`.
    pub fn tags_from<'a>(&self, raw: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let mut tags: Vec<String> = Vec::new();
        for tag in raw.into_iter().filter_map(|raw| self.normalise(raw)) {
            if tags.len() == self.max_per_item {
                break;
            }
            if self.admits(&tag) && !tags.contains(&tag) {
                tags.push(tag);
            }
        }
        tags
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(json: Value) -> Config {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn normalise_lowercases_collapses_whitespace_and_cuts_to_max_length() {
        let config = config(json!({"normalise": {"maxLength": 8}}));
        assert_eq!(config.normalise("  Big \t  Data  ").as_deref(), Some("big data"));
        assert_eq!(config.normalise("Machine Learning").as_deref(), Some("machine"));
        assert_eq!(config.normalise(" \n ").as_deref(), None);
    }

    #[test]
    fn normalise_can_preserve_case_and_inner_whitespace() {
        let config = config(json!({"normalise": {"case": "preserve", "collapseWhitespace": false}}));
        assert_eq!(config.normalise("  Big   Data ").as_deref(), Some("Big   Data"));
    }

    #[test]
    fn normalise_cuts_tags_whose_index_key_would_be_too_long() {
        let config = config(json!({"normalise": {"maxLength": 200}}));
        let tag = config.normalise(&"/".repeat(200)).unwrap();
        assert_eq!(tag.len(), MAX_ENCODED_TAG_BYTES / 3);
    }

    #[test]
    fn tags_from_dedupes_filters_by_vocabulary_and_caps() {
        let config = config(json!({"vocabulary": ["Red", "Blue", "Green"], "maxPerItem": 2}));
        let tags = config.tags_from(["red", "RED", "purple", "blue", "green"]);
        assert_eq!(tags, ["red", "blue"]);
    }

    #[test]
    fn schema_defaults_match_the_serde_defaults() {
        // Arrange
        let schema = schema();
        let defaults = Config::default();

        // Assert
        let normalise = &schema["properties"]["normalise"]["properties"];
        assert_eq!(normalise["maxLength"]["default"], defaults.normalise.max_length);
        assert_eq!(normalise["collapseWhitespace"]["default"], defaults.normalise.collapse_whitespace);
        assert_eq!(schema["properties"]["maxPerItem"]["default"], defaults.max_per_item);
        assert_eq!(Config::default().normalise("X").as_deref(), Some("x"));
    }
}
