//! User avatars (conventions 12): one image per user, replaced by the next upload.

use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use super::uploads::{PartSource, receive_file_part, wrong_type};
use crate::error::{Error, Result};
use crate::infra::media::objects::MediaObjects;
use crate::infra::media::{Object, SniffOutcome, judge_type};
use crate::store::{SessionUser, Store, StoredAvatar};

/// A user's avatar image, as the avatar use cases answer it.
#[derive(Clone, Debug)]
pub struct Avatar {
    pub user_id: String,
    pub pic_id: String,
    pub content_type: String,
    pub bytes: i64,
    /// Where the bytes are; only [`Avatars::bytes`] reads it.
    storage_key: String,
    /// The content's address (`None` until bytes stored before content addressing are read).
    pub sha256: Option<String>,
}

impl From<StoredAvatar> for Avatar {
    fn from(a: StoredAvatar) -> Self {
        Self {
            user_id: a.user_id,
            pic_id: a.pic_id,
            content_type: a.content_type,
            bytes: a.bytes,
            storage_key: a.storage_key,
            sha256: a.sha256,
        }
    }
}

/// PNG, JPEG, WebP or GIF up to 2 MiB.
pub const AVATAR_MAX_BYTES: u64 = 2 * 1024 * 1024;
const AVATAR_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/webp", "image/gif"];

pub struct Avatars {
    store: Store,
    objects: MediaObjects,
    db_hash: String,
}

impl Avatars {
    pub fn new(store: Store, objects: MediaObjects, shard: &str) -> Self {
        let digest = Sha256::digest(format!("trellis-media-shard:{shard}").as_bytes());
        let db_hash = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
        Self { store, objects, db_hash }
    }

    /// The name of this deployment's storage shard as avatar URLs carry it.
    pub fn db_hash(&self) -> &str {
        &self.db_hash
    }

    /// Stores the request's one `file` part as the user's avatar, replacing the previous one.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
    pub async fn upload(&self, user: &SessionUser, source: &mut dyn PartSource) -> Result<Avatar> {
        let staged = self.objects.staging();
        let judge = |declared: Option<&str>, filename: &str, head: &[u8]| match judge_type(declared, filename, head) {
            SniffOutcome::Agreed(t) if AVATAR_TYPES.contains(&t.as_str()) => Ok(t),
            _ => Err(wrong_type("NOT_AN_IMAGE", "is not a PNG, JPEG, WebP or GIF image")),
        };
        let file = receive_file_part(&self.objects, &staged, source, "avatars", AVATAR_MAX_BYTES, judge).await?;
        let avatar = StoredAvatar {
            user_id: user.user_id.clone(),
            pic_id: uuid::Uuid::new_v4().simple().to_string(),
            content_type: file.content_type,
            bytes: file.bytes as i64,
            storage_key: file.key.as_str().to_owned(),
            sha256: Some(file.sha256),
        };
        let (avatar, freed) = self.store.media.replace_avatar(avatar, OffsetDateTime::now_utc()).await?;
        staged.adopted();
        self.objects.discard_freed(freed).await;
        Ok(avatar.into())
    }

    /// Removes the user's avatar (if any) and its bytes.
    pub async fn remove(&self, user: &SessionUser) -> Result<()> {
        if let Some((_, freed)) = self.store.media.delete_avatar(&user.user_id).await? {
            self.objects.discard_freed(freed).await;
        }
        Ok(())
    }

    /// The avatar named by a URL from a profile or search, checking every part of it.
    pub async fn find(&self, db_hash: &str, user_id: &str, pic_id: &str) -> Result<Avatar> {
        let not_found = || Error::not_found("avatar");
        if db_hash != self.db_hash {
            return Err(not_found());
        }
        let user_id = uuid::Uuid::try_parse(user_id).map_err(|_| not_found())?.to_string();
        let avatar = self.store.media.avatar(&user_id).await?.filter(|a| a.pic_id == pic_id).ok_or_else(not_found)?;
        Ok(avatar.into())
    }

    pub async fn bytes(&self, avatar: &Avatar, range: Option<std::ops::Range<u64>>) -> Result<Object> {
        self.objects.read(&avatar.storage_key, range).await
    }
}
