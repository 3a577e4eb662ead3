//! The marketplace (conventions 4, 6, 12 and 13): the owner's listing preparation, the operator's
//! queue and decisions, the public listing, and, in the submodules, the trending ranking and the
//! registrations.
//!
//! Listings are visible through the marketplace once the operator approved their text; to anybody
//! else a space stays invisible (404), as everywhere.

pub mod ranking;
pub mod registrations;

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::{Map, Value};
use time::OffsetDateTime;
use trellis_modules::{ConfigError, ModuleHost};

use crate::domain::marketplace::{self, ListingDecision, ListingState, ListingText, Membership};
use crate::domain::precondition::{EntityTag, Precondition};
use crate::domain::problems::{Parsed, Problems};
use crate::error::{Error, OnStale, Result, check_precondition};
use crate::services::operators;
use crate::services::spaces::{Spaces, canonical_id};
use crate::store::{ListedSpace, ListingRow, Outbox, SessionUser, Store, StoredListing};

use ranking::Ranking;
use registrations::RegistrationLimits;

/// A space's marketplace settings as its owner reads them.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub space_id: String,
    pub text: ListingText,
    pub membership: Membership,
    pub rules: Map<String, Value>,
    pub state: ListingState,
    /// The operator's reason of the last decision.
    pub reason: Option<String>,
    /// Whether the marketplace shows the space (it has an approved text).
    pub listed: bool,
    pub updated_at: Option<OffsetDateTime>,
    /// The listing's revision; before the first save, the settings show the space's own text and
    /// change with the space's revision.
    pub etag: EntityTag,
}

/// A listing in the operator's queue.
#[derive(Clone, Debug, PartialEq)]
pub struct QueuedListing {
    pub settings: Settings,
    pub space_name: String,
    pub owner_handle: String,
    pub submitted_at: Option<OffsetDateTime>,
}

/// A listed space as anybody with a license reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct PublicListing {
    pub space_id: String,
    pub text: ListingText,
    pub membership: String,
    pub members: i64,
    pub assets: i64,
    pub listed_at: OffsetDateTime,
}

impl PublicListing {
    pub(crate) fn from_listed(listed: ListedSpace) -> Self {
        PublicListing {
            text: ListingText {
                title: listed.title,
                summary: listed.summary,
                categories: serde_json::from_str(&listed.categories).unwrap_or_default(),
            },
            space_id: listed.space_id,
            membership: listed.membership,
            members: listed.members,
            assets: listed.assets,
            listed_at: listed.listed_at,
        }
    }
}

fn settings_of(listing: &StoredListing) -> Settings {
    Settings {
        space_id: listing.space_id.clone(),
        text: ListingText {
            title: listing.title.clone(),
            summary: listing.summary.clone(),
            categories: serde_json::from_str(&listing.categories).unwrap_or_default(),
        },
        membership: Membership::parse(&listing.membership).unwrap_or_default(),
        rules: serde_json::from_str(&listing.rules).unwrap_or_default(),
        state: ListingState::parse(&listing.state).unwrap_or(ListingState::Draft),
        reason: listing.reason.clone(),
        listed: listing.listed_at.is_some(),
        updated_at: Some(listing.updated_at),
        etag: EntityTag::qualified(&[listing.revision], "listing"),
    }
}

fn queued(listing: &StoredListing) -> QueuedListing {
    QueuedListing {
        settings: settings_of(listing),
        space_name: listing.space_name.clone(),
        owner_handle: listing.owner_handle.clone(),
        submitted_at: listing.submitted_at,
    }
}

fn listing_not_found() -> Error {
    Error::not_found("listing")
}

pub struct Marketplace {
    store: Store,
    spaces: Arc<Spaces>,
    host: ModuleHost,
    /// The deployment's rule module, if any.
    rule_module: Option<String>,
    ranking: Arc<Ranking>,
    limits: RegistrationLimits,
}

impl Marketplace {
    pub fn new(
        store: Store,
        spaces: Arc<Spaces>,
        host: ModuleHost,
        ranking: Arc<Ranking>,
        limits: RegistrationLimits,
    ) -> Self {
        let rule_module = ranking.rule_module().map(str::to_owned);
        Self { store, spaces, host, rule_module, ranking, limits }
    }

    pub fn ranking(&self) -> &Arc<Ranking> {
        &self.ranking
    }

    /// The marketplace settings of a space; owner only. A space whose owner never saved any
    /// answers a DRAFT prefilled with the space's display name and summary.
    pub async fn settings(&self, user: &SessionUser, space_id: &str) -> Result<Settings> {
        let space_id = self.spaces.require_owner(user, space_id).await?;
        match self.store.listings.listing(&space_id).await? {
            Some(listing) => Ok(settings_of(&listing)),
            None => self.fresh_settings(&space_id).await,
        }
    }

    async fn fresh_settings(&self, space_id: &str) -> Result<Settings> {
        let space = self.store.spaces.space(space_id).await?.ok_or_else(|| Error::not_found("space"))?;
        Ok(Settings {
            space_id: space_id.to_owned(),
            text: ListingText { title: space.display_name, summary: space.summary, categories: Vec::new() },
            membership: Membership::default(),
            rules: Map::new(),
            state: ListingState::Draft,
            reason: None,
            listed: false,
            updated_at: None,
            etag: EntityTag::qualified(&[space.revision], "space"),
        })
    }

    /// Saves `{title, summary, categories, membership, rules, submit}`; owner only. A change of the
    /// text of an APPROVED listing goes back through approval (the approved text stays listed
    /// meanwhile); the membership policy and the rules apply at once.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
    pub async fn save_settings(
        &self,
        user: &SessionUser,
        space_id: &str,
        body: &Map<String, Value>,
        precondition: &Precondition,
    ) -> Result<Settings> {
        let space_id = self.spaces.require_owner(user, space_id).await?;
        // The rules' problems are listed with the others.
        let rule_problems = match body.get("rules") {
            Some(Value::Object(rules)) => self.rule_problems(rules)?,
            _ => Problems::new(),
        };
        let change = match marketplace::parse_settings(body) {
            Ok(change) => rule_problems.finish(change)?,
            Err(mut problems) => {
                problems.extend(rule_problems);
                return Err(problems.into());
            }
        };
        let stored = self.store.listings.listing(&space_id).await?;
        let before = match &stored {
            Some(listing) => settings_of(listing),
            None => self.fresh_settings(&space_id).await?,
        };
        check_precondition(precondition, &before.etag)?;
        let read_revision = stored.as_ref().filter(|_| precondition.is_given()).map(|listing| listing.revision);
        let text = change.apply_to(&before.text);
        let text_changed = text != before.text;
        let state = before.state.after_save(text_changed, change.submit);
        if state == ListingState::Submitted {
            marketplace::check_submittable(&text)?;
        }
        let row = ListingRow {
            space_id: space_id.clone(),
            title: text.title.clone(),
            summary: text.summary.clone(),
            categories: serde_json::to_string(&text.categories).map_err(anyhow::Error::from)?,
            membership: change.membership.unwrap_or(before.membership).as_str().to_owned(),
            rules: Value::Object(change.rules.clone().unwrap_or(before.rules.clone())).to_string(),
            state: state.as_str(),
        };
        let read_state = stored.as_ref().map(|_| before.state.as_str());
        if !self.store.listings.save(row, read_state, read_revision, OffsetDateTime::now_utc()).await? {
            return Err(Error::Conflict(Cow::Borrowed("the listing changed meanwhile; read it and save again")))
                .on_stale(precondition);
        }
        let saved = self.store.listings.listing(&space_id).await?.ok_or_else(listing_not_found)?;
        if saved.listed_at.is_some() {
            // The membership policy shows in the listing.
            self.ranking.changed();
        }
        Ok(settings_of(&saved))
    }

    /// What breaks the rule module's configuration schema in the owner's registration rules, at
    /// `/rules/...`.
    fn rule_problems(&self, rules: &Map<String, Value>) -> Result<Problems> {
        let mut problems = Problems::new();
        let Some(module_id) = &self.rule_module else {
            if !rules.is_empty() {
                problems.push("/rules", "NO_RULE_MODULE", "this deployment runs no marketplace rule module");
            }
            return Ok(problems);
        };
        match self.host.validate_config(module_id, &Value::Object(rules.clone())) {
            Ok(()) => {}
            Err(ConfigError::UnknownModule) => {
                return Err(Error::Internal(anyhow::anyhow!("rule module {module_id} is gone")));
            }
            Err(ConfigError::Invalid(found)) => {
                for problem in found {
                    problems.push(format!("/rules{}", problem.path), "INVALID_RULES", problem.message);
                }
            }
        }
        Ok(problems)
    }

    /// Listings in `states` (all when empty), newest change first: the operator's queue.
    pub async fn queue(
        &self,
        user: &SessionUser,
        states: &[ListingState],
        after: Option<(i64, String)>,
        limit: i64,
    ) -> Result<Vec<QueuedListing>> {
        operators::require(&self.store, user).await?;
        let states: Vec<&'static str> = states.iter().map(|s| s.as_str()).collect();
        let rows = self.store.listings.listings(&states, after, limit).await?;
        Ok(rows.iter().map(queued).collect())
    }

    /// The operator decides a SUBMITTED listing with `{approved: "YES" | "NO", reason}`, or takes a
    /// listed space off the marketplace with `NO` whatever its listing's state; the owner is told by
    /// a message from `system`.
    #[tracing::instrument(skip_all, fields(user_id = %user.user_id, space_id))]
    pub async fn decide(
        &self,
        user: &SessionUser,
        space_id: &str,
        body: Parsed<ListingDecision>,
    ) -> Result<QueuedListing> {
        operators::require(&self.store, user).await?;
        let ListingDecision { approved, reason } = body?;
        let space_id = canonical_id(space_id).ok_or_else(listing_not_found)?;
        let listing = self.store.listings.listing(&space_id).await?.ok_or_else(listing_not_found)?;
        let submitted = listing.state == ListingState::Submitted.as_str();
        let takedown = !submitted && !approved && listing.listed_at.is_some();
        if !submitted && !takedown {
            return Err(Error::InvalidTransition(Cow::Owned(format!(
                "only a SUBMITTED listing can be decided, and a listed space taken down (approved NO); this one is \
                 {}{}",
                listing.state,
                if listing.listed_at.is_some() { "" } else { " and not listed" }
            ))));
        }
        // The owner is told with the decision's own commit.
        let notice = if takedown {
            takedown_notice(&listing, reason.as_deref())
        } else {
            owner_notice(&listing, approved, reason.as_deref())
        };
        let outbox = Arc::new(match notice {
            Some(notice) => Outbox::new().notice(notice),
            None => Outbox::new(),
        });
        let now = OffsetDateTime::now_utc();
        let done = if takedown {
            self.store.listings.take_down(&space_id, reason.clone(), &outbox, now).await?
        } else {
            self.store.listings.decide(&space_id, approved, reason.clone(), &outbox, now).await?
        };
        if !done {
            return Err(Error::InvalidTransition(Cow::Borrowed("the listing changed meanwhile; decide it again")));
        }
        let decided = self.store.listings.listing(&space_id).await?.ok_or_else(listing_not_found)?;
        if approved || takedown {
            self.ranking.changed();
        }
        Ok(queued(&decided))
    }

    /// A listed space, for anybody with a license; NOT_FOUND unless its listing was approved.
    pub async fn listing(&self, space_id: &str) -> Result<PublicListing> {
        let space_id = canonical_id(space_id).ok_or_else(listing_not_found)?;
        let listed = self.store.listings.listed(&space_id).await?.ok_or_else(listing_not_found)?;
        Ok(PublicListing::from_listed(listed))
    }
}

/// The notice from `system` that tells a listing's owner their space was taken off the marketplace.
fn takedown_notice(listing: &StoredListing, reason: Option<&str>) -> Option<crate::store::NewMessageRow> {
    let subject = format!("Your marketplace listing \"{}\" was taken down", listing.title);
    let body = format!(
        "The platform operator took the marketplace listing of your space {} down: it is no longer listed.\n\n\
         Reason: {}\n\nYou can change the listing and submit it again.",
        listing.space_name,
        reason.unwrap_or("none given")
    );
    crate::services::messages::notice(&listing.owner_id, &subject, &body)
        .inspect_err(|error| {
            tracing::warn!(%error, space_id = %listing.space_id, "the owner could not be told of the takedown");
        })
        .ok()
}

/// The notice from `system` that tells a listing's owner of the operator's decision; `None` (and
/// logged) when it cannot be written, which must not stop the decision.
fn owner_notice(listing: &StoredListing, approved: bool, reason: Option<&str>) -> Option<crate::store::NewMessageRow> {
    let (subject, body) = if approved {
        (
            format!("Your marketplace listing \"{}\" is approved", listing.title),
            format!(
                "The platform operator approved the marketplace listing of your space {}. It is listed as \"{}\".{}",
                listing.space_name,
                listing.title,
                reason.map(|r| format!("\n\nThe operator wrote: {r}")).unwrap_or_default()
            ),
        )
    } else {
        (
            format!("Your marketplace listing \"{}\" was not approved", listing.title),
            format!(
                "The platform operator did not approve the marketplace listing of your space {}.\n\nReason: {}\n\n\
                 You can change the listing and submit it again.",
                listing.space_name,
                reason.unwrap_or("none given")
            ),
        )
    };
    crate::services::messages::notice(&listing.owner_id, &subject, &body)
        .inspect_err(|error| {
            tracing::warn!(%error, space_id = %listing.space_id, "the owner could not be told of the listing decision");
        })
        .ok()
}
