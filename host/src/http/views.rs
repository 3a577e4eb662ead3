//! Response bodies shared by several resources.

use serde::Serialize;
use time::OffsetDateTime;
use utoipa::ToSchema;

use crate::services::accounts::Account;

/// Where an avatar is fetched; `null` until the user uploads one.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AvatarRef {
    pub db_hash: String,
    pub user_id: String,
    pub pic_id: String,
}

/// The signed-in user's own profile.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    pub user_id: String,
    pub handle: String,
    pub email: String,
    pub display_name: String,
    pub full_name: String,
    pub avatar: Option<AvatarRef>,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

impl From<Account> for Profile {
    fn from(user: Account) -> Self {
        let avatar = user.avatar_pic_id.map(|pic_id| AvatarRef {
            db_hash: String::new(),
            user_id: user.user_id.clone(),
            pic_id,
        });
        Self {
            user_id: user.user_id,
            handle: user.handle,
            email: user.email,
            display_name: user.display_name,
            full_name: user.full_name,
            avatar,
            created_at: user.created_at,
            updated_at: user.updated_at,
        }
    }
}

/// Another user as search shows them.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserSummary {
    pub user_id: String,
    pub handle: String,
    pub display_name: String,
    pub avatar: Option<AvatarRef>,
}

impl From<Account> for UserSummary {
    fn from(user: Account) -> Self {
        let avatar = user.avatar_pic_id.map(|pic_id| AvatarRef {
            db_hash: String::new(),
            user_id: user.user_id.clone(),
            pic_id,
        });
        Self { user_id: user.user_id, handle: user.handle, display_name: user.display_name, avatar }
    }
}

impl AvatarRef {
    /// Names the deployment's storage shard, which only the server knows.
    pub fn in_shard(mut self, db_hash: &str) -> Self {
        db_hash.clone_into(&mut self.db_hash);
        self
    }
}

impl Profile {
    pub fn in_shard(mut self, db_hash: &str) -> Self {
        self.avatar = self.avatar.map(|a| a.in_shard(db_hash));
        self
    }
}

impl UserSummary {
    pub fn in_shard(mut self, db_hash: &str) -> Self {
        self.avatar = self.avatar.map(|a| a.in_shard(db_hash));
        self
    }
}

/// A comment, wherever it was made (a space, a channel).
#[derive(Clone, Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommentView {
    pub comment_id: String,
    pub body: String,
    pub author: UserSummary,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
}

impl CommentView {
    /// The view of a stored comment, its author's avatar named in the deployment's shard.
    pub fn new(comment: crate::services::comments::Comment, db_hash: &str) -> Self {
        let avatar = comment.author_avatar_pic_id.map(|pic_id| AvatarRef {
            db_hash: db_hash.to_owned(),
            user_id: comment.author_id.clone(),
            pic_id,
        });
        Self {
            comment_id: comment.comment_id,
            body: comment.body,
            author: UserSummary {
                user_id: comment.author_id,
                handle: comment.author_handle,
                display_name: comment.author_display_name,
                avatar,
            },
            created_at: comment.created_at,
        }
    }
}

/// A page of comments as every comment list answers it, keyed by `(createdAt, commentId)`.
pub fn comment_page(
    rows: Vec<crate::services::comments::Comment>,
    page: &crate::http::list::Page,
    db_hash: &str,
) -> crate::http::list::ListEnvelope<CommentView> {
    crate::http::list::ListEnvelope::from_rows(
        rows,
        page,
        |c| (crate::http::list::cursor_millis(c.created_at), c.comment_id.clone()),
        |c| CommentView::new(c, db_hash),
    )
}
