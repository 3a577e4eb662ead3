//! Word count (`word-count`): an example of a third-party module, built against `trellis-plugin-sdk` alone.
//!
//! On every form instance created or updated in a connected space it counts the words in the instance's text
//! answers (`payload.fields`, minus the fields the configuration's `ignoreFields` names) and keeps the totals
//! in its key-value store; `GET /stats` answers `{"items": n, "words": n}`. An update replaces the item's
//! earlier count rather than adding to it.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use trellis_plugin_sdk::{Context, Event, Manifest, Method, Permission, Request, Response, Result, SpaceModule};
use trellis_plugin_sdk::{item, kv, log};

/// The module.
pub struct WordCount;

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct Config {
    ignore_fields: Vec<String>,
}

#[derive(Serialize, Deserialize, Default, Debug, PartialEq)]
struct Stats {
    items: u64,
    words: u64,
}

impl SpaceModule for WordCount {
    fn manifest() -> Manifest {
        Manifest::new("word-count", "Word count", env!("CARGO_PKG_VERSION"))
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
        let item_key = format!("item/{}", event.item_id());
        let previous: Option<u64> = kv::get_json(&item_key)?;
        let mut stats: Stats = kv::get_json("stats")?.unwrap_or_default();
        stats.items += u64::from(previous.is_none());
        stats.words = stats.words - previous.unwrap_or(0) + words;
        kv::set_json(&item_key, &words)?;
        kv::set_json("stats", &stats)?;
        log::debug(format!("{} has {words} words", event.item_id()));
        Ok(())
    }

    fn handle_request(_ctx: &Context, request: &Request) -> Result<Response> {
        Ok(match (request.method(), request.segments().as_slice()) {
            (Method::Get, ["stats"]) => Response::ok(&kv::get_json::<Stats>("stats")?.unwrap_or_default()),
            _ => Response::not_found(),
        })
    }
}

trellis_plugin_sdk::export_space_module!(WordCount);

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
    use trellis_plugin_sdk::EventKind;
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
        assert_eq!(stats(&ctx), json!({"items": 2, "words": 8}));
    }

    #[test]
    fn an_update_replaces_the_items_earlier_count() {
        let host = TestHost::new();
        let ctx = Context::new("space-1", "{}");
        host.set_item(&instance(json!({"a": "one two three"})));
        WordCount::on_event(&ctx, &Event::new(EventKind::FormInstanceCreated, "i1")).unwrap();
        host.set_item(&instance(json!({"a": "one"})));
        WordCount::on_event(&ctx, &Event::new(EventKind::FormInstanceUpdated, "i1")).unwrap();
        assert_eq!(stats(&ctx), json!({"items": 1, "words": 1}));
    }

    #[test]
    fn ignored_fields_and_asset_events_count_nothing() {
        let host = TestHost::new();
        let ctx = Context::with_config("space-1", &json!({"ignoreFields": ["secret"]}));
        host.set_item(&instance(json!({"secret": "do not count me", "a": "count"})));
        WordCount::on_event(&ctx, &Event::new(EventKind::FormInstanceCreated, "i1")).unwrap();
        WordCount::on_event(&ctx, &Event::new(EventKind::AssetStateChanged, "asset-1")).unwrap();
        assert_eq!(stats(&ctx), json!({"items": 1, "words": 1}));
    }

    #[test]
    fn stats_start_at_zero_and_other_routes_are_404() {
        let _host = TestHost::new();
        let ctx = Context::default();
        assert_eq!(stats(&ctx), json!({"items": 0, "words": 0}));
        assert_eq!(WordCount::handle_request(&ctx, &Request::get("/other")).unwrap().status(), 404);
        WordCount::manifest().check().unwrap();
    }
}
