//! Users' avatars: one row per user, its bytes counted in the blob table like every stored content.

use std::sync::Arc;

use sqlx::Row;
use sqlx::any::AnyRow;
use time::OffsetDateTime;

use super::super::locks::lock_row;
use super::super::{StoreResult, blobs, to_millis};
use super::{MediaRepo, unaddressed};

/// A user's current avatar.
#[derive(Clone, Debug)]
pub struct StoredAvatar {
    pub user_id: String,
    pub pic_id: String,
    pub content_type: String,
    pub bytes: i64,
    pub storage_key: String,
    /// As for [`StoredAttachment::sha256`].
    pub sha256: Option<String>,
}

fn avatar_from_row(row: &AnyRow) -> Result<StoredAvatar, sqlx::Error> {
    Ok(StoredAvatar {
        user_id: row.try_get("user_id")?,
        pic_id: row.try_get("pic_id")?,
        content_type: row.try_get("content_type")?,
        bytes: row.try_get("bytes")?,
        storage_key: row.try_get("storage_key")?,
        sha256: row.try_get("sha256")?,
    })
}

impl MediaRepo {
    pub async fn avatar(&self, user_id: &str) -> StoreResult<Option<StoredAvatar>> {
        let row = sqlx::query(
            "select user_id, pic_id, content_type, bytes, storage_key, sha256 from user_avatar where user_id = $1",
        )
        .bind(user_id.to_owned())
        .fetch_optional(&self.db.pool)
        .await?;
        Ok(row.as_ref().map(avatar_from_row).transpose()?)
    }

    /// Makes `avatar` the user's avatar and releases the replaced one's bytes. Answers the avatar
    /// as recorded (it may name an object that held its bytes already) and the objects nothing
    /// names any more.
    pub async fn replace_avatar(
        &self,
        avatar: StoredAvatar,
        now: OffsetDateTime,
    ) -> StoreResult<(StoredAvatar, Vec<String>)> {
        let avatar = Arc::new(avatar);
        let engine = self.db.engine();
        self.db
            .write(move |conn| {
                let avatar = avatar.clone();
                Box::pin(async move {
                    // One avatar write per user at a time: the avatar read below is then the one this
                    // write replaces, so each old object is released once (PostgreSQL; SQLite runs one
                    // write at a time). The user's row, not the avatar's, which may not exist yet.
                    lock_row(conn, engine, "select user_id from app_user where user_id = $1 for update", &avatar.user_id)
                        .await?;
                    let old = sqlx::query(
                        "select user_id, pic_id, content_type, bytes, storage_key, sha256 from user_avatar where user_id = $1",
                    )
                    .bind(avatar.user_id.clone())
                    .fetch_optional(&mut *conn)
                    .await?
                    .as_ref()
                    .map(avatar_from_row)
                    .transpose()?;
                    let mut avatar = (*avatar).clone();
                    let sha256 = avatar.sha256.clone().ok_or_else(|| unaddressed(&avatar.storage_key))?;
                    let adopted = blobs::adopt(conn, &avatar.storage_key, &sha256, avatar.bytes).await?;
                    let mut freed: Vec<String> = adopted.freed.into_iter().collect();
                    avatar.storage_key = adopted.storage_key;
                    sqlx::query(
                        "insert into user_avatar (user_id, pic_id, content_type, bytes, storage_key, sha256, created_at)
                     values ($1, $2, $3, $4, $5, $6, $7)
                     on conflict (user_id) do update set pic_id = excluded.pic_id, content_type = excluded.content_type,
                       bytes = excluded.bytes, storage_key = excluded.storage_key, sha256 = excluded.sha256,
                       created_at = excluded.created_at",
                    )
                    .bind(avatar.user_id.clone())
                    .bind(avatar.pic_id.clone())
                    .bind(avatar.content_type.clone())
                    .bind(avatar.bytes)
                    .bind(avatar.storage_key.clone())
                    .bind(sha256)
                    .bind(to_millis(now))
                    .execute(&mut *conn)
                    .await?;
                    if let Some(old) = &old {
                        freed.extend(blobs::release(conn, &old.storage_key).await?);
                    }
                    Ok((avatar, freed))
                })
            })
            .await
    }

    /// Removes the user's avatar row and releases its bytes. Answers the removed avatar and its
    /// object when nothing names that any more.
    pub async fn delete_avatar(&self, user_id: &str) -> StoreResult<Option<(StoredAvatar, Option<String>)>> {
        let user_id = Arc::new(user_id.to_owned());
        let engine = self.db.engine();
        self.db
            .write(move |conn| {
                let user_id = user_id.clone();
                Box::pin(async move {
                    // In turn with the user's other avatar writes (see `replace_avatar`).
                    lock_row(conn, engine, "select user_id from app_user where user_id = $1 for update", &user_id)
                        .await?;
                    let row = sqlx::query(
                        "delete from user_avatar where user_id = $1
                     returning user_id, pic_id, content_type, bytes, storage_key, sha256",
                    )
                    .bind((*user_id).clone())
                    .fetch_optional(&mut *conn)
                    .await?;
                    let Some(row) = row else { return Ok(None) };
                    let old = avatar_from_row(&row)?;
                    let freed = blobs::release(conn, &old.storage_key).await?;
                    Ok(Some((old, freed)))
                })
            })
            .await
    }
}
