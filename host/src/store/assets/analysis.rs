//! The analysis columns of a published asset: read by id for the background worker, moved to
//! RUNNING, and finished with the composed result in one statement (running twice stores one result).

use std::sync::Arc;

use sqlx::Row;
use time::OffsetDateTime;

use super::{ASSET_COLUMNS, AssetRepo, StoredAsset, asset_from_row};
use crate::domain::live::LiveEvent;
use crate::store::{Outbox, StoreResult, to_millis};

impl AssetRepo {
    /// An asset by its id alone (the worker knows no space).
    #[tracing::instrument(skip_all, fields(asset_id))]
    pub async fn asset_by_id(&self, asset_id: &str) -> StoreResult<Option<StoredAsset>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {ASSET_COLUMNS} from published_asset p join app_user u on u.user_id = p.proposed_by \
             where p.asset_id = $1"
        )))
        .bind(asset_id.to_owned())
        .fetch_optional(&self.db.pool)
        .await?;
        Ok(row.as_ref().map(asset_from_row).transpose()?)
    }

    /// Sets the analysis state, and the result when `analysis` is given (JSON text); `false` when no
    /// asset has the id.
    #[tracing::instrument(skip_all, fields(asset_id, state))]
    pub async fn set_analysis(
        &self,
        asset_id: &str,
        state: &'static str,
        analysis: Option<String>,
        outbox: &Arc<Outbox>,
        now: OffsetDateTime,
    ) -> StoreResult<bool> {
        let asset_id = Arc::new(asset_id.to_owned());
        let analysis = Arc::new(analysis);
        let written = outbox.clone();
        let updated = self
            .db
            .write(move |conn| {
                let (asset_id, analysis, outbox) = (asset_id.clone(), analysis.clone(), written.clone());
                Box::pin(async move {
                    let updated = sqlx::query(
                        "update published_asset set analysis_state = $2, \
                         analysis = coalesce($3, analysis), updated_at = $4 \
                         where asset_id = $1 returning space_id, state",
                    )
                    .bind((*asset_id).clone())
                    .bind(state)
                    .bind((*analysis).clone())
                    .bind(to_millis(now))
                    .fetch_optional(&mut *conn)
                    .await?;
                    let Some(row) = updated else { return Ok(false) };
                    outbox.write_in(conn, now).await?;
                    let (space_id, asset_state): (String, String) = (row.try_get("space_id")?, row.try_get("state")?);
                    let live = LiveEvent::asset_changed(&space_id, &asset_id, &asset_state, Some(state));
                    crate::store::live::insert_in(conn, &[live], now).await?;
                    Ok(true)
                })
            })
            .await?;
        self.db.committed(outbox);
        self.db.live_committed();
        Ok(updated)
    }
}
