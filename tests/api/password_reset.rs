//! `/v0/auth/password-reset/*`: start, verify-pin, resend-pin and complete.

use std::time::Duration;

use reqwest::{Response, StatusCode};
use serde_json::json;
use trellis_tests::{PASSWORD, TestApp, assert_error, body, detail_paths, spawn_app, spawn_app_with};

const NEW_PASSWORD: &str = "battery staple 7";

async fn start(app: &TestApp, email: &str) -> Response {
    app.post_json("/v0/auth/password-reset/start", json!({"email": email})).await
}

/// Starts a reset for `email`; answers the reset token.
async fn start_reset(app: &TestApp, email: &str) -> String {
    let response = start(app, email).await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    body(response).await["resetToken"].as_str().unwrap().to_owned()
}

async fn verify(app: &TestApp, token: &str, pin: &str) -> Response {
    app.post_json("/v0/auth/password-reset/verify-pin", json!({"resetToken": token, "pin": pin})).await
}

async fn resend(app: &TestApp, token: &str) -> Response {
    app.post_json("/v0/auth/password-reset/resend-pin", json!({"resetToken": token})).await
}

async fn complete(app: &TestApp, token: &str, password: &str) -> Response {
    app.post_json("/v0/auth/password-reset/complete", json!({"resetToken": token, "password": password})).await
}

async fn login(app: &TestApp, login: &str, password: &str) -> Response {
    app.post_json("/v0/auth/login", json!({"login": login, "password": password})).await
}

/// The PIN of mail number `count` to `email` (1-based), waiting up to 5 s for it. Reset mails are
/// sent after the answer, and the sign-up mail is already there, so `read_pin` alone could
/// answer an older PIN.
async fn pin_of_mail(app: &TestApp, email: &str, count: usize) -> String {
    for _ in 0..100 {
        let mails = app.mails_to(email);
        if mails.len() >= count {
            return mails[count - 1]
                .lines()
                .map(str::trim)
                .find(|l| l.len() == 6 && l.bytes().all(|b| b.is_ascii_digit()))
                .expect("a PIN in the mail")
                .to_owned();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("mail number {count} to {email} never arrived");
}

/// A 6-digit PIN that is certainly not `pin`.
fn wrong(pin: &str) -> String {
    format!("{:06}", (pin.parse::<u32>().unwrap() + 1) % 1_000_000)
}

#[tokio::test]
async fn reset_start_for_an_account_answers_202_with_a_token_and_mails_a_pin() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let response = start(&app, &ann.email).await;
    // Assert
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert!(body(response).await["resetToken"].as_str().is_some_and(|t| !t.is_empty()));
    let pin = pin_of_mail(&app, &ann.email, 2).await;
    assert_eq!(pin.len(), 6);
}

#[tokio::test]
async fn reset_start_for_an_unknown_email_still_answers_202_with_a_token_and_sends_no_mail() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    // Act
    let response = start(&app, "nobody@example.org").await;
    // Assert
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert!(body(response).await["resetToken"].as_str().is_some_and(|t| !t.is_empty()));
    // A reset for a real account, started afterwards, has had its mail sent by the time we look.
    start_reset(&app, &ann.email).await;
    pin_of_mail(&app, &ann.email, 2).await;
    assert!(app.mails_to("nobody@example.org").is_empty());
}

#[tokio::test]
async fn a_reset_token_for_an_unknown_email_never_verifies() {
    // Arrange
    let app = spawn_app().await;
    let token = start_reset(&app, "nobody@example.org").await;
    for pin in ["000000", "123456", "999999"] {
        // Act
        let response = verify(&app, &token, pin).await;
        // Assert
        assert_error(response, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
    }
    assert_error(complete(&app, &token, NEW_PASSWORD).await, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
}

#[tokio::test]
async fn reset_start_with_a_malformed_email_is_400_at_email() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let response = start(&app, "not an address").await;
    // Assert
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(detail_paths(&error), ["/email"]);
}

#[tokio::test]
async fn the_mailed_reset_pin_verifies() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let token = start_reset(&app, &ann.email).await;
    let pin = pin_of_mail(&app, &ann.email, 2).await;
    // Act
    let response = verify(&app, &token, &pin).await;
    // Assert
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(body(response).await, json!({"verified": true}));
}

#[tokio::test]
async fn a_wrong_reset_pin_is_400_pin_invalid() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let token = start_reset(&app, &ann.email).await;
    let pin = pin_of_mail(&app, &ann.email, 2).await;
    // Act
    let response = verify(&app, &token, &wrong(&pin)).await;
    // Assert
    assert_error(response, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
}

#[tokio::test]
async fn five_wrong_reset_pins_kill_the_token() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let token = start_reset(&app, &ann.email).await;
    let pin = pin_of_mail(&app, &ann.email, 2).await;
    for _ in 0..5 {
        assert_error(verify(&app, &token, &wrong(&pin)).await, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
    }
    // Act
    let response = verify(&app, &token, &pin).await;
    // Assert
    assert_error(response, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
}

#[tokio::test]
async fn resending_mails_a_new_pin_and_the_old_one_no_longer_works() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let token = start_reset(&app, &ann.email).await;
    let old_pin = pin_of_mail(&app, &ann.email, 2).await;
    // Act
    let response = resend(&app, &token).await;
    // Assert
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert_eq!(body(response).await["resetToken"], token.as_str());
    let new_pin = pin_of_mail(&app, &ann.email, 3).await;
    // One time in a million the new PIN is drawn equal to the old one; then there is nothing to refuse.
    if new_pin != old_pin {
        assert_error(verify(&app, &token, &old_pin).await, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
    }
    assert_eq!(verify(&app, &token, &new_pin).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn resending_for_an_unknown_email_answers_202_and_sends_no_mail() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let token = start_reset(&app, "nobody@example.org").await;
    // Act
    let response = resend(&app, &token).await;
    // Assert
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert_eq!(body(response).await["resetToken"], token.as_str());
    // A real reset started afterwards has had its mail sent by the time we look.
    start_reset(&app, &ann.email).await;
    pin_of_mail(&app, &ann.email, 2).await;
    assert!(app.mails_to("nobody@example.org").is_empty());
}

#[tokio::test]
async fn resending_cannot_revive_a_token_killed_by_five_wrong_pins() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let token = start_reset(&app, &ann.email).await;
    let pin = pin_of_mail(&app, &ann.email, 2).await;
    for _ in 0..5 {
        assert_error(verify(&app, &token, &wrong(&pin)).await, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
    }
    // Act
    let response = resend(&app, &token).await;
    // Assert
    assert_error(response, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
}

#[tokio::test]
async fn a_fourth_resend_of_one_token_is_429_rate_limited() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let token = start_reset(&app, &ann.email).await;
    for _ in 0..3 {
        assert_eq!(resend(&app, &token).await.status(), StatusCode::ACCEPTED);
    }
    // Act
    let response = resend(&app, &token).await;
    // Assert
    assert!(response.headers().contains_key("retry-after"));
    assert_error(response, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
}

/// Issue 28: resends of one token sent at once cannot pass the limit of 3 between the check and
/// the write (the mail limits are raised here so that only the resend bound holds).
#[tokio::test]
async fn concurrent_resends_of_one_token_send_at_most_three_pins() {
    // Arrange
    let app = spawn_app_with(|config| {
        config.rate_limits.mail_per_address = 1_000;
        config.rate_limits.mail_per_recipient_hour = 1_000;
    })
    .await;
    let ann = app.sign_up("ann").await;
    let token = start_reset(&app, &ann.email).await;
    pin_of_mail(&app, &ann.email, 2).await; // the sign-up's mail, then the reset's
    let mails_before = 2;
    // Act
    let answers = futures::future::join_all((0..12).map(|_| resend(&app, &token))).await;
    // Assert
    let statuses: Vec<StatusCode> = answers.iter().map(Response::status).collect();
    let accepted = statuses.iter().filter(|s| **s == StatusCode::ACCEPTED).count();
    let limited = statuses.iter().filter(|s| **s == StatusCode::TOO_MANY_REQUESTS).count();
    assert_eq!((accepted, limited), (3, 9), "{statuses:?}");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while app.mails_to(&ann.email).len() < mails_before + 3 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(app.mails_to(&ann.email).len(), mails_before + 3, "one mail a resend that counted");
}

#[tokio::test]
async fn completing_a_reset_before_the_pin_is_verified_is_400_pin_invalid() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let token = start_reset(&app, &ann.email).await;
    // Act
    let response = complete(&app, &token, NEW_PASSWORD).await;
    // Assert
    assert_error(response, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
    assert_eq!(login(&app, "ann", PASSWORD).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn completing_a_reset_answers_204_and_ends_every_session() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let second = body(login(&app, "ann", PASSWORD).await).await["sessionToken"].as_str().unwrap().to_owned();
    let token = start_reset(&app, &ann.email).await;
    let pin = pin_of_mail(&app, &ann.email, 2).await;
    assert_eq!(verify(&app, &token, &pin).await.status(), StatusCode::OK);
    // Act
    let response = complete(&app, &token, NEW_PASSWORD).await;
    // Assert
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert!(response.text().await.unwrap().is_empty(), "no new session is returned");
    for session in [&ann.token, &second] {
        assert_error(app.get_authed("/v0/auth/session", session).await, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED")
            .await;
    }
}

#[tokio::test]
async fn after_a_reset_the_old_password_fails_and_the_new_one_logs_in() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let token = start_reset(&app, &ann.email).await;
    let pin = pin_of_mail(&app, &ann.email, 2).await;
    assert_eq!(verify(&app, &token, &pin).await.status(), StatusCode::OK);
    assert_eq!(complete(&app, &token, NEW_PASSWORD).await.status(), StatusCode::NO_CONTENT);
    // Act
    let old = login(&app, "ann", PASSWORD).await;
    let new = login(&app, "ann", NEW_PASSWORD).await;
    // Assert
    assert_error(old, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    assert_eq!(new.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_reset_token_cannot_complete_twice() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let token = start_reset(&app, &ann.email).await;
    let pin = pin_of_mail(&app, &ann.email, 2).await;
    assert_eq!(verify(&app, &token, &pin).await.status(), StatusCode::OK);
    assert_eq!(complete(&app, &token, NEW_PASSWORD).await.status(), StatusCode::NO_CONTENT);
    // Act
    let response = complete(&app, &token, "third password 3").await;
    // Assert
    assert_error(response, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
    assert_eq!(login(&app, "ann", NEW_PASSWORD).await.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_weak_new_password_is_refused_at_password_and_the_token_stays_usable() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let token = start_reset(&app, &ann.email).await;
    let pin = pin_of_mail(&app, &ann.email, 2).await;
    assert_eq!(verify(&app, &token, &pin).await.status(), StatusCode::OK);
    // Act
    let response = complete(&app, &token, "nodigits").await;
    // Assert
    let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
    assert_eq!(detail_paths(&error), ["/password"]);
    assert_eq!(complete(&app, &token, NEW_PASSWORD).await.status(), StatusCode::NO_CONTENT);
}

#[tokio::test]
async fn reset_starts_share_the_per_address_mail_limit_with_sign_up() {
    // Arrange
    let app = spawn_app_with(|config| config.rate_limits.mail_per_address = 2).await;
    start_reset(&app, "one@example.org").await;
    start_reset(&app, "two@example.org").await;
    // Act
    let response = start(&app, "three@example.org").await;
    // Assert
    assert!(response.headers().contains_key("retry-after"));
    assert_error(response, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
}

#[tokio::test]
async fn with_password_reset_switched_off_every_reset_route_is_404_feature_disabled() {
    // Arrange
    let app = spawn_app_with(|config| config.modules.web.authentication.password_reset.enabled = false).await;
    let ann = app.sign_up("ann").await;
    let requests = [
        ("/v0/auth/password-reset/start", json!({"email": ann.email})),
        ("/v0/auth/password-reset/verify-pin", json!({"resetToken": "rst_x", "pin": "123456"})),
        ("/v0/auth/password-reset/resend-pin", json!({"resetToken": "rst_x"})),
        ("/v0/auth/password-reset/complete", json!({"resetToken": "rst_x", "password": NEW_PASSWORD})),
    ];
    for (path, request) in requests {
        // Act
        let response = app.post_json(path, request).await;
        // Assert
        assert_error(response, StatusCode::NOT_FOUND, "FEATURE_DISABLED").await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(app.mails_to(&ann.email).len(), 1, "only the sign-up mail");
}

// ---------------------------------------------------------------------------------------------
// Guessing PINs (issue 11, finding 2; conventions section 5)

/// Retry-After of an answer, in seconds.
fn retry_after(response: &Response) -> u64 {
    response.headers()["retry-after"].to_str().unwrap().parse().unwrap()
}

#[tokio::test]
async fn resends_do_not_give_back_tries() {
    // Arrange: the attack of the issue: four wrong PINs, a resend, four more, ...
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let token = start_reset(&app, &ann.email).await;
    let first = pin_of_mail(&app, &ann.email, 2).await;
    for _ in 0..4 {
        assert_error(verify(&app, &token, &wrong(&first)).await, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
    }
    assert_eq!(resend(&app, &token).await.status(), StatusCode::ACCEPTED);
    let second = pin_of_mail(&app, &ann.email, 3).await;
    assert_error(verify(&app, &token, &wrong(&second)).await, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
    // Act: five tries are used up, so neither a resend nor the right PIN helps.
    let another_resend = resend(&app, &token).await;
    let right_pin = verify(&app, &token, &second).await;
    // Assert
    assert_error(another_resend, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
    assert_error(right_pin, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
    app.stop().await;
}

#[tokio::test]
async fn an_account_keeps_at_most_three_live_reset_tokens() {
    // Arrange
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let mut started = Vec::new();
    for mail in 2..=5 {
        let token = start_reset(&app, &ann.email).await;
        started.push((token, pin_of_mail(&app, &ann.email, mail).await));
    }
    // Act: the fourth start retired the first token.
    let oldest = verify(&app, &started[0].0, &started[0].1).await;
    let others: Vec<StatusCode> = {
        let mut statuses = Vec::new();
        for (token, pin) in &started[1..] {
            statuses.push(verify(&app, token, pin).await.status());
        }
        statuses
    };
    // Assert
    assert_error(oldest, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
    assert_eq!(others, [StatusCode::OK; 3]);
    app.stop().await;
}

#[tokio::test]
async fn ten_failed_checks_lock_the_reset_for_the_hour_but_not_the_login() {
    // Arrange: ten wrong PINs over three tokens of ann's address.
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let mut tokens = Vec::new();
    for mail in 2..=4 {
        let token = start_reset(&app, &ann.email).await;
        tokens.push((token, pin_of_mail(&app, &ann.email, mail).await));
    }
    for i in 0..10 {
        let (token, pin) = &tokens[i / 5];
        assert_error(verify(&app, token, &wrong(pin)).await, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
    }
    // Act
    let right_pin = verify(&app, &tokens[2].0, &tokens[2].1).await;
    let new_start = start(&app, &ann.email).await;
    let new_resend = resend(&app, &tokens[2].0).await;
    let owner_login = login(&app, &ann.handle, PASSWORD).await;
    // Assert
    for locked in [right_pin, new_start, new_resend] {
        let seconds = retry_after(&locked);
        assert!((3000..=3600).contains(&seconds), "Retry-After {seconds}");
        assert_error(locked, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    }
    assert_eq!(owner_login.status(), StatusCode::OK);
    app.stop().await;
}

#[tokio::test]
async fn an_unknown_address_locks_like_a_known_one() {
    // Arrange: the lock must not tell which addresses have accounts.
    let app = spawn_app().await;
    let mut tokens = Vec::new();
    for _ in 0..2 {
        tokens.push(start_reset(&app, "nobody@example.org").await);
    }
    for i in 0..10 {
        assert_error(verify(&app, &tokens[i / 5], "123456").await, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
    }
    // Act
    let new_start = start(&app, "nobody@example.org").await;
    let other_address = start(&app, "somebody@example.org").await;
    // Assert
    assert_error(new_start, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    assert_eq!(other_address.status(), StatusCode::ACCEPTED);
    app.stop().await;
}

#[tokio::test]
async fn ten_failed_sign_up_checks_lock_sign_up_for_that_address() {
    // Arrange
    let app = spawn_app().await;
    let signup = json!({"email": "eve@example.org", "handle": "eve", "fullName": "Eve Full", "displayName": "Eve"});
    for _ in 0..2 {
        let started = app.post_json("/v0/auth/sign-up/start", signup.clone()).await;
        assert_eq!(started.status(), StatusCode::ACCEPTED);
        let token = body(started).await["signupToken"].as_str().unwrap().to_owned();
        let pin = app.read_pin("eve@example.org").await;
        for _ in 0..5 {
            let guess = json!({"signupToken": token, "pin": wrong(&pin)});
            let answer = app.post_json("/v0/auth/sign-up/verify-pin", guess).await;
            assert_error(answer, StatusCode::BAD_REQUEST, "PIN_INVALID").await;
        }
    }
    // Act
    let locked = app.post_json("/v0/auth/sign-up/start", signup).await;
    // Assert
    assert_error(locked, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    app.stop().await;
}
