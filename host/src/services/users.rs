//! Users as other users and their owners see them: the own profile's changes and handle search.

use time::OffsetDateTime;

use crate::domain::account::{self, HandlePrefix, ProfileChange, SessionUser};
use crate::domain::precondition::Precondition;
use crate::domain::problems::{Parsed, Problems};
use crate::error::{Error, OnStale, Result, check_precondition};
use crate::store::UserRepo;

use crate::services::accounts::Account;

pub struct Users {
    users: UserRepo,
}

impl Users {
    pub fn new(users: UserRepo) -> Self {
        Self { users }
    }

    /// Applies `{displayName?, fullName?}`; every other member is refused at its path. With a
    /// precondition, a profile changed since (its fields or its avatar) is 412.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
    pub async fn update_profile(
        &self,
        user: &SessionUser,
        body: Parsed<ProfileChange>,
        precondition: &Precondition,
    ) -> Result<Account> {
        let change = body?;
        let expected = if precondition.is_given() {
            let current = Account::from(self.users.user_by_id(&user.user_id).await?);
            check_precondition(precondition, &current.etag())?;
            Some(current.state())
        } else {
            None
        };
        let now = OffsetDateTime::now_utc();
        let updated = self
            .users
            .update_profile(
                &user.user_id,
                change.display_name.as_deref(),
                change.full_name.as_deref(),
                expected.as_ref(),
                now,
            )
            .await
            .map_err(Error::from)
            .on_stale(precondition)?;
        Ok(updated.into())
    }

    /// Users whose handle starts with the prefix `q` names (problems at `q`), in handle order,
    /// after the handle `after`.
    pub async fn search(
        &self,
        q: Option<&str>,
        after: Option<&str>,
        limit: i64,
        problems: Problems,
    ) -> Result<Vec<Account>> {
        let prefix = account::parse_handle_prefix(q, problems)?;
        match prefix {
            // A prefix with characters no handle has matches nothing; no need to ask the database.
            HandlePrefix::MatchesNothing => Ok(Vec::new()),
            HandlePrefix::Prefix(prefix) => {
                let users = self.users.search_handles(&prefix, after, limit).await?;
                Ok(users.into_iter().map(Account::from).collect())
            }
        }
    }
}
