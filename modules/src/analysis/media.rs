//! The host's inference capabilities as the module host sees them: a trait the host crate implements over
//! its models, and plain Rust types for its answers. The imports (`imports/{media,vision,speech}.rs`) hand
//! bounded copies of these answers to guests.

use async_trait::async_trait;

/// Most frames a step may have decoded at once (`media.frames`).
pub const MAX_FRAMES: u32 = 16;
/// Most labels of one frame handed to a step.
pub const MAX_LABELS: u32 = 20;
/// Most faces of one frame handed to a step.
pub const MAX_FACES: usize = 100;
/// Most transcript segments handed to a step (their text together is at most `MAX_TRANSCRIPT_BYTES`).
pub const MAX_SEGMENTS: usize = 10_000;
/// Longest model string (name and version) handed to a step or accepted in its findings, in bytes.
pub const MAX_MODEL_BYTES: usize = 200;

/// The host's inference capabilities over the asset under analysis (WIT 0.2.0 `media`, `vision` and
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
    /// An English transcript of the asset's sound.
    async fn transcribe(&self) -> Result<Transcript, String>;
}

/// What kind of media an asset is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    /// A still picture.
    Image,
    /// Sound only.
    Audio,
    /// Moving pictures.
    Video,
    /// Anything else.
    Other,
}

/// What `media.probe` answers.
#[derive(Debug, Clone, PartialEq)]
pub struct MediaInfo {
    /// Image, audio, video or other.
    pub kind: MediaKind,
    /// Pixels (images, video), else 0.
    pub width: u32,
    /// Pixels (images, video), else 0.
    pub height: u32,
    /// Milliseconds (audio, video), else 0.
    pub duration_ms: u64,
    /// Whether there is sound to transcribe.
    pub has_sound: bool,
}

/// A label of a whole picture.
#[derive(Debug, Clone, PartialEq)]
pub struct Label {
    /// Plain English name.
    pub name: String,
    /// Probability, 0..1.
    pub score: f32,
}

/// Labels and the model that gave them.
#[derive(Debug, Clone, PartialEq)]
pub struct Labels {
    /// Best first.
    pub labels: Vec<Label>,
    /// Model name and version.
    pub model: String,
}

/// A face, in pixels of its frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Face {
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// The detector's confidence.
    pub score: f32,
}

/// Faces and the model that found them.
#[derive(Debug, Clone, PartialEq)]
pub struct Faces {
    /// The faces found.
    pub faces: Vec<Face>,
    /// Model name and version.
    pub model: String,
}

/// A named colour and its share of a frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Colour {
    /// Plain English name.
    pub name: String,
    /// Share of pixels, 0..1.
    pub share: f32,
}

/// Facts about a frame that need no model.
#[derive(Debug, Clone, PartialEq)]
pub struct PictureFacts {
    /// Pixels.
    pub width: u32,
    /// Pixels.
    pub height: u32,
    /// `landscape`, `portrait` or `square`.
    pub orientation: String,
    /// Main colours, largest share first (at most 5).
    pub colours: Vec<Colour>,
    /// Mean brightness, 0..1.
    pub brightness: f32,
}

/// A stretch of speech.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// Start, in milliseconds from the start of the asset.
    pub start_ms: u64,
    /// End, in milliseconds.
    pub end_ms: u64,
    /// What was said.
    pub text: String,
}

/// A transcript and the model that made it.
#[derive(Debug, Clone, PartialEq)]
pub struct Transcript {
    /// In order.
    pub segments: Vec<Segment>,
    /// Model name and version.
    pub model: String,
}
