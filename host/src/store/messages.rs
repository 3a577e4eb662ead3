//! Direct messages: threads, their messages, each participant's view of a thread
//! (`thread_participant`: last activity and unread count) and each user's unread total
//! (`message_inbox`). A send and a first read change all three in one transaction, so a thread
//! list and the unread indicator are index reads that never count or scan messages.
//!
//! A null sender (or other participant) is the `system` handle, which has no account.

use std::sync::Arc;

use sqlx::Row;
use sqlx::any::AnyRow;
use time::OffsetDateTime;

use super::keyset::{BindKeyset, Keyset};
use super::{Db, StoreError, StoreResult, from_millis, to_millis};
use crate::domain::live::LiveEvent;

/// A participant with an account, as the other side of a thread or a message sees them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Correspondent {
    pub user_id: String,
    pub handle: String,
    pub display_name: String,
    pub avatar_pic_id: Option<String>,
}

/// A thread as one of its participants sees it. `participant` is the other one; `None` is `system`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredThread {
    pub thread_id: String,
    pub subject: String,
    pub unread: i64,
    pub last_message_at: OffsetDateTime,
    pub participant: Option<Correspondent>,
}

/// A stored message. `from` is `None` for `system`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredMessage {
    pub message_id: String,
    pub thread_id: String,
    pub from: Option<Correspondent>,
    pub to: Correspondent,
    pub subject: String,
    pub body: String,
    pub created_at: OffsetDateTime,
    pub read_at: Option<OffsetDateTime>,
}

/// A message to write: the first of a new thread, or a reply in an existing one.
#[derive(Clone, Debug)]
pub struct NewMessageRow {
    pub message_id: String,
    pub thread_id: String,
    /// Starts the thread (with this message's subject as the thread's).
    pub new_thread: bool,
    /// `None` is `system`.
    pub sender_id: Option<String>,
    pub recipient_id: String,
    pub subject: String,
    pub body: String,
    pub created_at: OffsetDateTime,
}

/// The parts of a correspondent in a row, under the column prefix `prefix` (`o_`, `s_`, `r_`).
fn correspondent(row: &AnyRow, prefix: &str) -> Result<Option<Correspondent>, sqlx::Error> {
    let user_id: Option<String> = row.try_get(format!("{prefix}user_id").as_str())?;
    let Some(user_id) = user_id else { return Ok(None) };
    Ok(Some(Correspondent {
        user_id,
        handle: row.try_get(format!("{prefix}handle").as_str())?,
        display_name: row.try_get(format!("{prefix}display_name").as_str())?,
        avatar_pic_id: row.try_get(format!("{prefix}pic_id").as_str())?,
    }))
}

fn thread_from_row(row: &AnyRow) -> Result<StoredThread, sqlx::Error> {
    Ok(StoredThread {
        thread_id: row.try_get("thread_id")?,
        subject: row.try_get("subject")?,
        unread: row.try_get("unread")?,
        last_message_at: from_millis(row.try_get("last_message_at")?),
        participant: correspondent(row, "o_")?,
    })
}

fn message_from_row(row: &AnyRow) -> Result<StoredMessage, sqlx::Error> {
    Ok(StoredMessage {
        message_id: row.try_get("message_id")?,
        thread_id: row.try_get("thread_id")?,
        from: correspondent(row, "s_")?,
        to: correspondent(row, "r_")?.ok_or_else(|| sqlx::Error::RowNotFound)?,
        subject: row.try_get("subject")?,
        body: row.try_get("body")?,
        created_at: from_millis(row.try_get("created_at")?),
        read_at: row.try_get::<Option<i64>, _>("read_at")?.map(from_millis),
    })
}

/// A thread row of `tp` (a `thread_participant`) with its subject and the other participant.
const THREAD_SELECT: &str = "select tp.thread_id, t.subject, tp.unread, tp.last_message_at, \
     o.user_id as o_user_id, o.handle as o_handle, o.display_name as o_display_name, oa.pic_id as o_pic_id \
     from thread_participant tp join message_thread t on t.thread_id = tp.thread_id \
     left join app_user o on o.user_id = tp.other_id left join user_avatar oa on oa.user_id = tp.other_id";

/// A message row of `m` with its sender and recipient.
const MESSAGE_SELECT: &str = "select m.message_id, m.thread_id, m.subject, m.body, m.created_at, m.read_at, \
     s.user_id as s_user_id, s.handle as s_handle, s.display_name as s_display_name, sa.pic_id as s_pic_id, \
     r.user_id as r_user_id, r.handle as r_handle, r.display_name as r_display_name, ra.pic_id as r_pic_id \
     from message m left join app_user s on s.user_id = m.sender_id left join user_avatar sa on sa.user_id = m.sender_id \
     join app_user r on r.user_id = m.recipient_id left join user_avatar ra on ra.user_id = m.recipient_id";

/// The repository of messages.
#[derive(Clone, Debug)]
pub struct MessageRepo {
    db: Db,
}

impl MessageRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    /// The account with this handle, as a message shows it.
    #[tracing::instrument(skip_all)]
    pub async fn correspondent_by_handle(&self, handle: &str) -> StoreResult<Option<Correspondent>> {
        let row = sqlx::query(
            "select u.user_id as o_user_id, u.handle as o_handle, u.display_name as o_display_name, a.pic_id as o_pic_id \
             from app_user u left join user_avatar a on a.user_id = u.user_id where u.handle = $1",
        )
        .bind(handle.to_owned())
        .fetch_optional(&self.db.pool)
        .await?;
        Ok(row.map(|row| correspondent(&row, "o_")).transpose()?.flatten())
    }

    /// The thread as `user_id` sees it; `None` when there is no such thread or the user takes no
    /// part in it.
    #[tracing::instrument(skip_all, fields(thread_id))]
    pub async fn thread(&self, user_id: &str, thread_id: &str) -> StoreResult<Option<StoredThread>> {
        let row =
            sqlx::query(sqlx::AssertSqlSafe(format!("{THREAD_SELECT} where tp.thread_id = $1 and tp.user_id = $2")))
                .bind(thread_id.to_owned())
                .bind(user_id.to_owned())
                .fetch_optional(&self.db.pool)
                .await?;
        Ok(row.map(|row| thread_from_row(&row)).transpose()?)
    }

    /// The user's threads, newest activity first, after the `(last_message_at, thread_id)` key of
    /// the previous page: one range of `thread_participant_activity`, so a deep page costs what the
    /// first does.
    #[tracing::instrument(skip_all)]
    pub async fn threads(
        &self,
        user_id: &str,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> StoreResult<Vec<StoredThread>> {
        let keyset = Keyset::newest_first(after);
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "{THREAD_SELECT} where tp.user_id = $1 and {after} \
             {order} limit $4",
            after = keyset.after("tp.last_message_at", "tp.thread_id", 2),
            order = keyset.order_by("tp.last_message_at", "tp.thread_id"),
        )))
        .bind(user_id.to_owned())
        .bind_keyset(keyset)
        .bind(limit)
        .fetch_all(&self.db.pool)
        .await?;
        Ok(rows.iter().map(thread_from_row).collect::<Result<_, _>>()?)
    }

    /// A thread's messages, newest first, after the `(created_at, message_id)` key of the previous
    /// page; the caller has checked that the reader takes part in the thread.
    #[tracing::instrument(skip_all, fields(thread_id))]
    pub async fn messages(
        &self,
        thread_id: &str,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> StoreResult<Vec<StoredMessage>> {
        let keyset = Keyset::newest_first(after);
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "{MESSAGE_SELECT} where m.thread_id = $1 and {after} \
             {order} limit $4",
            after = keyset.after("m.created_at", "m.message_id", 2),
            order = keyset.order_by("m.created_at", "m.message_id"),
        )))
        .bind(thread_id.to_owned())
        .bind_keyset(keyset)
        .bind(limit)
        .fetch_all(&self.db.pool)
        .await?;
        Ok(rows.iter().map(message_from_row).collect::<Result<_, _>>()?)
    }

    /// One message of a thread, when `user_id` takes part in the thread.
    #[tracing::instrument(skip_all, fields(thread_id, message_id))]
    pub async fn message(
        &self,
        user_id: &str,
        thread_id: &str,
        message_id: &str,
    ) -> StoreResult<Option<StoredMessage>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "{MESSAGE_SELECT} join thread_participant tp on tp.thread_id = m.thread_id and tp.user_id = $3 \
             where m.thread_id = $1 and m.message_id = $2"
        )))
        .bind(thread_id.to_owned())
        .bind(message_id.to_owned())
        .bind(user_id.to_owned())
        .fetch_optional(&self.db.pool)
        .await?;
        Ok(row.map(|row| message_from_row(&row)).transpose()?)
    }

    /// The user's unread messages: one primary-key read.
    #[tracing::instrument(skip_all)]
    pub async fn unread(&self, user_id: &str) -> StoreResult<i64> {
        let row = sqlx::query("select unread from message_inbox where user_id = $1")
            .bind(user_id.to_owned())
            .fetch_optional(&self.db.pool)
            .await?;
        Ok(row.map(|row| row.try_get("unread")).transpose()?.unwrap_or(0))
    }

    /// Writes a message with what the participants' thread lists and the recipient's unread total
    /// show of it, in one transaction. `NotFound` when the recipient has no account (a new thread)
    /// or the thread does not join sender and recipient (a reply); nothing is written then.
    #[tracing::instrument(skip_all, fields(thread_id = %new.thread_id))]
    pub async fn insert_message(&self, new: NewMessageRow) -> StoreResult<()> {
        let new = Arc::new(new);
        self.db
            .write(move |conn| {
                let new = new.clone();
                Box::pin(async move {
                    let live = insert_in(conn, &new).await?;
                    super::live::insert_in(conn, &live, new.created_at).await
                })
            })
            .await?;
        self.db.live_committed().await;
        Ok(())
    }

    /// Marks a message read for its recipient, once: the first call sets `read_at` and takes the
    /// message off the thread's and the recipient's unread counts; later calls change nothing.
    /// Answers the stored `read_at`; `None` when `recipient_id` did not receive the message.
    #[tracing::instrument(skip_all, fields(message_id))]
    pub async fn mark_read(
        &self,
        message_id: &str,
        recipient_id: &str,
        now: OffsetDateTime,
    ) -> StoreResult<Option<OffsetDateTime>> {
        let work = Arc::new((message_id.to_owned(), recipient_id.to_owned()));
        let (read_at, marked) = self
            .db
            .write(move |conn| {
                let work = work.clone();
                Box::pin(async move {
                    let (message_id, recipient_id) = &*work;
                    let marked = sqlx::query(
                        "update message set read_at = $3 \
                         where message_id = $1 and recipient_id = $2 and read_at is null returning thread_id",
                    )
                    .bind(message_id.clone())
                    .bind(recipient_id.clone())
                    .bind(to_millis(now))
                    .fetch_optional(&mut *conn)
                    .await?;
                    let first_read = marked.is_some();
                    if let Some(marked) = marked {
                        sqlx::query(
                            "update thread_participant set unread = unread - 1 \
                             where thread_id = $1 and user_id = $2 and unread > 0",
                        )
                        .bind(marked.try_get::<String, _>("thread_id")?)
                        .bind(recipient_id.clone())
                        .execute(&mut *conn)
                        .await?;
                        let unread = sqlx::query(
                            "update message_inbox set unread = unread - 1 where user_id = $1 and unread > 0 \
                             returning unread",
                        )
                        .bind(recipient_id.clone())
                        .fetch_optional(&mut *conn)
                        .await?;
                        let unread = unread.map(|row| row.try_get::<i64, _>("unread")).transpose()?.unwrap_or(0);
                        let live = [LiveEvent::unread_changed(recipient_id, unread)];
                        super::live::insert_in(conn, &live, now).await?;
                    }
                    let row = sqlx::query("select read_at from message where message_id = $1 and recipient_id = $2")
                        .bind(message_id.clone())
                        .bind(recipient_id.clone())
                        .fetch_optional(&mut *conn)
                        .await?;
                    let read_at = row.map(|row| row.try_get::<Option<i64>, _>("read_at")).transpose()?;
                    Ok((read_at.flatten().map(from_millis), first_read))
                })
            })
            .await?;
        // Only the first read changes the unread count, and only it wrote an event.
        if marked {
            self.db.live_committed().await;
        }
        Ok(read_at)
    }
}

/// The thread row and a `thread_participant` row for each participant with an account. The
/// recipient's row is written from its account row, so an unknown recipient writes nothing.
async fn start_thread(conn: &mut sqlx::AnyConnection, new: &NewMessageRow, at: i64) -> StoreResult<()> {
    sqlx::query("insert into message_thread (thread_id, subject, created_at) values ($1, $2, $3)")
        .bind(new.thread_id.clone())
        .bind(new.subject.clone())
        .bind(at)
        .execute(&mut *conn)
        .await?;
    let recipient = sqlx::query(
        "insert into thread_participant (thread_id, user_id, other_id, unread, last_message_at) \
         select $1, user_id, $3, 1, $4 from app_user where user_id = $2",
    )
    .bind(new.thread_id.clone())
    .bind(new.recipient_id.clone())
    .bind(new.sender_id.clone())
    .bind(at)
    .execute(&mut *conn)
    .await?;
    if recipient.rows_affected() != 1 {
        return Err(StoreError::NotFound);
    }
    if let Some(sender_id) = &new.sender_id {
        sqlx::query(
            "insert into thread_participant (thread_id, user_id, other_id, unread, last_message_at) \
             values ($1, $2, $3, 0, $4)",
        )
        .bind(new.thread_id.clone())
        .bind(sender_id.clone())
        .bind(new.recipient_id.clone())
        .bind(at)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// Moves both participants' view of the thread to this message (never back in time) and counts it
/// unread for the recipient. Both rows must exist and join sender and recipient.
async fn touch_thread(conn: &mut sqlx::AnyConnection, new: &NewMessageRow, at: i64) -> StoreResult<()> {
    let Some(sender_id) = &new.sender_id else {
        // Notices always start a thread of their own.
        return Err(StoreError::NotFound);
    };
    let touched = sqlx::query(
        "update thread_participant \
         set last_message_at = case when last_message_at < $4 then $4 else last_message_at end, \
             unread = unread + case when user_id = $3 then 1 else 0 end \
         where thread_id = $1 and ((user_id = $2 and other_id = $3) or (user_id = $3 and other_id = $2))",
    )
    .bind(new.thread_id.clone())
    .bind(sender_id.clone())
    .bind(new.recipient_id.clone())
    .bind(at)
    .execute(&mut *conn)
    .await?;
    if touched.rows_affected() != 2 {
        return Err(StoreError::NotFound);
    }
    Ok(())
}

/// Writes a message inside the caller's transaction (see [`MessageRepo::insert_message`]);
/// answers the live events it causes, for the caller to write last (`store::live`).
pub(super) async fn insert_in(conn: &mut sqlx::AnyConnection, new: &NewMessageRow) -> StoreResult<Vec<LiveEvent>> {
    let at = to_millis(new.created_at);
    if new.new_thread {
        start_thread(conn, new, at).await?;
    } else {
        touch_thread(conn, new, at).await?;
    }
    sqlx::query(
        "insert into message (message_id, thread_id, sender_id, recipient_id, subject, body, created_at) \
         values ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(new.message_id.clone())
    .bind(new.thread_id.clone())
    .bind(new.sender_id.clone())
    .bind(new.recipient_id.clone())
    .bind(new.subject.clone())
    .bind(new.body.clone())
    .bind(at)
    .execute(&mut *conn)
    .await?;
    let unread: i64 = sqlx::query(
        "insert into message_inbox (user_id, unread) values ($1, 1) \
         on conflict (user_id) do update set unread = message_inbox.unread + 1 returning unread",
    )
    .bind(new.recipient_id.clone())
    .fetch_one(&mut *conn)
    .await?
    .try_get("unread")?;
    Ok(vec![
        LiveEvent::message_created(&new.recipient_id, &new.thread_id, &new.message_id, unread),
        LiveEvent::unread_changed(&new.recipient_id, unread),
    ])
}
