use reqwest::{Method, StatusCode};
use trellis_tests::{assert_error, body, spawn_app};

#[tokio::test]
async fn a_new_user_signs_up_and_reads_the_own_profile() {
    // Arrange
    let app = spawn_app().await;
    // Act
    let ann = app.sign_up("ann").await;
    let response = app.get_authed("/v0/users/me", &ann.token).await;
    // Assert
    assert_eq!(response.status(), StatusCode::OK);
    let profile = body(response).await;
    assert_eq!(profile["handle"], "ann");
    assert_eq!(profile["userId"], ann.user_id.as_str());
    assert_error(
        app.request(Method::GET, "/v0/users/me").send().await.unwrap(),
        StatusCode::UNAUTHORIZED,
        "UNAUTHENTICATED",
    )
    .await;
    app.stop().await;
}
