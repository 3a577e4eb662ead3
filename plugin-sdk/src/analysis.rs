//! Analysis steps: one step of the background analysis of a published asset.

use crate::wit::analysis::exports::trellis::module::analysis_hooks as wit;
use crate::{Context, Manifest, Result};

/// A module that analyses an asset's bytes (read with [`asset`](crate::asset)).
/// Export it with [`export_analysis_step!`](crate::export_analysis_step).
///
/// ```
/// use trellis_plugin_sdk::analysis::{AnalysisResult, AnalysisStep, AssetInfo};
/// use trellis_plugin_sdk::{Context, Manifest, Permission, Result, asset};
///
/// struct Sniff;
///
/// impl AnalysisStep for Sniff {
///     fn manifest() -> Manifest {
///         Manifest::new("sniff", "Sniff", "0.1.0").permission(Permission::AssetRead)
///     }
///
///     fn analyze(_ctx: &Context, _asset: &AssetInfo) -> Result<AnalysisResult> {
///         let png = asset::read(0, 8).starts_with(b"\x89PNG");
///         Ok(AnalysisResult { tags: if png { vec!["png".into()] } else { vec![] }, ..Default::default() })
///     }
/// }
///
/// let host = trellis_plugin_sdk::testing::TestHost::new();
/// host.set_asset(b"\x89PNG\r\n\x1a\n....".to_vec());
/// let result = Sniff::analyze(&Context::default(), &AssetInfo::default()).unwrap();
/// assert_eq!(result.tags, ["png"]);
/// ```
pub trait AnalysisStep {
    /// What the module says about itself.
    fn manifest() -> Manifest;

    /// Analyses the asset under analysis.
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

/// What a step found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnalysisResult {
    /// Tags to add to the asset.
    pub tags: Vec<String>,
    /// A description, if the step wrote one.
    pub description: Option<String>,
    /// A transcript, if the step wrote one.
    pub transcript: Option<String>,
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

impl From<AnalysisResult> for wit::AnalysisResult {
    fn from(result: AnalysisResult) -> Self {
        Self { tags: result.tags, description: result.description, transcript: result.transcript }
    }
}
