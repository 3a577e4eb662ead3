//! Published assets of spaces: their metadata, their bytes' record and their state.
//!
//! Every change is conditional on the state the use case saw (`... where state = $n`), so two
//! concurrent uploads or decisions cannot both apply: the second finds no row and is refused.

use std::sync::Arc;

use sqlx::Row;
use sqlx::any::AnyRow;
use time::OffsetDateTime;

mod analysis;

use super::blobs::Adopted;
use super::keyset::{BindKeyset, Keyset};
use super::locks::lock_row;
use super::outbox::Outbox;
use super::{Db, StoreResult, from_millis, placeholders, to_millis};
use crate::domain::jobs::AnalyseAsset;
use crate::domain::live::LiveEvent;

/// A stored asset with its proposer's handle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredAsset {
    pub asset_id: String,
    pub space_id: String,
    pub proposed_by: String,
    pub proposer_handle: String,
    pub title: String,
    pub filename: String,
    pub content_type: String,
    pub state: String,
    /// Null until the upload commits.
    pub bytes: Option<i64>,
    pub storage_key: Option<String>,
    /// The SHA-256 (lowercase hex) of the bytes; null until the upload commits (and, for bytes
    /// written before content addressing, until the start-up step has read them).
    pub sha256: Option<String>,
    /// `QUEUED`, `RUNNING`, `SUCCEEDED` or `FAILED`; null until analysis is first queued.
    pub analysis_state: Option<String>,
    /// The analysis result as JSON text.
    pub analysis: Option<String>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

/// The metadata a create writes.
pub struct NewAssetRow {
    pub asset_id: String,
    pub space_id: String,
    pub proposed_by: String,
    pub title: String,
    pub filename: String,
    pub content_type: String,
}

/// How many announcements a proposer may hold in a space, and when an announcement's upload
/// window closed (older ones still awaiting their upload count no more).
#[derive(Clone, Copy, Debug)]
pub struct WaitingBound {
    pub max_per_proposer: i64,
    pub announced_before: OffsetDateTime,
}

/// Which assets a listing shows.
pub struct AssetFilter<'a> {
    /// Only these states (all when empty).
    pub states: &'a [&'static str],
    /// A member's view: only `published` states and the assets this user proposed. `None`: the
    /// owner's view, every asset.
    pub member: Option<(&'a str, &'a [&'static str])>,
}

const ASSET_COLUMNS: &str = "p.asset_id, p.space_id, p.proposed_by, u.handle, p.title, p.filename, p.content_type, \
     p.state, p.bytes, p.storage_key, p.sha256, p.analysis_state, p.analysis, p.created_at, p.updated_at";

fn asset_from_row(row: &AnyRow) -> Result<StoredAsset, sqlx::Error> {
    Ok(StoredAsset {
        asset_id: row.try_get("asset_id")?,
        space_id: row.try_get("space_id")?,
        proposed_by: row.try_get("proposed_by")?,
        proposer_handle: row.try_get("handle")?,
        title: row.try_get("title")?,
        filename: row.try_get("filename")?,
        content_type: row.try_get("content_type")?,
        state: row.try_get("state")?,
        bytes: row.try_get("bytes")?,
        storage_key: row.try_get("storage_key")?,
        sha256: row.try_get("sha256")?,
        analysis_state: row.try_get("analysis_state")?,
        analysis: row.try_get("analysis")?,
        created_at: from_millis(row.try_get("created_at")?),
        updated_at: from_millis(row.try_get("updated_at")?),
    })
}

/// The repository of published assets.
#[derive(Clone, Debug)]
pub struct AssetRepo {
    db: Db,
}

impl AssetRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    /// Writes an asset's metadata in state AWAITING_UPLOAD, unless its proposer already holds
    /// `waiting.max_per_proposer` assets of the space awaiting their upload or a decision
    /// (`false`, nothing written).
    #[tracing::instrument(skip_all, fields(space_id = %new.space_id))]
    pub async fn insert_asset(
        &self,
        new: NewAssetRow,
        waiting: WaitingBound,
        now: OffsetDateTime,
    ) -> StoreResult<bool> {
        let new = Arc::new(new);
        let engine = self.db.engine;
        let inserted = self
            .db
            .write(move |conn| {
                let new = new.clone();
                Box::pin(async move {
                    // One proposer's announcements at a time, so the count below stays true.
                    lock_row(
                        conn,
                        engine,
                        "select user_id from app_user where user_id = $1 for update",
                        &new.proposed_by,
                    )
                    .await?;
                    // Their announcements whose upload window passed count no more: the sweep may
                    // not have come by yet.
                    sqlx::query(
                        "update published_asset set state = 'REJECTED', updated_at = $4 \
                         where space_id = $1 and proposed_by = $2 and state = 'AWAITING_UPLOAD' and created_at < $3",
                    )
                    .bind(new.space_id.clone())
                    .bind(new.proposed_by.clone())
                    .bind(to_millis(waiting.announced_before))
                    .bind(to_millis(now))
                    .execute(&mut *conn)
                    .await?;
                    let held: i64 = sqlx::query(
                        "select count(*) as n from published_asset where space_id = $1 and proposed_by = $2 \
                         and state in ('AWAITING_UPLOAD', 'AWAITING_APPROVAL')",
                    )
                    .bind(new.space_id.clone())
                    .bind(new.proposed_by.clone())
                    .fetch_one(&mut *conn)
                    .await?
                    .try_get("n")?;
                    if held >= waiting.max_per_proposer {
                        return Ok(false);
                    }
                    sqlx::query(
                        "insert into published_asset (asset_id, space_id, proposed_by, title, filename, content_type, \
                         state, created_at, updated_at) values ($1, $2, $3, $4, $5, $6, 'AWAITING_UPLOAD', $7, $7)",
                    )
                    .bind(new.asset_id.clone())
                    .bind(new.space_id.clone())
                    .bind(new.proposed_by.clone())
                    .bind(new.title.clone())
                    .bind(new.filename.clone())
                    .bind(new.content_type.clone())
                    .bind(to_millis(now))
                    .execute(&mut *conn)
                    .await?;
                    let live = LiveEvent::asset_changed(&new.space_id, &new.asset_id, "AWAITING_UPLOAD", None);
                    super::live::insert_in(conn, &[live], now).await?;
                    Ok(true)
                })
            })
            .await;
        if matches!(inserted, Ok(true)) {
            self.db.live_committed().await;
        }
        inserted
    }

    /// Moves every announcement made before `announced_before` that is still AWAITING_UPLOAD to
    /// REJECTED; answers how many.
    #[tracing::instrument(skip_all)]
    pub async fn expire_announcements(
        &self,
        announced_before: OffsetDateTime,
        now: OffsetDateTime,
    ) -> StoreResult<u64> {
        self.db
            .write(move |conn| {
                Box::pin(async move {
                    let expired = sqlx::query(
                        "update published_asset set state = 'REJECTED', updated_at = $2 \
                         where state = 'AWAITING_UPLOAD' and created_at < $1",
                    )
                    .bind(to_millis(announced_before))
                    .bind(to_millis(now))
                    .execute(conn)
                    .await?
                    .rows_affected();
                    Ok(expired)
                })
            })
            .await
    }

    /// An asset of a space.
    #[tracing::instrument(skip_all, fields(space_id, asset_id))]
    pub async fn asset(&self, space_id: &str, asset_id: &str) -> StoreResult<Option<StoredAsset>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {ASSET_COLUMNS} from published_asset p join app_user u on u.user_id = p.proposed_by \
             where p.space_id = $1 and p.asset_id = $2"
        )))
        .bind(space_id.to_owned())
        .bind(asset_id.to_owned())
        .fetch_optional(&self.db.pool)
        .await?;
        Ok(row.as_ref().map(asset_from_row).transpose()?)
    }

    /// A space's assets the filter lets through, newest first, after the `(created_at, asset_id)`
    /// key of the previous page.
    #[tracing::instrument(skip_all, fields(space_id))]
    pub async fn assets(
        &self,
        space_id: &str,
        filter: &AssetFilter<'_>,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> StoreResult<Vec<StoredAsset>> {
        let keyset = Keyset::newest_first(after);
        let mut sql = format!(
            "select {ASSET_COLUMNS} from published_asset p join app_user u on u.user_id = p.proposed_by \
             where p.space_id = $1 and {}",
            keyset.after("p.created_at", "p.asset_id", 2)
        );
        let mut next = 4;
        if !filter.states.is_empty() {
            sql.push_str(&format!(" and p.state in ({})", placeholders(next, filter.states.len())));
            next += filter.states.len();
        }
        if let Some((_, published)) = filter.member {
            sql.push_str(&format!(
                " and (p.proposed_by = ${next} or p.state in ({}))",
                placeholders(next + 1, published.len())
            ));
            next += 1 + published.len();
        }
        sql.push_str(&format!(" {} limit ${next}", keyset.order_by("p.created_at", "p.asset_id")));
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(space_id.to_owned()).bind_keyset(keyset);
        for state in filter.states {
            query = query.bind(*state);
        }
        if let Some((user_id, published)) = filter.member {
            query = query.bind(user_id.to_owned());
            for state in published {
                query = query.bind(*state);
            }
        }
        let rows = query.bind(limit).fetch_all(&self.db.pool).await?;
        Ok(rows.iter().map(asset_from_row).collect::<Result<_, _>>()?)
    }

    /// Records an asset's uploaded bytes (`sha256`, `bytes` long, written as `storage_key`) and
    /// moves it from AWAITING_UPLOAD to AWAITING_APPROVAL, in one transaction that also adopts the
    /// stored object. `None` (nothing written) when the asset is gone or already has bytes.
    #[tracing::instrument(skip_all, fields(asset_id))]
    pub async fn attach_bytes(
        &self,
        asset_id: &str,
        storage_key: &str,
        sha256: &str,
        bytes: i64,
        outbox: &Arc<Outbox>,
        now: OffsetDateTime,
    ) -> StoreResult<Option<Adopted>> {
        let work = Arc::new((asset_id.to_owned(), storage_key.to_owned(), sha256.to_owned(), outbox.clone()));
        let engine = self.db.engine();
        let attached = self
            .db
            .write(move |conn| {
                let work = work.clone();
                Box::pin(async move {
                    let (asset_id, storage_key, sha256, outbox) = &*work;
                    if !super::uploads::claimable(conn, engine, &[storage_key], now).await? {
                        return Ok(None);
                    }
                    // Claimed first, so a refusal below leaves the blob untouched.
                    let claimed = sqlx::query(
                        "update published_asset set state = 'AWAITING_APPROVAL', updated_at = $2 \
                         where asset_id = $1 and state = 'AWAITING_UPLOAD' and storage_key is null",
                    )
                    .bind(asset_id.clone())
                    .bind(to_millis(now))
                    .execute(&mut *conn)
                    .await?
                    .rows_affected();
                    if claimed == 0 {
                        return Ok(None);
                    }
                    let adopted = super::blobs::adopt(conn, storage_key, sha256, bytes).await?;
                    sqlx::query(
                        "update published_asset set storage_key = $2, sha256 = $3, bytes = $4 where asset_id = $1",
                    )
                    .bind(asset_id.clone())
                    .bind(adopted.storage_key.clone())
                    .bind(sha256.clone())
                    .bind(bytes)
                    .execute(&mut *conn)
                    .await?;
                    super::uploads::consume(conn, &[storage_key]).await?;
                    outbox.write_in(conn, now).await?;
                    Ok(Some(adopted))
                })
            })
            .await?;
        self.db.committed(outbox).await;
        Ok(attached)
    }

    /// Moves an asset from `from` to `to` unless it moved meanwhile (`false`, nothing written), and
    /// writes `outbox` with the move.
    /// With `analysis`, an asset whose analysis was never queued is marked QUEUED and that
    /// `analysis` job queued in the same transaction, so its bytes are analysed once however often
    /// it is approved or enabled, and a crash cannot keep the mark and lose the job.
    #[tracing::instrument(skip_all, fields(asset_id))]
    pub async fn move_state(
        &self,
        asset_id: &str,
        from: &'static str,
        to: &'static str,
        analysis: Option<&AnalyseAsset>,
        outbox: &Arc<Outbox>,
        now: OffsetDateTime,
    ) -> StoreResult<bool> {
        let asset_id = Arc::new(asset_id.to_owned());
        let queue_analysis = analysis.is_some();
        let analysis = Arc::new(analysis.map_or_else(Outbox::new, |job| Outbox::new().job(job)));
        let written = outbox.clone();
        let moved = self
            .db
            .write(move |conn| {
                let (asset_id, analysis, outbox) = (asset_id.clone(), analysis.clone(), written.clone());
                Box::pin(async move {
                    // The first queueing is the one that finds no analysis state; the row lock of
                    // the update below keeps a concurrent move from seeing the same.
                    let first_analysis = queue_analysis
                        && sqlx::query(
                            "select 1 as one from published_asset where asset_id = $1 and state = $2 \
                             and analysis_state is null",
                        )
                        .bind((*asset_id).clone())
                        .bind(from)
                        .fetch_optional(&mut *conn)
                        .await?
                        .is_some();
                    let updated = sqlx::query(
                        "update published_asset set state = $3, updated_at = $4, \
                         analysis_state = case when $5 = 1 and analysis_state is null then 'QUEUED' \
                           else analysis_state end \
                         where asset_id = $1 and state = $2",
                    )
                    .bind((*asset_id).clone())
                    .bind(from)
                    .bind(to)
                    .bind(to_millis(now))
                    .bind(i64::from(queue_analysis))
                    .execute(&mut *conn)
                    .await?
                    .rows_affected();
                    if updated == 1 && first_analysis {
                        analysis.write_in(conn, now).await?;
                    }
                    if updated == 1 {
                        outbox.write_in(conn, now).await?;
                    }
                    Ok(updated == 1)
                })
            })
            .await?;
        // Whether the analysis job was queued is not known here; a needless wake costs one claim.
        if queue_analysis || outbox.has_jobs() {
            self.db.job_wake.notify_waiters();
        }
        Ok(moved)
    }
}
