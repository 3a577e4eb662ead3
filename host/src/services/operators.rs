//! The platform operator role: granted and revoked from the command line (`trellis admin
//! grant-operator` / `revoke-operator`), and read afresh from the database on every operator route,
//! so a revocation takes effect at once on every server whatever sessions they cached.

use std::borrow::Cow;

use crate::error::{Error, Result};
use crate::infra::stale::{self, Stale};
use crate::store::{SessionUser, Store, StoreError};

/// FORBIDDEN unless `user` is a platform operator now.
pub async fn require(store: &Store, user: &SessionUser) -> Result<()> {
    if store.users.is_operator(&user.user_id).await? {
        Ok(())
    } else {
        Err(Error::Forbidden(Cow::Borrowed("only a platform operator may do this")))
    }
}

/// Grants (`true`) or revokes the role of the user with `handle`; cached sessions of that user are
/// dropped on every server that hears the announcement.
pub async fn set(store: &Store, handle: &str, operator: bool) -> anyhow::Result<()> {
    let user_id = match store.users.set_operator(handle, operator).await {
        Ok(user_id) => user_id,
        Err(StoreError::NotFound) => anyhow::bail!("no user has the handle {handle:?}"),
        Err(e) => return Err(e.into()),
    };
    stale::announce(store, Stale::UserSessions(user_id)).await;
    Ok(())
}
