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
use super::{Db, StoreResult, from_millis, placeholders, to_millis};

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

    /// Replaces the spaces connected to a channel, in the order given, in one transaction.
    #[tracing::instrument(skip_all, fields(channel_id))]
    pub async fn replace_spaces(&self, channel_id: &str, space_ids: &[String], now: OffsetDateTime) -> StoreResult<()> {
        let work = Arc::new((channel_id.to_owned(), space_ids.to_vec()));
        self.db
            .write(move |conn| {
                let work = work.clone();
                Box::pin(async move {
                    let (channel_id, space_ids) = &*work;
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
                    sqlx::query("update channel set updated_at = $2 where channel_id = $1")
                        .bind(channel_id.clone())
                        .bind(to_millis(now))
                        .execute(&mut *conn)
                        .await?;
                    Ok(())
                })
            })
            .await
    }

    /// The spaces connected to a channel in the order they were given, after `after_position`.
    #[tracing::instrument(skip_all, fields(channel_id))]
    pub async fn connected_spaces(
        &self,
        channel_id: &str,
        after_position: Option<i64>,
        limit: i64,
    ) -> StoreResult<Vec<ConnectedSpace>> {
        let rows = sqlx::query(
            "select cs.space_id, s.name, s.display_name, cs.position \
             from channel_space cs join space s on s.space_id = cs.space_id \
             where cs.channel_id = $1 and cs.position > $2 order by cs.position limit $3",
        )
        .bind(channel_id.to_owned())
        .bind(after_position.unwrap_or(-1))
        .bind(limit)
        .fetch_all(&self.db.pool)
        .await?;
        rows.iter()
            .map(|row| {
                Ok(ConnectedSpace {
                    space_id: row.try_get("space_id")?,
                    name: row.try_get("name")?,
                    display_name: row.try_get("display_name")?,
                    position: row.try_get("position")?,
                })
            })
            .collect()
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
