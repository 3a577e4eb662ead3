//! Direct messages (conventions 7): sending and replying, thread lists, reading a message (which
//! marks it read for its recipient), the unread indicator, and the platform's notices from
//! `system`.
//!
//! A thread joins two participants; to anyone else it does not exist (404). Notices from `system`
//! start a thread each and take no replies. Every message a user sends counts one against the
//! plan's `messaging.perDay`; notices count against nothing.

use std::borrow::Cow;

use serde_json::{Map, Value};
use time::OffsetDateTime;

use crate::domain::account::SessionUser;
use crate::domain::entitlement::Entitlement;
use crate::domain::messages::{self, Draft};
use crate::domain::problems::Problems;
use crate::error::{Error, Result};
use crate::infra::quotas;
use crate::services::licenses::Caller;
use crate::store::{NewMessageRow, Store, StoreError, from_millis, to_millis};

mod views;

/// What the message use cases answer with; handlers map these to the wire.
pub use views::{Message, Party, Thread};

/// What a send answers: `{threadId, messageId}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sent {
    pub thread_id: String,
    pub message_id: String,
}

pub struct Messages {
    store: Store,
}

fn thread_not_found() -> Error {
    Error::not_found("thread")
}

fn message_not_found() -> Error {
    Error::not_found("message")
}

/// A thread or message id from a path: one that is no UUID names nothing.
fn path_id(id: &str) -> Option<String> {
    uuid::Uuid::try_parse(id).ok().map(|id| id.to_string())
}

/// The time as the store keeps it (milliseconds), so answers equal what lists show later.
fn now_millis() -> OffsetDateTime {
    from_millis(to_millis(OffsetDateTime::now_utc()))
}

impl Messages {
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// A notice from `system` to the user `recipient_id`: a new thread of its own, which the
    /// recipient cannot reply to, counted against no quota. `subject` and `body` follow the rules of
    /// any message (trimmed; subject 1 to 200 characters without control characters, body 1 to
    /// 10,000 characters with line breaks allowed; see `domain::messages`): otherwise
    /// VALIDATION_FAILED at `/subject` or `/body`. NOT_FOUND when no account has that id.
    #[tracing::instrument(skip_all, fields(recipient_id))]
    pub async fn notify(&self, recipient_id: &str, subject: &str, body: &str) -> crate::error::Result<()> {
        let row = notice(recipient_id, subject, body)?;
        self.store.messages.insert_message(row).await.map_err(|error| match error {
            StoreError::NotFound => Error::not_found("user"),
            other => other.into(),
        })
    }

    /// Sends `{to, subject, body, threadId?}` from `sender`: a new thread, or a reply in a thread the
    /// sender takes part in (to the other participant). Every problem of the body is listed at
    /// once, the recipient's and the thread's included; a thread the sender does not take part in
    /// is NOT_FOUND. Takes one unit of `messaging.perDay` only once the message is sure to be
    /// written, so a refused request costs nothing.
    #[tracing::instrument(skip_all, fields(user_id = %sender.user_id))]
    pub async fn send(&self, sender: &SessionUser, caller: &Caller, body: &Map<String, Value>) -> Result<Sent> {
        let caller = &caller.spending(&sender.user_id);
        let mut problems = Problems::new();
        let mut draft = messages::parse_new(body, &sender.handle, &mut problems);
        let row = match draft.thread_id.take() {
            Some(thread_id) => self.reply(sender, thread_id.as_deref(), draft, &mut problems).await?,
            None => self.first(sender, draft, &mut problems).await?,
        };
        let row = problems
            .finish(row)?
            .ok_or_else(|| Error::internal(anyhow::anyhow!("a message without problems lacks a part")))?;
        quotas::take(&self.store, caller, Entitlement::Messages, 1).await?;
        let sent = Sent { thread_id: row.thread_id.clone(), message_id: row.message_id.clone() };
        if let Err(error) = self.store.messages.insert_message(row).await {
            quotas::refund(&self.store, caller, Entitlement::Messages, 1).await?;
            return Err(match error {
                // The recipient or the thread went away between the checks and the write.
                StoreError::NotFound => Error::Conflict(Cow::Borrowed("the recipient or the thread is gone")),
                other => other.into(),
            });
        }
        Ok(sent)
    }

    /// The first message of a new thread: the recipient must have an account.
    async fn first(
        &self,
        sender: &SessionUser,
        draft: Draft,
        problems: &mut Problems,
    ) -> Result<Option<NewMessageRow>> {
        let mut recipient = None;
        if let Some(to) = &draft.to {
            recipient = self.store.messages.correspondent_by_handle(to).await?;
            if recipient.is_none() {
                problems.push("/to", "UNKNOWN_USER", "names no user");
            }
        }
        let (Some(recipient), Some(subject), Some(body)) = (recipient, draft.subject, draft.body) else {
            return Ok(None);
        };
        Ok(Some(NewMessageRow {
            message_id: uuid::Uuid::new_v4().to_string(),
            thread_id: uuid::Uuid::new_v4().to_string(),
            new_thread: true,
            sender_id: Some(sender.user_id.clone()),
            recipient_id: recipient.user_id,
            subject,
            body,
            created_at: now_millis(),
        }))
    }

    /// A reply: the sender takes part in the thread (else NOT_FOUND, as for an unknown thread), the
    /// thread is not a notice, and `to`, when given, names the other participant.
    async fn reply(
        &self,
        sender: &SessionUser,
        thread_id: Option<&str>,
        draft: Draft,
        problems: &mut Problems,
    ) -> Result<Option<NewMessageRow>> {
        let thread_id = thread_id.ok_or_else(thread_not_found)?;
        let thread = self.store.messages.thread(&sender.user_id, thread_id).await?.ok_or_else(thread_not_found)?;
        let Some(other) = thread.participant else {
            problems.push("/threadId", "SYSTEM_THREAD", "is a notice from system, which takes no replies");
            return Ok(None);
        };
        if draft.to.as_ref().is_some_and(|to| *to != other.handle) {
            problems.push("/to", "NOT_PARTICIPANT", "must name the thread's other participant, or be left out");
        }
        let Some(body) = draft.body else { return Ok(None) };
        Ok(Some(NewMessageRow {
            message_id: uuid::Uuid::new_v4().to_string(),
            thread_id: thread.thread_id,
            new_thread: false,
            sender_id: Some(sender.user_id.clone()),
            recipient_id: other.user_id,
            subject: draft.subject.unwrap_or(thread.subject),
            body,
            created_at: now_millis(),
        }))
    }

    /// The user's threads, newest activity first.
    pub async fn threads(&self, user: &SessionUser, after: Option<(i64, String)>, limit: i64) -> Result<Vec<Thread>> {
        let rows = self.store.messages.threads(&user.user_id, after, limit).await?;
        Ok(rows.into_iter().map(Thread::from).collect())
    }

    /// A thread's messages, newest first, for its participants; listing marks nothing read.
    pub async fn messages(
        &self,
        user: &SessionUser,
        thread_id: &str,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> Result<Vec<Message>> {
        let thread_id = path_id(thread_id).ok_or_else(thread_not_found)?;
        let thread = self.store.messages.thread(&user.user_id, &thread_id).await?.ok_or_else(thread_not_found)?;
        let rows = self.store.messages.messages(&thread.thread_id, after, limit).await?;
        Ok(rows.into_iter().map(Message::from).collect())
    }

    /// One message of a thread the user takes part in. Fetching it as its recipient marks it read
    /// (once: `readAt` keeps the first fetch's time); the sender's fetch changes nothing.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, thread_id, message_id))]
    pub async fn message(&self, user: &SessionUser, thread_id: &str, message_id: &str) -> Result<Message> {
        let (Some(thread_id), Some(message_id)) = (path_id(thread_id), path_id(message_id)) else {
            return Err(message_not_found());
        };
        let mut message =
            self.store.messages.message(&user.user_id, &thread_id, &message_id).await?.ok_or_else(message_not_found)?;
        if message.read_at.is_none() && message.to.user_id == user.user_id {
            message.read_at =
                self.store.messages.mark_read(&message.message_id, &user.user_id, OffsetDateTime::now_utc()).await?;
        }
        Ok(message.into())
    }

    /// How many messages to the user are not yet read.
    pub async fn unread(&self, user: &SessionUser) -> Result<i64> {
        Ok(self.store.messages.unread(&user.user_id).await?)
    }
}

/// A notice from `system` to `recipient_id`, checked, for the outbox of the change it tells of
/// (written in that change's transaction, see `store::Outbox::notice`).
pub fn notice(recipient_id: &str, subject: &str, body: &str) -> crate::error::Result<NewMessageRow> {
    let (subject, body) = messages::parse_notice(subject, body)?;
    Ok(NewMessageRow {
        message_id: uuid::Uuid::new_v4().to_string(),
        thread_id: uuid::Uuid::new_v4().to_string(),
        new_thread: true,
        sender_id: None,
        recipient_id: recipient_id.to_owned(),
        subject,
        body,
        created_at: now_millis(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_notice_is_a_thread_of_its_own_from_system_and_counts_unread() {
        // Arrange
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("t.db").display());
        let store = Store::connect(&url, 2).await.unwrap();
        store.migrate().await.unwrap();
        let user = crate::store::NewUser {
            email: "ann@example.org",
            handle: "ann",
            full_name: "Ann",
            display_name: "Ann",
            password_hash: "x",
        };
        let ann = store.users.insert_user(&user, OffsetDateTime::now_utc()).await.unwrap();
        let messages = Messages::new(store.clone());
        // Act
        messages.notify(&ann.user_id, " Listing approved ", "Welcome to the marketplace.").await.unwrap();
        messages.notify(&ann.user_id, "Another", "Second notice").await.unwrap();
        let unknown = messages.notify("no-such-user", "Hi", "Hi").await.unwrap_err();
        let invalid = messages.notify(&ann.user_id, "", "").await.unwrap_err();
        // Assert
        let threads = store.messages.threads(&ann.user_id, None, 10).await.unwrap();
        assert_eq!(threads.len(), 2, "each notice is a thread of its own");
        assert!(threads.iter().all(|t| t.participant.is_none() && t.unread == 1));
        let first = threads.iter().find(|t| t.subject == "Listing approved").unwrap();
        let listed = store.messages.messages(&first.thread_id, None, 10).await.unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!((listed[0].from.as_ref(), listed[0].to.handle.as_str()), (None, "ann"));
        assert_eq!(store.messages.unread(&ann.user_id).await.unwrap(), 2);
        assert_eq!(unknown.code(), ErrorCode::NotFound);
        assert_eq!(invalid.code(), ErrorCode::ValidationFailed);
        assert_eq!(store.messages.threads(&ann.user_id, None, 10).await.unwrap().len(), 2, "failures write nothing");
        store.close().await;
    }
}
