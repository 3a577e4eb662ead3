//! Live updates (conventions section 14): what a committed change tells the users who may read
//! it, and to whom. An event is written in the change's own transaction (`store::Outbox::live`),
//! so only a change that committed is ever announced; who hears it is decided when it is sent,
//! against each listener's access at that moment.

pub mod hearing;

use serde_json::{Value, json};

/// The event names of the stream, as `event:` carries them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    MessageCreated,
    UnreadChanged,
    CommentCreated,
    AssetChanged,
    InviteCreated,
    RegistrationChanged,
    ItemChanged,
}

impl EventKind {
    pub const ALL: [Self; 7] = [
        Self::MessageCreated,
        Self::UnreadChanged,
        Self::CommentCreated,
        Self::AssetChanged,
        Self::InviteCreated,
        Self::RegistrationChanged,
        Self::ItemChanged,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::MessageCreated => "message.created",
            Self::UnreadChanged => "unread.changed",
            Self::CommentCreated => "comment.created",
            Self::AssetChanged => "asset.changed",
            Self::InviteCreated => "invite.created",
            Self::RegistrationChanged => "registration.changed",
            Self::ItemChanged => "item.changed",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.name() == name)
    }
}

/// Who may hear an event. Named users hear it outright; the others are checked, when the event is
/// sent, with the same rules the read routes apply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Audience {
    /// These users (a recipient, an invitee, a registrant and the space's owner).
    Users(Vec<String>),
    /// Members of the space.
    SpaceMembers { space_id: String },
    /// Members of the channel.
    ChannelMembers { channel_id: String },
    /// Whoever may read the asset, both in the state the event tells of (`None` in events written
    /// before it was kept) and now: the news of a state a user could not see does not reach them
    /// because the asset moved on before the event was sent.
    AssetReaders { space_id: String, asset_id: String, state: Option<String> },
    /// The item's creator, and holders of a view of the workflow showing one of these workbaskets.
    WorkbasketViewers { creator_id: String, workflow_configuration_id: String, workbasket_ids: Vec<String> },
}

impl Audience {
    /// The audience as its row stores it.
    pub fn encode(&self) -> String {
        let value = match self {
            Self::Users(ids) => json!({"users": ids}),
            Self::SpaceMembers { space_id } => json!({"space": space_id}),
            Self::ChannelMembers { channel_id } => json!({"channel": channel_id}),
            Self::AssetReaders { space_id, asset_id, state: None } => json!({"asset": [space_id, asset_id]}),
            Self::AssetReaders { space_id, asset_id, state: Some(state) } => {
                json!({"asset": [space_id, asset_id, state]})
            }
            Self::WorkbasketViewers { creator_id, workflow_configuration_id, workbasket_ids } => {
                json!({"workbaskets": {"creator": creator_id, "workflow": workflow_configuration_id, "ids": workbasket_ids}})
            }
        };
        value.to_string()
    }

    /// The keys a replay finds the event by (`u:`, `s:`, `c:`, `w:` and an id): whoever may hear
    /// it holds one of them (is the user, reads the space, is in the channel, owns or holds a grant
    /// of the workflow). Coarser than the audience; `None` when more than two would be needed, and
    /// then every replay reads the event.
    pub fn reach(&self) -> Option<(String, Option<String>)> {
        match self {
            Self::Users(ids) => match ids.as_slice() {
                [one] => Some((format!("u:{one}"), None)),
                [one, two] => Some((format!("u:{one}"), Some(format!("u:{two}")))),
                _ => None,
            },
            Self::SpaceMembers { space_id } | Self::AssetReaders { space_id, .. } => {
                Some((format!("s:{space_id}"), None))
            }
            Self::ChannelMembers { channel_id } => Some((format!("c:{channel_id}"), None)),
            Self::WorkbasketViewers { creator_id, workflow_configuration_id, .. } => {
                Some((format!("w:{workflow_configuration_id}"), Some(format!("u:{creator_id}"))))
            }
        }
    }

    /// A stored audience read back; `None` for anything else (a newer server's kind, say).
    pub fn decode(text: &str) -> Option<Self> {
        let value: Value = serde_json::from_str(text).ok()?;
        let strings = |value: &Value| -> Option<Vec<String>> {
            value.as_array()?.iter().map(|v| v.as_str().map(str::to_owned)).collect()
        };
        let text = |value: &Value| value.as_str().map(str::to_owned);
        let object = value.as_object()?;
        let (key, inner) = object.iter().next()?;
        Some(match key.as_str() {
            "users" => Self::Users(strings(inner)?),
            "space" => Self::SpaceMembers { space_id: text(inner)? },
            "channel" => Self::ChannelMembers { channel_id: text(inner)? },
            "asset" => match <[String; 2]>::try_from(strings(inner)?) {
                Ok([space_id, asset_id]) => Self::AssetReaders { space_id, asset_id, state: None },
                Err(triple) => {
                    let [space_id, asset_id, state] = <[String; 3]>::try_from(triple).ok()?;
                    Self::AssetReaders { space_id, asset_id, state: Some(state) }
                }
            },
            "workbaskets" => Self::WorkbasketViewers {
                creator_id: text(&inner["creator"])?,
                workflow_configuration_id: text(&inner["workflow"])?,
                workbasket_ids: strings(&inner["ids"])?,
            },
            _ => return None,
        })
    }
}

/// One event as a change writes it.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveEvent {
    pub kind: EventKind,
    pub audience: Audience,
    pub data: Value,
}

impl LiveEvent {
    pub fn message_created(recipient_id: &str, thread_id: &str, message_id: &str, unread: i64) -> Self {
        Self {
            kind: EventKind::MessageCreated,
            audience: Audience::Users(vec![recipient_id.to_owned()]),
            data: json!({"threadId": thread_id, "messageId": message_id, "unread": unread}),
        }
    }

    pub fn unread_changed(user_id: &str, unread: i64) -> Self {
        Self {
            kind: EventKind::UnreadChanged,
            audience: Audience::Users(vec![user_id.to_owned()]),
            data: json!({"unread": unread}),
        }
    }

    pub fn space_comment(space_id: &str, comment_id: &str) -> Self {
        Self {
            kind: EventKind::CommentCreated,
            audience: Audience::SpaceMembers { space_id: space_id.to_owned() },
            data: json!({"scope": "space", "scopeId": space_id, "commentId": comment_id}),
        }
    }

    pub fn channel_comment(channel_id: &str, comment_id: &str) -> Self {
        Self {
            kind: EventKind::CommentCreated,
            audience: Audience::ChannelMembers { channel_id: channel_id.to_owned() },
            data: json!({"scope": "channel", "scopeId": channel_id, "commentId": comment_id}),
        }
    }

    pub fn asset_changed(space_id: &str, asset_id: &str, state: &str, analysis_state: Option<&str>) -> Self {
        Self {
            kind: EventKind::AssetChanged,
            audience: Audience::AssetReaders {
                space_id: space_id.to_owned(),
                asset_id: asset_id.to_owned(),
                state: Some(state.to_owned()),
            },
            data: json!({"spaceId": space_id, "assetId": asset_id, "state": state, "analysisState": analysis_state}),
        }
    }

    pub fn invite_created(invitee_id: &str, channel_id: &str, invite_id: &str) -> Self {
        Self {
            kind: EventKind::InviteCreated,
            audience: Audience::Users(vec![invitee_id.to_owned()]),
            data: json!({"channelId": channel_id, "inviteId": invite_id}),
        }
    }

    pub fn registration_changed(
        registrant_id: &str,
        owner_id: &str,
        space_id: &str,
        registration_id: &str,
        state: &str,
    ) -> Self {
        let mut users = vec![registrant_id.to_owned()];
        if owner_id != registrant_id {
            users.push(owner_id.to_owned());
        }
        Self {
            kind: EventKind::RegistrationChanged,
            audience: Audience::Users(users),
            data: json!({"spaceId": space_id, "registrationId": registration_id, "state": state}),
        }
    }

    /// `change` is `STARTED`, `MOVED` or `UPDATED`; `from` is the workbasket a move left.
    pub fn item_changed(
        creator_id: &str,
        workflow_configuration_id: &str,
        item_id: &str,
        workbasket_id: &str,
        from: Option<&str>,
        change: &str,
    ) -> Self {
        let mut workbasket_ids = vec![workbasket_id.to_owned()];
        workbasket_ids.extend(from.filter(|from| *from != workbasket_id).map(str::to_owned));
        Self {
            kind: EventKind::ItemChanged,
            audience: Audience::WorkbasketViewers {
                creator_id: creator_id.to_owned(),
                workflow_configuration_id: workflow_configuration_id.to_owned(),
                workbasket_ids,
            },
            data: json!({
                "workflowConfigurationId": workflow_configuration_id,
                "itemId": item_id,
                "workbasketId": workbasket_id,
                "change": change,
            }),
        }
    }
}

/// What a client's `Last-Event-ID` names: an event id, or nothing usable (too old by definition).
pub fn parse_event_id(text: &str) -> Option<i64> {
    let text = text.trim();
    if text.is_empty() || text.len() > 19 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok().filter(|id| *id > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn audiences_round_trip_and_anything_else_is_ignored() {
        let all = [
            LiveEvent::message_created("u", "t", "m", 1).audience,
            LiveEvent::space_comment("s", "c").audience,
            LiveEvent::channel_comment("ch", "c").audience,
            LiveEvent::asset_changed("s", "a", "APPROVED", None).audience,
            LiveEvent::registration_changed("r", "o", "s", "g", "PENDING").audience,
            LiveEvent::item_changed("u", "w", "i", "b2", Some("b1"), "MOVED").audience,
        ];
        for audience in all {
            assert_eq!(Audience::decode(&audience.encode()), Some(audience.clone()), "{audience:?}");
        }
        let before = Audience::AssetReaders { space_id: "s".into(), asset_id: "a".into(), state: None };
        assert_eq!(Audience::decode(r#"{"asset": ["s", "a"]}"#), Some(before));
        for other in [
            "",
            "{}",
            "[]",
            r#"{"users": [1]}"#,
            r#"{"asset": ["a"]}"#,
            r#"{"asset": ["a", "b", "c", "d"]}"#,
            r#"{"later": 1}"#,
        ] {
            assert_eq!(Audience::decode(other), None, "{other:?}");
        }
    }

    #[test]
    fn event_names_round_trip() {
        for kind in EventKind::ALL {
            assert_eq!(EventKind::parse(kind.name()), Some(kind));
        }
        assert_eq!(EventKind::parse("reset"), None);
    }

    #[test]
    fn only_positive_decimal_ids_name_an_event() {
        assert_eq!(parse_event_id("42"), Some(42));
        assert_eq!(parse_event_id(" 7 "), Some(7));
        for bad in ["", "0", "-1", "abc", "1.5", "99999999999999999999", "1e3", "+3"] {
            assert_eq!(parse_event_id(bad), None, "{bad:?}");
        }
    }
}
