//! Channels: the channel rows, their members and the spaces connected to them; invites are in
//! `channels/invites.rs`.

mod invites;

use std::sync::Arc;

use sqlx::Row;
use sqlx::any::AnyRow;
use time::OffsetDateTime;

pub use self::invites::{InviteOutcome, InviteWrite, NewInvitee, StoredInvite};
use super::keyset::{BindKeyset, Keyset};
use super::locks::lock_row;
use super::{Db, StoreError, StoreResult, from_millis, placeholders, to_millis};

/// A stored channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredChannel {
    pub channel_id: String,
    pub owner_id: String,
    pub name: String,
    pub description: String,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

/// A channel as one of its members sees it: with the member's role and when they joined.
#[derive(Clone, Debug)]
pub struct MemberChannel {
    pub channel: StoredChannel,
    pub role: String,
    pub joined_at: OffsetDateTime,
}

/// A member of a channel with the name others see.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelMember {
    pub user_id: String,
    pub handle: String,
    pub display_name: String,
    pub role: String,
    pub joined_at: OffsetDateTime,
}

/// A space connected to a channel, at its place in the connected set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectedSpace {
    pub space_id: String,
    pub name: String,
    pub display_name: String,
    pub position: i64,
}

/// What the connected set of a channel shows is at: the set's own revision, which every
/// replacement moves on, and the sum of the connected spaces' revisions, which every rename of one
/// of them moves on (spaces are never deleted, so the sum only grows while the set stays).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectedSpacesState {
    pub revision: i64,
    pub spaces_revisions: i64,
}

/// A page of a channel's connected spaces and the state of the whole set it was read at.
#[derive(Clone, Debug)]
pub struct ConnectedSpacesPage {
    pub state: ConnectedSpacesState,
    pub spaces: Vec<ConnectedSpace>,
}

/// What a stale `replace_spaces` is: the connected set moved on after the use case checked it.
pub const STALE_CHANNEL_SPACES: &str = "channel.spaces_revision";

/// The state of a channel's connected set, as columns of a statement that names the channel `c`.
const SPACES_STATE: &str = "c.spaces_revision, \
     (select cast(coalesce(sum(s2.revision), 0) as bigint) from channel_space cs2 \
      join space s2 on s2.space_id = cs2.space_id where cs2.channel_id = c.channel_id) as spaces_revisions";

fn spaces_state_from_row(row: &AnyRow) -> Result<ConnectedSpacesState, sqlx::Error> {
    Ok(ConnectedSpacesState {
        revision: row.try_get("spaces_revision")?,
        spaces_revisions: row.try_get("spaces_revisions")?,
    })
}

/// What a create writes.
pub struct NewChannelRow<'a> {
    pub channel_id: &'a str,
    pub owner_id: &'a str,
    pub name: &'a str,
    pub description: &'a str,
}

const CHANNEL_COLUMNS: &str = "c.channel_id, c.owner_id, c.name, c.description, c.created_at, c.updated_at";

fn channel_from_row(row: &AnyRow) -> Result<StoredChannel, sqlx::Error> {
    Ok(StoredChannel {
        channel_id: row.try_get("channel_id")?,
        owner_id: row.try_get("owner_id")?,
        name: row.try_get("name")?,
        description: row.try_get("description")?,
        created_at: from_millis(row.try_get("created_at")?),
        updated_at: from_millis(row.try_get("updated_at")?),
    })
}

fn member_channel_from_row(row: &AnyRow) -> Result<MemberChannel, sqlx::Error> {
    Ok(MemberChannel {
        channel: channel_from_row(row)?,
        role: row.try_get("role")?,
        joined_at: from_millis(row.try_get("joined_at")?),
    })
}

const MEMBER_SELECT: &str = "select m.user_id, u.handle, u.display_name, m.role, m.created_at as joined_at \
     from channel_member m join app_user u on u.user_id = m.user_id";

fn member_from_row(row: &AnyRow) -> Result<ChannelMember, sqlx::Error> {
    Ok(ChannelMember {
        user_id: row.try_get("user_id")?,
        handle: row.try_get("handle")?,
        display_name: row.try_get("display_name")?,
        role: row.try_get("role")?,
        joined_at: from_millis(row.try_get("joined_at")?),
    })
}

/// The repository of channels, their members, connected spaces and invites.
#[derive(Clone, Debug)]
pub struct ChannelRepo {
    db: Db,
}

impl ChannelRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    /// Inserts a channel and its owner's membership in one transaction, unless the owner already
    /// owns `max_owned` channels (`None`).
    #[tracing::instrument(skip_all, fields(channel_id = new.channel_id))]
    pub async fn insert_channel(
        &self,
        new: &NewChannelRow<'_>,
        max_owned: i64,
        now: OffsetDateTime,
    ) -> StoreResult<Option<MemberChannel>> {
        let row = Arc::new((
            new.channel_id.to_owned(),
            new.owner_id.to_owned(),
            new.name.to_owned(),
            new.description.to_owned(),
        ));
        let engine = self.db.engine;
        self.db
            .write(move |conn| {
                let row = row.clone();
                Box::pin(async move {
                    let (channel_id, owner_id, name, description) = &*row;
                    lock_row(conn, engine, "select user_id from app_user where user_id = $1 for update", owner_id)
                        .await?;
                    let owned: i64 = sqlx::query("select count(*) as n from channel where owner_id = $1")
                        .bind(owner_id.clone())
                        .fetch_one(&mut *conn)
                        .await?
                        .try_get("n")?;
                    if owned >= max_owned {
                        return Ok(None);
                    }
                    let inserted = sqlx::query(
                        "insert into channel (channel_id, owner_id, name, description, created_at, updated_at) \
                         values ($1, $2, $3, $4, $5, $5) \
                         returning channel_id, owner_id, name, description, created_at, updated_at",
                    )
                    .bind(channel_id.clone())
                    .bind(owner_id.clone())
                    .bind(name.clone())
                    .bind(description.clone())
                    .bind(to_millis(now))
                    .fetch_one(&mut *conn)
                    .await?;
                    sqlx::query(
                        "insert into channel_member (channel_id, user_id, role, created_at) values ($1, $2, 'owner', $3)",
                    )
                    .bind(channel_id.clone())
                    .bind(owner_id.clone())
                    .bind(to_millis(now))
                    .execute(&mut *conn)
                    .await?;
                    let channel = channel_from_row(&inserted)?;
                    Ok(Some(MemberChannel { joined_at: channel.created_at, channel, role: "owner".to_owned() }))
                })
            })
            .await
    }

    /// A channel with the role of `user_id` in it; `None` when the user is no member (or there is
    /// no such channel).
    #[tracing::instrument(skip_all, fields(channel_id, user_id))]
    pub async fn member_channel(&self, channel_id: &str, user_id: &str) -> StoreResult<Option<MemberChannel>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {CHANNEL_COLUMNS}, m.role, m.created_at as joined_at \
             from channel_member m join channel c on c.channel_id = m.channel_id \
             where m.channel_id = $1 and m.user_id = $2"
        )))
        .bind(channel_id.to_owned())
        .bind(user_id.to_owned())
        .fetch_optional(&self.db.pool)
        .await?;
        Ok(row.map(|row| member_channel_from_row(&row)).transpose()?)
    }

    /// The role of a user in a channel (`owner`, `inviter` or `member`), or `None` for a non-member.
    #[tracing::instrument(skip_all, fields(channel_id, user_id))]
    pub async fn role(&self, channel_id: &str, user_id: &str) -> StoreResult<Option<String>> {
        let row = sqlx::query("select role from channel_member where channel_id = $1 and user_id = $2")
            .bind(channel_id.to_owned())
            .bind(user_id.to_owned())
            .fetch_optional(&self.db.pool)
            .await?;
        Ok(row.map(|row| row.try_get("role")).transpose()?)
    }

    /// The channels a user is a member of, newest membership first, after the `(joined, id)` key
    /// of the previous page.
    #[tracing::instrument(skip_all, fields(user_id))]
    pub async fn member_channels(
        &self,
        user_id: &str,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> StoreResult<Vec<MemberChannel>> {
        let keyset = Keyset::newest_first(after);
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {CHANNEL_COLUMNS}, m.role, m.created_at as joined_at \
             from channel_member m join channel c on c.channel_id = m.channel_id \
             where m.user_id = $1 and {after} \
             {order} limit $4",
            after = keyset.after("m.created_at", "m.channel_id", 2),
            order = keyset.order_by("m.created_at", "m.channel_id"),
        )))
        .bind(user_id.to_owned())
        .bind_keyset(keyset)
        .bind(limit)
        .fetch_all(&self.db.pool)
        .await?;
        Ok(rows.iter().map(member_channel_from_row).collect::<Result<_, _>>()?)
    }

    /// The members of a channel, newest first, after the `(joined, user id)` key of the previous page.
    #[tracing::instrument(skip_all, fields(channel_id))]
    pub async fn members(
        &self,
        channel_id: &str,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> StoreResult<Vec<ChannelMember>> {
        let keyset = Keyset::newest_first(after);
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "{MEMBER_SELECT} where m.channel_id = $1 \
               and {after} \
             {order} limit $4",
            after = keyset.after("m.created_at", "m.user_id", 2),
            order = keyset.order_by("m.created_at", "m.user_id"),
        )))
        .bind(channel_id.to_owned())
        .bind_keyset(keyset)
        .bind(limit)
        .fetch_all(&self.db.pool)
        .await?;
        Ok(rows.iter().map(member_from_row).collect::<Result<_, _>>()?)
    }

    /// One member of a channel; `None` for a non-member.
    #[tracing::instrument(skip_all, fields(channel_id, user_id))]
    pub async fn member(&self, channel_id: &str, user_id: &str) -> StoreResult<Option<ChannelMember>> {
        let row =
            sqlx::query(sqlx::AssertSqlSafe(format!("{MEMBER_SELECT} where m.channel_id = $1 and m.user_id = $2")))
                .bind(channel_id.to_owned())
                .bind(user_id.to_owned())
                .fetch_optional(&self.db.pool)
                .await?;
        Ok(row.map(|row| member_from_row(&row)).transpose()?)
    }

    /// Sets the role of a member who is not the owner; `false` when there is no such member.
    #[tracing::instrument(skip_all, fields(channel_id, user_id))]
    pub async fn set_member_role(&self, channel_id: &str, user_id: &str, role: &str) -> StoreResult<bool> {
        let done = sqlx::query(
            "update channel_member set role = $3 where channel_id = $1 and user_id = $2 and role <> 'owner'",
        )
        .bind(channel_id.to_owned())
        .bind(user_id.to_owned())
        .bind(role.to_owned())
        .execute(&self.db.writer)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Removes a member who is not the owner; `false` when there is no such member.
    #[tracing::instrument(skip_all, fields(channel_id, user_id))]
    pub async fn remove_member(&self, channel_id: &str, user_id: &str) -> StoreResult<bool> {
        let done = sqlx::query("delete from channel_member where channel_id = $1 and user_id = $2 and role <> 'owner'")
            .bind(channel_id.to_owned())
            .bind(user_id.to_owned())
            .execute(&self.db.writer)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The roles `user_id` holds in the spaces among `space_ids` (space id, `owner` or `member`);
    /// spaces the user is no member of, or that do not exist, are left out.
    #[tracing::instrument(skip_all, fields(user_id))]
    pub async fn space_roles(&self, user_id: &str, space_ids: &[String]) -> StoreResult<Vec<(String, String)>> {
        if space_ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "select space_id, role from space_member where user_id = $1 and space_id in ({})",
            placeholders(2, space_ids.len())
        );
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql)).bind(user_id.to_owned());
        for id in space_ids {
            query = query.bind(id.clone());
        }
        let rows = query.fetch_all(&self.db.pool).await?;
        rows.iter().map(|row| Ok((row.try_get("space_id")?, row.try_get("role")?))).collect()
    }

    /// Replaces the spaces connected to a channel, in the order given, in one transaction, and
    /// answers the whole new set. With `expected`, writes only while the set is still in that state
    /// (`Conflict(STALE_CHANNEL_SPACES)` otherwise). The revision moves on first, so two replacements
    /// of one channel's set take turns.
    #[tracing::instrument(skip_all, fields(channel_id))]
    pub async fn replace_spaces(
        &self,
        channel_id: &str,
        space_ids: &[String],
        expected: Option<ConnectedSpacesState>,
        now: OffsetDateTime,
    ) -> StoreResult<ConnectedSpacesPage> {
        let work = Arc::new((channel_id.to_owned(), space_ids.to_vec()));
        self.db
            .write(move |conn| {
                let work = work.clone();
                Box::pin(async move {
                    let (channel_id, space_ids) = &*work;
                    let moved = sqlx::query(
                        "update channel set spaces_revision = spaces_revision + 1, updated_at = $2 \
                         where channel_id = $1 and ($3 < 0 or (spaces_revision = $3 and \
                           (select cast(coalesce(sum(s2.revision), 0) as bigint) from channel_space cs2 \
                            join space s2 on s2.space_id = cs2.space_id where cs2.channel_id = $1) = $4))",
                    )
                    .bind(channel_id.clone())
                    .bind(to_millis(now))
                    .bind(expected.map_or(-1, |state| state.revision))
                    .bind(expected.map_or(0, |state| state.spaces_revisions))
                    .execute(&mut *conn)
                    .await?;
                    if moved.rows_affected() == 0 {
                        return Err(StoreError::stale_or_missing(expected.is_some(), STALE_CHANNEL_SPACES));
                    }
                    sqlx::query("delete from channel_space where channel_id = $1")
                        .bind(channel_id.clone())
                        .execute(&mut *conn)
                        .await?;
                    for (position, space_id) in space_ids.iter().enumerate() {
                        sqlx::query("insert into channel_space (channel_id, space_id, position) values ($1, $2, $3)")
                            .bind(channel_id.clone())
                            .bind(space_id.clone())
                            .bind(position as i64)
                            .execute(&mut *conn)
                            .await?;
                    }
                    Self::connected_spaces_in(conn, channel_id, None, space_ids.len() as i64 + 1).await
                })
            })
            .await
    }

    /// The spaces connected to a channel in the order they were given, after `after_position`, and
    /// the state of the whole set, read together.
    #[tracing::instrument(skip_all, fields(channel_id))]
    pub async fn connected_spaces(
        &self,
        channel_id: &str,
        after_position: Option<i64>,
        limit: i64,
    ) -> StoreResult<ConnectedSpacesPage> {
        let mut conn = self.db.pool.acquire().await?;
        Self::connected_spaces_in(&mut conn, channel_id, after_position, limit).await
    }

    /// The state of a channel's connected set now.
    pub async fn connected_spaces_state(&self, channel_id: &str) -> StoreResult<ConnectedSpacesState> {
        let row =
            sqlx::query(sqlx::AssertSqlSafe(format!("select {SPACES_STATE} from channel c where c.channel_id = $1")))
                .bind(channel_id.to_owned())
                .fetch_optional(&self.db.pool)
                .await?
                .ok_or(StoreError::NotFound)?;
        Ok(spaces_state_from_row(&row)?)
    }

    /// One statement, so the page and the state agree. A channel with nothing after
    /// `after_position` still gives one row (of the state, with no space).
    async fn connected_spaces_in(
        conn: &mut sqlx::AnyConnection,
        channel_id: &str,
        after_position: Option<i64>,
        limit: i64,
    ) -> StoreResult<ConnectedSpacesPage> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select cs.space_id, s.name, s.display_name, cs.position, {SPACES_STATE} \
             from channel c left join channel_space cs on cs.channel_id = c.channel_id and cs.position > $2 \
             left join space s on s.space_id = cs.space_id \
             where c.channel_id = $1 order by cs.position limit $3"
        )))
        .bind(channel_id.to_owned())
        .bind(after_position.unwrap_or(-1))
        .bind(limit)
        .fetch_all(&mut *conn)
        .await?;
        let state = match rows.first() {
            Some(row) => spaces_state_from_row(row)?,
            None => return Err(StoreError::NotFound),
        };
        let mut spaces = Vec::with_capacity(rows.len());
        for row in &rows {
            if let Some(space_id) = row.try_get::<Option<String>, _>("space_id")? {
                spaces.push(ConnectedSpace {
                    space_id,
                    name: row.try_get("name")?,
                    display_name: row.try_get("display_name")?,
                    position: row.try_get("position")?,
                });
            }
        }
        Ok(ConnectedSpacesPage { state, spaces })
    }

    /// Whether `user_id` is a member of some channel that has `space_id` connected: such members
    /// read the space (read-only). Ids are compared as stored, in canonical form.
    #[tracing::instrument(skip_all, fields(space_id, user_id))]
    pub async fn reads_space_through_channel(&self, space_id: &str, user_id: &str) -> StoreResult<bool> {
        let row = sqlx::query(
            "select cs.channel_id from channel_space cs \
             join channel_member m on m.channel_id = cs.channel_id and m.user_id = $2 \
             where cs.space_id = $1 limit 1",
        )
        .bind(space_id.to_owned())
        .bind(user_id.to_owned())
        .fetch_optional(&self.db.pool)
        .await?;
        Ok(row.is_some())
    }

    /// The `(user id, handle)` of each of `handles` that names an account.
    #[tracing::instrument(skip_all)]
    pub async fn users_by_handle(&self, handles: &[String]) -> StoreResult<Vec<(String, String)>> {
        if handles.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!("select user_id, handle from app_user where handle in ({})", placeholders(1, handles.len()));
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
        for handle in handles {
            query = query.bind(handle.clone());
        }
        let rows = query.fetch_all(&self.db.pool).await?;
        rows.iter().map(|row| Ok((row.try_get("user_id")?, row.try_get("handle")?))).collect()
    }
}
