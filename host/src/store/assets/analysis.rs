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
        self.db.committed_with(outbox, updated).await;
        Ok(updated)
    }

    /// Marks an asset whose analysis ended (SUCCEEDED or FAILED) QUEUED again and writes `outbox`,
    /// which holds its analysis job, in the same transaction; `false`, nothing written, when its
    /// analysis has not ended (never queued, queued or running). Its last result stays readable
    /// until the new one replaces it.
    #[tracing::instrument(skip_all, fields(asset_id))]
    pub async fn requeue_analysis(
        &self,
        asset_id: &str,
        outbox: &Arc<Outbox>,
        now: OffsetDateTime,
    ) -> StoreResult<bool> {
        let asset_id = Arc::new(asset_id.to_owned());
        let written = outbox.clone();
        let queued = self
            .db
            .write(move |conn| {
                let (asset_id, outbox) = (asset_id.clone(), written.clone());
                Box::pin(async move {
                    let updated = sqlx::query(
                        "update published_asset set analysis_state = 'QUEUED', updated_at = $2 \
                         where asset_id = $1 and analysis_state in ('SUCCEEDED', 'FAILED')",
                    )
                    .bind((*asset_id).clone())
                    .bind(to_millis(now))
                    .execute(&mut *conn)
                    .await?
                    .rows_affected();
                    if updated == 1 {
                        outbox.write_in(conn, now).await?;
                    }
                    Ok(updated == 1)
                })
            })
            .await?;
        if queued {
            self.db.committed(outbox).await;
        }
        Ok(queued)
    }

    /// Up to `limit` assets whose analysis FAILED, after the id `after`, in id order.
    pub async fn failed_analyses(&self, after: &str, limit: i64) -> StoreResult<Vec<StoredAsset>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {ASSET_COLUMNS} from published_asset p join app_user u on u.user_id = p.proposed_by \
             where p.analysis_state = 'FAILED' and p.asset_id > $1 order by p.asset_id limit $2"
        )))
        .bind(after.to_owned())
        .bind(limit)
        .fetch_all(&self.db.pool)
        .await?;
        Ok(rows.iter().map(asset_from_row).collect::<Result<_, _>>()?)
    }
}
