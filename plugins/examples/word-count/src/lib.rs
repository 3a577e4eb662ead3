//! Word count (`word-count`): an example of a third-party module, built against `trellis-plugin-sdk` alone.
//!
//! On every form instance created or updated in a connected space it counts the words in the instance's text
//! answers (`payload.fields`, minus the fields the configuration's `ignoreFields` names) and keeps the totals
//! in its key-value store; `GET /stats` answers `{"items": n, "words": n, "comments": n}`. An update replaces
//! the item's earlier count rather than adding to it. Events run concurrently, so the state changes only
//! atomically: the item's count with a compare-and-swap (which says what it replaced), the totals with
//! increments. `POST /count` answers `{"words": n}` for `{"text": "..."}`, and 400 with what is wrong for
//! another body. Other routes, for the host's conformance tests: `GET /config`, `POST /spin` (never returns),
//! `POST /fail` (an error), `POST /crash` (a panic), `POST /print` (writes to stdout and stderr).

use serde::Deserialize;
use serde_json::{Value, json};
use trellis_plugin_sdk::{Context, Detail, Error, Event, EventKind, Manifest, Method, Permission, Request, Response};
use trellis_plugin_sdk::{Result, SpaceModule, item, kv, log};

const ID: &str = "word-count";

/// The module.
pub struct WordCount;

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct Config {
    ignore_fields: Vec<String>,
}

/// The body of `POST /count`.
#[derive(Deserialize)]
struct Count {
    text: String,
}

impl SpaceModule for WordCount {
    fn manifest() -> Manifest {
        Manifest::new(ID, "Word count", env!("CARGO_PKG_VERSION"))
            .description("Counts the words in the text answers of the space's form instances")
            .config_schema(json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "additionalProperties": false,
                "properties": {"ignoreFields": {"type": "array", "items": {"type": "string"}}}
            }))
            .permission(Permission::KeyValue)
            .permission(Permission::ItemRead)
            .permission(Permission::Logging)
    }

    fn on_event(ctx: &Context, event: &Event) -> Result<()> {
        if event.kind() == EventKind::CommentCreated {
            kv::increment("comments", 1)?;
            return Ok(());
        }
        if !event.is_form_instance() {
            return Ok(());
        }
        let Some(instance) = item::current_form_instance()? else {
            return Ok(());
        };
        let config: Config = ctx.config()?;
        let words = match instance.payload.get("fields") {
            Some(Value::Object(fields)) => fields
                .iter()
                .filter(|(id, _)| !config.ignore_fields.contains(id))
                .map(|(_, answer)| count_words(answer))
                .sum(),
            _ => 0,
        };
        let previous = swap_item_count(&format!("item/{}", event.item_id()), words)?;
        if previous.is_none() {
            kv::increment("items", 1)?;
        }
        let delta = i64::try_from(words).unwrap_or(i64::MAX) - i64::try_from(previous.unwrap_or(0)).unwrap_or(0);
        if delta != 0 {
            kv::increment("words", delta)?;
        }
        log::debug(format!("{} has {words} words", event.item_id()));
        Ok(())
    }

    fn handle_request(ctx: &Context, request: &Request) -> Result<Response> {
        Ok(match (request.method(), request.segments().as_slice()) {
            (Method::Get, ["stats"]) => Response::ok(
                &json!({"items": counter("items")?, "words": counter("words")?, "comments": counter("comments")?}),
            ),
            (Method::Get, ["config"]) => Response::ok(&config_value(ctx)),
            (Method::Post, ["spin"]) => spin(),
            (Method::Post, ["count"]) => match request.json::<Count>() {
                Ok(Count { text }) => Response::ok(&json!({"words": count_words(&Value::String(text))})),
                Err(_) => {
                    let problem = Detail::new("/text", "REQUIRED", "must be a string");
                    Response::bad_request("text must be a string", vec![problem])
                }
            },
            (Method::Post, ["fail"]) => return Err(Error::new("asked to fail")),
            (Method::Post, ["crash"]) => panic!("asked to crash"),
            (Method::Post, ["print"]) => {
                println!("hello from {ID}");
                eprintln!("hello from {ID}");
                Response::ok(&json!({}))
            }
            _ => Response::json(404, &json!({"error": "not found"})),
        })
    }
}

trellis_plugin_sdk::export_space_module!(WordCount);

/// Stores `words` as the item's count and answers the count it replaced, if any: a compare-and-swap
/// loop, so of two concurrent events of one item each sees the other's count, never the same old one.
fn swap_item_count(key: &str, words: u64) -> Result<Option<u64>> {
    let new = words.to_string();
    loop {
        let old = kv::get(key);
        if kv::compare_and_swap(key, old.as_deref(), Some(new.as_bytes()))? {
            let previous = old.map(|bytes| String::from_utf8_lossy(&bytes).parse::<u64>());
            return previous.transpose().map_err(|error| Error::new(format!("{key} is not a count: {error}")));
        }
    }
}

/// A counter of the key-value store (decimal text, kept by `kv::increment`); 0 before the first.
fn counter(key: &str) -> Result<i64> {
    match kv::get(key) {
        None => Ok(0),
        Some(bytes) => String::from_utf8_lossy(&bytes)
            .parse()
            .map_err(|error| Error::new(format!("{key} is not a counter: {error}"))),
    }
}

/// The space's configuration as JSON; `{}` when it has none.
fn config_value(ctx: &Context) -> Value {
    match serde_json::from_str(ctx.config_json()) {
        Ok(config @ Value::Object(_)) => config,
        _ => json!({}),
    }
}

/// Never returns; `black_box` keeps the optimiser from proving the loop has no effect.
fn spin() -> ! {
    let mut counter = 0u64;
    loop {
        counter = std::hint::black_box(counter.wrapping_add(1));
    }
}

/// Words in a text answer (and in the strings of a list answer); numbers and choices count as nothing.
fn count_words(answer: &Value) -> u64 {
    match answer {
        Value::String(text) => {
            text.split_whitespace().filter(|word| word.chars().any(char::is_alphanumeric)).count() as u64
        }
        Value::Array(items) => items.iter().map(count_words).sum(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use trellis_plugin_sdk::testing::TestHost;

    fn instance(fields: Value) -> Value {
        json!({"formId": "f1", "configurationId": "c1", "state": "SUBMITTED", "payload": {"fields": fields}})
    }

    fn stats(ctx: &Context) -> Value {
        WordCount::handle_request(ctx, &Request::get("/stats")).unwrap().json_body().unwrap()
    }

    #[test]
    fn counts_words_of_text_answers_across_items() {
        // Arrange
        let host = TestHost::new();
        let ctx = Context::new("space-1", "");

        // Act
        host.set_item(&instance(json!({"a": "The quick  brown fox", "b": 42, "c": ["jumps over", "—"]})));
        WordCount::on_event(&ctx, &Event::new(EventKind::FormInstanceCreated, "i1")).unwrap();
        host.set_item(&instance(json!({"a": "lazy dog"})));
        WordCount::on_event(&ctx, &Event::new(EventKind::FormInstanceCreated, "i2")).unwrap();

        // Assert
        assert_eq!(stats(&ctx), json!({"items": 2, "words": 8, "comments": 0}));
    }

    #[test]
    fn an_update_replaces_the_items_earlier_count() {
        let host = TestHost::new();
        let ctx = Context::new("space-1", "{}");
        host.set_item(&instance(json!({"a": "one two three"})));
        WordCount::on_event(&ctx, &Event::new(EventKind::FormInstanceCreated, "i1")).unwrap();
        host.set_item(&instance(json!({"a": "one"})));
        WordCount::on_event(&ctx, &Event::new(EventKind::FormInstanceUpdated, "i1")).unwrap();
        assert_eq!(stats(&ctx), json!({"items": 1, "words": 1, "comments": 0}));
    }

    #[test]
    fn ignored_fields_and_asset_events_count_nothing() {
        let host = TestHost::new();
        let ctx = Context::with_config("space-1", &json!({"ignoreFields": ["secret"]}));
        host.set_item(&instance(json!({"secret": "do not count me", "a": "count"})));
        WordCount::on_event(&ctx, &Event::new(EventKind::FormInstanceCreated, "i1")).unwrap();
        WordCount::on_event(&ctx, &Event::new(EventKind::AssetStateChanged, "asset-1")).unwrap();
        assert_eq!(stats(&ctx), json!({"items": 1, "words": 1, "comments": 0}));
    }

    #[test]
    fn stats_start_at_zero_and_other_routes_are_404() {
        let _host = TestHost::new();
        let ctx = Context::default();
        assert_eq!(stats(&ctx), json!({"items": 0, "words": 0, "comments": 0}));
        let other = WordCount::handle_request(&ctx, &Request::get("/other")).unwrap();
        assert_eq!((other.status(), other.body()), (404, r#"{"error":"not found"}"#));
        WordCount::manifest().check().unwrap();
    }

    #[test]
    fn comments_count_and_the_extra_routes_answer() {
        let _host = TestHost::new();
        let ctx = Context::with_config("space-1", &json!({"ignoreFields": ["x"]}));
        WordCount::on_event(&ctx, &Event::new(EventKind::CommentCreated, "c1")).unwrap();
        WordCount::on_event(&ctx, &Event::new(EventKind::CommentCreated, "c2")).unwrap();
        assert_eq!(stats(&ctx)["comments"], 2);
        let config = WordCount::handle_request(&ctx, &Request::get("/config")).unwrap();
        assert_eq!(config.json_body::<Value>().unwrap(), json!({"ignoreFields": ["x"]}));
        let failed = WordCount::handle_request(&ctx, &Request::post("/fail")).unwrap_err();
        assert_eq!(failed.message(), "asked to fail");
        assert_eq!(WordCount::handle_request(&ctx, &Request::post("/print")).unwrap().status(), 200);
    }

    #[test]
    fn count_counts_a_text_and_answers_400_with_what_is_wrong_without_one() {
        // Arrange
        let ctx = Context::default();
        let count = |body: Value| WordCount::handle_request(&ctx, &Request::post("/count").with_json(&body)).unwrap();

        // Act
        let counted = count(json!({"text": "one two three"}));
        let refused = count(json!({"words": 3}));

        // Assert
        assert_eq!(counted.json_body::<Value>().unwrap(), json!({"words": 3}));
        assert_eq!(refused.status(), 400);
        let details = json!([{"path": "/text", "code": "REQUIRED", "message": "must be a string"}]);
        assert_eq!(
            refused.json_body::<Value>().unwrap(),
            json!({"error": {"code": "VALIDATION_FAILED", "message": "text must be a string", "details": details}})
        );
    }
}
