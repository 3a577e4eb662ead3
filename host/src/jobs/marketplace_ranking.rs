//! Ranks the marketplace at start, every `marketplace.ranking_interval_seconds`, and soon after a
//! relevant change (a listing approved, a membership policy changed, a registration): each wake-up
//! waits `marketplace.ranking_settle_ms` first, so a burst of changes costs one ranking, and the
//! rankings of a busy marketplace stay that far apart.

use std::sync::Arc;
use std::time::Duration;

use crate::config::marketplace::MarketplaceConfig;
use crate::services::marketplace::ranking::Ranking;

pub fn run(ranking: Arc<Ranking>, config: &MarketplaceConfig) -> impl Future<Output = ()> + use<> {
    let interval = Duration::from_secs(config.ranking_interval_seconds.max(1));
    let settle = Duration::from_millis(config.ranking_settle_ms);
    async move {
        loop {
            match ranking.rank().await {
                Ok(count) => tracing::debug!(count, "marketplace ranked"),
                Err(error) => tracing::warn!(%error, "ranking the marketplace failed; the last good ranking stays"),
            }
            // Whichever comes first: the schedule or a change.
            let _ = tokio::time::timeout(interval, ranking.wait_for_change()).await;
            tokio::time::sleep(settle).await;
        }
    }
}
