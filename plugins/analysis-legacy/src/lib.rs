//! An analysis step that targets WIT 0.1.0 (`analysis-legacy`), generated straight from `wit/v0.1.0`
//! without the SDK (which writes steps against 0.2.0 now): the host must keep loading and running such
//! steps, adapting their answer (tag strings, a description, a transcript) to 0.2.0's findings.
//!
//! It tags `legacy` and the file's extension, describes the file by its name, and, for a name containing
//! `speech`, returns a transcript.
#![allow(unsafe_code)]

wit_bindgen::generate!({ path: "../../wit/v0.1.0", world: "analysis-step" });

use exports::trellis::module::analysis_hooks::{AnalysisResult, AssetInfo, Guest as Hooks};
use exports::trellis::module::module_info::Guest as Info;
use trellis::module::types::{Context, Manifest, ModuleKind};

struct Legacy;

impl Info for Legacy {
    fn manifest() -> Manifest {
        Manifest {
            id: "analysis-legacy".into(),
            name: "Legacy analysis".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            kind: ModuleKind::AnalysisStep,
            description: "Test step built against WIT 0.1.0".into(),
            config_schema: r#"{"type":"object"}"#.into(),
            permissions: Vec::new(),
        }
    }
}

impl Hooks for Legacy {
    fn analyze(_ctx: Context, asset: AssetInfo) -> Result<AnalysisResult, String> {
        let mut tags = vec!["legacy".to_owned()];
        tags.extend(asset.filename.rsplit_once('.').map(|(_, ext)| ext.to_lowercase()));
        let transcript = asset.filename.contains("speech").then(|| "words from an old step".to_owned());
        Ok(AnalysisResult { tags, description: Some(format!("A file named {}.", asset.filename)), transcript })
    }
}

#[cfg(target_arch = "wasm32")]
export!(Legacy);
