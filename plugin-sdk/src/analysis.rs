//! Analysis steps: one step of the background analysis of a published asset, written against WIT 0.3.0.
//!
//! A step reads the asset ([`asset`](crate::asset)) and asks the host's inference capabilities about it
//! ([`media`](crate::media), [`vision`](crate::vision), [`speech`](crate::speech)), then answers
//! [`Finding`]s: tags, the sentences of an English description, a transcript, the printed text in its
//! pictures, each with the model that gave it. The host records which step produced each finding. A step may also log ([`log`](crate::log)) and
//! call out ([`http`](crate::http)); `kv` and `item` belong to space modules and are not linked for steps.
//!
//! Like every part of SDK 0.3.0, `log`, `http` and `asset` import the WIT 0.3.0 interfaces. (Steps built by
//! earlier SDKs import 0.2.0 or 0.1.0 interfaces; the host still runs them, adapted.)

use crate::wit::analysis::exports::trellis::module::analysis_hooks as wit;
use crate::{Context, Manifest, Result};

/// A module that analyses the asset under analysis.
/// Export it with [`export_analysis_step!`](crate::export_analysis_step).
///
/// ```
/// use trellis_plugin_sdk::analysis::{AnalysisResult, AnalysisStep, AssetInfo, Finding};
/// use trellis_plugin_sdk::vision::{Label, Labels};
/// use trellis_plugin_sdk::{Context, Manifest, Permission, Result, media, testing::TestHost, vision};
///
/// /// Tags a picture with its best label.
/// struct BestLabel;
///
/// impl AnalysisStep for BestLabel {
///     fn manifest() -> Manifest {
///         Manifest::new("best-label", "Best label", "0.1.0")
///             .permission(Permission::MediaDecode)
///             .permission(Permission::Vision)
///     }
///
///     fn analyze(_ctx: &Context, _asset: &AssetInfo) -> Result<AnalysisResult> {
///         if media::frames(1)? == 0 {
///             return Ok(AnalysisResult::default());
///         }
///         let labels = vision::classify(0, 1)?;
///         let tags = labels.labels.iter().map(|l| Finding::from_model(&l.name, &labels.model)).collect();
///         Ok(AnalysisResult { tags, ..Default::default() })
///     }
/// }
///
/// let host = TestHost::new();
/// host.set_frames(Ok(1));
/// host.set_labels(Ok(Labels { labels: vec![Label::new("kite", 0.8)], model: "labeller 1".into() }));
/// let result = BestLabel::analyze(&Context::default(), &AssetInfo::default()).unwrap();
/// assert_eq!(result.tags, [Finding::from_model("kite", "labeller 1")]);
///
/// host.set_frames(Err("ffmpeg is not installed: needed for video".into()));
/// let error = BestLabel::analyze(&Context::default(), &AssetInfo::default()).unwrap_err();
/// assert_eq!(error.to_string(), "ffmpeg is not installed: needed for video");
/// ```
pub trait AnalysisStep {
    /// What the module says about itself.
    fn manifest() -> Manifest;

    /// Analyses the asset under analysis. An `Err` ends the step; its message becomes the asset's
    /// analysis error, so say what is missing (a capability's own message is usually right as it is).
    fn analyze(ctx: &Context, asset: &AssetInfo) -> Result<AnalysisResult>;
}

/// The asset under analysis.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AssetInfo {
    /// Its id.
    pub asset_id: String,
    /// The name it was uploaded under.
    pub filename: String,
    /// Its sniffed content type.
    pub content_type: String,
    /// Its size in bytes.
    pub bytes: u64,
}

/// A tag, a sentence or a transcript, and the model (name and version) it came from when a model gave it.
///
/// ```
/// use trellis_plugin_sdk::analysis::Finding;
///
/// assert_eq!(Finding::new("png").model, None);
/// assert_eq!(Finding::from_model("kite", "labeller 1").model.as_deref(), Some("labeller 1"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Finding {
    /// The tag, the sentence or the transcript.
    pub text: String,
    /// The model that gave it; `None` when the step found it by itself.
    pub model: Option<String>,
}

impl Finding {
    /// A finding no model gave.
    pub fn new(text: impl Into<String>) -> Self {
        Self { text: text.into(), model: None }
    }

    /// A finding `model` gave.
    pub fn from_model(text: impl Into<String>, model: impl Into<String>) -> Self {
        Self { text: text.into(), model: Some(model.into()) }
    }
}

/// What a step found. The host refuses an answer with more than 64 tags (each 1 to 100 characters), more
/// than 32 sentences (none empty, 16 KiB together), a transcript over 1 MiB or a text over 16 KiB.
///
/// ```
/// use trellis_plugin_sdk::analysis::{AnalysisResult, Finding};
///
/// let result = AnalysisResult {
///     tags: vec![Finding::new("kite")],
///     sentences: vec![Finding::new("It shows a kite."), Finding::new("It is a bright picture.")],
///     transcript: None,
///     text: Some(Finding::from_model("KITES", "ocr 1")),
/// };
/// assert_eq!(result.tag_texts(), ["kite"]);
/// assert_eq!(result.description(), "It shows a kite. It is a bright picture.");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnalysisResult {
    /// Tags to add to the asset.
    pub tags: Vec<Finding>,
    /// The sentences of an English description, in order.
    pub sentences: Vec<Finding>,
    /// A transcript of the asset's speech.
    pub transcript: Option<Finding>,
    /// The printed text in the asset's pictures, lines joined by `\n` (see
    /// [`vision::read_text`](crate::vision::read_text)); the asset's `analysis.text`.
    pub text: Option<Finding>,
}

impl AnalysisResult {
    /// The tags' texts, in order.
    pub fn tag_texts(&self) -> Vec<&str> {
        self.tags.iter().map(|tag| tag.text.as_str()).collect()
    }

    /// The sentences joined with spaces, as the description reads.
    pub fn description(&self) -> String {
        self.sentences.iter().map(|s| s.text.as_str()).collect::<Vec<_>>().join(" ")
    }
}

impl From<wit::AssetInfo> for AssetInfo {
    fn from(asset: wit::AssetInfo) -> Self {
        Self {
            asset_id: asset.asset_id,
            filename: asset.filename,
            content_type: asset.content_type,
            bytes: asset.bytes,
        }
    }
}

impl From<Finding> for wit::Finding {
    fn from(finding: Finding) -> Self {
        Self { text: finding.text, model: finding.model }
    }
}

impl From<AnalysisResult> for wit::AnalysisResult {
    fn from(result: AnalysisResult) -> Self {
        Self {
            tags: result.tags.into_iter().map(Into::into).collect(),
            sentences: result.sentences.into_iter().map(Into::into).collect(),
            transcript: result.transcript.map(Into::into),
            text: result.text.map(Into::into),
        }
    }
}
