//! `/v0/auth/*`: sign-up, login, session check, logout and password reset.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;

use super::extract::{ApiJson, AuthUser, BearerToken, ClientAddress};
use super::views::Profile;
use crate::domain::account::ChallengePurpose;
use crate::http::error::{ApiResult, ErrorEnvelope};
use crate::services::accounts::{Accounts, NewSession, SignupForm};
use crate::services::avatars::Avatars;
use crate::state::AppState;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/sign-up/start", post(start_signup))
        .route("/sign-up/verify-pin", post(verify_signup_pin))
        .route("/sign-up/complete", post(complete_signup))
        .route("/login", post(login))
        .route("/session", get(get_session))
        .route("/logout", post(logout))
        .route("/password-reset/start", post(start_reset))
        .route("/password-reset/verify-pin", post(verify_reset_pin))
        .route("/password-reset/resend-pin", post(resend_reset_pin))
        .route("/password-reset/complete", post(complete_reset))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "camelCase")]
pub struct StartSignup {
    #[schema(required = true, nullable = false, format = Email)]
    email: Option<String>,
    /// 3 to 30 characters of a-z, 0-9 and `_`; not `system`.
    #[schema(required = true, nullable = false)]
    handle: Option<String>,
    #[schema(required = true, nullable = false)]
    full_name: Option<String>,
    #[schema(required = true, nullable = false)]
    display_name: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignupStarted {
    signup_token: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "camelCase")]
pub struct VerifySignupPin {
    #[schema(required = true, nullable = false, pattern = "^[A-Za-z0-9_-]+$")]
    signup_token: Option<String>,
    #[schema(required = true, nullable = false)]
    pin: Option<String>,
}

#[derive(Serialize, ToSchema)]
pub struct Verified {
    verified: bool,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "camelCase")]
pub struct CompleteSignup {
    #[schema(required = true, nullable = false, pattern = "^[A-Za-z0-9_-]+$")]
    signup_token: Option<String>,
    /// 8 to 1,024 characters with at least one letter and one number.
    #[schema(required = true, nullable = false)]
    password: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Login {
    /// The e-mail address or the handle.
    #[schema(required = true, nullable = false, pattern = "\\S")]
    login: Option<String>,
    #[schema(required = true, nullable = false)]
    password: Option<String>,
}

/// A new session; `sessionToken` is the bearer value.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionOpened {
    session_token: String,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    expires_at: OffsetDateTime,
    user: Profile,
}

impl SessionOpened {
    fn in_shard(mut self, db_hash: &str) -> Self {
        self.user = self.user.in_shard(db_hash);
        self
    }
}

impl From<NewSession> for SessionOpened {
    fn from(session: NewSession) -> Self {
        Self { session_token: session.token, expires_at: session.expires_at, user: session.user.into() }
    }
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    user_id: String,
    handle: String,
    #[serde(with = "crate::domain::timestamp")]
    #[schema(value_type = String, format = DateTime)]
    expires_at: OffsetDateTime,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StartReset {
    #[schema(required = true, nullable = false, format = Email)]
    email: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResetToken {
    reset_token: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "camelCase")]
pub struct VerifyResetPin {
    #[schema(required = true, nullable = false, pattern = "^[A-Za-z0-9_-]+$")]
    reset_token: Option<String>,
    #[schema(required = true, nullable = false)]
    pin: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "camelCase")]
pub struct ResendResetPin {
    #[schema(required = true, nullable = false, pattern = "^[A-Za-z0-9_-]+$")]
    reset_token: Option<String>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "camelCase")]
pub struct CompleteReset {
    #[schema(required = true, nullable = false, pattern = "^[A-Za-z0-9_-]+$")]
    reset_token: Option<String>,
    /// 8 to 1,024 characters with at least one letter and one number.
    #[schema(required = true, nullable = false)]
    password: Option<String>,
}

/// Sign-up step 1: checks the form and mails a 6-digit PIN.
#[utoipa::path(post, path = "/v0/auth/sign-up/start", tag = "auth", request_body = StartSignup,
    responses((status = 202, body = SignupStarted), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED"),
        (status = 409, body = ErrorEnvelope, description = "CONFLICT: handle or e-mail taken"),
        (status = 429, body = ErrorEnvelope, description = "RATE_LIMITED")))]
pub async fn start_signup(
    State(accounts): State<Arc<Accounts>>,
    ClientAddress(address): ClientAddress,
    ApiJson(body): ApiJson<StartSignup>,
) -> ApiResult<(StatusCode, Json<SignupStarted>)> {
    let form = SignupForm {
        email: body.email.as_deref(),
        handle: body.handle.as_deref(),
        full_name: body.full_name.as_deref(),
        display_name: body.display_name.as_deref(),
    };
    let signup_token = accounts.start_signup(address, form).await?;
    Ok((StatusCode::ACCEPTED, Json(SignupStarted { signup_token })))
}

/// Sign-up step 2: checks the PIN (5 tries per token, 15 minutes).
#[utoipa::path(post, path = "/v0/auth/sign-up/verify-pin", tag = "auth", request_body = VerifySignupPin,
    responses((status = 200, body = Verified), (status = 400, body = ErrorEnvelope, description = "PIN_INVALID or VALIDATION_FAILED"),
        (status = 429, body = ErrorEnvelope, description = "RATE_LIMITED")))]
pub async fn verify_signup_pin(
    State(accounts): State<Arc<Accounts>>,
    ClientAddress(address): ClientAddress,
    ApiJson(body): ApiJson<VerifySignupPin>,
) -> ApiResult<Json<Verified>> {
    accounts.verify_pin(ChallengePurpose::Signup, address, body.signup_token.as_deref(), body.pin.as_deref()).await?;
    Ok(Json(Verified { verified: true }))
}

/// Sign-up step 3: sets the password, creates the account and opens a session.
#[utoipa::path(post, path = "/v0/auth/sign-up/complete", tag = "auth", request_body = CompleteSignup,
    responses((status = 201, body = SessionOpened), (status = 400, body = ErrorEnvelope, description = "PIN_INVALID or VALIDATION_FAILED"),
        (status = 409, body = ErrorEnvelope, description = "CONFLICT"), (status = 429, body = ErrorEnvelope, description = "RATE_LIMITED")))]
pub async fn complete_signup(
    State(accounts): State<Arc<Accounts>>,
    State(avatars): State<Arc<Avatars>>,
    ClientAddress(address): ClientAddress,
    ApiJson(body): ApiJson<CompleteSignup>,
) -> ApiResult<(StatusCode, Json<SessionOpened>)> {
    let session = accounts.complete_signup(address, body.signup_token.as_deref(), body.password.as_deref()).await?;
    Ok((StatusCode::CREATED, Json(SessionOpened::from(session).in_shard(avatars.db_hash()))))
}

/// Opens a session for an e-mail address or handle and its password.
#[utoipa::path(post, path = "/v0/auth/login", tag = "auth", request_body = Login,
    responses((status = 200, body = SessionOpened), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED"),
        (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED: wrong login or password"),
        (status = 429, body = ErrorEnvelope, description = "RATE_LIMITED")))]
pub async fn login(
    State(accounts): State<Arc<Accounts>>,
    State(avatars): State<Arc<Avatars>>,
    ClientAddress(address): ClientAddress,
    ApiJson(body): ApiJson<Login>,
) -> ApiResult<Json<SessionOpened>> {
    let session = accounts.login(address, body.login.as_deref(), body.password.as_deref()).await?;
    Ok(Json(SessionOpened::from(session).in_shard(avatars.db_hash())))
}

/// Lightweight check of the bearer session.
#[utoipa::path(get, path = "/v0/auth/session", tag = "auth", security(("session" = [], "license" = [])),
    responses((status = 200, body = SessionInfo), (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED")))]
pub async fn get_session(AuthUser(user): AuthUser) -> Json<SessionInfo> {
    Json(SessionInfo { user_id: user.user_id, handle: user.handle, expires_at: user.expires_at })
}

/// Revokes the bearer session.
#[utoipa::path(post, path = "/v0/auth/logout", tag = "auth", security(("session" = [], "license" = [])),
    responses((status = 204), (status = 401, body = ErrorEnvelope, description = "UNAUTHENTICATED")))]
pub async fn logout(
    State(accounts): State<Arc<Accounts>>,
    _user: AuthUser,
    BearerToken(token): BearerToken,
) -> ApiResult<StatusCode> {
    accounts.logout(&token).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Reset step 1: answers a reset token for any well-formed address; only accounts get a PIN mail.
#[utoipa::path(post, path = "/v0/auth/password-reset/start", tag = "auth", request_body = StartReset,
    responses((status = 202, body = ResetToken), (status = 400, body = ErrorEnvelope, description = "VALIDATION_FAILED"),
        (status = 404, body = ErrorEnvelope, description = "FEATURE_DISABLED"), (status = 429, body = ErrorEnvelope, description = "RATE_LIMITED")))]
pub async fn start_reset(
    State(accounts): State<Arc<Accounts>>,
    ClientAddress(address): ClientAddress,
    ApiJson(body): ApiJson<StartReset>,
) -> ApiResult<(StatusCode, Json<ResetToken>)> {
    let reset_token = accounts.start_reset(address, body.email.as_deref()).await?;
    Ok((StatusCode::ACCEPTED, Json(ResetToken { reset_token })))
}

/// Reset step 2: checks the mailed PIN.
#[utoipa::path(post, path = "/v0/auth/password-reset/verify-pin", tag = "auth", request_body = VerifyResetPin,
    responses((status = 200, body = Verified), (status = 400, body = ErrorEnvelope, description = "PIN_INVALID or VALIDATION_FAILED"),
        (status = 404, body = ErrorEnvelope, description = "FEATURE_DISABLED"), (status = 429, body = ErrorEnvelope, description = "RATE_LIMITED")))]
pub async fn verify_reset_pin(
    State(accounts): State<Arc<Accounts>>,
    ClientAddress(address): ClientAddress,
    ApiJson(body): ApiJson<VerifyResetPin>,
) -> ApiResult<Json<Verified>> {
    accounts.verify_pin(ChallengePurpose::Reset, address, body.reset_token.as_deref(), body.pin.as_deref()).await?;
    Ok(Json(Verified { verified: true }))
}

/// Reset, optional: mails a new PIN for the same token (at most 3 times); tries start again.
#[utoipa::path(post, path = "/v0/auth/password-reset/resend-pin", tag = "auth", request_body = ResendResetPin,
    responses((status = 202, body = ResetToken), (status = 400, body = ErrorEnvelope, description = "PIN_INVALID"),
        (status = 404, body = ErrorEnvelope, description = "FEATURE_DISABLED"), (status = 429, body = ErrorEnvelope, description = "RATE_LIMITED")))]
pub async fn resend_reset_pin(
    State(accounts): State<Arc<Accounts>>,
    ClientAddress(address): ClientAddress,
    ApiJson(body): ApiJson<ResendResetPin>,
) -> ApiResult<(StatusCode, Json<ResetToken>)> {
    let reset_token = accounts.resend_reset_pin(address, body.reset_token.as_deref()).await?;
    Ok((StatusCode::ACCEPTED, Json(ResetToken { reset_token })))
}

/// Reset last step: sets the password and ends every session; log in again afterwards.
#[utoipa::path(post, path = "/v0/auth/password-reset/complete", tag = "auth", request_body = CompleteReset,
    responses((status = 204), (status = 400, body = ErrorEnvelope, description = "PIN_INVALID or VALIDATION_FAILED"),
        (status = 404, body = ErrorEnvelope, description = "FEATURE_DISABLED"), (status = 429, body = ErrorEnvelope, description = "RATE_LIMITED")))]
pub async fn complete_reset(
    State(accounts): State<Arc<Accounts>>,
    ClientAddress(address): ClientAddress,
    ApiJson(body): ApiJson<CompleteReset>,
) -> ApiResult<StatusCode> {
    accounts.complete_reset(address, body.reset_token.as_deref(), body.password.as_deref()).await?;
    Ok(StatusCode::NO_CONTENT)
}
