use sqlx::AnyConnection;
use sqlx::Row;
use sqlx::any::AnyRow;
use time::OffsetDateTime;

use super::{Db, StoreError, StoreResult, from_millis, to_millis};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub user_id: String,
    pub email: String,
    pub handle: String,
    pub full_name: String,
    pub display_name: String,
    pub operator: bool,
    /// The current avatar's `picId`, if the user has one.
    pub avatar_pic_id: Option<String>,
    /// Moves on with every change of the profile's own fields (not the avatar).
    pub revision: i64,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

/// What a stale `update_profile` is: the profile moved on after the use case checked it.
pub const STALE_PROFILE: &str = "app_user.revision";

/// The state of a profile an update was checked against: its revision and its avatar.
#[derive(Clone, Debug)]
pub struct ProfileState {
    pub revision: i64,
    pub avatar_pic_id: Option<String>,
}

pub struct NewUser<'a> {
    pub email: &'a str,
    pub handle: &'a str,
    pub full_name: &'a str,
    pub display_name: &'a str,
    pub password_hash: &'a str,
}

const USER_COLUMNS: &str = "user_id, email, handle, full_name, display_name, operator, revision, created_at, updated_at, \
     (select a.pic_id from user_avatar a where a.user_id = app_user.user_id) as avatar_pic_id";

fn user_from_row(row: &AnyRow) -> Result<User, sqlx::Error> {
    Ok(User {
        user_id: row.try_get("user_id")?,
        email: row.try_get("email")?,
        handle: row.try_get("handle")?,
        full_name: row.try_get("full_name")?,
        display_name: row.try_get("display_name")?,
        operator: row.try_get::<i64, _>("operator")? != 0,
        // Statements that cannot join (inserts) leave it out.
        avatar_pic_id: row.try_get("avatar_pic_id").ok().flatten(),
        revision: row.try_get("revision")?,
        created_at: from_millis(row.try_get("created_at")?),
        updated_at: from_millis(row.try_get("updated_at")?),
    })
}

/// The repository of user accounts.
#[derive(Clone, Debug)]
pub struct UserRepo {
    db: Db,
}

impl UserRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    /// Inserts an account; a taken handle or e-mail is `Conflict`.
    #[tracing::instrument(skip_all)]
    pub async fn insert_user(&self, user: &NewUser<'_>, now: OffsetDateTime) -> StoreResult<User> {
        let mut conn = self.db.writer.acquire().await?;
        Self::insert_user_in(&mut conn, user, now).await
    }

    pub(super) async fn insert_user_in(
        conn: &mut AnyConnection,
        user: &NewUser<'_>,
        now: OffsetDateTime,
    ) -> StoreResult<User> {
        let user_id = uuid::Uuid::new_v4().to_string();
        let now = to_millis(now);
        let row = sqlx::query(
            "insert into app_user (user_id, email, handle, full_name, display_name, password_hash, operator, created_at, updated_at) \
             values ($1, $2, $3, $4, $5, $6, 0, $7, $7) \
             returning user_id, email, handle, full_name, display_name, operator, revision, created_at, updated_at",
        )
        .bind(user_id)
        .bind(user.email.to_owned())
        .bind(user.handle.to_owned())
        .bind(user.full_name.to_owned())
        .bind(user.display_name.to_owned())
        .bind(user.password_hash.to_owned())
        .bind(now)
        .fetch_one(&mut *conn)
        .await?;
        Ok(user_from_row(&row)?)
    }

    #[tracing::instrument(skip_all, fields(user_id))]
    pub async fn user_by_id(&self, user_id: &str) -> StoreResult<User> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!("select {USER_COLUMNS} from app_user where user_id = $1")))
            .bind(user_id.to_owned())
            .fetch_optional(&self.db.pool)
            .await?
            .ok_or(StoreError::NotFound)?;
        Ok(user_from_row(&row)?)
    }

    /// The account a live session belongs to, in one round trip (the hot path of `GET /users/me`).
    #[tracing::instrument(skip_all)]
    pub async fn user_by_session(&self, token_digest: &str, now: OffsetDateTime) -> StoreResult<Option<User>> {
        let row = sqlx::query(
            "select u.user_id, u.email, u.handle, u.full_name, u.display_name, u.operator, u.revision, u.created_at, \
             u.updated_at, \
             a.pic_id as avatar_pic_id from session s join app_user u on u.user_id = s.user_id \
             left join user_avatar a on a.user_id = u.user_id where s.token_digest = $1 and s.expires_at > $2",
        )
        .bind(token_digest.to_owned())
        .bind(to_millis(now))
        .fetch_optional(&self.db.pool)
        .await?;
        Ok(row.map(|row| user_from_row(&row)).transpose()?)
    }

    /// The account and its password hash, by e-mail (any case) or handle.
    #[tracing::instrument(skip_all)]
    pub async fn user_for_login(&self, login: &str) -> StoreResult<Option<(User, String)>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {USER_COLUMNS}, password_hash from app_user where email = $1 or handle = $1"
        )))
        .bind(login.to_lowercase())
        .fetch_optional(&self.db.pool)
        .await?;
        row.map(|row| Ok((user_from_row(&row)?, row.try_get("password_hash")?))).transpose()
    }

    pub async fn user_by_email(&self, email: &str) -> StoreResult<Option<User>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!("select {USER_COLUMNS} from app_user where email = $1")))
            .bind(email.to_lowercase())
            .fetch_optional(&self.db.pool)
            .await?;
        Ok(row.map(|row| user_from_row(&row)).transpose()?)
    }

    /// Whether a handle or an e-mail is already taken: `(handle_taken, email_taken)`.
    pub async fn identity_taken(&self, handle: &str, email: &str) -> StoreResult<(bool, bool)> {
        let row = sqlx::query(
            "select \
               (select count(*) from app_user where handle = $1) as handles, \
               (select count(*) from app_user where email = $2) as emails",
        )
        .bind(handle.to_owned())
        .bind(email.to_lowercase())
        .fetch_one(&self.db.pool)
        .await?;
        Ok((row.try_get::<i64, _>("handles")? > 0, row.try_get::<i64, _>("emails")? > 0))
    }

    pub async fn handle_exists(&self, handle: &str) -> StoreResult<bool> {
        let row = sqlx::query("select count(*) as n from app_user where handle = $1")
            .bind(handle.to_owned())
            .fetch_one(&self.db.pool)
            .await?;
        Ok(row.try_get::<i64, _>("n")? > 0)
    }

    /// Sets the given profile fields and answers the account as it now is. With `expected`, writes
    /// only while the profile is still in that state (`Conflict(STALE_PROFILE)` otherwise): the check
    /// and the write are one statement.
    #[tracing::instrument(skip_all, fields(user_id))]
    pub async fn update_profile(
        &self,
        user_id: &str,
        display_name: Option<&str>,
        full_name: Option<&str>,
        expected: Option<&ProfileState>,
        now: OffsetDateTime,
    ) -> StoreResult<User> {
        let row = sqlx::query(
            "update app_user set display_name = coalesce($2, display_name), full_name = coalesce($3, full_name), \
             revision = revision + 1, updated_at = $4 \
             where user_id = $1 and ($5 < 0 or (revision = $5 and \
               coalesce((select a.pic_id from user_avatar a where a.user_id = $1), '') = $6)) \
             returning user_id, email, handle, full_name, display_name, operator, revision, created_at, updated_at",
        )
        .bind(user_id.to_owned())
        .bind(display_name.map(str::to_owned))
        .bind(full_name.map(str::to_owned))
        .bind(to_millis(now))
        .bind(expected.map_or(-1, |state| state.revision))
        .bind(expected.and_then(|state| state.avatar_pic_id.clone()).unwrap_or_default())
        .fetch_optional(&self.db.writer)
        .await?;
        let row = row.ok_or_else(|| StoreError::stale_or_missing(expected.is_some(), STALE_PROFILE))?;
        let mut user = user_from_row(&row)?;
        user.avatar_pic_id = super::MediaRepo::new(self.db.clone()).avatar(user_id).await?.map(|avatar| avatar.pic_id);
        Ok(user)
    }

    /// Handles starting with `prefix` (lower-case, already checked to be handle characters),
    /// in handle order, after the handle `after`.
    #[tracing::instrument(skip_all)]
    pub async fn search_handles(&self, prefix: &str, after: Option<&str>, limit: i64) -> StoreResult<Vec<User>> {
        // `_` is a LIKE wildcard and legal in handles, so it is escaped.
        let pattern = format!("{}%", prefix.replace('_', "\\_"));
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {USER_COLUMNS} from app_user where handle like $1 escape '\\' and handle > $2 order by handle limit $3"
        )))
        .bind(pattern)
        .bind(after.unwrap_or_default().to_owned())
        .bind(limit)
        .fetch_all(&self.db.pool)
        .await?;
        Ok(rows.iter().map(user_from_row).collect::<Result<_, _>>()?)
    }

    /// Replaces the password and ends every session of the account, in one transaction.
    #[tracing::instrument(skip_all, fields(user_id))]
    pub async fn reset_password(&self, user_id: &str, password_hash: &str, now: OffsetDateTime) -> StoreResult<()> {
        let mut tx = self.db.writer.begin().await?;
        // The profile shows `updatedAt`, so its revision moves on too.
        let updated = sqlx::query(
            "update app_user set password_hash = $2, revision = revision + 1, updated_at = $3 where user_id = $1",
        )
        .bind(user_id.to_owned())
        .bind(password_hash.to_owned())
        .bind(to_millis(now))
        .execute(&mut *tx)
        .await?;
        if updated.rows_affected() == 0 {
            return Err(StoreError::NotFound);
        }
        sqlx::query("delete from session where user_id = $1").bind(user_id.to_owned()).execute(&mut *tx).await?;
        sqlx::query("delete from pin_challenge where user_id = $1 and purpose = 'reset'")
            .bind(user_id.to_owned())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Grants or revokes the platform operator role; answers the user's id, `NotFound` when no
    /// account has the handle.
    pub async fn set_operator(&self, handle: &str, operator: bool) -> StoreResult<String> {
        let row = sqlx::query("update app_user set operator = $2 where handle = $1 returning user_id")
            .bind(handle.to_owned())
            .bind(i64::from(operator))
            .fetch_optional(&self.db.writer)
            .await?
            .ok_or(StoreError::NotFound)?;
        Ok(row.try_get("user_id")?)
    }

    /// Whether the user holds the platform operator role now (not as a cached session remembers it).
    pub async fn is_operator(&self, user_id: &str) -> StoreResult<bool> {
        let row = sqlx::query("select operator from app_user where user_id = $1")
            .bind(user_id.to_owned())
            .fetch_optional(&self.db.pool)
            .await?;
        Ok(match row {
            Some(row) => row.try_get::<i64, _>("operator")? != 0,
            None => false,
        })
    }
}
