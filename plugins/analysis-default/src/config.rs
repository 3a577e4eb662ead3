//! The deployment's configuration of the step, validated by the host against [`schema`] first.

use serde::Deserialize;
use serde_json::{Value, json};
use trellis_plugin_sdk::media::MAX_FRAMES;
use trellis_plugin_sdk::vision::MAX_LABELS;

/// How sure a label must be to become a tag.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Config {
    /// The lowest score (0..1) a label needs to become a tag or be named in the description.
    pub min_score: f32,
    /// The most label tags.
    pub max_tags: u32,
    /// Frames of a video that are looked at.
    pub frames: u32,
}

impl Default for Config {
    fn default() -> Self {
        Self { min_score: 0.2, max_tags: 5, frames: 4 }
    }
}

impl Config {
    /// The same configuration within bounds, whatever the schema let through.
    pub fn bounded(self) -> Self {
        Self {
            min_score: if self.min_score.is_nan() { 0.2 } else { self.min_score.clamp(0.0, 1.0) },
            max_tags: self.max_tags.min(MAX_LABELS),
            frames: self.frames.clamp(1, MAX_FRAMES),
        }
    }
}

/// The configuration's JSON Schema.
pub fn schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "minScore": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.2},
            "maxTags": {"type": "integer", "minimum": 0, "maximum": MAX_LABELS, "default": 5},
            "frames": {"type": "integer", "minimum": 1, "maximum": MAX_FRAMES, "default": 4}
        }
    })
}
