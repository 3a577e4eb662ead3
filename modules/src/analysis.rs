//! What an analysis step sees of an asset, and what it answers.

use async_trait::async_trait;
use serde::Serialize;

/// Most bytes one `asset-read.read` call returns.
pub const MAX_ASSET_READ_BYTES: u32 = 1024 * 1024;

/// Most tags an analysis step may return.
pub const MAX_TAGS: usize = 64;
/// Longest tag, in characters.
pub const MAX_TAG_CHARS: usize = 100;
/// Longest description, in bytes.
pub const MAX_DESCRIPTION_BYTES: usize = 16 * 1024;
/// Longest transcript, in bytes.
pub const MAX_TRANSCRIPT_BYTES: usize = 1024 * 1024;

/// The bytes of the asset under analysis. The host implements it over its media store.
#[async_trait]
pub trait AssetSource: Send + Sync + 'static {
    /// Size of the asset in bytes.
    async fn size(&self) -> anyhow::Result<u64>;
    /// Up to `length` bytes from `offset`; fewer at the end, none past it.
    async fn read(&self, offset: u64, length: u32) -> anyhow::Result<Vec<u8>>;
}

/// An in-memory asset, for tests.
#[derive(Debug, Clone, Default)]
pub struct BytesAsset(pub Vec<u8>);

#[async_trait]
impl AssetSource for BytesAsset {
    async fn size(&self) -> anyhow::Result<u64> {
        Ok(self.0.len() as u64)
    }

    async fn read(&self, offset: u64, length: u32) -> anyhow::Result<Vec<u8>> {
        let start = usize::try_from(offset).unwrap_or(usize::MAX).min(self.0.len());
        let end = start.saturating_add(length as usize).min(self.0.len());
        Ok(self.0[start..end].to_vec())
    }
}

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

/// The asset an analysis step is asked about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssetInfo {
    /// The asset's id.
    pub asset_id: String,
    /// Its file name as uploaded.
    pub filename: String,
    /// Its media type.
    pub content_type: String,
    /// Its size in bytes.
    pub bytes: u64,
}

/// What an analysis step found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AnalysisResult {
    /// Tags for the asset.
    pub tags: Vec<String>,
    /// A description, when the step wrote one.
    pub description: Option<String>,
    /// A transcript, when the step made one.
    pub transcript: Option<String>,
}

impl AnalysisResult {
    /// Why this answer cannot be used, if it cannot.
    pub(crate) fn problem(&self) -> Option<String> {
        if self.tags.len() > MAX_TAGS {
            return Some(format!("{} tags, at most {MAX_TAGS} allowed", self.tags.len()));
        }
        if let Some(tag) = self.tags.iter().find(|t| t.trim().is_empty() || t.chars().count() > MAX_TAG_CHARS) {
            return Some(format!("tag {tag:?} is empty or longer than {MAX_TAG_CHARS} characters"));
        }
        if self.description.as_ref().is_some_and(|d| d.len() > MAX_DESCRIPTION_BYTES) {
            return Some(format!("description is longer than {MAX_DESCRIPTION_BYTES} bytes"));
        }
        if self.transcript.as_ref().is_some_and(|t| t.len() > MAX_TRANSCRIPT_BYTES) {
            return Some(format!("transcript is longer than {MAX_TRANSCRIPT_BYTES} bytes"));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn bytes_asset_reads_within_bounds() {
        let asset = BytesAsset(b"hello".to_vec());

        assert_eq!(asset.read(1, 3).await.unwrap(), b"ell");
        assert_eq!(asset.read(3, 100).await.unwrap(), b"lo");
        assert_eq!(asset.read(100, 1).await.unwrap(), b"");
    }

    #[test]
    fn oversized_or_empty_tags_are_refused() {
        let ok = AnalysisResult { tags: vec!["cat".into()], description: None, transcript: None };
        let empty = AnalysisResult { tags: vec![" ".into()], ..ok.clone() };
        let many = AnalysisResult { tags: vec!["t".into(); MAX_TAGS + 1], ..ok.clone() };

        assert_eq!(ok.problem(), None);
        assert!(empty.problem().is_some());
        assert!(many.problem().is_some());
    }
}
