//! What an analysis step sees of an asset (its bytes, and the host's inference capabilities over it in
//! `media.rs`), and what it answers: findings, each with the model that gave it.

mod media;

use async_trait::async_trait;
use serde::Serialize;

pub use media::{
    Colour, Face, Faces, Label, Labels, MAX_COLOURS, MAX_FACES, MAX_FRAMES, MAX_LABELS, MAX_MODEL_BYTES, MAX_OBJECTS,
    MAX_SEGMENTS, MAX_TEXT_BYTES, MAX_TEXT_LINES, MAX_TRANSCRIPT_BYTES, MediaAnalysis, MediaInfo, MediaKind, Object,
    Objects, PictureFacts, Segment, Text, Transcript,
};

/// Most bytes one `asset-read.read` call returns.
pub const MAX_ASSET_READ_BYTES: u32 = 1024 * 1024;

/// Most tags an analysis step may return.
pub const MAX_TAGS: usize = 64;
/// Longest tag, in characters.
pub const MAX_TAG_CHARS: usize = 100;
/// Most sentences of a description.
pub const MAX_SENTENCES: usize = 32;
/// Longest description (all its sentences together), in bytes.
pub const MAX_DESCRIPTION_BYTES: usize = 16 * 1024;

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

/// A tag, a sentence or a transcript, and the model (name and version) it came from when a model gave it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// The tag, the sentence or the transcript's text.
    pub text: String,
    /// The model that gave it, e.g. `efficientnet-lite0 (imagenet-1k)`; `None` when no model was involved.
    pub model: Option<String>,
}

impl Finding {
    /// A finding no model gave.
    pub fn plain(text: impl Into<String>) -> Self {
        Self { text: text.into(), model: None }
    }
}

/// What an analysis step found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AnalysisResult {
    /// Tags for the asset.
    pub tags: Vec<Finding>,
    /// The sentences of its English description, in order.
    pub sentences: Vec<Finding>,
    /// A transcript of its speech, when the step made one.
    pub transcript: Option<Finding>,
    /// The printed text in its pictures, lines joined by `\n`, when the step read some (WIT 0.3.0).
    pub text: Option<Finding>,
}

impl AnalysisResult {
    /// A WIT 0.1.0 step's answer in today's shape: tags and transcript with no model, the description as one
    /// sentence (none when it is blank).
    pub(crate) fn from_v0_1(tags: Vec<String>, description: Option<String>, transcript: Option<String>) -> Self {
        Self {
            tags: tags.into_iter().map(Finding::plain).collect(),
            sentences: description.filter(|d| !d.trim().is_empty()).map(Finding::plain).into_iter().collect(),
            transcript: transcript.map(Finding::plain),
            text: None,
        }
    }

    /// Why this answer cannot be used, if it cannot.
    pub(crate) fn problem(&self) -> Option<String> {
        if self.tags.len() > MAX_TAGS {
            return Some(format!("{} tags, at most {MAX_TAGS} allowed", self.tags.len()));
        }
        if let Some(tag) = self.tags.iter().find(|t| t.text.trim().is_empty() || t.text.chars().count() > MAX_TAG_CHARS)
        {
            return Some(format!("tag {:?} is empty or longer than {MAX_TAG_CHARS} characters", tag.text));
        }
        if self.sentences.len() > MAX_SENTENCES {
            return Some(format!("{} sentences, at most {MAX_SENTENCES} allowed", self.sentences.len()));
        }
        if self.sentences.iter().any(|s| s.text.trim().is_empty()) {
            return Some("a sentence is empty".to_owned());
        }
        if self.sentences.iter().map(|s| s.text.len()).sum::<usize>() > MAX_DESCRIPTION_BYTES {
            return Some(format!("description is longer than {MAX_DESCRIPTION_BYTES} bytes"));
        }
        if self.transcript.as_ref().is_some_and(|t| t.text.len() > MAX_TRANSCRIPT_BYTES) {
            return Some(format!("transcript is longer than {MAX_TRANSCRIPT_BYTES} bytes"));
        }
        if self.text.as_ref().is_some_and(|t| t.text.len() > MAX_TEXT_BYTES) {
            return Some(format!("text is longer than {MAX_TEXT_BYTES} bytes"));
        }
        let findings = self.tags.iter().chain(&self.sentences).chain(&self.transcript).chain(&self.text);
        if let Some(model) = findings.filter_map(|f| f.model.as_deref()).find(|m| m.len() > MAX_MODEL_BYTES) {
            return Some(format!("model {model:.40?}... is longer than {MAX_MODEL_BYTES} bytes"));
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

    fn tagged(tags: &[&str]) -> AnalysisResult {
        AnalysisResult { tags: tags.iter().map(|t| Finding::plain(*t)).collect(), ..Default::default() }
    }

    #[test]
    fn oversized_or_empty_tags_are_refused() {
        assert_eq!(tagged(&["cat"]).problem(), None);
        assert!(tagged(&[" "]).problem().is_some());
        assert!(tagged(&["t"; MAX_TAGS + 1]).problem().is_some());
    }

    #[test]
    fn empty_sentences_long_descriptions_and_long_models_are_refused() {
        let sentence = |text: &str| Finding { text: text.into(), model: Some("m 1".into()) };
        let ok = AnalysisResult { sentences: vec![sentence("It is a cat.")], ..tagged(&["cat"]) };
        let empty = AnalysisResult { sentences: vec![sentence("  ")], ..ok.clone() };
        let long = AnalysisResult { sentences: vec![sentence(&"a".repeat(MAX_DESCRIPTION_BYTES + 1))], ..ok.clone() };
        let model = AnalysisResult {
            tags: vec![Finding { text: "cat".into(), model: Some("m".repeat(MAX_MODEL_BYTES + 1)) }],
            ..ok.clone()
        };

        let text = AnalysisResult { text: Some(sentence(&"a".repeat(MAX_TEXT_BYTES + 1))), ..ok.clone() };

        assert_eq!(ok.problem(), None);
        assert!(text.problem().is_some());
        assert!(empty.problem().is_some());
        assert!(long.problem().is_some());
        assert!(model.problem().is_some());
    }

    #[test]
    fn a_v0_1_answer_becomes_findings_without_a_model() {
        let adapted =
            AnalysisResult::from_v0_1(vec!["cat".into()], Some("A cat on a mat.".into()), Some("meow".into()));
        let blank = AnalysisResult::from_v0_1(Vec::new(), Some(" ".into()), None);

        assert_eq!(adapted.tags, [Finding::plain("cat")]);
        assert_eq!(adapted.sentences, [Finding::plain("A cat on a mat.")]);
        assert_eq!(adapted.transcript, Some(Finding::plain("meow")));
        assert!(blank.sentences.is_empty());
    }
}
