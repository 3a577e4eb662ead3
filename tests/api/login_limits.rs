//! Login limits that a stranger cannot turn against an account's owner, and client addresses a
//! client cannot forge (issue 11, findings 2 and 7): limits per account from one address, the
//! `X-Forwarded-For` entry of the trusted proxy, and IPv6 clients counted by their /64. The header
//! is believed only from a peer in `http.trusted_proxies` (issue 28).

use std::time::{Duration, Instant};

use reqwest::{Response, StatusCode};
use serde_json::json;
use trellis::config::Config;
use trellis_tests::{PASSWORD, TestApp, assert_error, spawn_app_with};

async fn login_from(app: &TestApp, forwarded_for: &str, login: &str, password: &str) -> Response {
    app.request(reqwest::Method::POST, "/v0/auth/login")
        .header("x-forwarded-for", forwarded_for)
        .json(&json!({"login": login, "password": password}))
        .send()
        .await
        .expect("request sent")
}

/// The tests' requests come from 127.0.0.1, so a server trusting 127.0.0.0/8 takes them as a
/// proxy's.
fn behind_a_proxy(config: &mut Config) {
    config.http.trusted_proxies = vec!["127.0.0.0/8".into()];
}

#[tokio::test]
async fn forwarded_for_from_a_peer_that_is_no_trusted_proxy_is_ignored() {
    // Arrange: the trusted proxies are 10.0.0.0/8; the tests connect from 127.0.0.1.
    let app = spawn_app_with(|config| {
        config.http.trusted_proxies = vec!["10.0.0.0/8".into()];
        config.rate_limits.login_per_address = 2;
    })
    .await;
    app.sign_up("ann").await;
    for i in 1..=2 {
        assert_eq!(login_from(&app, &format!("203.0.113.{i}"), "ann", PASSWORD).await.status(), StatusCode::OK);
    }
    // Act: a third login naming yet another address.
    let rotated = login_from(&app, "203.0.113.3", "ann", PASSWORD).await;
    // Assert: counted against 127.0.0.1 like the first two.
    assert_error(rotated, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    app.stop().await;
}

#[tokio::test]
async fn forwarded_for_from_a_trusted_proxy_names_the_client_past_other_trusted_hops() {
    // Arrange: 127.0.0.0/8 is trusted; 203.0.113.1 logs in twice, the limit.
    let app = spawn_app_with(|config| {
        behind_a_proxy(config);
        config.rate_limits.login_per_address = 2;
    })
    .await;
    app.sign_up("ann").await;
    for _ in 1..=2 {
        assert_eq!(login_from(&app, "203.0.113.1", "ann", PASSWORD).await.status(), StatusCode::OK);
    }
    // Act: the same client through a second trusted proxy (127.0.0.9), and another client.
    let same_client = login_from(&app, "203.0.113.1, 127.0.0.9", "ann", PASSWORD).await;
    let other_client = login_from(&app, "6.6.6.6, 203.0.113.2, 127.0.0.9", "ann", PASSWORD).await;
    // Assert
    assert_error(same_client, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    assert_eq!(other_client.status(), StatusCode::OK);
    app.stop().await;
}

#[tokio::test]
async fn a_stranger_guessing_locks_out_only_their_own_address() {
    // Arrange
    let app = spawn_app_with(|config| {
        behind_a_proxy(config);
        config.rate_limits.login_per_account = 2;
    })
    .await;
    app.sign_up("ann").await;
    for guess in ["wrong password 1", "wrong password 2"] {
        assert_error(login_from(&app, "10.0.0.66", "ann", guess).await, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED")
            .await;
    }
    // Act
    let stranger = login_from(&app, "10.0.0.66", "ann", PASSWORD).await;
    let owner = login_from(&app, "10.0.0.7", "ann", PASSWORD).await;
    // Assert
    assert_error(stranger, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    assert_eq!(owner.status(), StatusCode::OK);
    app.stop().await;
}

#[tokio::test]
async fn the_handle_and_the_email_of_an_account_share_one_limit() {
    // Arrange
    let app = spawn_app_with(|config| {
        behind_a_proxy(config);
        config.rate_limits.login_per_account = 2;
    })
    .await;
    let ann = app.sign_up("ann").await;
    assert_error(
        login_from(&app, "10.0.0.66", "ann", "wrong 1 password").await,
        StatusCode::UNAUTHORIZED,
        "UNAUTHENTICATED",
    )
    .await;
    let by_email = login_from(&app, "10.0.0.66", &ann.email.to_uppercase(), "wrong 2 password").await;
    assert_error(by_email, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    // Act
    let third = login_from(&app, "10.0.0.66", "ann", "wrong 3 password").await;
    // Assert
    assert_error(third, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    app.stop().await;
}

#[tokio::test]
async fn a_forged_leftmost_forwarded_entry_does_not_escape_the_address_limit() {
    // Arrange: the proxy appends the real address (10.0.0.9); the client writes what it likes before it.
    let app = spawn_app_with(|config| {
        behind_a_proxy(config);
        config.rate_limits.login_per_address = 2;
    })
    .await;
    app.sign_up("ann").await;
    for i in 1..=2 {
        let chain = format!("203.0.113.{i}, 10.0.0.9");
        assert_eq!(login_from(&app, &chain, "ann", PASSWORD).await.status(), StatusCode::OK);
    }
    // Act
    let third = login_from(&app, "203.0.113.3, 10.0.0.9", "ann", PASSWORD).await;
    let elsewhere = login_from(&app, "203.0.113.3, 10.0.0.10", "ann", PASSWORD).await;
    // Assert
    assert_error(third, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    assert_eq!(elsewhere.status(), StatusCode::OK);
    app.stop().await;
}

#[tokio::test]
async fn an_ipv6_client_is_counted_by_its_64() {
    // Arrange
    let app = spawn_app_with(|config| {
        behind_a_proxy(config);
        config.rate_limits.login_per_address = 2;
    })
    .await;
    app.sign_up("ann").await;
    for address in ["2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff"] {
        assert_eq!(login_from(&app, address, "ann", PASSWORD).await.status(), StatusCode::OK);
    }
    // Act
    let same_64 = login_from(&app, "2001:db8:1:2:1234::5", "ann", PASSWORD).await;
    let next_64 = login_from(&app, "2001:db8:1:3::1", "ann", PASSWORD).await;
    // Assert
    assert_error(same_64, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    assert_eq!(next_64.status(), StatusCode::OK);
    app.stop().await;
}

#[tokio::test]
async fn an_account_under_attack_is_slowed_but_its_owner_gets_in() {
    // Arrange: failures from many addresses use up the account's failure budget.
    let app = spawn_app_with(|config| {
        behind_a_proxy(config);
        config.rate_limits.login_failures_per_account = 2;
    })
    .await;
    app.sign_up("ann").await;
    for i in 1..=3 {
        let guess = login_from(&app, &format!("10.0.1.{i}"), "ann", "wrong password x").await;
        assert_error(guess, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    }
    // Act
    let started = Instant::now();
    let owner = login_from(&app, "10.0.2.1", "ann", PASSWORD).await;
    // Assert
    assert_eq!(owner.status(), StatusCode::OK);
    assert!(started.elapsed() >= Duration::from_millis(900), "not slowed: {:?}", started.elapsed());
    app.stop().await;
}

#[tokio::test]
async fn an_overlong_login_is_refused_like_a_wrong_one() {
    // Arrange
    let app = spawn_app_with(|_| {}).await;
    let huge = "a".repeat(900_000);
    // Act
    let response = app.post_json("/v0/auth/login", json!({"login": huge, "password": PASSWORD})).await;
    // Assert
    assert_error(response, StatusCode::UNAUTHORIZED, "UNAUTHENTICATED").await;
    app.stop().await;
}

#[tokio::test]
async fn parallel_logins_beyond_the_hashing_places_are_refused_at_once() {
    // Arrange: one hash at a time, two waiting, each at the default cost (tens of milliseconds).
    let app = spawn_app_with(|config| {
        config.auth.max_parallel_hashes = 1;
        config.auth.max_waiting_hashes = 2;
        at_the_default_password_cost(config);
    })
    .await;
    app.sign_up("ann").await;
    // Act: 64 logins at once, as in the issue.
    let logins = (0..64).map(|_| app.post_json("/v0/auth/login", json!({"login": "ann", "password": PASSWORD})));
    let answers = futures::future::join_all(logins).await;
    // Assert
    let statuses: Vec<StatusCode> = answers.iter().map(Response::status).collect();
    assert!(statuses.iter().all(|s| [StatusCode::OK, StatusCode::TOO_MANY_REQUESTS].contains(s)), "{statuses:?}");
    let refused = statuses.iter().filter(|s| **s == StatusCode::TOO_MANY_REQUESTS).count();
    assert!(refused > 0 && refused < 64, "{refused} of 64 refused");
    let refusal = answers.into_iter().find(|a| a.status() == StatusCode::TOO_MANY_REQUESTS).unwrap();
    assert!(refusal.headers().contains_key("retry-after"));
    assert_error(refusal, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    app.stop().await;
}

#[tokio::test]
async fn an_address_the_mailer_cannot_use_is_400_not_500() {
    // Arrange
    let app = spawn_app_with(|_| {}).await;
    let signup = json!({"email": "a<b@example.org", "handle": "abby", "fullName": "Abby Full", "displayName": "Abby"});
    // Act
    let sign_up = app.post_json("/v0/auth/sign-up/start", signup).await;
    let reset = app.post_json("/v0/auth/password-reset/start", json!({"email": "a<b@example.org"})).await;
    // Assert
    for response in [sign_up, reset] {
        let error = assert_error(response, StatusCode::BAD_REQUEST, "VALIDATION_FAILED").await;
        assert_eq!(trellis_tests::detail_paths(&error), ["/email"]);
    }
    app.stop().await;
}

#[tokio::test]
async fn pin_mails_to_one_address_are_limited_whether_or_not_it_has_an_account() {
    // Arrange
    let app = spawn_app_with(|config| config.rate_limits.mail_per_recipient_hour = 2).await;
    let ann = app.sign_up("ann").await;
    let start = |email: &str| app.post_json("/v0/auth/password-reset/start", json!({"email": email}));
    // Act: the sign-up mail was the first of ann's two.
    let second = start(&ann.email).await;
    let third = start(&ann.email).await;
    let unknown: Vec<StatusCode> = {
        let mut statuses = Vec::new();
        for _ in 0..3 {
            statuses.push(start("nobody@example.org").await.status());
        }
        statuses
    };
    // Assert
    assert_eq!(second.status(), StatusCode::ACCEPTED);
    assert!(third.headers().contains_key("retry-after"));
    assert_error(third, StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED").await;
    assert_eq!(unknown, [StatusCode::ACCEPTED, StatusCode::ACCEPTED, StatusCode::TOO_MANY_REQUESTS]);
    app.stop().await;
}

/// Hashes new passwords at the server's default cost (the tests' own is lighter).
fn at_the_default_password_cost(config: &mut trellis::config::Config) {
    let defaults = trellis::config::AuthConfig::default();
    config.auth.password_hash_memory_kib = defaults.password_hash_memory_kib;
    config.auth.password_hash_iterations = defaults.password_hash_iterations;
}

#[tokio::test]
async fn by_default_a_password_is_hashed_with_argon2id_at_owasps_minimum_cost() {
    // Arrange
    let app = spawn_app_with(at_the_default_password_cost).await;
    // Act
    let ann = app.sign_up("ann").await;
    // Assert: the stored hash says how it was made (19,456 KiB, two passes, one lane).
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&app.config.database_url()).await.unwrap();
    let stored: String = sqlx::query_scalar("select password_hash from app_user where user_id = $1")
        .bind(ann.user_id.clone())
        .fetch_one(&pool)
        .await
        .unwrap();
    pool.close().await;
    assert!(stored.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{stored}");
    app.stop().await;
}
