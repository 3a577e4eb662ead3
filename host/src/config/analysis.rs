//! The `[analysis]` table: which analysis steps run, where the models are, and the bounds on what
//! analysing one asset may spend.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Settings of the background analysis of published assets.
#[derive(Clone, Debug, Deserialize, Serialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct AnalysisConfig {
    /// The enabled `analysis-step` modules every asset goes through, in order; a space may connect
    /// more, which run after them. Left out: the bundled `analysis-default` when `[modules] enable`
    /// has it, else none. Naming a module that is not enabled stops the start.
    pub steps: Option<Vec<String>>,
    /// The deployment's configuration of each step, by module id (checked against its schema at start).
    pub step_config: BTreeMap<String, Map<String, Value>>,
    /// Where `trellis models install` put the models [default: `<data-dir>/models`].
    pub models_dir: Option<PathBuf>,
    /// Assets analysed at once by this server.
    pub workers: usize,
    /// Threads that run inference (decoding, labels, faces, speech), at low priority so requests
    /// come first. Work beyond them waits.
    pub inference_threads: usize,
    /// Threads one transcription uses inside whisper.cpp.
    pub speech_threads: u32,
    /// Largest picture decoded, in pixels (checked before decoding).
    pub max_pixels: u64,
    /// Frames are scaled down to at most this many pixels on their long side.
    pub frame_side: u32,
    /// Frames decoded per asset at most.
    pub max_frames: u32,
    /// Seconds of sound transcribed at most (the rest of a longer recording is left out).
    pub max_sound_seconds: u32,
    /// Milliseconds one decoding (probe, frames, sound) may take.
    pub decode_timeout_ms: u64,
    /// The address space, in bytes, each ffmpeg or ffprobe run may map (`RLIMIT_AS`), so the most
    /// memory it can hold whatever the file.
    pub tool_memory_bytes: u64,
    /// Whether ffmpeg and ffprobe run inside bubblewrap (no network, only the one file readable):
    /// `auto` when `bwrap` runs on this machine, `required` to fail decodings otherwise, `off`.
    pub tool_sandbox: ToolSandbox,
    /// Milliseconds one vision call (labels, faces, facts of a frame) may take, waiting included.
    pub vision_timeout_ms: u64,
    /// Milliseconds one transcription may take, waiting included.
    pub speech_timeout_ms: u64,
}

impl Default for AnalysisConfig {
    fn default() -> Self {
        Self {
            steps: None,
            step_config: BTreeMap::new(),
            models_dir: None,
            workers: 1,
            inference_threads: 1,
            speech_threads: 2,
            max_pixels: 50_000_000,
            frame_side: 1_024,
            max_frames: 16,
            max_sound_seconds: 600,
            decode_timeout_ms: 60_000,
            tool_memory_bytes: trellis_inference::media::DEFAULT_TOOL_MEMORY_BYTES,
            tool_sandbox: ToolSandbox::Auto,
            vision_timeout_ms: 30_000,
            speech_timeout_ms: 300_000,
        }
    }
}

/// Whether the media tools run sandboxed (see [`AnalysisConfig::tool_sandbox`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ToolSandbox {
    #[default]
    Auto,
    Required,
    Off,
}

impl AnalysisConfig {
    /// The models directory, `<data-dir>/models` unless set.
    pub fn models_dir(&self, data_dir: &Path) -> PathBuf {
        self.models_dir.clone().unwrap_or_else(|| data_dir.join("models"))
    }
}
