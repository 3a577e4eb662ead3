//! Analysing an asset again: the space owner asks for one asset (see `Assets::reanalyse`), the
//! operator for every FAILED one (`trellis admin reanalyze`, for example once the models are
//! installed). Either marks the analysis QUEUED and queues a job of its own in one transaction,
//! and only once the asset's last analysis has ended, so one asset never has two analyses queued.

use std::sync::Arc;

use time::OffsetDateTime;

use crate::domain::jobs::AnalyseAsset;
use crate::domain::live::LiveEvent;
use crate::store::{Outbox, Store, StoreResult, StoredAsset};

/// Failed assets [`requeue_failed`] reads at a time (each is then queued in a transaction of its own).
const PAGE: i64 = 200;

/// Whether an asset's last analysis has ended, so that it may be queued again.
pub fn has_ended(asset: &StoredAsset) -> bool {
    matches!(asset.analysis_state.as_deref(), Some("SUCCEEDED" | "FAILED"))
}

/// Queues the analysis of `asset` again at `now`; `false`, nothing written, when its analysis has
/// not ended (it moved meanwhile). Readers of the asset hear that its analysis is QUEUED.
pub async fn requeue(store: &Store, asset: &StoredAsset, now: OffsetDateTime) -> StoreResult<bool> {
    let job = AnalyseAsset::again(&asset.asset_id, &asset.proposed_by);
    let live = LiveEvent::asset_changed(&asset.space_id, &asset.asset_id, &asset.state, Some("QUEUED"));
    let outbox = Arc::new(Outbox::new().job(&job).live(live));
    store.assets.requeue_analysis(&asset.asset_id, &outbox, now).await
}

/// Queues every FAILED analysis again; answers how many. Each asset is its own transaction, so
/// a server analysing meanwhile is never held up, and one that finished meanwhile is skipped.
pub async fn requeue_failed(store: &Store) -> StoreResult<u64> {
    let (mut queued, mut after) = (0, String::new());
    loop {
        let page = store.assets.failed_analyses(&after, PAGE).await?;
        let Some(last) = page.last() else { return Ok(queued) };
        after = last.asset_id.clone();
        for asset in &page {
            queued += u64::from(requeue(store, asset, OffsetDateTime::now_utc()).await?);
        }
    }
}
