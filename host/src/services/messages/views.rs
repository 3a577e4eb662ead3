//! What the message use cases answer, converted here from the stored rows.

use time::OffsetDateTime;

use crate::store;

/// A participant of a thread or a message; the platform's `system` notices have none.
pub struct Party {
    pub user_id: String,
    pub handle: String,
    pub display_name: String,
    pub avatar_pic_id: Option<String>,
}

impl From<store::Correspondent> for Party {
    fn from(c: store::Correspondent) -> Self {
        Self { user_id: c.user_id, handle: c.handle, display_name: c.display_name, avatar_pic_id: c.avatar_pic_id }
    }
}

/// A thread as one of its participants sees it.
pub struct Thread {
    pub thread_id: String,
    pub subject: String,
    /// The thread's messages to the reader not yet fetched.
    pub unread: i64,
    pub last_message_at: OffsetDateTime,
    /// The other participant; `None` for `system`.
    pub participant: Option<Party>,
}

impl From<store::StoredThread> for Thread {
    fn from(t: store::StoredThread) -> Self {
        Self {
            thread_id: t.thread_id,
            subject: t.subject,
            unread: t.unread,
            last_message_at: t.last_message_at,
            participant: t.participant.map(Party::from),
        }
    }
}

pub struct Message {
    pub message_id: String,
    pub thread_id: String,
    /// `None` for `system`.
    pub from: Option<Party>,
    pub to: Party,
    pub subject: String,
    pub body: String,
    pub created_at: OffsetDateTime,
    pub read_at: Option<OffsetDateTime>,
}

impl From<store::StoredMessage> for Message {
    fn from(m: store::StoredMessage) -> Self {
        Self {
            message_id: m.message_id,
            thread_id: m.thread_id,
            from: m.from.map(Party::from),
            to: m.to.into(),
            subject: m.subject,
            body: m.body,
            created_at: m.created_at,
            read_at: m.read_at,
        }
    }
}
