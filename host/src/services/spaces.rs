//! Spaces: creation, general settings, membership and the set of connected modules.
//!
//! A space is visible to its members only: to anybody else every route answers NOT_FOUND, never
//! FORBIDDEN, so ids cannot be probed. Memberships and connected modules sit on the path of every
//! module request, so both are served from a short-lived [`Cache`].

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use time::OffsetDateTime;

use crate::domain::precondition::{EntityTag, Precondition};
use crate::domain::problems::Parsed;
use crate::domain::spaces::{self, GeneralChange, NewSpace, Role};
use crate::error::{Error, OnConflict, Result, check_precondition};
use crate::infra::cache::Cache;
use crate::infra::stale::{self, Stale};
use crate::store::{NewSpaceRow, STALE_SPACE, SessionUser, SpaceChange, SpaceModule, Store, StoreError, StoredSpace};

/// A space as one of its members sees it, as the space use cases answer it.
#[derive(Clone, Debug)]
pub struct SpaceMembership {
    pub space_id: String,
    pub name: String,
    pub display_name: String,
    pub summary: String,
    /// The member's role: `owner`, `member` or `reader`.
    pub role: String,
    pub revision: i64,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

impl SpaceMembership {
    fn new(space: StoredSpace, role: &str) -> Self {
        Self {
            space_id: space.space_id,
            name: space.name,
            display_name: space.display_name,
            summary: space.summary,
            role: role.to_owned(),
            revision: space.revision,
            created_at: space.created_at,
            updated_at: space.updated_at,
        }
    }

    /// The general settings' revision, and the role the answer shows.
    pub fn etag(&self) -> EntityTag {
        EntityTag::qualified(&[self.revision], &self.role)
    }
}

const NAME_TAKEN: &str = "a space with this name exists";
/// Memberships and spaces' module sets kept in memory.
const CACHED_ROLES: u64 = 100_000;
const CACHED_SPACES: u64 = 10_000;

pub struct Spaces {
    store: Store,
    /// Roles by `"<space id>/<user id>"`. Only memberships are remembered: a user who just became
    /// a member (possibly through another server) is let in at once.
    roles: Cache<String, Role>,
    /// Connected modules by space id.
    modules: Cache<String, ModuleSet>,
}

/// The modules connected to a space, in the order the owner gave them, and the revision of that set.
#[derive(Clone, Debug)]
pub struct ModuleSet {
    pub revision: i64,
    pub modules: Arc<[SpaceModule]>,
}

impl ModuleSet {
    /// The strong tag of the set as its members read it.
    pub fn etag(&self) -> EntityTag {
        EntityTag::of_revisions(&[self.revision])
    }
}

/// A space id from a path or a body, in canonical form; `None` when it cannot name a space.
pub fn canonical_id(space_id: &str) -> Option<String> {
    uuid::Uuid::try_parse(space_id).ok().map(|id| id.to_string())
}

fn role_key(space_id: &str, user_id: &str) -> String {
    format!("{space_id}/{user_id}")
}

fn not_found() -> Error {
    Error::not_found("space")
}

impl Spaces {
    pub fn new(store: Store, cache_ttl: Duration) -> Self {
        Self { store, roles: Cache::new(cache_ttl, CACHED_ROLES), modules: Cache::new(cache_ttl, CACHED_SPACES) }
    }

    /// Creates a space from `{name, displayName, summary?}`; the creator becomes its owner. A user
    /// owns at most [`spaces::MAX_OWNED_SPACES`] spaces (beyond: CONFLICT).
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id))]
    pub async fn create(&self, user: &SessionUser, body: Parsed<NewSpace>) -> Result<SpaceMembership> {
        let new = body?;
        let space_id = uuid::Uuid::new_v4().to_string();
        let row = NewSpaceRow {
            space_id: &space_id,
            owner_id: &user.user_id,
            name: &new.name,
            display_name: &new.display_name,
            summary: &new.summary,
        };
        let space = self
            .store
            .spaces
            .insert_space(&row, spaces::MAX_OWNED_SPACES, OffsetDateTime::now_utc())
            .await
            .on_conflict(NAME_TAKEN)?
            .ok_or_else(|| {
                Error::Conflict(Cow::Owned(format!("a user may own at most {} spaces", spaces::MAX_OWNED_SPACES)))
            })?;
        self.roles.insert(self.roles.ticket(), role_key(&space_id, &user.user_id), Role::Owner);
        Ok(SpaceMembership::new(space, Role::Owner.as_str()))
    }

    /// The spaces the user is a member of, newest first.
    pub async fn list(
        &self,
        user: &SessionUser,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> Result<Vec<SpaceMembership>> {
        let rows = self.store.spaces.member_spaces(&user.user_id, after, limit).await?;
        Ok(rows.into_iter().map(|m| SpaceMembership::new(m.space, &m.role)).collect())
    }

    /// The role of a user in a space: a membership's, else `Reader` for a member of a channel the
    /// space is connected to; `None` for anybody else (or when the space does not exist).
    pub async fn role_of(&self, space_id: &str, user_id: &str) -> Result<Option<Role>> {
        let Some(space_id) = canonical_id(space_id) else { return Ok(None) };
        let key = role_key(&space_id, user_id);
        if let Some(role) = self.roles.get(&key) {
            return Ok(Some(role));
        }
        let ticket = self.roles.ticket();
        let mut role = self.store.spaces.space_role(&space_id, user_id).await?.as_deref().and_then(Role::parse);
        if role.is_none() && self.store.channels.reads_space_through_channel(&space_id, user_id).await? {
            role = Some(Role::Reader);
        }
        if let Some(role) = role {
            self.roles.insert(ticket, key, role);
        }
        Ok(role)
    }

    /// The canonical space id and the caller's role; NOT_FOUND for anybody who cannot read the space.
    pub async fn member_role(&self, user: &SessionUser, space_id: &str) -> Result<(String, Role)> {
        let space_id = canonical_id(space_id).ok_or_else(not_found)?;
        let role = self.role_of(&space_id, &user.user_id).await?.ok_or_else(not_found)?;
        Ok((space_id, role))
    }

    /// The canonical space id when the caller owns the space; a member or reader gets FORBIDDEN,
    /// anybody else NOT_FOUND.
    pub async fn require_owner(&self, user: &SessionUser, space_id: &str) -> Result<String> {
        match self.member_role(user, space_id).await? {
            (space_id, Role::Owner) => Ok(space_id),
            (_, Role::Member | Role::Reader) => {
                Err(Error::Forbidden(Cow::Borrowed("only the space's owner may do this")))
            }
        }
    }

    /// The canonical space id and the caller's role when the caller may write to the space (owner
    /// or member); a reader gets FORBIDDEN, anybody else NOT_FOUND.
    pub async fn writer_role(&self, user: &SessionUser, space_id: &str) -> Result<(String, Role)> {
        let (space_id, role) = self.member_role(user, space_id).await?;
        if !role.may_write() {
            return Err(Error::Forbidden(Cow::Borrowed(
                "reading a space through a channel gives no right to write to it; join the space",
            )));
        }
        Ok((space_id, role))
    }

    /// A space as one of its members sees it.
    pub async fn get(&self, user: &SessionUser, space_id: &str) -> Result<SpaceMembership> {
        let (space_id, role) = self.member_role(user, space_id).await?;
        let space = self.store.spaces.space(&space_id).await?.ok_or_else(not_found)?;
        Ok(SpaceMembership::new(space, role.as_str()))
    }

    /// Changes any of `name`, `displayName` and `summary`; owner only. With a precondition,
    /// settings changed since are 412.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
    pub async fn update_general(
        &self,
        user: &SessionUser,
        space_id: &str,
        body: Parsed<GeneralChange>,
        precondition: &Precondition,
    ) -> Result<SpaceMembership> {
        let space_id = self.require_owner(user, space_id).await?;
        let change = body?;
        let mut expected_revision = None;
        if change.is_empty() || precondition.is_given() {
            let space = self.store.spaces.space(&space_id).await?.ok_or_else(not_found)?;
            let current = SpaceMembership::new(space, Role::Owner.as_str());
            check_precondition(precondition, &current.etag())?;
            if change.is_empty() {
                return Ok(current);
            }
            expected_revision = precondition.is_given().then_some(current.revision);
        }
        let change = SpaceChange {
            name: change.name.as_deref(),
            display_name: change.display_name.as_deref(),
            summary: change.summary.as_deref(),
        };
        let space = self
            .store
            .spaces
            .update_space(&space_id, &change, expected_revision, OffsetDateTime::now_utc())
            .await
            .map_err(|error| match error {
                StoreError::Conflict(what) if what == STALE_SPACE => Error::PreconditionFailed,
                StoreError::Conflict(_) => Error::Conflict(Cow::Borrowed(NAME_TAKEN)),
                other => other.into(),
            })?;
        Ok(SpaceMembership::new(space, Role::Owner.as_str()))
    }

    /// Makes a user a member of a space with `role` (registrations, administration).
    pub async fn add_member(&self, space_id: &str, user_id: &str, role: Role) -> Result<()> {
        let space_id = canonical_id(space_id).ok_or_else(not_found)?;
        self.store.spaces.upsert_space_member(&space_id, user_id, role.as_str(), OffsetDateTime::now_utc()).await?;
        self.role_changed(&space_id, user_id).await;
        Ok(())
    }

    /// Drops what every server remembers of a user's role in a space, after a membership was
    /// written (an approved registration).
    pub async fn role_changed(&self, space_id: &str, user_id: &str) {
        self.forget_role(space_id, user_id);
        stale::announce(&self.store, Stale::Role { space_id: space_id.to_owned(), user_id: user_id.to_owned() }).await;
    }

    /// Drops every role every server remembers: a channel's members or spaces changed, which gives
    /// or takes the right to read the channel's spaces.
    pub async fn roles_changed(&self) {
        self.forget_roles();
        stale::announce(&self.store, Stale::Roles).await;
    }

    /// Drops what this server remembers of a user's role in a space.
    pub fn forget_role(&self, space_id: &str, user_id: &str) {
        self.roles.remove(&role_key(space_id, user_id));
    }

    pub fn forget_roles(&self) {
        self.roles.clear();
    }

    pub fn forget_modules(&self, space_id: &str) {
        self.modules.remove(space_id);
    }

    pub fn forget_all_modules(&self) {
        self.modules.clear();
    }

    /// The modules connected to a space, in the order the owner gave them.
    pub async fn connected_modules(&self, space_id: &str) -> Result<Arc<[SpaceModule]>> {
        Ok(self.module_set(space_id).await?.modules)
    }

    /// The connected set with its revision, as this server remembers it.
    pub async fn module_set(&self, space_id: &str) -> Result<ModuleSet> {
        if let Some(set) = self.modules.get(space_id) {
            return Ok(set);
        }
        let ticket = self.modules.ticket();
        let set = self.stored_module_set(space_id).await?;
        self.modules.insert(ticket, space_id.to_owned(), set.clone());
        Ok(set)
    }

    /// The connected set as stored now (what a precondition is checked against).
    pub async fn stored_module_set(&self, space_id: &str) -> Result<ModuleSet> {
        let (revision, modules) = self.store.spaces.space_modules(space_id).await?;
        Ok(ModuleSet { revision, modules: modules.into() })
    }

    /// Replaces the connected set of a space; the caller has checked ownership and configs. With
    /// `expected_revision`, a set that moved on since is `Conflict`.
    pub async fn replace_modules(
        &self,
        space_id: &str,
        modules: Vec<SpaceModule>,
        expected_revision: Option<i64>,
    ) -> Result<ModuleSet> {
        let revision = self.store.spaces.replace_space_modules(space_id, &modules, expected_revision).await?;
        self.modules.remove(space_id);
        stale::announce(&self.store, Stale::SpaceModules(space_id.to_owned())).await;
        Ok(ModuleSet { revision, modules: modules.into() })
    }
}
