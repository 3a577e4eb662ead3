//! Channel invites: one row per (channel, invitee). Inviting again after a decision replaces the
//! decided row with a new invite, so a channel holds at most one invite per user; a DECLINED row
//! keeps the time of the decline (`updated_at`), which the cool-down before a new invite reads.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use sqlx::Row;
use sqlx::any::AnyRow;
use time::OffsetDateTime;

use super::super::locks::lock_row;
use super::{ChannelRepo, placeholders};
use crate::domain::live::LiveEvent;
use crate::store::keyset::{BindKeyset, Keyset};
use crate::store::{StoreResult, from_millis, to_millis};

/// An invite with what its invitee is shown: the channel's name and who invited them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredInvite {
    pub invite_id: String,
    pub channel_id: String,
    pub channel_name: String,
    pub invitee_id: String,
    pub invited_by_id: String,
    pub invited_by_handle: String,
    pub state: String,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

/// A user to invite, with the id a new invite for them gets.
#[derive(Clone, Debug)]
pub struct NewInvitee {
    pub user_id: String,
    pub handle: String,
    pub invite_id: String,
}

/// What an invite request did for one invitee: a new or the existing PENDING invite, or the
/// membership (`ACCEPTED`, with the accepted invite's id when the member joined through one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InviteOutcome {
    pub invite_id: Option<String>,
    pub handle: String,
    pub state: String,
}

/// The result of an invite request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InviteWrite {
    /// One outcome per invitee, in the order given.
    Invited(Vec<InviteOutcome>),
    /// The new invites would take the channel past its bound of pending invites; nothing was written.
    TooManyPending,
    /// An invitee declined this channel's invite less than the cool-down ago; nothing was written.
    /// The time until the last of them may be invited again.
    RecentlyDeclined(Duration),
}

const INVITE_SELECT: &str = "select i.invite_id, i.channel_id, c.name as channel_name, i.invitee_id, \
       i.invited_by, u.handle as invited_by_handle, i.state, i.created_at, i.updated_at \
     from channel_invite i join channel c on c.channel_id = i.channel_id join app_user u on u.user_id = i.invited_by";

fn invite_from_row(row: &AnyRow) -> Result<StoredInvite, sqlx::Error> {
    Ok(StoredInvite {
        invite_id: row.try_get("invite_id")?,
        channel_id: row.try_get("channel_id")?,
        channel_name: row.try_get("channel_name")?,
        invitee_id: row.try_get("invitee_id")?,
        invited_by_id: row.try_get("invited_by")?,
        invited_by_handle: row.try_get("invited_by_handle")?,
        state: row.try_get("state")?,
        created_at: from_millis(row.try_get("created_at")?),
        updated_at: from_millis(row.try_get("updated_at")?),
    })
}

impl ChannelRepo {
    /// Invites each of `invitees` to a channel in one transaction: a member answers its
    /// membership, a user with a PENDING invite that invite; everybody else gets a new PENDING
    /// invite (replacing a decided one). Refused whole when one of them declined this channel's
    /// invite less than `after_decline` ago, or when the channel would hold more than
    /// `max_pending` pending invites.
    #[tracing::instrument(skip_all, fields(channel_id))]
    pub async fn invite(
        &self,
        channel_id: &str,
        invited_by: &str,
        invitees: Vec<NewInvitee>,
        max_pending: i64,
        after_decline: Duration,
        now: OffsetDateTime,
    ) -> StoreResult<InviteWrite> {
        if invitees.is_empty() {
            return Ok(InviteWrite::Invited(Vec::new()));
        }
        let work = Arc::new((channel_id.to_owned(), invited_by.to_owned(), invitees));
        let engine = self.db.engine;
        let written = self
            .db
            .write(move |conn| {
                let work = work.clone();
                Box::pin(async move {
                    let (channel_id, invited_by, invitees) = &*work;
                    lock_row(
                        conn,
                        engine,
                        "select channel_id from channel where channel_id = $1 for update",
                        channel_id,
                    )
                    .await?;
                    let standing = standing(conn, channel_id, invitees).await?;
                    let decided = decide(invitees, &standing, after_decline, now);
                    if !decided.cooling.is_zero() {
                        return Ok(InviteWrite::RecentlyDeclined(decided.cooling));
                    }
                    if decided.fresh.is_empty() {
                        return Ok(InviteWrite::Invited(decided.outcomes));
                    }
                    let pending: i64 = sqlx::query(
                        "select count(*) as n from channel_invite where channel_id = $1 and state = 'PENDING'",
                    )
                    .bind(channel_id.clone())
                    .fetch_one(&mut *conn)
                    .await?
                    .try_get("n")?;
                    if pending + decided.fresh.len() as i64 > max_pending {
                        return Ok(InviteWrite::TooManyPending);
                    }
                    insert_pending(conn, channel_id, invited_by, &decided.fresh, now).await?;
                    Ok(InviteWrite::Invited(decided.outcomes))
                })
            })
            .await;
        if matches!(&written, Ok(InviteWrite::Invited(outcomes)) if !outcomes.is_empty()) {
            self.db.live_committed().await;
        }
        written
    }

    /// The PENDING invites of `invitee_id`, newest first, after the `(created, id)` key of the
    /// previous page.
    #[tracing::instrument(skip_all, fields(invitee_id))]
    pub async fn pending_invites(
        &self,
        invitee_id: &str,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> StoreResult<Vec<StoredInvite>> {
        let keyset = Keyset::newest_first(after);
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "{INVITE_SELECT} where i.invitee_id = $1 and i.state = 'PENDING' \
               and {after} \
             {order} limit $4",
            after = keyset.after("i.created_at", "i.invite_id", 2),
            order = keyset.order_by("i.created_at", "i.invite_id"),
        )))
        .bind(invitee_id.to_owned())
        .bind_keyset(keyset)
        .bind(limit)
        .fetch_all(&self.db.pool)
        .await?;
        Ok(rows.iter().map(invite_from_row).collect::<Result<_, _>>()?)
    }

    /// An invite by id; `None` when there is none.
    #[tracing::instrument(skip_all, fields(invite_id))]
    pub async fn invite_by_id(&self, invite_id: &str) -> StoreResult<Option<StoredInvite>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!("{INVITE_SELECT} where i.invite_id = $1")))
            .bind(invite_id.to_owned())
            .fetch_optional(&self.db.pool)
            .await?;
        Ok(row.map(|row| invite_from_row(&row)).transpose()?)
    }

    /// Moves a PENDING invite of `invitee_id` to `state` (ACCEPTED or DECLINED); an accepted
    /// invitee becomes a `member` in the same transaction. `None` when the invite is not (or no
    /// longer) PENDING.
    #[tracing::instrument(skip_all, fields(invite_id))]
    pub async fn decide_invite(
        &self,
        invite_id: &str,
        invitee_id: &str,
        state: &'static str,
        now: OffsetDateTime,
    ) -> StoreResult<Option<StoredInvite>> {
        let work = Arc::new((invite_id.to_owned(), invitee_id.to_owned()));
        self.db
            .write(move |conn| {
                let work = work.clone();
                Box::pin(async move {
                    let (invite_id, invitee_id) = &*work;
                    let moved = sqlx::query(
                        "update channel_invite set state = $3, updated_at = $4 \
                         where invite_id = $1 and invitee_id = $2 and state = 'PENDING' returning channel_id",
                    )
                    .bind(invite_id.clone())
                    .bind(invitee_id.clone())
                    .bind(state)
                    .bind(to_millis(now))
                    .fetch_optional(&mut *conn)
                    .await?;
                    let Some(moved) = moved else { return Ok(None) };
                    if state == "ACCEPTED" {
                        sqlx::query(
                            "insert into channel_member (channel_id, user_id, role, created_at) \
                             values ($1, $2, 'member', $3) on conflict (channel_id, user_id) do nothing",
                        )
                        .bind(moved.try_get::<String, _>("channel_id")?)
                        .bind(invitee_id.clone())
                        .bind(to_millis(now))
                        .execute(&mut *conn)
                        .await?;
                    }
                    let row = sqlx::query(sqlx::AssertSqlSafe(format!("{INVITE_SELECT} where i.invite_id = $1")))
                        .bind(invite_id.clone())
                        .fetch_one(&mut *conn)
                        .await?;
                    Ok(Some(invite_from_row(&row)?))
                })
            })
            .await
    }

    /// Cancels a PENDING invite of a channel; `false` when it is not (or no longer) PENDING.
    #[tracing::instrument(skip_all, fields(channel_id, invite_id))]
    pub async fn cancel_invite(&self, channel_id: &str, invite_id: &str, now: OffsetDateTime) -> StoreResult<bool> {
        let done = sqlx::query(
            "update channel_invite set state = 'CANCELLED', updated_at = $3 \
             where invite_id = $1 and channel_id = $2 and state = 'PENDING'",
        )
        .bind(invite_id.to_owned())
        .bind(channel_id.to_owned())
        .bind(to_millis(now))
        .execute(&self.db.writer)
        .await?;
        Ok(done.rows_affected() == 1)
    }
}

/// Where the invitees stand with a channel: who is a member, and each one's invite row (its id, state
/// and when it was last decided).
struct Standing {
    members: Vec<String>,
    invites: HashMap<String, (String, String, OffsetDateTime)>,
}

/// What an invite request does: an outcome per invitee, the invitees who get a new PENDING invite, and
/// the cool-down left before the last of those who declined may be invited again (zero: none).
struct Decided<'a> {
    outcomes: Vec<InviteOutcome>,
    fresh: Vec<&'a NewInvitee>,
    cooling: Duration,
}

async fn standing(
    conn: &mut sqlx::AnyConnection,
    channel_id: &str,
    invitees: &[NewInvitee],
) -> Result<Standing, sqlx::Error> {
    let in_list = placeholders(2, invitees.len());
    let mut members = sqlx::query(sqlx::AssertSqlSafe(format!(
        "select user_id from channel_member where channel_id = $1 and user_id in ({in_list})"
    )))
    .bind(channel_id.to_owned());
    let mut invites = sqlx::query(sqlx::AssertSqlSafe(format!(
        "select invitee_id, invite_id, state, updated_at from channel_invite \
         where channel_id = $1 and invitee_id in ({in_list})"
    )))
    .bind(channel_id.to_owned());
    for invitee in invitees {
        members = members.bind(invitee.user_id.clone());
        invites = invites.bind(invitee.user_id.clone());
    }
    let members =
        members.fetch_all(&mut *conn).await?.iter().map(|row| row.try_get("user_id")).collect::<Result<_, _>>()?;
    let mut found = HashMap::new();
    for row in invites.fetch_all(&mut *conn).await? {
        let decided = from_millis(row.try_get("updated_at")?);
        found.insert(
            row.try_get::<String, _>("invitee_id")?,
            (row.try_get("invite_id")?, row.try_get("state")?, decided),
        );
    }
    Ok(Standing { members, invites: found })
}

/// A member answers its membership, a user with a PENDING invite that invite; everybody else gets a
/// new PENDING invite, unless they declined less than `after_decline` ago.
fn decide<'a>(
    invitees: &'a [NewInvitee],
    standing: &Standing,
    after_decline: Duration,
    now: OffsetDateTime,
) -> Decided<'a> {
    let mut decided =
        Decided { outcomes: Vec::with_capacity(invitees.len()), fresh: Vec::new(), cooling: Duration::ZERO };
    for invitee in invitees {
        let found = standing.invites.get(&invitee.user_id);
        let (invite_id, state) = if standing.members.contains(&invitee.user_id) {
            let accepted = found.filter(|(_, state, _)| state == "ACCEPTED").map(|(id, _, _)| id.clone());
            (accepted, "ACCEPTED")
        } else if let Some((id, _, _)) = found.filter(|(_, state, _)| state == "PENDING") {
            (Some(id.clone()), "PENDING")
        } else {
            if let Some((_, _, declined)) = found.filter(|(_, state, _)| state == "DECLINED") {
                let since = (now - *declined).try_into().unwrap_or(Duration::ZERO);
                decided.cooling = decided.cooling.max(after_decline.saturating_sub(since));
            }
            decided.fresh.push(invitee);
            (Some(invitee.invite_id.clone()), "PENDING")
        };
        decided.outcomes.push(InviteOutcome { invite_id, handle: invitee.handle.clone(), state: state.to_owned() });
    }
    decided
}

/// Writes a PENDING invite for each of `fresh` (replacing a decided row) and tells each invitee live.
async fn insert_pending(
    conn: &mut sqlx::AnyConnection,
    channel_id: &str,
    invited_by: &str,
    fresh: &[&NewInvitee],
    now: OffsetDateTime,
) -> StoreResult<()> {
    let mut live = Vec::with_capacity(fresh.len());
    for invitee in fresh {
        live.push(LiveEvent::invite_created(&invitee.user_id, channel_id, &invitee.invite_id));
        sqlx::query(
            "insert into channel_invite \
               (invite_id, channel_id, invitee_id, invited_by, state, created_at, updated_at) \
             values ($1, $2, $3, $4, 'PENDING', $5, $5) \
             on conflict (channel_id, invitee_id) do update set invite_id = excluded.invite_id, \
               invited_by = excluded.invited_by, state = 'PENDING', \
               created_at = excluded.created_at, updated_at = excluded.updated_at",
        )
        .bind(invitee.invite_id.clone())
        .bind(channel_id.to_owned())
        .bind(invitee.user_id.clone())
        .bind(invited_by.to_owned())
        .bind(to_millis(now))
        .execute(&mut *conn)
        .await?;
    }
    crate::store::live::insert_in(conn, &live, now).await?;
    Ok(())
}
