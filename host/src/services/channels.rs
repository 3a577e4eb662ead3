//! Channels: creation, the caller's channels, the spaces connected to a channel, members and
//! their roles, and the channel's comments (through the one comment implementation,
//! [`Comments`]); invites are in `channels/invites.rs`.
//!
//! A channel is visible to its members only: to anybody else every route of it answers
//! NOT_FOUND, never FORBIDDEN, so ids cannot be probed. A member whose role does not allow an
//! action gets FORBIDDEN. Roles are read from the database on every request, so a removed member
//! or a taken role stops working at once.

mod invites;

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use time::OffsetDateTime;

use crate::domain::channels::{self, MAX_OWNED_CHANNELS, NewChannel, Role, RoleChange, SpaceIds};
use crate::domain::comments::{CommentText, Scope};
use crate::domain::precondition::Precondition;
use crate::domain::problems::Parsed;
use crate::error::{Error, OnStale, Result, check_precondition};
use crate::services::comments::{Comment, Comments};
use crate::services::spaces::Spaces;
use crate::store::{NewChannelRow, SessionUser, Store};

/// The records a channel use case answers with: handlers show these, and reach them only through
/// the use case.
mod views;

/// What the channel use cases answer with; handlers map these to the wire.
pub use views::{ChannelMembership, ChannelSpace, ConnectedSpaces, Invite, InviteAnswer, Member};

pub struct Channels {
    store: Store,
    comments: Arc<Comments>,
    spaces: Arc<Spaces>,
    /// How long after a decline the channel may not invite that user again.
    reinvite_after_decline: Duration,
}

fn not_found() -> Error {
    Error::not_found("channel")
}

fn member_not_found() -> Error {
    Error::not_found("channel member")
}

fn owner_stays() -> Error {
    Error::Conflict(Cow::Borrowed("a channel always has its owner: the owner's membership and role cannot change"))
}

impl Channels {
    pub fn new(store: Store, comments: Arc<Comments>, spaces: Arc<Spaces>, reinvite_after_decline: Duration) -> Self {
        Self { store, comments, spaces, reinvite_after_decline }
    }

    /// Creates a channel from `{name, description?}`; the creator becomes its owner. A user owns
    /// at most [`MAX_OWNED_CHANNELS`] channels (beyond: CONFLICT).
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
    pub async fn create(&self, user: &SessionUser, body: Parsed<NewChannel>) -> Result<ChannelMembership> {
        let new = body?;
        let channel_id = uuid::Uuid::new_v4().to_string();
        let row = NewChannelRow {
            channel_id: &channel_id,
            owner_id: &user.user_id,
            name: &new.name,
            description: &new.description,
        };
        let created = self.store.channels.insert_channel(&row, MAX_OWNED_CHANNELS, OffsetDateTime::now_utc()).await?;
        created
            .map(ChannelMembership::from)
            .ok_or_else(|| Error::Conflict(Cow::Owned(format!("a user may own at most {MAX_OWNED_CHANNELS} channels"))))
    }

    /// The channels the user is a member of, newest membership first.
    pub async fn list(
        &self,
        user: &SessionUser,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> Result<Vec<ChannelMembership>> {
        let rows = self.store.channels.member_channels(&user.user_id, after, limit).await?;
        Ok(rows.into_iter().map(ChannelMembership::from).collect())
    }

    /// A channel as one of its members sees it.
    pub async fn get(&self, user: &SessionUser, channel_id: &str) -> Result<ChannelMembership> {
        let channel_id = channels::canonical_id(channel_id).ok_or_else(not_found)?;
        let member = self.store.channels.member_channel(&channel_id, &user.user_id).await?.ok_or_else(not_found)?;
        Ok(member.into())
    }

    /// The canonical channel id and the caller's role; NOT_FOUND for anybody but a member.
    async fn member_role(&self, user: &SessionUser, channel_id: &str) -> Result<(String, Role)> {
        let channel_id = channels::canonical_id(channel_id).ok_or_else(not_found)?;
        let role = self.store.channels.role(&channel_id, &user.user_id).await?;
        let role = role.as_deref().and_then(Role::parse).ok_or_else(not_found)?;
        Ok((channel_id, role))
    }

    /// The canonical channel id when the caller owns the channel; a member gets FORBIDDEN,
    /// anybody else NOT_FOUND.
    async fn require_owner(&self, user: &SessionUser, channel_id: &str) -> Result<String> {
        match self.member_role(user, channel_id).await? {
            (channel_id, Role::Owner) => Ok(channel_id),
            _ => Err(Error::Forbidden(Cow::Borrowed("only the channel's owner may do this"))),
        }
    }

    /// Replaces the connected spaces with `{spaceIds: [..]}`; owner only. Each space must be one
    /// the caller owns, since connecting it lets the channel's members read it: a space the
    /// caller cannot see (or no such space) is UNKNOWN_SPACE, one the caller is only a member of
    /// NOT_SPACE_OWNER, each at `/spaceIds/{i}`. Nothing is written unless every entry passes.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, channel_id))]
    pub async fn replace_spaces(
        &self,
        user: &SessionUser,
        channel_id: &str,
        body: Parsed<SpaceIds>,
        precondition: &Precondition,
    ) -> Result<ConnectedSpaces> {
        let channel_id = self.require_owner(user, channel_id).await?;
        let SpaceIds { entries, mut problems } = body?;
        let space_ids: Vec<String> = entries.iter().filter_map(|entry| entry.space_id.clone()).collect();
        let roles: HashMap<String, String> =
            self.store.channels.space_roles(&user.user_id, &space_ids).await?.into_iter().collect();
        for entry in &entries {
            let path = format!("/spaceIds/{}", entry.index);
            match entry.space_id.as_ref().and_then(|id| roles.get(id)).map(String::as_str) {
                Some("owner") => {}
                Some(_) => problems.push(path, "NOT_SPACE_OWNER", "only the space's owner may connect it to a channel"),
                None => problems.push(path, "UNKNOWN_SPACE", "no space with this id is visible to the caller"),
            }
        }
        problems.finish(())?;
        let mut expected = None;
        if precondition.is_given() {
            let current = self.store.channels.connected_spaces_state(&channel_id).await?;
            check_precondition(precondition, &ConnectedSpaces::etag_of(current))?;
            expected = Some(current);
        }
        let connected = self
            .store
            .channels
            .replace_spaces(&channel_id, &space_ids, expected, OffsetDateTime::now_utc())
            .await
            .map_err(Error::from)
            .on_stale(precondition)?;
        // A disconnected space is no longer readable by the channel's members.
        self.spaces.roles_changed().await;
        Ok(connected.into())
    }

    /// The spaces connected to a channel, in the order the owner gave them; members read them.
    pub async fn spaces(
        &self,
        user: &SessionUser,
        channel_id: &str,
        after_position: Option<i64>,
        limit: i64,
    ) -> Result<ConnectedSpaces> {
        let (channel_id, _) = self.member_role(user, channel_id).await?;
        Ok(self.store.channels.connected_spaces(&channel_id, after_position, limit).await?.into())
    }

    /// The members of a channel, newest first; members read them.
    pub async fn members(
        &self,
        user: &SessionUser,
        channel_id: &str,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> Result<Vec<Member>> {
        let (channel_id, _) = self.member_role(user, channel_id).await?;
        let members = self.store.channels.members(&channel_id, after, limit).await?;
        Ok(members.into_iter().map(Member::from).collect())
    }

    /// Gives a member the `inviter` role or takes it (`{role: "inviter" | "member"}`); owner only.
    /// The owner's own role does not change (CONFLICT).
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, channel_id))]
    pub async fn change_role(
        &self,
        user: &SessionUser,
        channel_id: &str,
        member_id: &str,
        body: Parsed<RoleChange>,
    ) -> Result<Member> {
        let channel_id = self.require_owner(user, channel_id).await?;
        let member_id = channels::canonical_id(member_id).ok_or_else(member_not_found)?;
        let member = self.store.channels.member(&channel_id, &member_id).await?.ok_or_else(member_not_found)?;
        let RoleChange(role) = body?;
        if member.role == Role::Owner.as_str() {
            return Err(owner_stays());
        }
        if !self.store.channels.set_member_role(&channel_id, &member_id, role.as_str()).await? {
            return Err(member_not_found());
        }
        let member = self.store.channels.member(&channel_id, &member_id).await?.ok_or_else(member_not_found)?;
        Ok(member.into())
    }

    /// Comments in a channel from `{body}`: every member may (comments are paced per user).
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, channel_id))]
    pub async fn post_comment(
        &self,
        user: &SessionUser,
        channel_id: &str,
        body: Parsed<CommentText>,
    ) -> Result<Comment> {
        let (channel_id, _) = self.member_role(user, channel_id).await?;
        self.comments.post(user, Scope::Channel(&channel_id), body).await.map(Comment::from)
    }

    /// A channel's comments, newest first; members read them.
    pub async fn comments(
        &self,
        user: &SessionUser,
        channel_id: &str,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> Result<Vec<Comment>> {
        let (channel_id, _) = self.member_role(user, channel_id).await?;
        self.comments.list(Scope::Channel(&channel_id), after, limit).await
    }

    /// A member leaves (`member_id` is the caller) or the owner removes a member. The owner
    /// cannot leave (CONFLICT); other members may remove only themselves (FORBIDDEN).
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, channel_id))]
    pub async fn remove_member(&self, user: &SessionUser, channel_id: &str, member_id: &str) -> Result<()> {
        let (channel_id, role) = self.member_role(user, channel_id).await?;
        let member_id = channels::canonical_id(member_id).ok_or_else(member_not_found)?;
        let leaving = member_id == user.user_id;
        if leaving && role == Role::Owner {
            return Err(owner_stays());
        }
        if !leaving && role != Role::Owner {
            return Err(Error::Forbidden(Cow::Borrowed("only the channel's owner may remove other members")));
        }
        if !self.store.channels.remove_member(&channel_id, &member_id).await? {
            return Err(member_not_found());
        }
        // The member no longer reads the channel's spaces.
        self.spaces.roles_changed().await;
        Ok(())
    }
}
