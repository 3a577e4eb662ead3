//! Registrations to join listed spaces. An approval writes the membership in the same transaction,
//! so a registration is never APPROVED without its member row, nor decided twice.

use std::sync::Arc;

use sqlx::Row;
use sqlx::any::AnyRow;
use time::OffsetDateTime;

use super::keyset::{BindKeyset, Keyset};
use super::outbox::Outbox;
use super::{Db, StoreResult, from_millis, to_millis};

/// A registration with the handle of who asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredRegistration {
    pub registration_id: String,
    pub space_id: String,
    pub user_id: String,
    pub handle: String,
    pub note: String,
    pub state: String,
    pub suggestion: Option<String>,
    pub created_at: OffsetDateTime,
}

/// What a registration writes.
pub struct NewRegistration {
    pub registration_id: String,
    pub space_id: String,
    pub user_id: String,
    pub note: String,
    /// `PENDING`, or `APPROVED` when the membership policy or a rule let the user in at once.
    pub state: &'static str,
    pub suggestion: Option<&'static str>,
}

const COLUMNS: &str = "r.registration_id, r.space_id, r.user_id, u.handle, r.note, r.state, r.suggestion, r.created_at";

fn from_row(row: &AnyRow) -> Result<StoredRegistration, sqlx::Error> {
    Ok(StoredRegistration {
        registration_id: row.try_get("registration_id")?,
        space_id: row.try_get("space_id")?,
        user_id: row.try_get("user_id")?,
        handle: row.try_get("handle")?,
        note: row.try_get("note")?,
        state: row.try_get("state")?,
        suggestion: row.try_get("suggestion")?,
        created_at: from_millis(row.try_get("created_at")?),
    })
}

/// Makes `user_id` a member of `space_id` unless they already belong to it.
async fn add_member(
    conn: &mut sqlx::AnyConnection,
    space_id: &str,
    user_id: &str,
    now: OffsetDateTime,
) -> StoreResult<()> {
    sqlx::query(
        "insert into space_member (space_id, user_id, role, created_at) values ($1, $2, 'member', $3) \
         on conflict (space_id, user_id) do nothing",
    )
    .bind(space_id.to_owned())
    .bind(user_id.to_owned())
    .bind(to_millis(now))
    .execute(conn)
    .await?;
    Ok(())
}

/// The repository of registrations.
#[derive(Clone, Debug)]
pub struct RegistrationRepo {
    db: Db,
}

impl RegistrationRepo {
    pub fn new(db: Db) -> Self {
        Self { db }
    }

    /// Writes a registration; an APPROVED one makes its user a member in the same transaction.
    /// `false` when the user already has a pending registration for the space (nothing written).
    pub async fn insert(&self, new: NewRegistration, outbox: &Arc<Outbox>, now: OffsetDateTime) -> StoreResult<bool> {
        let new = Arc::new(new);
        let written_outbox = outbox.clone();
        let inserted = self
            .db
            .write(move |conn| {
                let (new, outbox) = (new.clone(), written_outbox.clone());
                Box::pin(async move {
                    let decided = (new.state != "PENDING").then(|| to_millis(now));
                    let written = sqlx::query(
                        "insert into registration (registration_id, space_id, user_id, note, state, suggestion, \
                         created_at, decided_at) values ($1, $2, $3, $4, $5, $6, $7, $8) \
                         on conflict (space_id, user_id) where state = 'PENDING' do nothing",
                    )
                    .bind(new.registration_id.clone())
                    .bind(new.space_id.clone())
                    .bind(new.user_id.clone())
                    .bind(new.note.clone())
                    .bind(new.state)
                    .bind(new.suggestion)
                    .bind(to_millis(now))
                    .bind(decided)
                    .execute(&mut *conn)
                    .await?
                    .rows_affected();
                    if written == 1 && new.state == "APPROVED" {
                        add_member(conn, &new.space_id, &new.user_id, now).await?;
                    }
                    if written == 1 {
                        outbox.write_in(conn, now).await?;
                    }
                    Ok(written == 1)
                })
            })
            .await?;
        self.db.committed(outbox).await;
        Ok(inserted)
    }

    /// The user's pending registration for a space, if any.
    pub async fn pending_of(&self, space_id: &str, user_id: &str) -> StoreResult<Option<StoredRegistration>> {
        self.one("r.space_id = $1 and r.user_id = $2 and r.state = 'PENDING'", space_id, user_id).await
    }

    /// The user's latest approved registration for a space, if any.
    pub async fn approved_of(&self, space_id: &str, user_id: &str) -> StoreResult<Option<StoredRegistration>> {
        self.one("r.space_id = $1 and r.user_id = $2 and r.state = 'APPROVED'", space_id, user_id).await
    }

    /// A registration of a space by id.
    pub async fn registration(&self, space_id: &str, registration_id: &str) -> StoreResult<Option<StoredRegistration>> {
        self.one("r.space_id = $1 and r.registration_id = $2", space_id, registration_id).await
    }

    async fn one(&self, condition: &str, first: &str, second: &str) -> StoreResult<Option<StoredRegistration>> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {COLUMNS} from registration r join app_user u on u.user_id = r.user_id where {condition} \
             order by r.created_at desc limit 1"
        )))
        .bind(first.to_owned())
        .bind(second.to_owned())
        .fetch_optional(&self.db.pool)
        .await?;
        Ok(row.as_ref().map(from_row).transpose()?)
    }

    /// A space's pending registrations, newest first, after the `(created_at, registration_id)` key
    /// of the previous page.
    pub async fn pending(
        &self,
        space_id: &str,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> StoreResult<Vec<StoredRegistration>> {
        let keyset = Keyset::newest_first(after);
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "select {COLUMNS} from registration r join app_user u on u.user_id = r.user_id \
             where r.space_id = $1 and r.state = 'PENDING' and {after} \
             {order} limit $4",
            after = keyset.after("r.created_at", "r.registration_id", 2),
            order = keyset.order_by("r.created_at", "r.registration_id"),
        )))
        .bind(space_id.to_owned())
        .bind_keyset(keyset)
        .bind(limit)
        .fetch_all(&self.db.pool)
        .await?;
        Ok(rows.iter().map(from_row).collect::<Result<_, _>>()?)
    }

    /// The owner's decision on a pending registration; approval makes the user a member in the same
    /// transaction. `false` when it is not pending (any more), nothing written.
    pub async fn decide(
        &self,
        space_id: &str,
        registration_id: &str,
        approved: bool,
        decided_by: &str,
        outbox: &Arc<Outbox>,
        now: OffsetDateTime,
    ) -> StoreResult<bool> {
        let work = Arc::new((space_id.to_owned(), registration_id.to_owned(), decided_by.to_owned(), outbox.clone()));
        let decided = self
            .db
            .write(move |conn| {
                let work = work.clone();
                Box::pin(async move {
                    let (space_id, registration_id, decided_by, outbox) = &*work;
                    let user: Option<String> = sqlx::query_scalar(
                        "update registration set state = $3, decided_at = $4, decided_by = $5 \
                         where space_id = $1 and registration_id = $2 and state = 'PENDING' returning user_id",
                    )
                    .bind(space_id.clone())
                    .bind(registration_id.clone())
                    .bind(if approved { "APPROVED" } else { "REJECTED" })
                    .bind(to_millis(now))
                    .bind(decided_by.clone())
                    .fetch_optional(&mut *conn)
                    .await?;
                    let Some(user_id) = user else { return Ok(false) };
                    if approved {
                        add_member(conn, space_id, &user_id, now).await?;
                    }
                    outbox.write_in(conn, now).await?;
                    Ok(true)
                })
            })
            .await?;
        self.db.committed(outbox).await;
        Ok(decided)
    }

    /// Pending registrations of a space (each space holds a bounded number).
    pub async fn pending_in_space(&self, space_id: &str) -> StoreResult<i64> {
        self.count("space_id", space_id).await
    }

    /// Pending registrations of a user across spaces (each user holds a bounded number).
    pub async fn pending_of_user(&self, user_id: &str) -> StoreResult<i64> {
        self.count("user_id", user_id).await
    }

    async fn count(&self, column: &'static str, id: &str) -> StoreResult<i64> {
        let n = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "select count(*) from registration where {column} = $1 and state = 'PENDING'"
        )))
        .bind(id.to_owned())
        .fetch_one(&self.db.pool)
        .await?;
        Ok(n)
    }
}
