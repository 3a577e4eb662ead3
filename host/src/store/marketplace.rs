//! Marketplace listings: the owner's preparation, the operator's decisions, the listed text the
//! marketplace shows, and the signals the ranking reads.
//!
//! Every change is conditional on the state the use case read (`... where state = $n`), so an owner's
//! save and an operator's decision cannot overwrite each other unseen.

use std::sync::Arc;

use sqlx::Row;
use sqlx::any::AnyRow;
use time::OffsetDateTime;

use super::keyset::{BindKeyset, Keyset};
use super::outbox::Outbox;
use super::{Db, StoreResult, from_millis, placeholders, to_millis};

/// A listing as its owner and the operator see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredListing {
    pub space_id: String,
    pub space_name: String,
    pub owner_id: String,
    pub owner_handle: String,
    pub title: String,
    pub summary: String,
    /// JSON array text.
    pub categories: String,
    pub membership: String,
    /// JSON object text.
    pub rules: String,
    pub state: String,
    pub reason: Option<String>,
    /// The title the marketplace shows (approved last); `None` until the first approval.
    pub listed_title: Option<String>,
    pub submitted_at: Option<OffsetDateTime>,
    pub decided_at: Option<OffsetDateTime>,
    pub listed_at: Option<OffsetDateTime>,
    /// Moves on with every save and decision.
    pub revision: i64,
    pub updated_at: OffsetDateTime,
}

/// A listed space as the marketplace shows it: the approved text and public counts only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedSpace {
    pub space_id: String,
    pub title: String,
    pub summary: String,
    /// JSON array text.
    pub categories: String,
    pub membership: String,
    pub members: i64,
    pub assets: i64,
    pub listed_at: OffsetDateTime,
}

/// What the ranking may see of a listed space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListingSignals {
    pub listed: ListedSpace,
    pub comments_last_week: i64,
    pub registrations_last_week: i64,
}

/// What a save writes.
pub struct ListingRow {
    pub space_id: String,
    pub title: String,
    pub summary: String,
    pub categories: String,
    pub membership: String,
    pub rules: String,
    pub state: &'static str,
}

const LISTING_COLUMNS: &str = "l.space_id, s.name as space_name, s.owner_id, u.handle as owner_handle, l.title, \
     l.summary, l.categories, l.membership, l.rules, l.state, l.reason, l.listed_title, l.submitted_at, l.decided_at, l.listed_at, \
     l.revision, l.updated_at";
const LISTING_FROM: &str =
    "from listing l join space s on s.space_id = l.space_id join app_user u on u.user_id = s.owner_id";

fn listing_from_row(row: &AnyRow) -> Result<StoredListing, sqlx::Error> {
    let at = |name: &str| -> Result<Option<OffsetDateTime>, sqlx::Error> {
        Ok(row.try_get::<Option<i64>, _>(name)?.map(from_millis))
    };
    Ok(StoredListing {
        space_id: row.try_get("space_id")?,
        space_name: row.try_get("space_name")?,
        owner_id: row.try_get("owner_id")?,
        owner_handle: row.try_get("owner_handle")?,
        title: row.try_get("title")?,
        summary: row.try_get("summary")?,
        categories: row.try_get("categories")?,
        membership: row.try_get("membership")?,
        rules: row.try_get("rules")?,
        state: row.try_get("state")?,
        reason: row.try_get("reason")?,
        listed_title: row.try_get("listed_title")?,
        submitted_at: at("submitted_at")?,
        decided_at: at("decided_at")?,
        listed_at: at("listed_at")?,
        revision: row.try_get("revision")?,
        updated_at: from_millis(row.try_get("updated_at")?),
    })
}

/// The listed text with public counts: members (the owner included) and published assets.
const LISTED_SELECT: &str = "select l.space_id, l.listed_title, l.listed_summary, l.listed_categories, l.membership, \
     l.listed_at, \
     (select count(*) from space_member m where m.space_id = l.space_id) as members, \
     (select count(*) from published_asset p where p.space_id = l.space_id and p.state in ('APPROVED', 'ENABLED')) \
       as assets \
     from listing l where l.listed_at is not null";

fn listed_from_row(row: &AnyRow) -> Result<ListedSpace, sqlx::Error> {
    Ok(ListedSpace {
        space_id: row.try_get("space_id")?,
        title: row.try_get("listed_title")?,
        summary: row.try_get("listed_summary")?,
        categories: row.try_get("listed_categories")?,
        membership: row.try_get("membership")?,
        members: row.try_get("members")?,
        assets: row.try_get("assets")?,
        listed_at: from_millis(row.try_get("listed_at")?),
    })
}

/// The repository of marketplace listings.
#[derive(Clone, Debug)]
pub struct ListingRepo {
    db: Db,
}

impl ListingRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    /// A space's listing, if its owner ever saved one.
    pub async fn listing(&self, space_id: &str) -> StoreResult<Option<StoredListing>> {
        let row =
            sqlx::query(sqlx::AssertSqlSafe(format!("select {LISTING_COLUMNS} {LISTING_FROM} where l.space_id = $1")))
                .bind(space_id.to_owned())
                .fetch_optional(&self.db.pool)
                .await?;
        Ok(row.as_ref().map(listing_from_row).transpose()?)
    }

    /// Writes the owner's preparation unless the listing moved since it was read: `read_state` is
    /// the state the use case saw (`None`: no row yet), `read_revision` the revision it checked an
    /// `If-Match` against, if any. `false` when it moved (nothing written).
    pub async fn save(
        &self,
        row: ListingRow,
        read_state: Option<&'static str>,
        read_revision: Option<i64>,
        now: OffsetDateTime,
    ) -> StoreResult<bool> {
        let row = Arc::new(row);
        self.db
            .write(move |conn| {
                let row = row.clone();
                Box::pin(async move {
                    let submitted = (row.state == "SUBMITTED").then(|| to_millis(now));
                    let written = sqlx::query(
                        "insert into listing (space_id, title, summary, categories, membership, rules, state, \
                         submitted_at, created_at, updated_at) \
                         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) \
                         on conflict (space_id) do update set title = excluded.title, summary = excluded.summary, \
                         categories = excluded.categories, membership = excluded.membership, rules = excluded.rules, \
                         state = excluded.state, \
                         submitted_at = case when excluded.state = 'SUBMITTED' and listing.state <> 'SUBMITTED' \
                           then excluded.submitted_at else listing.submitted_at end, \
                         revision = listing.revision + 1, updated_at = excluded.updated_at \
                         where listing.state = $10 and ($11 < 0 or listing.revision = $11)",
                    )
                    .bind(row.space_id.clone())
                    .bind(row.title.clone())
                    .bind(row.summary.clone())
                    .bind(row.categories.clone())
                    .bind(row.membership.clone())
                    .bind(row.rules.clone())
                    .bind(row.state)
                    .bind(submitted)
                    .bind(to_millis(now))
                    .bind(read_state.unwrap_or(""))
                    .bind(read_revision.unwrap_or(-1))
                    .execute(conn)
                    .await?
                    .rows_affected();
                    Ok(written == 1)
                })
            })
            .await
    }

    /// The operator's decision on a SUBMITTED listing: approval makes its text the listed text (and
    /// lists the space from now on if it was not yet); rejection keeps whatever was listed before.
    /// `false` when the listing is not SUBMITTED (nothing written).
    pub async fn decide(
        &self,
        space_id: &str,
        approved: bool,
        reason: Option<String>,
        outbox: &Arc<Outbox>,
        now: OffsetDateTime,
    ) -> StoreResult<bool> {
        const DECIDE: &str = "update listing set state = $2, reason = $3, decided_at = $4, updated_at = $4, \
             revision = revision + 1, \
             listed_title = case when $5 = 1 then title else listed_title end, \
             listed_summary = case when $5 = 1 then summary else listed_summary end, \
             listed_categories = case when $5 = 1 then categories else listed_categories end, \
             listed_at = case when $5 = 1 then coalesce(listed_at, $4) else listed_at end \
             where space_id = $1 and state = 'SUBMITTED'";
        let state = if approved { "APPROVED" } else { "REJECTED" };
        self.write_decision(DECIDE, space_id, state, reason, Some(approved), outbox, now).await
    }

    /// Takes a listed space off the marketplace: REJECTED with `reason`, no longer listed; `false`
    /// when it is not listed, or SUBMITTED (decided instead), by the time of the write.
    pub async fn take_down(
        &self,
        space_id: &str,
        reason: Option<String>,
        outbox: &Arc<Outbox>,
        now: OffsetDateTime,
    ) -> StoreResult<bool> {
        const TAKE_DOWN: &str = "update listing set state = $2, reason = $3, decided_at = $4, updated_at = $4, \
             revision = revision + 1, listed_at = null, listed_title = null \
             where space_id = $1 and state <> 'SUBMITTED' and listed_at is not null";
        self.write_decision(TAKE_DOWN, space_id, "REJECTED", reason, None, outbox, now).await
    }

    /// Runs one operator decision `sql` (binds: space id, state, reason, time, then `approved` when
    /// given) and, when it changed the listing, writes `outbox` in the same transaction.
    #[allow(clippy::too_many_arguments)]
    async fn write_decision(
        &self,
        sql: &'static str,
        space_id: &str,
        state: &'static str,
        reason: Option<String>,
        approved: Option<bool>,
        outbox: &Arc<Outbox>,
        now: OffsetDateTime,
    ) -> StoreResult<bool> {
        let work = Arc::new((space_id.to_owned(), reason, outbox.clone()));
        let written = self
            .db
            .write(move |conn| {
                let work = work.clone();
                Box::pin(async move {
                    let (space_id, reason, outbox) = &*work;
                    let mut query =
                        sqlx::query(sql).bind(space_id.clone()).bind(state).bind(reason.clone()).bind(to_millis(now));
                    if let Some(approved) = approved {
                        query = query.bind(i64::from(approved));
                    }
                    let updated = query.execute(&mut *conn).await?.rows_affected();
                    if updated == 1 {
                        outbox.write_in(conn, now).await?;
                    }
                    Ok(updated == 1)
                })
            })
            .await?;
        self.db.committed(outbox).await;
        Ok(written)
    }

    /// Listings in any of `states` (all when empty), newest change first, after the
    /// `(updated_at, space_id)` key of the previous page: the operator's queue.
    pub async fn listings(
        &self,
        states: &[&'static str],
        after: Option<(i64, String)>,
        limit: i64,
    ) -> StoreResult<Vec<StoredListing>> {
        let keyset = Keyset::newest_first(after);
        let mut sql =
            format!("select {LISTING_COLUMNS} {LISTING_FROM} where {}", keyset.after("l.updated_at", "l.space_id", 1));
        if !states.is_empty() {
            sql.push_str(&format!(" and l.state in ({})", placeholders(3, states.len())));
        }
        sql.push_str(&format!(" {} limit ${}", keyset.order_by("l.updated_at", "l.space_id"), 3 + states.len()));
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind_keyset(keyset);
        for state in states {
            query = query.bind(*state);
        }
        let rows = query.bind(limit).fetch_all(&self.db.pool).await?;
        Ok(rows.iter().map(listing_from_row).collect::<Result<_, _>>()?)
    }

    /// A listed space with its public counts; `None` when it is not listed.
    pub async fn listed(&self, space_id: &str) -> StoreResult<Option<ListedSpace>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!("{LISTED_SELECT} and l.space_id = $1")))
            .bind(space_id.to_owned())
            .fetch_optional(&self.db.pool)
            .await?;
        Ok(row.as_ref().map(listed_from_row).transpose()?)
    }

    /// Every listed space with what the ranking may see of it; activity counts from `since` on.
    pub async fn signals(&self, since: OffsetDateTime) -> StoreResult<Vec<ListingSignals>> {
        // Grouped once each instead of one subquery per listing and signal: the ranking reads every
        // listing, and a group-by over the recent rows is one pass.
        let sql = "select x.*, coalesce(c.n, 0) as comments, coalesce(r.n, 0) as registrations from (".to_owned()
            + LISTED_SELECT
            + ") x \
               left join (select scope_id, count(*) as n from comment where scope = 'space' and created_at >= $1 \
                 group by scope_id) c on c.scope_id = x.space_id \
               left join (select space_id, count(*) as n from registration where created_at >= $1 \
                 group by space_id) r on r.space_id = x.space_id";
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(to_millis(since)).fetch_all(&self.db.pool).await?;
        rows.iter()
            .map(|row| {
                Ok(ListingSignals {
                    listed: listed_from_row(row)?,
                    comments_last_week: row.try_get("comments")?,
                    registrations_last_week: row.try_get("registrations")?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(Into::into)
    }
}
