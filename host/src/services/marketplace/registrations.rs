//! Registrations to join a listed space (conventions 4, 12 and 13). The space's membership policy
//! decides first: OPEN lets the user in at once, CLOSED takes no registrations (403), APPROVAL asks
//! the deployment's rule module with the owner's rules and otherwise leaves it to the owner. A rule
//! may let a user in (the owner configured it) but never keeps one out: a rule's rejection is only a
//! suggestion the owner sees, so the owner's decision stays final.

use std::borrow::Cow;
use std::sync::Arc;

use time::OffsetDateTime;
use trellis_modules::{Decision, Invocation, Registration as RuleRegistration};

use super::{Marketplace, listing_not_found};
use crate::domain::live::LiveEvent;
use crate::domain::marketplace::{Membership, OwnerDecision, RegistrationNote, RegistrationState};
use crate::domain::problems::Parsed;
use crate::error::{Error, Result};
use crate::services::spaces::canonical_id;
use crate::store::{NewRegistration, Outbox, SessionUser, StoredRegistration};

/// What a registration answers: `{registrationId, state}`, and whether it was made now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegistrationAnswer {
    /// `None` for the space's owner, who never registered.
    pub registration_id: Option<String>,
    pub state: RegistrationState,
    pub created: bool,
}

/// A pending registration as the owner sees it.
pub struct PendingRegistration {
    pub registration_id: String,
    pub user_id: String,
    pub handle: String,
    pub note: String,
    /// What the owner's rules suggest (`REJECT`) when they did not decide.
    pub suggestion: Option<String>,
    pub created_at: OffsetDateTime,
}

impl From<StoredRegistration> for PendingRegistration {
    fn from(r: StoredRegistration) -> Self {
        Self {
            registration_id: r.registration_id,
            user_id: r.user_id,
            handle: r.handle,
            note: r.note,
            suggestion: r.suggestion,
            created_at: r.created_at,
        }
    }
}

/// Bounds on what registrations may hold.
#[derive(Clone, Copy, Debug)]
pub struct RegistrationLimits {
    pub per_space: i64,
    pub per_user: i64,
}

impl Marketplace {
    /// Registers the caller with a listed space from `{}` or `{note}`. A second registration while
    /// one is pending answers the pending one; a member's answers their membership.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
    pub async fn register(
        &self,
        user: &SessionUser,
        space_id: &str,
        body: Parsed<RegistrationNote>,
    ) -> Result<RegistrationAnswer> {
        let limits = self.limits;
        let RegistrationNote(note) = body?;
        let space_id = canonical_id(space_id).ok_or_else(listing_not_found)?;
        // One read gives what a registration needs: listed or not, the policy, the owner's rules.
        let listing = self.store.listings.listing(&space_id).await?.ok_or_else(listing_not_found)?;
        let title = listing.listed_title.clone().ok_or_else(listing_not_found)?;
        if let Some(answer) = self.existing(&space_id, user).await? {
            return Ok(answer);
        }
        let membership = Membership::parse(&listing.membership).unwrap_or_default();
        if membership == Membership::Closed {
            return Err(Error::Forbidden(Cow::Borrowed("this space takes no registrations (membership CLOSED)")));
        }
        if self.store.registrations.pending_of_user(&user.user_id).await? >= limits.per_user {
            return Err(Error::Conflict(Cow::Owned(format!(
                "you have {} registrations awaiting a decision, the most one may have",
                limits.per_user
            ))));
        }
        if self.store.registrations.pending_in_space(&space_id).await? >= limits.per_space {
            return Err(Error::Conflict(Cow::Borrowed(
                "this space has as many registrations awaiting its owner as it may hold; try again later",
            )));
        }
        let (state, suggestion) = match membership {
            Membership::Open => (RegistrationState::Approved, None),
            _ => match self.rule_decision(&space_id, &listing.rules, user, &note).await {
                Some(Decision::Approve) => (RegistrationState::Approved, None),
                Some(Decision::Reject) => (RegistrationState::Pending, Some("REJECT")),
                Some(Decision::DeferToOwner) | None => (RegistrationState::Pending, None),
            },
        };
        let registration_id = uuid::Uuid::new_v4().to_string();
        let new = NewRegistration {
            registration_id: registration_id.clone(),
            space_id: space_id.clone(),
            user_id: user.user_id.clone(),
            note,
            state: state.as_str(),
            suggestion,
        };
        // A registration the rule approves at once tells the user with its own commit; registrant
        // and owner hear of it live.
        let live = LiveEvent::registration_changed(
            &user.user_id,
            &listing.owner_id,
            &space_id,
            &registration_id,
            state.as_str(),
        );
        let outbox = Arc::new(
            match state {
                RegistrationState::Approved => registrant_notice(&user.user_id, &title, true)
                    .map_or_else(Outbox::new, |notice| Outbox::new().notice(notice)),
                _ => Outbox::new(),
            }
            .live(live),
        );
        if !self.store.registrations.insert(new, &outbox, OffsetDateTime::now_utc()).await? {
            // A parallel registration of the same user won: answer it.
            return self.existing(&space_id, user).await?.ok_or_else(|| {
                Error::Conflict(Cow::Borrowed("a registration of yours was decided meanwhile; register again"))
            });
        }
        self.ranking.changed();
        if state == RegistrationState::Approved {
            self.spaces.role_changed(&space_id, &user.user_id).await;
        }
        Ok(RegistrationAnswer { registration_id: Some(registration_id), state, created: true })
    }

    /// The caller's pending registration, or their membership, if either exists.
    async fn existing(&self, space_id: &str, user: &SessionUser) -> Result<Option<RegistrationAnswer>> {
        if let Some(pending) = self.store.registrations.pending_of(space_id, &user.user_id).await? {
            return Ok(Some(RegistrationAnswer {
                registration_id: Some(pending.registration_id),
                state: RegistrationState::Pending,
                created: false,
            }));
        }
        // Only a real membership counts: a reader through a channel may still register.
        if self.store.spaces.space_role(space_id, &user.user_id).await?.is_some() {
            let approved = self.store.registrations.approved_of(space_id, &user.user_id).await?;
            return Ok(Some(RegistrationAnswer {
                registration_id: approved.map(|r| r.registration_id),
                state: RegistrationState::Approved,
                created: false,
            }));
        }
        Ok(None)
    }

    /// What the rule module says with the owner's rules; `None` without a module or when it fails
    /// (the owner decides then).
    async fn rule_decision(&self, space_id: &str, rules: &str, user: &SessionUser, note: &str) -> Option<Decision> {
        let module_id = self.rule_module.as_ref()?;
        let registration = RuleRegistration {
            space_id: space_id.to_owned(),
            user_id: user.user_id.clone(),
            handle: user.handle.clone(),
            note: note.to_owned(),
            membership: Membership::Approval.as_str().to_owned(),
        };
        let invocation = Invocation { space_id: String::new(), config_json: rules.to_owned() };
        match self.host.registration_decision(module_id, invocation, registration).await {
            Ok(decision) => Some(decision),
            Err(failure) => {
                tracing::warn!(%failure, module_id, space_id, "the rule module could not decide a registration; the owner will");
                None
            }
        }
    }

    /// A space's pending registrations, newest first; owner only.
    pub async fn pending(
        &self,
        user: &SessionUser,
        space_id: &str,
        after: Option<(i64, String)>,
        limit: i64,
    ) -> Result<Vec<PendingRegistration>> {
        let space_id = self.spaces.require_owner(user, space_id).await?;
        let rows = self.store.registrations.pending(&space_id, after, limit).await?;
        Ok(rows.into_iter().map(PendingRegistration::from).collect())
    }

    /// The owner decides a pending registration with `{registrationId, approved: "YES" | "NO"}`; an
    /// approved user becomes a member. The user is told by a message from `system`.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
    pub async fn decide_registration(
        &self,
        user: &SessionUser,
        space_id: &str,
        body: Parsed<OwnerDecision>,
    ) -> Result<RegistrationAnswer> {
        let space_id = self.spaces.require_owner(user, space_id).await?;
        let OwnerDecision { registration_id, approved } = body?;
        let registration: StoredRegistration = self
            .store
            .registrations
            .registration(&space_id, &registration_id)
            .await?
            .ok_or_else(|| Error::not_found("registration"))?;
        if registration.state != RegistrationState::Pending.as_str() {
            return Err(Error::InvalidTransition(Cow::Borrowed("only a PENDING registration can be decided")));
        }
        let title = match self.store.listings.listing(&space_id).await?.and_then(|l| l.listed_title) {
            Some(title) => title,
            None => self.store.spaces.space(&space_id).await?.map(|s| s.display_name).unwrap_or_default(),
        };
        // The registrant is told with the decision's own commit.
        let state = if approved { RegistrationState::Approved } else { RegistrationState::Rejected };
        let live = LiveEvent::registration_changed(
            &registration.user_id,
            &user.user_id,
            &space_id,
            &registration_id,
            state.as_str(),
        );
        let outbox = Arc::new(
            match registrant_notice(&registration.user_id, &title, approved) {
                Some(notice) => Outbox::new().notice(notice),
                None => Outbox::new(),
            }
            .live(live),
        );
        let now = OffsetDateTime::now_utc();
        if !self.store.registrations.decide(&space_id, &registration_id, approved, &user.user_id, &outbox, now).await? {
            return Err(Error::InvalidTransition(Cow::Borrowed("only a PENDING registration can be decided")));
        }
        if approved {
            self.spaces.role_changed(&space_id, &registration.user_id).await;
            self.ranking.changed();
        }
        Ok(RegistrationAnswer { registration_id: Some(registration_id), state, created: false })
    }
}

/// The notice from `system` that tells a registrant of the owner's decision; `None` (and logged)
/// when it cannot be written, which must not stop the decision.
fn registrant_notice(user_id: &str, title: &str, approved: bool) -> Option<crate::store::NewMessageRow> {
    let (subject, body) = if approved {
        (
            format!("You are now a member of \"{title}\""),
            format!("Your registration with \"{title}\" is approved: you are a member of the space now."),
        )
    } else {
        (
            format!("Your registration with \"{title}\" was declined"),
            format!("The owner of \"{title}\" declined your registration."),
        )
    };
    crate::services::messages::notice(user_id, &subject, &body)
        .inspect_err(|error| tracing::warn!(%error, user_id, "a registrant could not be told of the decision"))
        .ok()
}
