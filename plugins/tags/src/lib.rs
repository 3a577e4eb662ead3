//! The Tags module (`tags`): tags space items from their form's `metadata.tags`, from the background analysis of
//! published assets (the analysis's tags join those members gave) and through its routes, and
//! answers tag counts and the items per tag. Configuration and normalisation are in [`config`], the
//! key-value layout in [`store`].
//!
//! Routes (members and owners; errors use the Trellis error body, see [`Response::validation_failed`]):
//! - `GET /counts` → `{"counts": {tag: n}}`
//! - `GET /tags/{tag}/items?limit=&cursor=` → `{"items": [itemId], "nextCursor": string|null}`; `limit` is
//!   1 to 200 (default 50), `cursor` the `nextCursor` of the page before
//! - `GET /items/{itemId}/tags` → `{"itemId", "tags"}`
//! - `POST /items/{itemId}/tags` with `{"tags": [..]}` adds them → `{"itemId", "tags"}`; 400
//!   VALIDATION_FAILED with details `NOT_IN_VOCABULARY` or `EMPTY_TAG` at `/tags/{i}`, `TOO_MANY_TAGS` at
//!   `/tags`, or `INVALID_BODY` at `` (the whole body)
//! - `DELETE /items/{itemId}/tags/{tag}` → `{"itemId", "tags"}`
//!
//! Tags in paths are percent-decoded and normalised before use, so `/tags/Big%20Data/items` finds `big data`.

pub mod config;
pub mod store;

use serde::Deserialize;
use serde_json::{Value, json};
use trellis_plugin_sdk::{
    Context, Detail, Event, EventKind, Manifest, Method, Permission, Request, Response, Result, SpaceModule, item, log,
};

use crate::config::Config;

const DEFAULT_PAGE: u32 = 50;
const MAX_PAGE: u32 = 200;

/// The module.
pub struct Tags;

impl SpaceModule for Tags {
    fn manifest() -> Manifest {
        Manifest::new("tags", "Tags", env!("CARGO_PKG_VERSION"))
            .description("Tags space items from form metadata and lets members add and remove tags")
            .config_schema(config::schema())
            .permission(Permission::KeyValue)
            .permission(Permission::Logging)
            .permission(Permission::ItemRead)
    }

    fn on_event(ctx: &Context, event: &Event) -> Result<()> {
        if event.kind() == EventKind::AssetStateChanged {
            return tag_analysed_asset(ctx, event);
        }
        if !event.is_form_instance() {
            return Ok(());
        }
        let Some(instance) = item::current_form_instance()? else {
            return Ok(());
        };
        // An instance without `metadata.tags` says nothing about tags: keep what members added through routes.
        let Some(raw) = instance.payload.pointer("/metadata/tags") else {
            return Ok(());
        };
        let config: Config = ctx.config()?;
        let tags = match raw {
            Value::String(list) => config.tags_from(list.split(',')),
            Value::Array(list) => config.tags_from(list.iter().filter_map(Value::as_str)),
            _ => Vec::new(),
        };
        if !store::item_id_fits(event.item_id()) {
            log::warn(format!("item id of {} bytes is too long to tag", event.item_id().len()));
            return Ok(());
        }
        store::set_item_tags(event.item_id(), &tags)
    }

    fn handle_request(ctx: &Context, request: &Request) -> Result<Response> {
        let item = request.segment(1).unwrap_or_default();
        match (request.method(), request.segments().as_slice()) {
            (Method::Get, ["counts"]) => Ok(Response::raw(200, store::counts_body())),
            (Method::Get, ["tags", _, "items"]) => tag_items(ctx, request),
            (_, ["items", _, ..]) if !store::item_id_fits(&item) => Ok(Response::not_found()),
            (Method::Get, ["items", _, "tags"]) => item_tags(&item),
            (Method::Post, ["items", _, "tags"]) => add_tags(ctx, &item, request),
            (Method::Delete, ["items", _, "tags", _]) => remove_tag(ctx, &item, request),
            _ => Ok(Response::not_found()),
        }
    }
}

trellis_plugin_sdk::export_space_module!(Tags);

fn tag_items(ctx: &Context, request: &Request) -> Result<Response> {
    let config: Config = ctx.config()?;
    let limit = match request.query_param("limit") {
        None => DEFAULT_PAGE,
        Some(limit) => match limit.parse::<u32>() {
            Ok(limit @ 1..=MAX_PAGE) => limit,
            _ => {
                let message = format!("limit must be an integer from 1 to {MAX_PAGE}");
                return Ok(Response::validation_failed(vec![Detail::new("query.limit", "OUT_OF_RANGE", message)]));
            }
        },
    };
    let Some(tag) = config.normalise(&request.segment(1).unwrap_or_default()) else {
        return Ok(Response::ok(&json!({"items": [], "nextCursor": null})));
    };
    let (items, next_cursor) = store::tag_items(&tag, request.query_param("cursor").as_deref(), limit);
    Ok(Response::ok(&json!({"items": items, "nextCursor": next_cursor})))
}

fn item_tags(item: &str) -> Result<Response> {
    Ok(Response::ok(&json!({"itemId": item, "tags": store::item_tags(item)?})))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AddTags {
    tags: Vec<String>,
}

fn add_tags(ctx: &Context, item: &str, request: &Request) -> Result<Response> {
    let config: Config = ctx.config()?;
    let body: AddTags = match request.json() {
        Ok(body) => body,
        Err(error) => {
            let message = format!("body must be {{\"tags\": [string]}}: {error}");
            return Ok(Response::validation_failed(vec![Detail::new("", "INVALID_BODY", message)]));
        }
    };
    let mut problems = Vec::new();
    let mut tags = store::item_tags(item)?;
    let before = tags.len();
    for (index, raw) in body.tags.iter().enumerate() {
        let path = format!("/tags/{index}");
        match config.normalise(raw) {
            None => problems.push(Detail::new(path, "EMPTY_TAG", "a tag must have a visible character")),
            Some(tag) if !config.admits(&tag) => {
                problems.push(Detail::new(path, "NOT_IN_VOCABULARY", format!("{tag:?} is not in the vocabulary")));
            }
            Some(tag) if !tags.contains(&tag) => tags.push(tag),
            Some(_) => {}
        }
    }
    // Only a growing list is refused, so lowering the cap never locks existing items.
    if tags.len() > config.max_per_item && tags.len() > before {
        let message = format!("an item carries at most {} tags; this would make {}", config.max_per_item, tags.len());
        problems.push(Detail::new("/tags", "TOO_MANY_TAGS", message));
    }
    if !problems.is_empty() {
        return Ok(Response::validation_failed(problems));
    }
    if let Err(error) = store::set_item_tags(item, &tags) {
        return Ok(Response::validation_failed(vec![Detail::new("/tags", "NOT_STORED", error.message())]));
    }
    Ok(Response::ok(&json!({"itemId": item, "tags": tags})))
}

fn remove_tag(ctx: &Context, item: &str, request: &Request) -> Result<Response> {
    let config: Config = ctx.config()?;
    let mut tags = store::item_tags(item)?;
    if let Some(tag) = config.normalise(&request.segment(3).unwrap_or_default()) {
        tags.retain(|kept| *kept != tag);
        store::set_item_tags(item, &tags)?;
    }
    Ok(Response::ok(&json!({"itemId": item, "tags": tags})))
}

#[cfg(test)]
mod tests;

/// An asset whose background analysis succeeded gets the analysis's tags added to the ones members
/// gave it (normalised, filtered by the vocabulary and capped like any others). Other asset changes
/// carry no `analysis.tags` and change nothing.
fn tag_analysed_asset(ctx: &Context, event: &Event) -> Result<()> {
    let Some(asset) = item::current_json::<Value>()? else {
        return Ok(());
    };
    let analysis = asset.pointer("/analysis");
    if analysis.and_then(|a| a.get("state")).and_then(Value::as_str) != Some("SUCCEEDED") {
        return Ok(());
    }
    let Some(found) = analysis.and_then(|a| a.get("tags")).and_then(Value::as_array) else {
        return Ok(());
    };
    if !store::item_id_fits(event.item_id()) {
        return Ok(());
    }
    let config: Config = ctx.config()?;
    let existing = store::item_tags(event.item_id())?;
    let merged = config.tags_from(existing.iter().map(String::as_str).chain(found.iter().filter_map(Value::as_str)));
    store::set_item_tags(event.item_id(), &merged)
}
