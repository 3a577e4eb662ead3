//! Sign-up, login, the session check, logout and the attempt limits of `/v0/auth/*`.

use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use trellis_tests::{PASSWORD, TestApp, assert_error, body, detail_paths, spawn_app, spawn_app_with};

/// Starts a sign-up for `handle` (e-mail `<handle>@example.org`); answers the sign-up token.
async fn start_signup(app: &TestApp, handle: &str) -> String {
    let response = app
        .post_json(
            "/v0/auth/sign-up/start",
            json!({"email": format!("{handle}@example.org"), "handle": handle, "fullName": "Full Name", "displayName": handle}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    body(response).await["signupToken"].as_str().unwrap().to_owned()
}

async fn verify(app: &TestApp, token: &str, pin: &str) -> Response {
    app.post_json("/v0/auth/sign-up/verify-pin", json!({"signupToken": token, "pin": pin})).await
}

async fn complete(app: &TestApp, token: &str, password: &str) -> Response {
    app.post_json("/v0/auth/sign-up/complete", json!({"signupToken": token, "password": password})).await
}

async fn login(app: &TestApp, login: &str, password: &str) -> Response {
    app.post_json("/v0/auth/login", json!({"login": login, "password": password})).await
}

/// A 6-digit PIN that is certainly not `pin`.
fn wrong(pin: &str) -> String {
    format!("{:06}", (pin.parse::<u32>().unwrap() + 1) % 1_000_000)
}

fn parse_time(value: &Value) -> OffsetDateTime {
    OffsetDateTime::parse(value.as_str().expect("a time string"), &Rfc3339).expect("an RFC 3339 time")
}

fn retry_after(response: &Response) -> u64 {
    response.headers().get("retry-after").expect("a Retry-After header").to_str().unwrap().parse().unwrap()
}

#[tokio::test]
async fn sign_up_start_answers_202_with_a_token_and_mails_a_six_digit_pin() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let response = app
        .post_json(
            "/v0/auth/sign-up/start",
            json!({"email": "ann@example.org", "handle": "ann", "fullName": "Ann Lee", "displayName": "Ann"}),
        )
        .await;
    // Assert
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert!(body(response).await["signupToken"].as_str().is_some_and(|t| !t.is_empty()));
    let pin = app.read_pin("ann@example.org").await;
    assert!(pin.len() == 6 && pin.bytes().all(|b| b.is_ascii_digit()));
}

#[tokio::test]
async fn sign_up_start_lists_every_problem_at_once() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let response = app
        .post_json("/v0/auth/sign-up/start", json!({"email": "not-an-address", "handle": "No!", "fullName": "  "}))
        .await;
    // Assert
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    let mut paths = detail_paths(&error);
    paths.sort();
    assert_eq!(paths, ["/displayName", "/email", "/fullName", "/handle"]);
    assert!(app.mails_to("not-an-address").is_empty());
}

#[tokio::test]
async fn sign_up_with_a_taken_handle_is_409_conflict() {
    // Arrange
    let app = spawn_app().await;
    app.sign_up("ann").await;
    // Act
    let response = app
        .post_json(
            "/v0/auth/sign-up/start",
            json!({"email": "other@example.org", "handle": "ann", "fullName": "Other", "displayName": "Other"}),
        )
        .await;
    // Assert
    assert_error(response, StatusCode::CONFLICT, "CONFLICT").await;
}

#[tokio::test]
async fn sign_up_with_a_taken_email_in_other_letter_case_is_409_conflict() {
    // Arrange
    let app = spawn_app().await;
    app.sign_up("ann").await;
    // Act
    let response = app
        .post_json(
            "/v0/auth/sign-up/start",
            json!({"email": "ANN@Example.ORG", "handle": "ann_two", "fullName": "Ann", "displayName": "Ann"}),
        )
        .await;
    // Assert
    assert_error(response, StatusCode::CONFLICT, "CONFLICT").await;
}

#[tokio::test]
async fn of_two_pending_sign_ups_for_one_handle_the_second_to_complete_is_409_conflict() {
    // Arrange
    let app = spawn_app().await;
    let first = start_signup(&app, "ann").await;
    let first_pin = app.read_pin("ann@example.org").await;
    let second = app
        .post_json(
            "/v0/auth/sign-up/start",
            json!({"email": "ann2@example.org", "handle": "ann", "fullName": "Ann", "displayName": "Ann"}),
        )
        .await;
    let second = body(second).await["signupToken"].as_str().unwrap().to_owned();
    let second_pin = app.read_pin("ann2@example.org").await;
    assert_eq!(verify(&app, &first, &first_pin).await.status(), StatusCode::OK);
    assert_eq!(verify(&app, &second, &second_pin).await.status(), StatusCode::OK);
    assert_eq!(complete(&app, &first, PASSWORD).await.status(), StatusCode::CREATED);
    // Act
    let response = complete(&app, &second, PASSWORD).await;
    // Assert
    assert_error(response, StatusCode::CONFLICT, "CONFLICT").await;
}

#[tokio::test]
async fn a_wrong_pin_is_400_pin_invalid() {
    // Arrange
    let app = spawn_app().await;
    let token = start_signup(&app, "ann").await;
    let pin = app.read_pin("ann@example.org").await;
    // Act
    let response = verify(&app, &token, &wrong(&pin)).await;
    // Assert
    assert_error(response, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
}

#[tokio::test]
async fn four_wrong_pins_still_leave_the_right_pin_a_try() {
    // Arrange
    let app = spawn_app().await;
    let token = start_signup(&app, "ann").await;
    let pin = app.read_pin("ann@example.org").await;
    for _ in 0..4 {
        assert_error(verify(&app, &token, &wrong(&pin)).await, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
    }
    // Act
    let response = verify(&app, &token, &pin).await;
    // Assert
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(body(response).await, json!({"verified": true}));
}

#[tokio::test]
async fn five_wrong_pins_kill_the_token_so_the_right_pin_is_then_pin_invalid() {
    // Arrange
    let app = spawn_app().await;
    let token = start_signup(&app, "ann").await;
    let pin = app.read_pin("ann@example.org").await;
    for _ in 0..5 {
        assert_error(verify(&app, &token, &wrong(&pin)).await, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
    }
    // Act
    let response = verify(&app, &token, &pin).await;
    // Assert
    assert_error(response, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
    assert_error(complete(&app, &token, PASSWORD).await, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
}

#[tokio::test]
async fn an_unknown_sign_up_token_is_400_pin_invalid() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let response = verify(&app, "sgn_no-such-token", "123456").await;
    // Assert
    assert_error(response, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
}

#[tokio::test]
async fn completing_a_sign_up_before_the_pin_is_verified_is_400_pin_invalid() {
    // Arrange
    let app = spawn_app().await;
    let token = start_signup(&app, "ann").await;
    // Act
    let response = complete(&app, &token, PASSWORD).await;
    // Assert
    assert_error(response, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
}

#[tokio::test]
async fn completing_a_sign_up_answers_201_with_a_working_session_and_the_user() {
    // Arrange
    let app = spawn_app().await;
    let token = start_signup(&app, "ann").await;
    let pin = app.read_pin("ann@example.org").await;
    assert_eq!(verify(&app, &token, &pin).await.status(), StatusCode::OK);
    // Act
    let response = complete(&app, &token, PASSWORD).await;
    // Assert
    assert_eq!(response.status(), StatusCode::CREATED);
    let session = body(response).await;
    assert_eq!(session["user"]["handle"], "ann");
    assert_eq!(session["user"]["email"], "ann@example.org");
    assert!(parse_time(&session["expiresAt"]) > OffsetDateTime::now_utc());
    let token = session["sessionToken"].as_str().unwrap();
    let check = app.get_authed("/v0/auth/session", token).await;
    assert_eq!(check.status(), StatusCode::OK);
    assert_eq!(body(check).await["userId"], session["user"]["userId"]);
}

#[tokio::test]
async fn a_sign_up_token_cannot_complete_twice() {
    // Arrange
    let app = spawn_app().await;
    let token = start_signup(&app, "ann").await;
    let pin = app.read_pin("ann@example.org").await;
    assert_eq!(verify(&app, &token, &pin).await.status(), StatusCode::OK);
    assert_eq!(complete(&app, &token, PASSWORD).await.status(), StatusCode::CREATED);
    // Act
    let response = complete(&app, &token, PASSWORD).await;
    // Assert
    assert_error(response, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
}

#[tokio::test]
async fn weak_passwords_are_refused_at_password_and_the_token_stays_usable() {
    // Arrange
    let app = spawn_app().await;
    let token = start_signup(&app, "ann").await;
    let pin = app.read_pin("ann@example.org").await;
    assert_eq!(verify(&app, &token, &pin).await.status(), StatusCode::OK);
    for weak in ["short1a", "lettersonly", "12345678", ""] {
        // Act
        let response = complete(&app, &token, weak).await;
        // Assert
        let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
        assert_eq!(detail_paths(&error), ["/password"], "{weak:?}");
    }
    assert_eq!(complete(&app, &token, "abcdefg1").await.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn login_by_email_in_any_letter_case_or_by_handle_opens_a_session() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    for name in ["ann@example.org", "Ann@EXAMPLE.org", "ann"] {
        // Act
        let response = login(&app, name, &ann.password).await;
        // Assert
        assert_eq!(response.status(), StatusCode::OK, "{name}");
        let session = body(response).await;
        assert_eq!(session["user"]["userId"], ann.user_id.as_str());
        assert!(parse_time(&session["expiresAt"]) > OffsetDateTime::now_utc());
        let token = session["sessionToken"].as_str().unwrap();
        assert_ne!(token, ann.token);
        assert_eq!(app.get_authed("/v0/auth/session", token).await.status(), StatusCode::OK);
    }
}

#[tokio::test]
async fn login_with_a_wrong_password_is_401_unauthenticated() {
    // Arrange
    let app = spawn_app().await;
    app.sign_up("ann").await;
    // Act
    let response = login(&app, "ann", "wrong password 1").await;
    // Assert
    assert_error(response, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
}

#[tokio::test]
async fn login_of_an_unknown_user_says_the_same_as_a_wrong_password() {
    // Arrange
    let app = spawn_app().await;
    app.sign_up("ann").await;
    let wrong_password =
        assert_error(login(&app, "ann", "wrong password 1").await, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    // Act
    let response = login(&app, "nobody@example.org", "wrong password 1").await;
    // Assert
    let unknown_user = assert_error(response, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    assert_eq!(unknown_user["message"], wrong_password["message"]);
}

#[tokio::test]
async fn login_without_login_and_password_lists_both_paths() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let response = app.post_json("/v0/auth/login", json!({})).await;
    // Assert
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(detail_paths(&error), ["/login", "/password"]);
}

#[tokio::test]
async fn the_session_check_answers_user_id_handle_and_expiry() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let response = app.get_authed("/v0/auth/session", &ann.token).await;
    // Assert
    assert_eq!(response.status(), StatusCode::OK);
    let session = body(response).await;
    let keys: Vec<&String> = session.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["expiresAt", "handle", "userId"]);
    assert_eq!(session["userId"], ann.user_id.as_str());
    assert_eq!(session["handle"], "ann");
    let left = parse_time(&session["expiresAt"]) - OffsetDateTime::now_utc();
    assert!((29..=30).contains(&left.whole_days()), "default lifetime is 30 days, got {left}");
}

#[tokio::test]
async fn the_session_check_without_a_valid_bearer_is_401_unauthenticated() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let requests = [
        app.request(Method::GET, "/v0/auth/session"),
        app.request(Method::GET, "/v0/auth/session").header("Authorization", format!("Basic {}", ann.token)),
        app.request(Method::GET, "/v0/auth/session").header("Authorization", "Bearer "),
        app.authed(Method::GET, "/v0/auth/session", "ses_not-a-real-session"),
    ];
    for request in requests {
        // Act
        let response = request.send().await.unwrap();
        // Assert
        assert_error(response, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    }
}

#[tokio::test]
async fn logout_answers_204_and_revokes_only_that_session() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let other = body(login(&app, "ann", &ann.password).await).await["sessionToken"].as_str().unwrap().to_owned();
    // Act
    let response = app.authed(Method::POST, "/v0/auth/logout", &ann.token).send().await.unwrap();
    // Assert
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert_error(app.get_authed("/v0/auth/session", &ann.token).await, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED")
        .await;
    assert_error(app.get_authed("/v0/users/me", &ann.token).await, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    assert_eq!(app.get_authed("/v0/auth/session", &other).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn logout_without_a_session_is_401_unauthenticated() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let response = app.request(Method::POST, "/v0/auth/logout").send().await.unwrap();
    // Assert
    assert_error(response, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
}

#[tokio::test]
async fn a_session_past_its_configured_lifetime_is_401_unauthenticated() {
    // Arrange: a lifetime that leaves a loaded machine time for the first check (4 s did not always).
    const LIFETIME: i64 = 10;
    let app = spawn_app_with(|config| config.auth.session_ttl_seconds = LIFETIME as u64).await;
    let before = OffsetDateTime::now_utc();
    let ann = app.sign_up("ann").await;
    let live = app.get_authed("/v0/auth/session", &ann.token).await;
    assert_eq!(live.status(), StatusCode::OK);
    let expires_at = parse_time(&body(live).await["expiresAt"]);
    let latest = OffsetDateTime::now_utc() + time::Duration::seconds(LIFETIME);
    assert!(expires_at > before && expires_at <= latest, "the configured lifetime applies: {expires_at}");
    // Until just past the expiry the server announced.
    let left = expires_at - OffsetDateTime::now_utc() + time::Duration::milliseconds(200);
    tokio::time::sleep(left.try_into().unwrap_or_default()).await;
    // Act
    let response = app.get_authed("/v0/auth/session", &ann.token).await;
    // Assert
    assert_error(response, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
}

#[tokio::test]
async fn logins_beyond_the_per_address_limit_are_429_rate_limited_with_retry_after() {
    // Arrange
    let app = spawn_app_with(|config| config.rate_limits.login_per_address = 2).await;
    app.sign_up("ann").await;
    app.sign_up("bob").await;
    assert_eq!(login(&app, "ann", PASSWORD).await.status(), StatusCode::OK);
    assert_eq!(login(&app, "bob", PASSWORD).await.status(), StatusCode::OK);
    // Act
    let response = login(&app, "ann", PASSWORD).await;
    // Assert
    assert!(retry_after(&response) >= 1);
    assert_error(response, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
}

#[tokio::test]
async fn logins_beyond_the_per_account_limit_are_429_while_other_accounts_still_log_in() {
    // Arrange
    let app = spawn_app_with(|config| config.rate_limits.login_per_account = 2).await;
    app.sign_up("ann").await;
    app.sign_up("bob").await;
    assert_error(login(&app, "ann", "wrong password 1").await, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    assert_error(login(&app, "ann", "wrong password 2").await, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    // Act
    let response = login(&app, "ann", PASSWORD).await;
    // Assert
    assert!(retry_after(&response) >= 1);
    assert_error(response, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    assert_eq!(login(&app, "bob", PASSWORD).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn sign_up_starts_beyond_the_per_address_limit_are_429_rate_limited() {
    // Arrange
    let app = spawn_app_with(|config| config.rate_limits.mail_per_address = 1).await;
    start_signup(&app, "ann").await;
    // Act
    let response = app
        .post_json(
            "/v0/auth/sign-up/start",
            json!({"email": "bob@example.org", "handle": "bob", "fullName": "Bob", "displayName": "Bob"}),
        )
        .await;
    // Assert
    assert!(retry_after(&response) >= 1);
    assert_error(response, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    assert!(app.mails_to("bob@example.org").is_empty());
}

#[tokio::test]
async fn pin_checks_beyond_the_per_address_limit_are_429_rate_limited() {
    // Arrange
    let app = spawn_app_with(|config| config.rate_limits.pin_per_address = 2).await;
    let token = start_signup(&app, "ann").await;
    let pin = app.read_pin("ann@example.org").await;
    assert_error(verify(&app, &token, &wrong(&pin)).await, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
    assert_error(verify(&app, &token, &wrong(&pin)).await, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
    // Act
    let response = verify(&app, &token, &pin).await;
    // Assert
    assert!(retry_after(&response) >= 1);
    assert_error(response, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
}
