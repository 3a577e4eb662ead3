use sqlx::Row;
use time::OffsetDateTime;

use super::{Db, StoreResult, from_millis, to_millis};
pub use crate::domain::account::SessionUser;

/// The repository of sessions.
#[derive(Clone, Debug)]
pub struct SessionRepo {
    db: Db,
}

impl SessionRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    #[tracing::instrument(skip_all, fields(user_id))]
    pub async fn insert_session(
        &self,
        token_digest: &str,
        user_id: &str,
        now: OffsetDateTime,
        expires_at: OffsetDateTime,
    ) -> StoreResult<()> {
        sqlx::query("insert into session (token_digest, user_id, created_at, expires_at) values ($1, $2, $3, $4)")
            .bind(token_digest.to_owned())
            .bind(user_id.to_owned())
            .bind(to_millis(now))
            .bind(to_millis(expires_at))
            .execute(&self.db.writer)
            .await?;
        Ok(())
    }

    /// The live session with this token digest, with its user.
    #[tracing::instrument(skip_all)]
    pub async fn session_user(&self, token_digest: &str, now: OffsetDateTime) -> StoreResult<Option<SessionUser>> {
        let row = sqlx::query(
            "select s.user_id, u.handle, u.display_name, a.pic_id, u.operator, s.expires_at from session s \
             join app_user u on u.user_id = s.user_id left join user_avatar a on a.user_id = s.user_id \
             where s.token_digest = $1 and s.expires_at > $2",
        )
        .bind(token_digest.to_owned())
        .bind(to_millis(now))
        .fetch_optional(&self.db.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        Ok(Some(SessionUser {
            user_id: row.try_get("user_id")?,
            handle: row.try_get("handle")?,
            display_name: row.try_get("display_name")?,
            avatar_pic_id: row.try_get("pic_id")?,
            operator: row.try_get::<i64, _>("operator")? != 0,
            expires_at: from_millis(row.try_get("expires_at")?),
        }))
    }

    #[tracing::instrument(skip_all)]
    pub async fn delete_session(&self, token_digest: &str) -> StoreResult<()> {
        sqlx::query("delete from session where token_digest = $1")
            .bind(token_digest.to_owned())
            .execute(&self.db.writer)
            .await?;
        Ok(())
    }

    /// Removes expired sessions and challenges; run now and then by a background task.
    pub async fn delete_expired(&self, now: OffsetDateTime) -> StoreResult<u64> {
        let now = to_millis(now);
        let sessions =
            sqlx::query("delete from session where expires_at <= $1").bind(now).execute(&self.db.writer).await?;
        let challenges =
            sqlx::query("delete from pin_challenge where expires_at <= $1").bind(now).execute(&self.db.writer).await?;
        Ok(sessions.rows_affected() + challenges.rows_affected())
    }
}
