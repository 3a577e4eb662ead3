//! Runs queued `analysis` jobs (one per asset, queued with its first approval or enabling) through
//! the analysis use case. Step failures are part of the result; only database and media-store
//! failures are retried, and when retries run out the asset's analysis is FAILED with the reason.

use std::sync::Arc;

use async_trait::async_trait;

use super::queue::{ClaimedJob, JobFailure, JobHandler};
use crate::services::analysis::Analysis;

/// The job kind, as the asset repository queues it.
pub const KIND: &str = "analysis";

/// The `analysis` job handler.
pub struct AnalysisJobs {
    analysis: Arc<Analysis>,
}

impl AnalysisJobs {
    pub fn new(analysis: Arc<Analysis>) -> Self {
        Self { analysis }
    }
}

fn asset_id(job: &ClaimedJob) -> Result<&str, JobFailure> {
    job.payload
        .get("assetId")
        .and_then(|id| id.as_str())
        .ok_or_else(|| JobFailure::Permanent(format!("job {} has no assetId", job.id)))
}

#[async_trait]
impl JobHandler for AnalysisJobs {
    fn kind(&self) -> &'static str {
        KIND
    }

    async fn run(&self, job: &ClaimedJob) -> Result<(), JobFailure> {
        let asset_id = asset_id(job)?;
        self.analysis.run(asset_id).await.map_err(|error| JobFailure::Retry(error.to_string()))
    }

    async fn failed(&self, job: &ClaimedJob, error: &str) {
        let Ok(asset_id) = asset_id(job) else { return };
        if let Err(failure) = self.analysis.give_up(asset_id, error).await {
            tracing::error!(asset_id, %failure, "recording a failed analysis failed");
        }
    }
}
