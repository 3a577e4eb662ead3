//! Password reset (conventions section 5): a token whatever the e-mail, a PIN mailed to a real account,
//! then the new password, which ends every session of the account.

use std::net::IpAddr;

use time::OffsetDateTime;

use super::{Accounts, LIVE_RESET_TOKENS, PIN_LIFETIME, PIN_RESENDS, PIN_TRIES, pin_mail};
use crate::domain::account::{self, ChallengePurpose};
use crate::domain::problems::Problems;
use crate::domain::secret;
use crate::error::{Error, Result};
use crate::infra::stale::{self, Stale};
use crate::store::{NewChallenge, StoreError};

impl Accounts {
    /// Reset step 1. Answers a token whether or not the e-mail has an account, so the answer
    /// tells nothing; only a real account gets a mail.
    #[tracing::instrument(skip_all)]
    pub async fn start_reset(&self, address: IpAddr, email: Option<&str>) -> Result<String> {
        self.reset_switch()?;
        let mut problems = Problems::new();
        let email = account::check_email(&mut problems, "/email", email);
        let Some(email) = email else { return Err(problems.into()) };
        self.limits.mail(address)?;
        self.refuse_if_locked(ChallengePurpose::Reset, &email).await?;
        self.limits.mail_to(&email)?;
        let user = self.store.users.user_by_email(&email).await?;
        let now = OffsetDateTime::now_utc();
        let token = secret::new_token("rst_");
        let token_digest = secret::digest(&token);
        let pin = secret::new_pin();
        let challenge = NewChallenge {
            purpose: ChallengePurpose::Reset,
            token_digest: &token_digest,
            pin_digest: &secret::pin_digest(&token_digest, &pin),
            email: &email,
            user_id: user.as_ref().map(|u| u.user_id.as_str()),
            handle: None,
            full_name: None,
            display_name: None,
            expires_at: now + PIN_LIFETIME,
        };
        match &user {
            Some(user) => {
                self.store.challenges.insert_reset_challenge(&challenge, &user.user_id, LIVE_RESET_TOKENS, now).await?;
            }
            None => self.store.challenges.insert_challenge(&challenge, now).await?,
        }
        if user.is_some() {
            self.send_in_background(email, pin);
        }
        Ok(token)
    }

    /// Reset, optional step: a new PIN for the same token (a few times at most).
    #[tracing::instrument(skip_all)]
    pub async fn resend_reset_pin(&self, address: IpAddr, token: Option<&str>) -> Result<String> {
        self.reset_switch()?;
        let mut problems = Problems::new();
        let Some(token) = problems.required("/resetToken", token) else { return Err(problems.into()) };
        self.limits.mail(address)?;
        let now = OffsetDateTime::now_utc();
        let digest = secret::digest(token);
        let challenge = self
            .store
            .challenges
            .challenge(ChallengePurpose::Reset, &digest, now)
            .await?
            .filter(|c| c.tries < PIN_TRIES)
            .ok_or(Error::PinInvalid)?;
        self.refuse_if_locked(ChallengePurpose::Reset, &challenge.email).await?;
        let used_up = || {
            let left = (challenge.expires_at - now).whole_seconds().max(1) as u64;
            Error::RateLimited { retry_after_seconds: left }
        };
        if challenge.resends >= PIN_RESENDS {
            return Err(used_up());
        }
        self.limits.mail_to(&challenge.email)?;
        let pin = secret::new_pin();
        let pin_digest = secret::pin_digest(&digest, &pin);
        if !self.store.challenges.replace_pin(&digest, &pin_digest, now + PIN_LIFETIME, PIN_RESENDS).await? {
            // Another resend of the same token took the last one meanwhile.
            return Err(used_up());
        }
        if challenge.user_id.is_some() {
            self.send_in_background(challenge.email, pin);
        }
        Ok(token.to_owned())
    }

    /// Reset, last step: sets the new password and ends every session of the account.
    #[tracing::instrument(skip_all)]
    pub async fn complete_reset(&self, address: IpAddr, token: Option<&str>, password: Option<&str>) -> Result<()> {
        self.reset_switch()?;
        let mut problems = Problems::new();
        let token = problems.required("/resetToken", token);
        let password = account::check_password(&mut problems, "/password", password);
        let (Some(token), Some(password)) = (token, password) else { return Err(problems.into()) };
        self.limits.pin(address)?;
        let now = OffsetDateTime::now_utc();
        let digest = secret::digest(token);
        let challenge = self
            .store
            .challenges
            .challenge(ChallengePurpose::Reset, &digest, now)
            .await?
            .filter(|c| c.verified)
            .ok_or(Error::PinInvalid)?;
        let user_id = challenge.user_id.ok_or(Error::PinInvalid)?;
        let _claim = self.claim(&digest)?;
        let password_hash = self.hash(password).await?;
        let result = self.store.users.reset_password(&user_id, &password_hash, now).await.map_err(|e| match e {
            StoreError::NotFound => Error::PinInvalid,
            other => other.into(),
        });
        // After the rows are gone, so no concurrent request can cache a session again.
        self.sessions.remove_where(|_, session| session.user_id == user_id);
        stale::announce(&self.store, Stale::UserSessions(user_id)).await;
        result
    }

    pub(super) fn reset_switch(&self) -> Result<()> {
        if self.reset_enabled { Ok(()) } else { Err(Error::FeatureDisabled) }
    }

    /// Reset mails go out after the answer, so that known and unknown addresses answer equally fast.
    fn send_in_background(&self, email: String, pin: String) {
        let mailer = self.mailer.clone();
        tokio::spawn(async move {
            if let Err(error) =
                mailer.send(&email, "Your Trellis password reset PIN", pin_mail(&pin, "reset your password")).await
            {
                tracing::error!(error = format!("{error:#}"), "sending a reset PIN failed");
            }
        });
    }
}
