//! Running an analysis step: a 0.3.0 step answers findings with their models and the text it read; a
//! 0.2.0 step's answer is the same without text, and a 0.1.0 step's (tag strings, a description, a
//! transcript) is adapted to that shape. Either way the answer is checked against the bounds before the
//! host crate sees it.

use std::sync::Arc;

use crate::analysis::{AnalysisResult, AssetInfo, AssetSource, Finding, MediaAnalysis};
use crate::host::ModuleHost;
use crate::invoke::failure::ModuleFailure;
use crate::invoke::{bounded, record, settle};
use crate::load::Prepared;
use crate::load::manifest::ModuleKind;
use crate::wit::v0_1::analysis::exports::trellis::module::analysis_hooks as v1;
use crate::wit::v0_1::types as types_v1;
use crate::wit::v0_2::exports as adapt_v2;
use crate::wit::v0_3::analysis::exports::trellis::module::analysis_hooks as v3;

impl ModuleHost {
    /// Runs an analysis step over an asset (budget: `analysis_deadline_ms` of the step's own code).
    pub(crate) async fn analyze_here(
        &self,
        module_id: &str,
        invocation: crate::api::Invocation,
        asset: AssetInfo,
        source: Arc<dyn AssetSource>,
        media: Arc<dyn MediaAnalysis>,
    ) -> Result<AnalysisResult, ModuleFailure> {
        let inner = &*self.inner;
        let mut call = inner
            .begin(module_id, ModuleKind::AnalysisStep, inner.settings.analysis_deadline(), invocation, None)
            .await?;
        let module = call.module;
        let (store, ctx) = (&mut call.store, &call.ctx);
        store.data_mut().asset = Some(source);
        store.data_mut().media = Some(media);
        let clock = store.data().clock.clone();
        let answer = match &module.prepared {
            Prepared::Analysis(pre) => {
                let asset = v3_asset(asset);
                let invoke = async {
                    let instance = pre.instantiate_async(&mut *store).await?;
                    instance.trellis_module_analysis_hooks().call_analyze(&mut *store, ctx, &asset).await
                };
                let outcome = bounded(clock, invoke).await;
                settle(module, &call.store, outcome)?.map(from_v3)
            }
            Prepared::AnalysisV0_2(pre) => {
                let (ctx, asset) = (adapt_v2::context(ctx), adapt_v2::asset(&v3_asset(asset)));
                let invoke = async {
                    let instance = pre.instantiate_async(&mut *store).await?;
                    instance.trellis_module_analysis_hooks().call_analyze(&mut *store, &ctx, &asset).await
                };
                let outcome = bounded(clock, invoke).await;
                settle(module, &call.store, outcome)?.map(|found| from_v3(adapt_v2::analysis_result(found)))
            }
            Prepared::AnalysisV0_1(pre) => {
                let ctx = types_v1::Context { space_id: ctx.space_id.clone(), config: ctx.config.clone() };
                let asset = v1::AssetInfo {
                    asset_id: asset.asset_id,
                    filename: asset.filename,
                    content_type: asset.content_type,
                    bytes: asset.bytes,
                };
                let invoke = async {
                    let instance = pre.instantiate_async(&mut *store).await?;
                    instance.trellis_module_analysis_hooks().call_analyze(&mut *store, &ctx, &asset).await
                };
                let outcome = bounded(clock, invoke).await;
                settle(module, &call.store, outcome)?
                    .map(|found| AnalysisResult::from_v0_1(found.tags, found.description, found.transcript))
            }
            _ => unreachable!("an analysis step has an analysis world"),
        };
        match answer {
            Ok(found) => match found.problem() {
                None => Ok(found),
                Some(why) => Err(record(module, ModuleFailure::InvalidAnswer(why))),
            },
            Err(message) => Err(record(module, ModuleFailure::module_error(message))),
        }
    }
}

fn v3_asset(asset: AssetInfo) -> v3::AssetInfo {
    v3::AssetInfo {
        asset_id: asset.asset_id,
        filename: asset.filename,
        content_type: asset.content_type,
        bytes: asset.bytes,
    }
}

fn from_v3(found: v3::AnalysisResult) -> AnalysisResult {
    let finding = |f: v3::Finding| Finding { text: f.text, model: f.model };
    AnalysisResult {
        tags: found.tags.into_iter().map(finding).collect(),
        sentences: found.sentences.into_iter().map(finding).collect(),
        transcript: found.transcript.map(finding),
        text: found.text.map(finding),
    }
}
