//! The background analysis of published assets: the use case a queued `analysis` job runs. It
//! copies the asset's bytes to a scratch file, runs the deployment's analysis steps and those the
//! asset's space connected, composes what they found (see `domain::analysis`) and stores it on the
//! asset; the space's modules then hear of it (Tags takes the tags).

pub mod inference;
pub mod pool;
mod scratch;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use serde_json::json;
use time::OffsetDateTime;
use trellis_modules::{AssetInfo, Invocation, ModuleHost, ModuleKind};

use self::inference::{AssetMedia, Inference};
use self::scratch::ScratchFile;
use crate::domain::analysis::{AnalysisRecord, Finding, StepOutcome, StepState, compose};
use crate::domain::jobs::SpaceEventKind;
use crate::error::{Error, Result};
use crate::infra::media::objects::MediaObjects;
use crate::services::space_events::SpaceEvents;
use crate::services::spaces::Spaces;
use crate::store::{Store, StoredAsset};

/// A step every asset goes through, with the deployment's configuration of it (JSON text).
#[derive(Debug, Clone)]
pub struct DeploymentStep {
    pub module_id: String,
    pub config: String,
}

/// The analysis use case. One per server; the `analysis` job workers share it.
pub struct Analysis {
    store: Store,
    spaces: Arc<Spaces>,
    host: ModuleHost,
    objects: MediaObjects,
    events: Arc<SpaceEvents>,
    inference: Arc<Inference>,
    steps: Vec<DeploymentStep>,
    scratch_dir: PathBuf,
}

impl Analysis {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        store: Store,
        spaces: Arc<Spaces>,
        host: ModuleHost,
        objects: MediaObjects,
        events: Arc<SpaceEvents>,
        inference: Arc<Inference>,
        steps: Vec<DeploymentStep>,
        scratch_dir: PathBuf,
    ) -> Self {
        Self { store, spaces, host, objects, events, inference, steps, scratch_dir }
    }

    /// Analyses a queued asset and stores the result (SUCCEEDED, or FAILED with `error`). Fails only
    /// when the database or the media store does, so the queue tries again later; running twice
    /// stores one result.
    #[tracing::instrument(skip(self))]
    pub async fn run(&self, asset_id: &str) -> Result<()> {
        let Some(asset) = self.store.assets.asset_by_id(asset_id).await? else {
            return Ok(()); // gone: nothing to analyse
        };
        self.store.assets.set_analysis(asset_id, "RUNNING", None, &Arc::default(), OffsetDateTime::now_utc()).await?;
        let record = self.analyse(&asset).await?;
        let state = if record.is_failure() { "FAILED" } else { "SUCCEEDED" };
        tracing::info!(asset_id, state, error = record.error.as_deref(), "analysed");
        self.finish(&asset, state, &record).await
    }

    /// Records that the queue gave up on an asset (its retries are used up).
    pub async fn give_up(&self, asset_id: &str, error: &str) -> Result<()> {
        let record = AnalysisRecord::failed(format!("the analysis could not run: {error}"));
        let json = serde_json::to_string(&record).map_err(Error::internal)?;
        let now = OffsetDateTime::now_utc();
        self.store.assets.set_analysis(asset_id, "FAILED", Some(json), &Arc::default(), now).await?;
        Ok(())
    }

    async fn finish(&self, asset: &StoredAsset, state: &'static str, record: &AnalysisRecord) -> Result<()> {
        let json = serde_json::to_string(record).map_err(Error::internal)?;
        // The space's modules hear of the result as a change of the asset (Tags takes its tags).
        let mut item = crate::services::space_events::items::asset(asset);
        item["analysis"] = json!({"state": state, "tags": record.tags, "description": record.description});
        let outbox = Arc::new(
            self.events.outbox(&asset.space_id, SpaceEventKind::AssetStateChanged, &asset.asset_id, item).await,
        );
        let now = OffsetDateTime::now_utc();
        self.store.assets.set_analysis(&asset.asset_id, state, Some(json), &outbox, now).await?;
        self.events.committed(&outbox);
        Ok(())
    }

    async fn analyse(&self, asset: &StoredAsset) -> Result<AnalysisRecord> {
        let Some(key) = asset.storage_key.as_deref() else {
            return Ok(AnalysisRecord::failed("the asset has no bytes"));
        };
        let object = self.objects.read(key, None).await?;
        let file = ScratchFile::fill(&self.scratch_dir, object.body).await.map_err(Error::internal)?;
        let source = Arc::new(file.source());
        let media =
            Arc::new(AssetMedia::new(self.inference.clone(), file.path().to_owned(), asset.content_type.clone()));
        let info = AssetInfo {
            asset_id: asset.asset_id.clone(),
            filename: asset.filename.clone(),
            content_type: asset.content_type.clone(),
            bytes: object.length,
        };
        let mut outcomes = Vec::new();
        for step in self.steps_for(&asset.space_id).await? {
            let version = self.host.summary(&step.module_id).map(|s| s.version.clone()).unwrap_or_default();
            let invocation = Invocation { space_id: asset.space_id.clone(), config_json: step.config.clone() };
            let started = Instant::now();
            let answer =
                self.host.analyze(&step.module_id, invocation, info.clone(), source.clone(), media.clone()).await;
            let millis = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
            outcomes.push(match answer {
                Ok(result) => StepOutcome {
                    module: step.module_id.clone(),
                    version,
                    state: StepState::Succeeded,
                    tags: result.tags.into_iter().map(finding).collect(),
                    sentences: result.sentences.into_iter().map(finding).collect(),
                    transcript: result.transcript.map(finding),
                    text: result.text.map(finding),
                    error: None,
                    millis,
                },
                Err(failure) => {
                    tracing::warn!(asset_id = %asset.asset_id, module_id = %step.module_id, %failure, "analysis step failed");
                    StepOutcome::failed(&step.module_id, &version, failure.to_string(), millis)
                }
            });
        }
        Ok(compose(outcomes))
    }

    /// The deployment's steps, then the analysis steps the space connected (each once).
    async fn steps_for(&self, space_id: &str) -> Result<Vec<DeploymentStep>> {
        let mut steps = self.steps.clone();
        for module in self.spaces.connected_modules(space_id).await?.iter() {
            let is_step = self.host.summary(&module.module_id).is_some_and(|s| s.kind == ModuleKind::AnalysisStep);
            if is_step && !steps.iter().any(|s| s.module_id == module.module_id) {
                steps.push(DeploymentStep { module_id: module.module_id.clone(), config: module.config.clone() });
            }
        }
        Ok(steps)
    }
}

fn finding(found: trellis_modules::Finding) -> Finding {
    Finding { text: found.text, model: found.model }
}
