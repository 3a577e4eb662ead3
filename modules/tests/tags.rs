//! The bundled Tags module, driven through the host API.

use trellis_modules::{EventKind, ModuleEvent, ModuleFailure};

use crate::support::{TAGS as TAGS_MODULE_ID, get, invocation, shared};

#[tokio::test]
async fn tags_event_shows_in_counts_route() {
    // Arrange
    let host = &shared().host;
    let event = ModuleEvent {
        kind: EventKind::FormInstanceCreated,
        item_id: "item-1".into(),
        item_json: Some(
            r#"{"formId":"f","configurationId":"c","state":"draft","payload":{"metadata":{"tags":["Alpha"," beta "]}}}"#.into(),
        ),
    };

    // Act
    host.dispatch_event(TAGS_MODULE_ID, invocation("space-tags-1"), event).await.expect("event accepted");
    let answer = host.handle_request(TAGS_MODULE_ID, invocation("space-tags-1"), get("/counts")).await.unwrap();

    // Assert
    assert_eq!(answer.status, 200);
    let body: serde_json::Value = serde_json::from_str(&answer.body_json_text).unwrap();
    assert_eq!(body, serde_json::json!({"counts": {"alpha": 1, "beta": 1}}));
}

#[tokio::test]
async fn tags_state_is_scoped_to_its_space() {
    let host = &shared().host;

    let answer = host.handle_request(TAGS_MODULE_ID, invocation("space-tags-empty"), get("/counts")).await.unwrap();

    let body: serde_json::Value = serde_json::from_str(&answer.body_json_text).unwrap();
    assert_eq!(body, serde_json::json!({"counts": {}}));
}

#[tokio::test]
async fn unknown_module_and_wrong_kind_are_refused_without_running_anything() {
    let host = &shared().host;

    let unknown = host.handle_request("nope", invocation("s"), get("/")).await.unwrap_err();

    assert_eq!(unknown, ModuleFailure::Unknown);
}
