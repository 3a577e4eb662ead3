use serde_json::{Value, json};
use trellis_plugin_sdk::testing::TestHost;
use trellis_plugin_sdk::{CallerRole, Context, Event, EventKind, Request, SpaceModule};

use crate::Tags;

fn space(config: Value) -> Context {
    Context::with_config("space-1", &config)
}

fn instance_with_tags(tags: Value) -> Value {
    json!({"formId": "f1", "configurationId": "c1", "state": "SUBMITTED", "payload": {"metadata": {"tags": tags}}})
}

fn created(item: &str) -> Event {
    Event::new(EventKind::FormInstanceCreated, item)
}

fn call(ctx: &Context, request: Request) -> (u16, Value) {
    let response = Tags::handle_request(ctx, &request.with_caller("u1", "ada", CallerRole::Member)).unwrap();
    (response.status(), response.json_body().unwrap())
}

#[test]
fn manifest_declares_id_schema_and_permissions() {
    let manifest = Tags::manifest();
    manifest.check().unwrap();
    assert_eq!(manifest.id(), "tags");
    let schema: Value = serde_json::from_str(manifest.config_schema_json()).unwrap();
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(manifest.permissions().len(), 3);
}

#[test]
fn form_events_tag_items_from_metadata_normalised_and_capped() {
    // Arrange
    let host = TestHost::new();
    let ctx = space(json!({"vocabulary": ["Red", "Blue", "Big Data"], "maxPerItem": 2}));
    host.set_item(&instance_with_tags(json!(" RED , purple, big   data, red, blue")));

    // Act
    Tags::on_event(&ctx, &created("i1")).unwrap();

    // Assert
    assert_eq!(call(&ctx, Request::get("/items/i1/tags")).1, json!({"itemId": "i1", "tags": ["red", "big data"]}));
    assert_eq!(call(&ctx, Request::get("/counts")).1, json!({"counts": {"red": 1, "big data": 1}}));
}

#[test]
fn an_update_replaces_tags_and_one_without_metadata_tags_keeps_them() {
    // Arrange
    let host = TestHost::new();
    let ctx = space(json!({}));
    host.set_item(&instance_with_tags(json!("a, b")));
    Tags::on_event(&ctx, &created("i1")).unwrap();

    // Act
    host.set_item(&instance_with_tags(json!("b, c")));
    Tags::on_event(&ctx, &Event::new(EventKind::FormInstanceUpdated, "i1")).unwrap();
    host.set_item(&json!({"formId": "f1", "payload": {"metadata": {}}}));
    Tags::on_event(&ctx, &Event::new(EventKind::FormInstanceUpdated, "i1")).unwrap();

    // Assert
    assert_eq!(call(&ctx, Request::get("/items/i1/tags")).1["tags"], json!(["b", "c"]));
    assert_eq!(call(&ctx, Request::get("/counts")).1, json!({"counts": {"b": 1, "c": 1}}));
}

#[test]
fn events_without_a_form_item_change_nothing() {
    let host = TestHost::new();
    let ctx = space(json!({}));
    Tags::on_event(&ctx, &created("i1")).unwrap();
    host.set_item(&instance_with_tags(json!("a")));
    // An asset event about a form-like item with no analysis tags nothing either.
    Tags::on_event(&ctx, &Event::new(EventKind::AssetStateChanged, "asset-1")).unwrap();
    assert!(host.kv_keys().is_empty());
}

#[test]
fn counts_route_reads_one_key_and_nothing_else() {
    // Arrange
    let host = TestHost::new();
    let ctx = space(json!({}));
    host.set_item(&instance_with_tags(json!("a, b")));
    Tags::on_event(&ctx, &created("i1")).unwrap();
    host.reset_kv_calls();

    // Act
    let (status, body) = call(&ctx, Request::get("/counts"));

    // Assert
    assert_eq!((status, body), (200, json!({"counts": {"a": 1, "b": 1}})));
    let calls = host.kv_calls();
    assert_eq!((calls.gets, calls.sets, calls.deletes, calls.lists), (1, 0, 0, 0));
}

#[test]
fn counts_route_answers_empty_counts_before_any_tag() {
    let _host = TestHost::new();
    assert_eq!(call(&space(json!({})), Request::get("/counts")), (200, json!({"counts": {}})));
}

#[test]
fn tag_items_route_pages_through_items_and_normalises_the_tag() {
    // Arrange
    let _host = TestHost::new();
    let ctx = space(json!({}));
    for item in ["i1", "i2", "i3"] {
        call(&ctx, Request::post(format!("/items/{item}/tags")).with_json(&json!({"tags": ["Big Data"]})));
    }

    // Act
    let first = call(&ctx, Request::get("/tags/BIG%20data/items").with_query("limit=2"));
    let second = call(&ctx, Request::get("/tags/big%20data/items").with_query("limit=2&cursor=i2"));

    // Assert
    assert_eq!(first, (200, json!({"items": ["i1", "i2"], "nextCursor": "i2"})));
    assert_eq!(second, (200, json!({"items": ["i3"], "nextCursor": null})));
}

#[test]
fn tag_items_route_rejects_a_bad_limit_with_its_query_path() {
    let _host = TestHost::new();
    let (status, body) = call(&space(json!({})), Request::get("/tags/a/items").with_query("limit=0"));
    assert_eq!(status, 400);
    assert_eq!(body["error"]["details"][0]["path"], "query.limit");
}

#[test]
fn adding_tags_merges_normalised_tags_with_existing_ones() {
    // Arrange
    let _host = TestHost::new();
    let ctx = space(json!({"normalise": {"case": "preserve"}}));
    call(&ctx, Request::post("/items/i1/tags").with_json(&json!({"tags": ["Alpha"]})));

    // Act
    let (status, body) =
        call(&ctx, Request::post("/items/i1/tags").with_json(&json!({"tags": [" Beta  x ", "Alpha"]})));

    // Assert
    assert_eq!((status, body), (200, json!({"itemId": "i1", "tags": ["Alpha", "Beta x"]})));
}

#[test]
fn adding_tags_outside_the_vocabulary_or_over_the_cap_is_400_listing_each_problem() {
    // Arrange
    let _host = TestHost::new();
    let ctx = space(json!({"vocabulary": ["a", "b"], "maxPerItem": 1}));

    // Act
    let (status, body) =
        call(&ctx, Request::post("/items/i1/tags").with_json(&json!({"tags": ["a", "zzz", " ", "b"]})));

    // Assert
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], "VALIDATION_FAILED");
    let details: Vec<(&str, &str)> = body["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|detail| (detail["path"].as_str().unwrap(), detail["code"].as_str().unwrap()))
        .collect();
    assert_eq!(details, [("/tags/1", "NOT_IN_VOCABULARY"), ("/tags/2", "EMPTY_TAG"), ("/tags", "TOO_MANY_TAGS")]);
    assert_eq!(call(&ctx, Request::get("/items/i1/tags")).1["tags"], json!([]));
}

#[test]
fn adding_tags_with_a_malformed_body_is_400() {
    let _host = TestHost::new();
    let (status, body) = call(&space(json!({})), Request::post("/items/i1/tags").with_body("{\"tags\": 3}"));
    assert_eq!(status, 400);
    assert_eq!(body["error"]["details"][0]["code"], "INVALID_BODY");
}

#[test]
fn deleting_a_tag_removes_it_from_the_item_index_and_counts() {
    // Arrange
    let _host = TestHost::new();
    let ctx = space(json!({}));
    call(&ctx, Request::post("/items/i1/tags").with_json(&json!({"tags": ["a", "b"]})));

    // Act
    let (status, body) = call(&ctx, Request::delete("/items/i1/tags/A"));

    // Assert
    assert_eq!((status, body), (200, json!({"itemId": "i1", "tags": ["b"]})));
    assert_eq!(call(&ctx, Request::get("/counts")).1, json!({"counts": {"b": 1}}));
    assert_eq!(call(&ctx, Request::get("/tags/a/items")).1["items"], json!([]));
}

#[test]
fn unknown_routes_and_methods_are_404() {
    let _host = TestHost::new();
    let ctx = space(json!({}));
    for request in [Request::get("/"), Request::get("/nope"), Request::put("/counts"), Request::get("/items/i1")] {
        assert_eq!(call(&ctx, request).0, 404);
    }
}

#[test]
fn an_analysed_asset_gets_the_analysis_tags_beside_members_tags() {
    let host = TestHost::new();
    let ctx = space(json!({"maxPerItem": 3}));
    host.set_item(&json!({"assetId": "a1", "state": "APPROVED"}));
    Tags::on_event(&ctx, &Event::new(EventKind::AssetStateChanged, "a1")).unwrap();
    assert!(host.kv_keys().is_empty(), "an asset change without analysis tags nothing");
    call(&ctx, Request::post("/items/a1/tags").with_json(&json!({"tags": ["Mine"]})));

    let analysed =
        json!({"assetId": "a1", "analysis": {"state": "SUCCEEDED", "tags": ["Kite", "bald eagle", "sky", "x"]}});
    host.set_item(&analysed);
    Tags::on_event(&ctx, &Event::new(EventKind::AssetStateChanged, "a1")).unwrap();

    assert_eq!(call(&ctx, Request::get("/items/a1/tags")).1["tags"], json!(["mine", "kite", "bald eagle"]));
    host.set_item(&json!({"assetId": "a2", "analysis": {"state": "FAILED", "tags": ["kite"]}}));
    Tags::on_event(&ctx, &Event::new(EventKind::AssetStateChanged, "a2")).unwrap();
    assert_eq!(call(&ctx, Request::get("/items/a2/tags")).1["tags"], json!([]));
}
