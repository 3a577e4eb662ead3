//! The bundled Tags module, driven through the host API. Every test uses spaces of its own: the shared host
//! keeps one key-value store for all of them, so a shared space would make a result depend on test order.

use std::sync::Arc;

use trellis_modules::{
    AssetInfo, BytesAsset, EventKind, FailureCounts, ListingStats, ModuleEvent, ModuleFailure, ModuleKind,
};

use crate::analysis::FakeMedia;
use crate::support::{TAGS, get, invocation, private_host, shared, tags_only};

fn tagged(item_id: &str, tags: &[&str]) -> ModuleEvent {
    let item = serde_json::json!({
        "formId": "f", "configurationId": "c", "state": "draft", "payload": {"metadata": {"tags": tags}}
    });
    ModuleEvent { kind: EventKind::FormInstanceCreated, item_id: item_id.into(), item_json: Some(item.to_string()) }
}

async fn counts(space_id: &str) -> serde_json::Value {
    let answer = shared().host.handle_request(TAGS, invocation(space_id), get("/counts")).await.unwrap();
    assert_eq!(answer.status, 200, "{}", answer.body_json_text);
    serde_json::from_str(&answer.body_json_text).unwrap()
}

#[tokio::test]
async fn tags_event_shows_in_counts_route() {
    // Arrange
    let host = &shared().host;

    // Act
    host.dispatch_event(TAGS, invocation("tags-event-shows"), tagged("item-1", &["Alpha", " beta "]))
        .await
        .expect("event accepted");

    // Assert
    assert_eq!(counts("tags-event-shows").await, serde_json::json!({"counts": {"alpha": 1, "beta": 1}}));
}

#[tokio::test]
async fn a_space_without_events_has_no_counts() {
    assert_eq!(counts("tags-never-written").await, serde_json::json!({"counts": {}}));
}

#[tokio::test]
async fn tags_state_is_scoped_to_its_space() {
    // Arrange
    let host = &shared().host;

    // Act: two spaces of this test alone, each tagged differently.
    host.dispatch_event(TAGS, invocation("tags-isolation-a"), tagged("item-a", &["only-a"])).await.unwrap();
    host.dispatch_event(TAGS, invocation("tags-isolation-b"), tagged("item-b", &["only-b", "both"])).await.unwrap();
    host.dispatch_event(TAGS, invocation("tags-isolation-a"), tagged("item-c", &["both"])).await.unwrap();

    // Assert: each space counts its own items only.
    assert_eq!(counts("tags-isolation-a").await, serde_json::json!({"counts": {"only-a": 1, "both": 1}}));
    assert_eq!(counts("tags-isolation-b").await, serde_json::json!({"counts": {"only-b": 1, "both": 1}}));
}

#[tokio::test]
async fn unknown_module_and_wrong_kind_are_refused_without_running_anything() {
    // Arrange: a host of this test's own, so no other test's invocations move its counters.
    let host = private_host(tags_only());
    let stats = ListingStats {
        space_id: "tags-refused".into(),
        members: 1,
        assets: 0,
        comments_last_week: 0,
        registrations_last_week: 0,
        age_days: 1,
    };
    let asset =
        AssetInfo { asset_id: "a".into(), filename: "a.txt".into(), content_type: "text/plain".into(), bytes: 0 };

    // Act: Tags is a space module; the marketplace and analysis calls need other kinds.
    let unknown = host.handle_request("nope", invocation("tags-refused"), get("/")).await.unwrap_err();
    let score = host.trending_scores(TAGS, invocation("tags-refused"), vec![stats]).await.unwrap_err();
    let analysis = host
        .analyze(
            TAGS,
            invocation("tags-refused"),
            asset,
            Arc::new(BytesAsset::default()),
            Arc::new(FakeMedia::default()),
        )
        .await
        .unwrap_err();

    // Assert
    assert_eq!(unknown, ModuleFailure::Unknown);
    let wrong = |expected| ModuleFailure::WrongKind { expected, actual: ModuleKind::Space };
    assert_eq!(score, wrong(ModuleKind::MarketplaceRule));
    assert_eq!(analysis, wrong(ModuleKind::AnalysisStep));
    assert_eq!(host.failure_counts()[TAGS], FailureCounts::default(), "a refused call runs nothing");
}
