//! Word count at WIT 0.1.0 (`word-count-legacy`): the word-count example as SDK 0.1.0 could write it, frozen.
//!
//! Behaviour as in `/plugins/examples/word-count` (see its docs), except that 0.1.0 had neither atomic
//! key-value updates nor comment events: the totals are read, changed and written back (`stats`), so
//! concurrent events can lose updates, which is exactly what WIT 0.2.0's compare-and-swap and increment
//! fix. Routes: `GET /stats`, `GET /config`, `POST /spin` (never returns), `POST /fail` (an error),
//! `POST /print` (writes to stdout and stderr); anything else is 404 `{"error": "not found"}`.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use trellis_plugin_sdk::{Context, Error, Event, Manifest, Method, Permission, Request, Response, Result, SpaceModule};
use trellis_plugin_sdk::{item, kv, log};

const ID: &str = "word-count-legacy";

/// The module.
pub struct WordCountLegacy;

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

impl SpaceModule for WordCountLegacy {
    fn manifest() -> Manifest {
        Manifest::new(ID, "Word count (WIT 0.1.0)", env!("CARGO_PKG_VERSION"))
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
        // Read, change, write: all 0.1.0 offered.
        let item_key = format!("item/{}", event.item_id());
        let previous: Option<u64> = kv::get_json(&item_key)?;
        let mut stats: Stats = kv::get_json("stats")?.unwrap_or_default();
        stats.items += u64::from(previous.is_none());
        stats.words = (stats.words + words).saturating_sub(previous.unwrap_or(0));
        kv::set_json(&item_key, &words)?;
        kv::set_json("stats", &stats)?;
        log::debug(format!("{} has {words} words", event.item_id()));
        Ok(())
    }

    fn handle_request(ctx: &Context, request: &Request) -> Result<Response> {
        Ok(match (request.method(), request.segments().as_slice()) {
            (Method::Get, ["stats"]) => Response::ok(&kv::get_json::<Stats>("stats")?.unwrap_or_default()),
            (Method::Get, ["config"]) => Response::ok(&config_value(ctx)),
            (Method::Post, ["spin"]) => spin(),
            (Method::Post, ["fail"]) => return Err(Error::new("asked to fail")),
            (Method::Post, ["print"]) => {
                println!("hello from {ID}");
                eprintln!("hello from {ID}");
                Response::ok(&json!({}))
            }
            _ => Response::json(404, &json!({"error": "not found"})),
        })
    }
}

trellis_plugin_sdk::export_space_module!(WordCountLegacy);

/// The space's configuration as JSON; `{}` when it has none.
fn config_value(ctx: &Context) -> Value {
    match serde_json::from_str(ctx.config_json()) {
        Ok(config @ Value::Object(_)) => config,
        _ => json!({}),
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

/// Never returns; `black_box` keeps the optimiser from proving the loop has no effect.
fn spin() -> ! {
    let mut counter = 0u64;
    loop {
        counter = std::hint::black_box(counter.wrapping_add(1));
    }
}
