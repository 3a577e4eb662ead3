//! Comments (conventions 12): one implementation for every place a comment is made. The use cases
//! of a place check who may comment there and then call [`Comments::post`] and [`Comments::list`];
//! the space's own are here, a channel's are the channels' use cases.

use std::sync::Arc;

use time::OffsetDateTime;

use crate::domain::comments::{CommentText, Scope};
use crate::domain::jobs::SpaceEventKind;
use crate::domain::live::LiveEvent;
use crate::domain::problems::Parsed;
use crate::error::Result;
use crate::infra::rate_limits::RateLimits;
use crate::services::space_events::{SpaceEvents, items};
use crate::services::spaces::Spaces;
use crate::store::{NewComment, Outbox, SessionUser, Store, StoredComment, from_millis, to_millis};

/// A comment as the comment use cases answer it, with its author as they are now.
pub struct Comment {
    pub comment_id: String,
    pub body: String,
    pub author_id: String,
    pub author_handle: String,
    pub author_display_name: String,
    pub author_avatar_pic_id: Option<String>,
    pub created_at: OffsetDateTime,
}

impl From<StoredComment> for Comment {
    fn from(c: StoredComment) -> Self {
        Self {
            comment_id: c.comment_id,
            body: c.body,
            author_id: c.author_id,
            author_handle: c.author_handle,
            author_display_name: c.author_display_name,
            author_avatar_pic_id: c.author_avatar_pic_id,
            created_at: c.created_at,
        }
    }
}

pub struct Comments {
    store: Store,
    spaces: Arc<Spaces>,
    limits: Arc<RateLimits>,
    events: Arc<SpaceEvents>,
}

impl Comments {
    pub fn new(store: Store, spaces: Arc<Spaces>, limits: Arc<RateLimits>, events: Arc<SpaceEvents>) -> Self {
        Self { store, spaces, limits, events }
    }

    /// Comments on a space from `{body}`: its owner and members may (readers through a channel may not).
    /// The space's modules hear of it as a `comment-created` event.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
    pub async fn post_in_space(
        &self,
        user: &SessionUser,
        space_id: &str,
        body: Parsed<CommentText>,
    ) -> Result<Comment> {
        let (space_id, _) = self.spaces.writer_role(user, space_id).await?;
        Ok(self.post(user, Scope::Space(&space_id), body).await?.into())
    }

    /// A space's comments, newest first, for whoever reads the space.
    pub async fn list_in_space(
        &self,
        user: &SessionUser,
        space_id: &str,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> Result<Vec<Comment>> {
        let (space_id, _) = self.spaces.member_role(user, space_id).await?;
        self.list(Scope::Space(&space_id), after, limit).await
    }

    /// Writes a comment by `author` from `{body}`; the caller has checked that the author may
    /// comment in `scope`. A user's comments are paced (`rate_limits.comments_per_user`), so
    /// nobody can fill the disk or a place's list.
    pub async fn post(
        &self,
        author: &SessionUser,
        scope: Scope<'_>,
        body: Parsed<CommentText>,
    ) -> Result<StoredComment> {
        let CommentText(text) = body?;
        self.limits.comment(&author.user_id)?;
        let new = NewComment {
            comment_id: uuid::Uuid::new_v4().to_string(),
            scope: scope.kind(),
            scope_id: scope.id().to_owned(),
            author_id: author.user_id.clone(),
            body: text,
            // As the store keeps it (milliseconds), so the answer equals the comment as lists show it.
            created_at: from_millis(to_millis(OffsetDateTime::now_utc())),
        };
        // The author as the session shows them: one statement per comment on the single writer.
        let comment = StoredComment {
            comment_id: new.comment_id.clone(),
            body: new.body.clone(),
            author_id: author.user_id.clone(),
            author_handle: author.handle.clone(),
            author_display_name: author.display_name.clone(),
            author_avatar_pic_id: author.avatar_pic_id.clone(),
            created_at: new.created_at,
        };
        // A space's modules hear of its comments, with the comment's own commit.
        // Readers of the scope hear of it live.
        let (outbox, live) = match scope {
            Scope::Space(space_id) => {
                let item = items::comment(space_id, &comment);
                let outbox =
                    self.events.outbox(space_id, SpaceEventKind::CommentCreated, &comment.comment_id, item).await;
                (outbox, LiveEvent::space_comment(space_id, &comment.comment_id))
            }
            Scope::Channel(channel_id) => (Outbox::new(), LiveEvent::channel_comment(channel_id, &comment.comment_id)),
        };
        let outbox = Arc::new(outbox.live(live));
        self.store.comments.insert_comment(new, &outbox).await?;
        self.events.committed(&outbox);
        Ok(comment)
    }

    /// The comments of `scope`, newest first; the caller has checked that the reader may see them.
    pub async fn list(&self, scope: Scope<'_>, after: Option<(i64, String)>, limit: i64) -> Result<Vec<Comment>> {
        let rows = self.store.comments.comments(scope.kind(), scope.id(), after, limit).await?;
        Ok(rows.into_iter().map(Comment::from).collect())
    }
}
