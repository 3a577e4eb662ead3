use sqlx::Row;
use sqlx::any::AnyRow;
use time::OffsetDateTime;

use super::users::{NewUser, User};
use super::{Db, StoreError, StoreResult, from_millis, to_millis};
use crate::domain::account::ChallengePurpose;

/// A pending sign-up or password reset.
#[derive(Clone, Debug)]
pub struct Challenge {
    pub token_digest: String,
    pub pin_digest: String,
    pub email: String,
    /// The account a reset is for; `None` for a reset asked for an unknown e-mail.
    pub user_id: Option<String>,
    pub handle: Option<String>,
    pub full_name: Option<String>,
    pub display_name: Option<String>,
    pub tries: i64,
    pub resends: i64,
    pub verified: bool,
    pub expires_at: OffsetDateTime,
}

pub struct NewChallenge<'a> {
    pub purpose: ChallengePurpose,
    pub token_digest: &'a str,
    pub pin_digest: &'a str,
    pub email: &'a str,
    pub user_id: Option<&'a str>,
    pub handle: Option<&'a str>,
    pub full_name: Option<&'a str>,
    pub display_name: Option<&'a str>,
    pub expires_at: OffsetDateTime,
}

const CHALLENGE_COLUMNS: &str = "token_digest, pin_digest, email, user_id, handle, full_name, display_name, tries, resends, verified_at, expires_at";

fn challenge_from_row(row: &AnyRow) -> Result<Challenge, sqlx::Error> {
    Ok(Challenge {
        token_digest: row.try_get("token_digest")?,
        pin_digest: row.try_get("pin_digest")?,
        email: row.try_get("email")?,
        user_id: row.try_get("user_id")?,
        handle: row.try_get("handle")?,
        full_name: row.try_get("full_name")?,
        display_name: row.try_get("display_name")?,
        tries: row.try_get("tries")?,
        resends: row.try_get("resends")?,
        verified: row.try_get::<Option<i64>, _>("verified_at")?.is_some(),
        expires_at: from_millis(row.try_get("expires_at")?),
    })
}

/// The repository of PIN challenges of sign-up and password reset.
#[derive(Clone, Debug)]
pub struct ChallengeRepo {
    db: Db,
}

impl ChallengeRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    #[tracing::instrument(skip_all)]
    pub async fn insert_challenge(&self, c: &NewChallenge<'_>, now: OffsetDateTime) -> StoreResult<()> {
        let mut conn = self.db.writer.acquire().await?;
        Self::insert_in(&mut conn, c, now).await
    }

    async fn insert_in(conn: &mut sqlx::AnyConnection, c: &NewChallenge<'_>, now: OffsetDateTime) -> StoreResult<()> {
        sqlx::query(
            "insert into pin_challenge (token_digest, purpose, pin_digest, email, user_id, handle, full_name, display_name, tries, resends, verified_at, expires_at, created_at) \
             values ($1, $2, $3, $4, $5, $6, $7, $8, 0, 0, null, $9, $10)",
        )
        .bind(c.token_digest.to_owned())
        .bind(c.purpose.as_str())
        .bind(c.pin_digest.to_owned())
        .bind(c.email.to_owned())
        .bind(c.user_id.map(str::to_owned))
        .bind(c.handle.map(str::to_owned))
        .bind(c.full_name.map(str::to_owned))
        .bind(c.display_name.map(str::to_owned))
        .bind(to_millis(c.expires_at))
        .bind(to_millis(now))
        .execute(conn)
        .await?;
        Ok(())
    }

    /// The unexpired challenge of this purpose with this token digest.
    #[tracing::instrument(skip_all)]
    pub async fn challenge(
        &self,
        purpose: ChallengePurpose,
        token_digest: &str,
        now: OffsetDateTime,
    ) -> StoreResult<Option<Challenge>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {CHALLENGE_COLUMNS} from pin_challenge where token_digest = $1 and purpose = $2 and expires_at > $3"
        )))
        .bind(token_digest.to_owned())
        .bind(purpose.as_str())
        .bind(to_millis(now))
        .fetch_optional(&self.db.pool)
        .await?;
        Ok(row.map(|row| challenge_from_row(&row)).transpose()?)
    }

    /// Takes one of the PIN tries before the PIN is compared, so concurrent guesses cannot exceed
    /// `max_tries`; answers `false` when none is left (the token is dead).
    pub async fn take_pin_try(&self, token_digest: &str, max_tries: i64) -> StoreResult<bool> {
        let row = sqlx::query(
            "update pin_challenge set tries = tries + 1 where token_digest = $1 and tries < $2 returning tries",
        )
        .bind(token_digest.to_owned())
        .bind(max_tries)
        .fetch_optional(&self.db.writer)
        .await?;
        Ok(row.is_some())
    }

    pub async fn mark_challenge_verified(&self, token_digest: &str, now: OffsetDateTime) -> StoreResult<()> {
        sqlx::query("update pin_challenge set verified_at = $2 where token_digest = $1")
            .bind(token_digest.to_owned())
            .bind(to_millis(now))
            .execute(&self.db.writer)
            .await?;
        Ok(())
    }

    /// A new reset challenge for an account, retiring its oldest live ones so that at most `live`
    /// remain (conventions section 5), in one transaction.
    #[tracing::instrument(skip_all)]
    pub async fn insert_reset_challenge(
        &self,
        c: &NewChallenge<'_>,
        user_id: &str,
        live: i64,
        now: OffsetDateTime,
    ) -> StoreResult<()> {
        let mut tx = self.db.writer.begin().await?;
        sqlx::query(
            "delete from pin_challenge where purpose = 'reset' and user_id = $1 and token_digest not in \
             (select token_digest from pin_challenge where purpose = 'reset' and user_id = $1 and expires_at > $2 \
              order by created_at desc, token_digest limit $3)",
        )
        .bind(user_id.to_owned())
        .bind(to_millis(now))
        .bind((live - 1).max(0))
        .execute(&mut *tx)
        .await?;
        Self::insert_in(&mut tx, c, now).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Counts a failed PIN check against the e-mail address.
    pub async fn record_pin_failure(
        &self,
        purpose: ChallengePurpose,
        email: &str,
        now: OffsetDateTime,
    ) -> StoreResult<()> {
        sqlx::query("insert into pin_failure (purpose, email, failed_at) values ($1, $2, $3)")
            .bind(purpose.as_str())
            .bind(email.to_owned())
            .bind(to_millis(now))
            .execute(&self.db.writer)
            .await?;
        Ok(())
    }

    /// The times of the latest `limit` failed PIN checks against the address since `since`, newest first.
    pub async fn pin_failures_since(
        &self,
        purpose: ChallengePurpose,
        email: &str,
        since: OffsetDateTime,
        limit: i64,
    ) -> StoreResult<Vec<OffsetDateTime>> {
        let rows = sqlx::query(
            "select failed_at from pin_failure where purpose = $1 and email = $2 and failed_at > $3 \
             order by failed_at desc limit $4",
        )
        .bind(purpose.as_str())
        .bind(email.to_owned())
        .bind(to_millis(since))
        .bind(limit)
        .fetch_all(&self.db.pool)
        .await?;
        rows.iter().map(|row| Ok(from_millis(row.try_get("failed_at")?))).collect()
    }

    /// Forgets failed PIN checks that no longer count.
    pub async fn delete_pin_failures_before(&self, before: OffsetDateTime) -> StoreResult<()> {
        sqlx::query("delete from pin_failure where failed_at <= $1")
            .bind(to_millis(before))
            .execute(&self.db.writer)
            .await?;
        Ok(())
    }

    /// A new PIN for the same token: the resend is counted and the clock restarts, but the tries
    /// already used stay used (they count per token across resends). `false` (nothing written)
    /// when the token was resent `max_resends` times already: the count and the write are one
    /// statement, so concurrent resends cannot pass the bound.
    pub async fn replace_pin(
        &self,
        token_digest: &str,
        pin_digest: &str,
        expires_at: OffsetDateTime,
        max_resends: i64,
    ) -> StoreResult<bool> {
        let replaced = sqlx::query(
            "update pin_challenge set pin_digest = $2, resends = resends + 1, verified_at = null, expires_at = $3 \
             where token_digest = $1 and resends < $4",
        )
        .bind(token_digest.to_owned())
        .bind(pin_digest.to_owned())
        .bind(to_millis(expires_at))
        .bind(max_resends)
        .execute(&self.db.writer)
        .await?
        .rows_affected();
        Ok(replaced == 1)
    }

    /// Turns a verified sign-up into an account with a first session, in one transaction; the
    /// challenge is consumed so the token cannot be used twice. `NotFound` when it was consumed
    /// meanwhile; `Conflict` when the handle or e-mail was taken meanwhile.
    #[tracing::instrument(skip_all)]
    pub async fn complete_signup(
        &self,
        token_digest: &str,
        password_hash: &str,
        session_digest: &str,
        now: OffsetDateTime,
        session_expires_at: OffsetDateTime,
    ) -> StoreResult<User> {
        let mut tx = self.db.writer.begin().await?;
        // Starting with the write takes SQLite's write lock at once (no deferred upgrade).
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "delete from pin_challenge where token_digest = $1 and purpose = 'signup' and verified_at is not null and expires_at > $2 \
             returning {CHALLENGE_COLUMNS}"
        )))
        .bind(token_digest.to_owned())
        .bind(to_millis(now))
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(StoreError::NotFound)?;
        let challenge = challenge_from_row(&row)?;
        let (Some(handle), Some(full_name), Some(display_name)) =
            (&challenge.handle, &challenge.full_name, &challenge.display_name)
        else {
            return Err(StoreError::Other(anyhow::anyhow!("sign-up challenge without profile")));
        };
        let user = super::UserRepo::insert_user_in(
            &mut tx,
            &NewUser { email: &challenge.email, handle, full_name, display_name, password_hash },
            now,
        )
        .await?;
        sqlx::query("insert into session (token_digest, user_id, created_at, expires_at) values ($1, $2, $3, $4)")
            .bind(session_digest.to_owned())
            .bind(user.user_id.clone())
            .bind(to_millis(now))
            .bind(to_millis(session_expires_at))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(user)
    }
}
