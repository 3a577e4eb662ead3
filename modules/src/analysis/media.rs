//! The host's inference capabilities as the module host sees them: a trait the host crate implements over
//! its models. Its answers are the plain types of `trellis-analysis-types`, which `trellis-inference` and
//! the module SDK share; the imports (`capabilities/{media,vision,speech}.rs`) hand bounded copies of them to
//! guests.

use async_trait::async_trait;
pub use trellis_analysis_types::{
    Colour, Face, Faces, Label, Labels, MAX_COLOURS, MAX_FACES, MAX_FRAMES, MAX_LABELS, MAX_MODEL_BYTES, MAX_OBJECTS,
    MAX_SEGMENTS, MAX_TEXT_BYTES, MAX_TEXT_LINES, MAX_TRANSCRIPT_BYTES, MediaInfo, MediaKind, Object, Objects,
    PictureFacts, Segment, Text, Transcript,
};

/// The host's inference capabilities over the asset under analysis (WIT `media`, `vision` and
/// `speech`), one object per analysis of one asset. The host crate implements it over its models; this crate
/// links it only for steps granted the matching permission, and bounds what it hands to guests.
/// Errors are messages for the step (and, when the step passes them on, for the asset's `analysis.error`).
#[async_trait]
pub trait MediaAnalysis: Send + Sync + 'static {
    /// What the asset is.
    async fn probe(&self) -> Result<MediaInfo, String>;
    /// Decodes up to `count` frames spread over the asset; answers how many there are (`0..n`).
    async fn frames(&self, count: u32) -> Result<u32, String>;
    /// At most `limit` labels of frame `frame`, best first.
    async fn classify(&self, frame: u32, limit: u32) -> Result<Labels, String>;
    /// The faces in frame `frame`.
    async fn detect_faces(&self, frame: u32) -> Result<Faces, String>;
    /// Size, orientation, colours and brightness of frame `frame`.
    async fn facts(&self, frame: u32) -> Result<PictureFacts, String>;
    /// The people and things in frame `frame`, best first.
    async fn detect_objects(&self, frame: u32) -> Result<Objects, String>;
    /// The printed text of frame `frame`, its lines in reading order.
    async fn read_text(&self, frame: u32) -> Result<Text, String>;
    /// An English transcript of the asset's sound.
    async fn transcribe(&self) -> Result<Transcript, String>;
}
