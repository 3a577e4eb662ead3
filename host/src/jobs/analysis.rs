//! Runs queued [`AnalyseAsset`] jobs (one per asset, queued with its first approval or enabling,
//! and one more each time its ended analysis is queued again) through the analysis use case. Step
//! failures are part of the result; only database and media-store failures are retried, and when
//! retries run out the asset's analysis is FAILED with the reason.

use std::sync::Arc;

use super::queue::{JobFailure, KindHandler};
use crate::domain::jobs::AnalyseAsset;
use crate::services::analysis::Analysis;

/// The analysis job handler.
pub struct AnalysisJobs {
    analysis: Arc<Analysis>,
}

impl AnalysisJobs {
    pub fn new(analysis: Arc<Analysis>) -> Self {
        Self { analysis }
    }
}

#[async_trait::async_trait]
impl KindHandler for AnalysisJobs {
    type Kind = AnalyseAsset;

    async fn run(&self, _job_id: i64, job: AnalyseAsset) -> Result<(), JobFailure> {
        self.analysis.run(&job.asset_id).await.map_err(|error| JobFailure::Retry(error.to_string()))
    }

    async fn failed(&self, _job_id: i64, job: AnalyseAsset, error: &str) {
        if let Err(failure) = self.analysis.give_up(&job.asset_id, error).await {
            tracing::error!(asset_id = %job.asset_id, %failure, "recording a failed analysis failed");
        }
    }
}
