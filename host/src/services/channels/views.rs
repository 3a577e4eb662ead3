//! What the channel use cases answer, converted here from the stored rows.

use time::OffsetDateTime;

use crate::domain::precondition::EntityTag;
use crate::store::{
    ChannelMember, ConnectedSpace, ConnectedSpacesPage, ConnectedSpacesState, InviteOutcome, MemberChannel,
    StoredInvite,
};

/// A channel as one of its members sees it.
pub struct ChannelMembership {
    pub channel_id: String,
    pub name: String,
    pub description: String,
    /// The member's role: `owner`, `inviter` or `member`.
    pub role: String,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    /// When the member joined: the order of the member's channel list.
    pub joined_at: OffsetDateTime,
}

impl From<MemberChannel> for ChannelMembership {
    fn from(member: MemberChannel) -> Self {
        let channel = member.channel;
        Self {
            channel_id: channel.channel_id,
            name: channel.name,
            description: channel.description,
            role: member.role,
            created_at: channel.created_at,
            updated_at: channel.updated_at,
            joined_at: member.joined_at,
        }
    }
}

/// Spaces connected to a channel (a page of them, or all) and the strong tag of the whole set: what
/// a `PUT` of the set checks `If-Match` against.
pub struct ConnectedSpaces {
    pub etag: EntityTag,
    pub spaces: Vec<ChannelSpace>,
}

impl ConnectedSpaces {
    /// The strong tag of a connected set in `state`.
    pub fn etag_of(state: ConnectedSpacesState) -> EntityTag {
        EntityTag::of_revisions(&[state.revision, state.spaces_revisions])
    }
}

impl From<ConnectedSpacesPage> for ConnectedSpaces {
    fn from(page: ConnectedSpacesPage) -> Self {
        Self { etag: Self::etag_of(page.state), spaces: page.spaces.into_iter().map(ChannelSpace::from).collect() }
    }
}

/// A space connected to a channel, at its place in the owner's order.
pub struct ChannelSpace {
    pub space_id: String,
    pub name: String,
    pub display_name: String,
    pub position: i64,
}

impl From<ConnectedSpace> for ChannelSpace {
    fn from(s: ConnectedSpace) -> Self {
        Self { space_id: s.space_id, name: s.name, display_name: s.display_name, position: s.position }
    }
}

/// A member of a channel.
pub struct Member {
    pub user_id: String,
    pub handle: String,
    pub display_name: String,
    /// `owner`, `inviter` or `member`.
    pub role: String,
    pub joined_at: OffsetDateTime,
}

impl From<ChannelMember> for Member {
    fn from(m: ChannelMember) -> Self {
        Self {
            user_id: m.user_id,
            handle: m.handle,
            display_name: m.display_name,
            role: m.role,
            joined_at: m.joined_at,
        }
    }
}

/// What an invite request did for one handle.
pub struct InviteAnswer {
    pub invite_id: Option<String>,
    pub handle: String,
    /// `PENDING` or `ACCEPTED`.
    pub state: String,
}

impl From<InviteOutcome> for InviteAnswer {
    fn from(o: InviteOutcome) -> Self {
        Self { invite_id: o.invite_id, handle: o.handle, state: o.state }
    }
}

/// An invite as its invitee sees it.
pub struct Invite {
    pub invite_id: String,
    pub channel_id: String,
    pub channel_name: String,
    pub invited_by_id: String,
    pub invited_by_handle: String,
    /// `PENDING`, `ACCEPTED`, `DECLINED` or `CANCELLED`.
    pub state: String,
    pub created_at: OffsetDateTime,
}

impl From<StoredInvite> for Invite {
    fn from(i: StoredInvite) -> Self {
        Self {
            invite_id: i.invite_id,
            channel_id: i.channel_id,
            channel_name: i.channel_name,
            invited_by_id: i.invited_by_id,
            invited_by_handle: i.invited_by_handle,
            state: i.state,
            created_at: i.created_at,
        }
    }
}
