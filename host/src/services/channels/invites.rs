//! Channel invites: owners and inviters invite by handle, the invitee accepts or declines, the
//! inviter or the owner cancels. Only a PENDING invite moves; any other move is INVALID_TRANSITION.

use std::borrow::Cow;
use std::collections::HashMap;

use time::OffsetDateTime;

use super::{Channels, Invite, InviteAnswer};
use crate::domain::channels::{
    self, InviteAnswer as InviteResponse, InviteHandles, InviteState, MAX_PENDING_INVITES, Role,
};
use crate::domain::problems::Parsed;
use crate::error::{Error, Result};
use crate::store::{InviteWrite, NewInvitee, SessionUser};

fn invite_not_found() -> Error {
    Error::not_found("invite")
}

fn decided(state: &str) -> Error {
    Error::InvalidTransition(Cow::Owned(format!("the invite is {state}; only a PENDING invite moves")))
}

impl Channels {
    /// Invites `{users: [handle, ..]}` (1 to 50) to a channel; owners and inviters only. Unknown
    /// handles and the caller's own refuse the whole request, each at `/users/{i}`. A member
    /// answers its membership (`ACCEPTED`), a user already invited its PENDING invite; everybody
    /// else gets a new PENDING invite. At most [`MAX_PENDING_INVITES`] may wait per channel
    /// (beyond: CONFLICT, nothing written). A user who declined this channel's invite may not be
    /// invited again for the configured cool-down: RATE_LIMITED with the time left as
    /// `Retry-After`, nothing written (a time limit on an attempt that ends by itself, as the other
    /// attempt limits, rather than a CONFLICT the caller would have to resolve).
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, channel_id))]
    pub async fn invite(
        &self,
        user: &SessionUser,
        channel_id: &str,
        body: Parsed<InviteHandles>,
    ) -> Result<Vec<InviteAnswer>> {
        let (channel_id, role) = self.member_role(user, channel_id).await?;
        if !role.may_invite() {
            return Err(Error::Forbidden(Cow::Borrowed("only the channel's owner and inviters may invite")));
        }
        let InviteHandles { handles, mut problems } = body?;
        let names: Vec<String> = handles.iter().map(|(_, handle)| handle.clone()).collect();
        let users: HashMap<String, String> =
            self.store.channels.users_by_handle(&names).await?.into_iter().map(|(id, handle)| (handle, id)).collect();
        let mut invitees = Vec::with_capacity(handles.len());
        for (index, handle) in handles {
            let path = format!("/users/{index}");
            match users.get(&handle) {
                None => problems.push(path, "UNKNOWN_USER", "no user has this handle"),
                Some(user_id) if *user_id == user.user_id => {
                    problems.push(path, "SELF_INVITE", "cannot invite yourself")
                }
                Some(user_id) => invitees.push(NewInvitee {
                    user_id: user_id.clone(),
                    handle,
                    invite_id: uuid::Uuid::new_v4().to_string(),
                }),
            }
        }
        problems.finish(())?;
        let written = self
            .store
            .channels
            .invite(
                &channel_id,
                &user.user_id,
                invitees,
                MAX_PENDING_INVITES,
                self.reinvite_after_decline,
                OffsetDateTime::now_utc(),
            )
            .await?;
        match written {
            InviteWrite::Invited(outcomes) => Ok(outcomes.into_iter().map(InviteAnswer::from).collect()),
            InviteWrite::TooManyPending => Err(Error::Conflict(Cow::Owned(format!(
                "a channel may have at most {MAX_PENDING_INVITES} pending invites; cancel some first"
            )))),
            InviteWrite::RecentlyDeclined(left) => {
                crate::infra::metrics::rate_limit_refused("reinvite_after_decline");
                Err(Error::RateLimited { retry_after_seconds: left.as_secs() + u64::from(left.subsec_nanos() > 0) })
            }
        }
    }

    /// The caller's PENDING invites, newest first.
    pub async fn pending_invites(
        &self,
        user: &SessionUser,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> Result<Vec<Invite>> {
        let rows = self.store.channels.pending_invites(&user.user_id, after, limit).await?;
        Ok(rows.into_iter().map(Invite::from).collect())
    }

    /// The invitee answers `{inviteId, response: "ACCEPT" | "DECLINE"}`; an accepted invitee
    /// becomes a `member`. Anybody but the invitee gets NOT_FOUND; a decided invite
    /// INVALID_TRANSITION.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
    pub async fn respond(&self, user: &SessionUser, body: Parsed<InviteResponse>) -> Result<Invite> {
        let InviteResponse { invite_id, response } = body?;
        let invite_id = invite_id.ok_or_else(invite_not_found)?;
        let invite = self.store.channels.invite_by_id(&invite_id).await?;
        let invite = invite.filter(|invite| invite.invitee_id == user.user_id).ok_or_else(invite_not_found)?;
        if invite.state != InviteState::Pending.as_str() {
            return Err(decided(&invite.state));
        }
        let state = response.state().as_str();
        let moved =
            self.store.channels.decide_invite(&invite_id, &user.user_id, state, OffsetDateTime::now_utc()).await?;
        moved.map(Invite::from).ok_or_else(|| decided("no longer PENDING"))
    }

    /// Cancels a PENDING invite of a channel; its inviter or the channel's owner may. Other
    /// members get FORBIDDEN, anybody else NOT_FOUND; a decided invite is INVALID_TRANSITION.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, channel_id))]
    pub async fn cancel_invite(&self, user: &SessionUser, channel_id: &str, invite_id: &str) -> Result<()> {
        let (channel_id, role) = self.member_role(user, channel_id).await?;
        let invite_id = channels::canonical_id(invite_id).ok_or_else(invite_not_found)?;
        let invite = self.store.channels.invite_by_id(&invite_id).await?;
        let invite = invite.filter(|invite| invite.channel_id == channel_id).ok_or_else(invite_not_found)?;
        if role != Role::Owner && invite.invited_by_id != user.user_id {
            return Err(Error::Forbidden(Cow::Borrowed(
                "only the inviter or the channel's owner may cancel an invite",
            )));
        }
        if invite.state != InviteState::Pending.as_str() {
            return Err(decided(&invite.state));
        }
        if self.store.channels.cancel_invite(&channel_id, &invite_id, OffsetDateTime::now_utc()).await? {
            Ok(())
        } else {
            Err(decided("no longer PENDING"))
        }
    }
}
