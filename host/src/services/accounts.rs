//! Sign-up, login, sessions and password reset, as `conventions.md` section 5 describes them.

use std::borrow::Cow;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use time::OffsetDateTime;

use dashmap::DashSet;

use crate::domain::account;
use crate::domain::account::ChallengePurpose;
use crate::domain::precondition::EntityTag;
use crate::domain::problems::Problems;
use crate::domain::secret;
use crate::error::{Error, Result};
use crate::infra::cache::Cache;
use crate::infra::mail::Mailer;
use crate::infra::password_work::PasswordWork;
use crate::infra::rate_limits::RateLimits;
use crate::infra::stale::{self, Stale};
use crate::store::{NewChallenge, ProfileState, SessionUser, Store, StoreError};

/// The records an account use case answers with: handlers show these, and reach them only through the use case.
use crate::store::User;

mod reset;

/// An account as the account use cases answer it.
#[derive(Clone, Debug)]
pub struct Account {
    pub user_id: String,
    pub email: String,
    pub handle: String,
    pub full_name: String,
    pub display_name: String,
    pub operator: bool,
    /// The current avatar's `picId`, if the user has one.
    pub avatar_pic_id: Option<String>,
    /// Moves on with every change of the profile's own fields.
    pub revision: i64,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

impl Account {
    /// The strong tag of the profile as its owner reads it: its revision and its avatar (which is
    /// changed apart from the other fields).
    pub fn etag(&self) -> EntityTag {
        EntityTag::qualified(&[self.revision], self.avatar_pic_id.as_deref().unwrap_or("none"))
    }

    /// The state an update of the profile is checked against.
    pub fn state(&self) -> ProfileState {
        ProfileState { revision: self.revision, avatar_pic_id: self.avatar_pic_id.clone() }
    }
}

impl From<User> for Account {
    fn from(u: User) -> Self {
        Self {
            user_id: u.user_id,
            email: u.email,
            handle: u.handle,
            full_name: u.full_name,
            display_name: u.display_name,
            operator: u.operator,
            avatar_pic_id: u.avatar_pic_id,
            revision: u.revision,
            created_at: u.created_at,
            updated_at: u.updated_at,
        }
    }
}

/// How long a mailed PIN (and its token) lives.
pub const PIN_LIFETIME: Duration = Duration::from_secs(15 * 60);
/// PIN tries per token; after them the token is dead.
pub const PIN_TRIES: i64 = 5;
/// New PINs one reset token may ask for.
pub const PIN_RESENDS: i64 = 3;
/// Live reset tokens one account may have; a further start retires the oldest.
pub const LIVE_RESET_TOKENS: i64 = 3;
/// Failed PIN checks against one e-mail address within [`PIN_FAILURE_WINDOW`] after which its
/// reset (or sign-up) is refused until the window has passed.
pub const PIN_FAILURES_LOCK: i64 = 10;
pub use crate::domain::account::PIN_FAILURE_WINDOW;

/// How long each login attempt on an account over its failure budget waits.
const STRAINED_LOGIN_DELAY: Duration = Duration::from_secs(1);

/// Checked sessions kept in memory.
const CACHED_SESSIONS: u64 = 100_000;

pub struct Accounts {
    store: Store,
    hashing: PasswordWork,
    /// Sign-up and reset tokens whose completion is hashing now: a second completion of the same
    /// token is refused instead of hashing again.
    completing: DashSet<String>,
    mailer: Arc<Mailer>,
    limits: Arc<RateLimits>,
    session_ttl: Duration,
    reset_enabled: bool,
    /// Checked sessions by token digest, so most requests need no database round trip for them.
    sessions: Cache<String, SessionUser>,
}

/// A session just opened: the token is shown to the client once.
pub struct NewSession {
    pub token: String,
    pub expires_at: OffsetDateTime,
    pub user: Account,
}

/// The sign-up form as sent; every field is checked, and all problems reported together.
pub struct SignupForm<'a> {
    pub email: Option<&'a str>,
    pub handle: Option<&'a str>,
    pub full_name: Option<&'a str>,
    pub display_name: Option<&'a str>,
}

impl Accounts {
    pub fn new(
        store: Store,
        mailer: Arc<Mailer>,
        limits: Arc<RateLimits>,
        session_ttl: Duration,
        reset_enabled: bool,
        session_cache: Duration,
        hashing: PasswordWork,
    ) -> Self {
        Self {
            store,
            hashing,
            completing: DashSet::new(),
            mailer,
            limits,
            session_ttl,
            reset_enabled,
            sessions: Cache::new(session_cache, CACHED_SESSIONS),
        }
    }

    /// Step 1: checks the form, mails a PIN, answers the sign-up token.
    #[tracing::instrument(skip_all)]
    pub async fn start_signup(&self, address: IpAddr, form: SignupForm<'_>) -> Result<String> {
        let mut problems = Problems::new();
        let email = account::check_email(&mut problems, "/email", form.email);
        let handle = account::check_handle(&mut problems, "/handle", form.handle);
        let full_name = account::check_name(&mut problems, "/fullName", form.full_name);
        let display_name = account::check_display_name(&mut problems, "/displayName", form.display_name);
        let (Some(email), Some(handle), Some(full_name), Some(display_name)) = (email, handle, full_name, display_name)
        else {
            return Err(problems.into());
        };
        self.limits.mail(address)?;
        self.refuse_if_locked(ChallengePurpose::Signup, &email).await?;
        self.limits.mail_to(&email)?;
        match self.store.users.identity_taken(&handle, &email).await? {
            (true, _) => return Err(Error::Conflict(Cow::Borrowed("the handle is taken"))),
            (_, true) => return Err(Error::Conflict(Cow::Borrowed("the e-mail address is taken"))),
            _ => {}
        }
        let now = OffsetDateTime::now_utc();
        let token = secret::new_token("sgn_");
        let token_digest = secret::digest(&token);
        let pin = secret::new_pin();
        self.store
            .challenges
            .insert_challenge(
                &NewChallenge {
                    purpose: ChallengePurpose::Signup,
                    token_digest: &token_digest,
                    pin_digest: &secret::pin_digest(&token_digest, &pin),
                    email: &email,
                    user_id: None,
                    handle: Some(&handle),
                    full_name: Some(&full_name),
                    display_name: Some(&display_name),
                    expires_at: now + PIN_LIFETIME,
                },
                now,
            )
            .await?;
        self.mailer.send(&email, "Your Trellis sign-up PIN", pin_mail(&pin, "finish signing up")).await?;
        Ok(token)
    }

    /// Step 2 of sign-up and of reset: checks a PIN against its token. A wrong PIN uses up one of
    /// the token's tries; a dead, expired or unknown token answers PIN_INVALID like a wrong PIN.
    #[tracing::instrument(skip_all)]
    pub async fn verify_pin(
        &self,
        purpose: ChallengePurpose,
        address: IpAddr,
        token: Option<&str>,
        pin: Option<&str>,
    ) -> Result<()> {
        if purpose == ChallengePurpose::Reset {
            self.reset_switch()?;
        }
        let mut problems = Problems::new();
        let token = problems.required(token_path(purpose), token);
        let pin = problems.required("/pin", pin);
        if let Some(pin) = pin
            && !account::is_pin_shaped(pin)
        {
            problems.push("/pin", "INVALID_PIN", "must be 6 digits");
        }
        let (Some(token), Some(pin)) = (token, pin) else { return Err(problems.into()) };
        problems.finish(())?;
        self.limits.pin(address)?;
        let now = OffsetDateTime::now_utc();
        let digest = secret::digest(token);
        let challenge = self.store.challenges.challenge(purpose, &digest, now).await?.ok_or(Error::PinInvalid)?;
        self.refuse_if_locked(purpose, &challenge.email).await?;
        if !self.store.challenges.take_pin_try(&digest, PIN_TRIES).await? {
            return Err(Error::PinInvalid);
        }
        // A reset asked for an unknown e-mail has a token but no account: no PIN can match it.
        let matches = secret::same(&secret::pin_digest(&digest, pin), &challenge.pin_digest);
        if !matches || (purpose == ChallengePurpose::Reset && challenge.user_id.is_none()) {
            // Counted against the address whether or not it has an account, so both behave alike.
            self.store.challenges.record_pin_failure(purpose, &challenge.email, now).await?;
            return Err(Error::PinInvalid);
        }
        self.store.challenges.mark_challenge_verified(&digest, now).await?;
        Ok(())
    }

    /// Step 3: sets the password, creates the account and opens its first session.
    #[tracing::instrument(skip_all)]
    pub async fn complete_signup(
        &self,
        address: IpAddr,
        token: Option<&str>,
        password: Option<&str>,
    ) -> Result<NewSession> {
        let mut problems = Problems::new();
        let token = problems.required("/signupToken", token);
        let password = account::check_password(&mut problems, "/password", password);
        let (Some(token), Some(password)) = (token, password) else { return Err(problems.into()) };
        self.limits.pin(address)?;
        let now = OffsetDateTime::now_utc();
        let digest = secret::digest(token);
        match self.store.challenges.challenge(ChallengePurpose::Signup, &digest, now).await? {
            Some(challenge) if challenge.verified => {}
            _ => return Err(Error::PinInvalid),
        }
        let _claim = self.claim(&digest)?;
        let password_hash = self.hash(password).await?;
        let session_token = secret::new_token("ses_");
        let expires_at = now + self.session_ttl;
        let user = self
            .store
            .challenges
            .complete_signup(&digest, &password_hash, &secret::digest(&session_token), now, expires_at)
            .await
            .map_err(|e| match e {
                StoreError::NotFound => Error::PinInvalid,
                StoreError::Conflict(_) => Error::Conflict(Cow::Borrowed("the handle or e-mail address is taken")),
                other => other.into(),
            })?;
        Ok(NewSession { token: session_token, expires_at, user: user.into() })
    }

    /// Logs in by e-mail or handle. Unknown accounts and wrong passwords answer alike, and take
    /// alike long.
    #[tracing::instrument(skip_all)]
    pub async fn login(&self, address: IpAddr, login: Option<&str>, password: Option<&str>) -> Result<NewSession> {
        let mut problems = Problems::new();
        let login = problems.required("/login", login);
        let password = password.filter(|p| !p.is_empty());
        if password.is_none() {
            problems.push("/password", "REQUIRED", "is required");
        }
        let (Some(login), Some(password)) = (login, password) else { return Err(problems.into()) };
        // No login is longer than an e-mail address; longer ones never reach the database or a limiter key.
        if password.chars().count() > account::MAX_PASSWORD_CHARS || login.chars().count() > account::MAX_EMAIL_CHARS {
            return Err(wrong_login());
        }
        self.limits.login_from(address)?;
        let found = self.store.users.user_for_login(login).await?;
        // The account, whichever login names it; an unknown login by a fixed-size digest.
        let account =
            found.as_ref().map_or_else(|| secret::digest(&login.to_lowercase()), |(user, _)| user.user_id.clone());
        self.limits.login_to(address, &account)?;
        if self.limits.login_strained(&account) {
            tokio::time::sleep(STRAINED_LOGIN_DELAY).await;
        }
        let stored = found.as_ref().map(|(_, hash)| hash.clone());
        let verified = self.hashing.verify(password.to_owned(), stored).await?;
        match found {
            Some((user, _)) if verified => self.open_session(user).await,
            _ => {
                self.limits.login_failed(&account);
                Err(wrong_login())
            }
        }
    }

    async fn open_session(&self, user: User) -> Result<NewSession> {
        let now = OffsetDateTime::now_utc();
        let token = secret::new_token("ses_");
        let expires_at = now + self.session_ttl;
        self.store.sessions.insert_session(&secret::digest(&token), &user.user_id, now, expires_at).await?;
        Ok(NewSession { token, expires_at, user: user.into() })
    }

    /// The live session a bearer token names.
    pub async fn session(&self, token: &str) -> Result<SessionUser> {
        if token.len() > 128 {
            return Err(Error::unauthenticated());
        }
        self.session_by_digest(&secret::digest(token)).await
    }

    /// The live session whose token has this digest (a live stream re-checks the session it was
    /// opened with, and a ticket names its session so).
    pub async fn session_by_digest(&self, digest: &str) -> Result<SessionUser> {
        let digest = digest.to_owned();
        let now = OffsetDateTime::now_utc();
        if let Some(user) = self.sessions.get(&digest).filter(|user| user.expires_at > now) {
            return Ok(user);
        }
        let ticket = self.sessions.ticket();
        let user = self.store.sessions.session_user(&digest, now).await?.ok_or_else(Error::unauthenticated)?;
        self.sessions.insert(ticket, digest, user.clone());
        Ok(user)
    }

    /// The account of the live session a bearer token names.
    pub async fn session_profile(&self, token: &str) -> Result<Account> {
        if token.len() > 128 {
            return Err(Error::unauthenticated());
        }
        let user = self
            .store
            .users
            .user_by_session(&secret::digest(token), OffsetDateTime::now_utc())
            .await?
            .ok_or_else(Error::unauthenticated)?;
        Ok(user.into())
    }

    pub async fn logout(&self, token: &str) -> Result<()> {
        let digest = secret::digest(token);
        self.store.sessions.delete_session(&digest).await?;
        self.sessions.remove(&digest);
        stale::announce(&self.store, Stale::Session(digest)).await;
        Ok(())
    }

    /// Drops a session another server ended (by its token's digest).
    pub fn forget_session(&self, digest: &str) {
        self.sessions.remove(digest);
    }

    /// Drops every session of a user whose sessions another server ended.
    pub fn forget_user_sessions(&self, user_id: &str) {
        self.sessions.remove_where(|_, session| session.user_id == user_id);
    }

    pub fn forget_all_sessions(&self) {
        self.sessions.clear();
    }

    /// RATE_LIMITED while the address has had [`PIN_FAILURES_LOCK`] failed PIN checks within the
    /// last [`PIN_FAILURE_WINDOW`], until the oldest of them leaves the window.
    async fn refuse_if_locked(&self, purpose: ChallengePurpose, email: &str) -> Result<()> {
        let now = OffsetDateTime::now_utc();
        let failures = self
            .store
            .challenges
            .pin_failures_since(purpose, &email.to_lowercase(), now - PIN_FAILURE_WINDOW, PIN_FAILURES_LOCK)
            .await?;
        match failures.last() {
            Some(oldest) if failures.len() as i64 >= PIN_FAILURES_LOCK => {
                let left = (*oldest + PIN_FAILURE_WINDOW - now).whole_seconds().max(1) as u64;
                Err(Error::RateLimited { retry_after_seconds: left })
            }
            _ => Ok(()),
        }
    }

    async fn hash(&self, password: String) -> Result<String> {
        self.hashing.hash(password).await
    }

    /// Holds a token for the length of its completion; a concurrent completion of it is PIN_INVALID.
    fn claim(&self, digest: &str) -> Result<Claim<'_>> {
        if self.completing.insert(digest.to_owned()) {
            Ok(Claim { set: &self.completing, digest: digest.to_owned() })
        } else {
            Err(Error::PinInvalid)
        }
    }
}

fn token_path(purpose: ChallengePurpose) -> &'static str {
    match purpose {
        ChallengePurpose::Signup => "/signupToken",
        ChallengePurpose::Reset => "/resetToken",
    }
}

fn wrong_login() -> Error {
    Error::Unauthenticated(Cow::Borrowed("the login or password is wrong"))
}

fn pin_mail(pin: &str, purpose: &str) -> String {
    format!(
        "Your PIN to {purpose} is:\n\n    {pin}\n\nIt is valid for 15 minutes. If you did not ask for it, ignore this mail.\n"
    )
}

/// A token being completed; released when dropped.
struct Claim<'a> {
    set: &'a DashSet<String>,
    digest: String,
}

impl Drop for Claim<'_> {
    fn drop(&mut self) {
        self.set.remove(&self.digest);
    }
}
