//! Comments, wherever they are made: one table keyed by the kind of place (`scope`) and its id.

use std::sync::Arc;

use sqlx::Row;
use sqlx::any::AnyRow;
use time::OffsetDateTime;

use super::keyset::{BindKeyset, Keyset};
use super::outbox::Outbox;
use super::{Db, StoreResult, from_millis, to_millis};

/// A stored comment with what a reader sees of its author.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredComment {
    pub comment_id: String,
    pub body: String,
    pub author_id: String,
    pub author_handle: String,
    pub author_display_name: String,
    /// The author's current avatar, if any.
    pub author_avatar_pic_id: Option<String>,
    pub created_at: OffsetDateTime,
}

/// A comment to write.
pub struct NewComment {
    pub comment_id: String,
    /// `space` or `channel`.
    pub scope: &'static str,
    pub scope_id: String,
    pub author_id: String,
    pub body: String,
    pub created_at: OffsetDateTime,
}

fn comment_from_row(row: &AnyRow) -> Result<StoredComment, sqlx::Error> {
    Ok(StoredComment {
        comment_id: row.try_get("comment_id")?,
        body: row.try_get("body")?,
        author_id: row.try_get("user_id")?,
        author_handle: row.try_get("handle")?,
        author_display_name: row.try_get("display_name")?,
        author_avatar_pic_id: row.try_get("pic_id")?,
        created_at: from_millis(row.try_get("created_at")?),
    })
}

/// The repository of comments.
#[derive(Clone, Debug)]
pub struct CommentRepo {
    db: Db,
}

impl CommentRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    /// Writes a comment. On SQLite it shares a commit with other writes arriving at the same time.
    #[tracing::instrument(skip_all, fields(scope = new.scope, scope_id = %new.scope_id))]
    pub async fn insert_comment(&self, new: NewComment, outbox: &Arc<Outbox>) -> StoreResult<()> {
        let new = Arc::new(new);
        let written = outbox.clone();
        self.db
            .write(move |conn| {
                let (new, outbox) = (new.clone(), written.clone());
                Box::pin(async move {
                    sqlx::query(
                        "insert into comment (comment_id, scope, scope_id, author_id, body, created_at) \
                         values ($1, $2, $3, $4, $5, $6)",
                    )
                    .bind(new.comment_id.clone())
                    .bind(new.scope)
                    .bind(new.scope_id.clone())
                    .bind(new.author_id.clone())
                    .bind(new.body.clone())
                    .bind(to_millis(new.created_at))
                    .execute(&mut *conn)
                    .await?;
                    outbox.write_in(conn, new.created_at).await
                })
            })
            .await?;
        self.db.committed(outbox).await;
        Ok(())
    }

    /// A place's comments, newest first, after the `(created_at, comment_id)` key of the previous
    /// page: the row-value comparison lets both engines seek the `comment_by_scope` index, so a deep
    /// page costs what the first does.
    #[tracing::instrument(skip_all, fields(scope, scope_id))]
    pub async fn comments(
        &self,
        scope: &'static str,
        scope_id: &str,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> StoreResult<Vec<StoredComment>> {
        let keyset = Keyset::newest_first(after);
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select c.comment_id, c.body, c.created_at, u.user_id, u.handle, u.display_name, a.pic_id \
             from comment c join app_user u on u.user_id = c.author_id \
             left join user_avatar a on a.user_id = c.author_id \
             where c.scope = $1 and c.scope_id = $2 and {after} {order} limit $5",
            after = keyset.after("c.created_at", "c.comment_id", 3),
            order = keyset.order_by("c.created_at", "c.comment_id"),
        )))
        .bind(scope)
        .bind(scope_id.to_owned())
        .bind_keyset(keyset)
        .bind(limit)
        .fetch_all(&self.db.pool)
        .await?;
        Ok(rows.iter().map(comment_from_row).collect::<Result<_, _>>()?)
    }
}
