//! Write Trellis modules in Rust.
//!
//! A module is a WebAssembly component (`wasm32-wasip2`, crate type `cdylib`) that implements one of the
//! worlds of the `trellis:module` WIT package: a [`SpaceModule`] (events and routes of the spaces it is
//! connected to), a [`MarketplaceRule`](marketplace::MarketplaceRule) or an
//! [`AnalysisStep`](analysis::AnalysisStep), all at WIT 0.3.0 (SDK 0.3.0 imports and exports only 0.3.0
//! interfaces; the host still runs components of older SDKs, adapted). Implement the trait, export it with the matching
//! macro ([`export_space_module!`], [`export_marketplace_rule!`], [`export_analysis_step!`]), and reach the
//! host through the capability modules, each of which needs its [`Permission`] in the [`Manifest`]:
//! [`kv`], [`log`], [`item`], [`http`], [`asset`], and for analysis steps the inference capabilities
//! [`media`], [`vision`] and [`speech`].
//!
//! On native targets those capability functions talk to [`testing::TestHost`], an in-memory host, so the
//! module's logic is tested with plain `cargo test --target host-tuple`, and built with `cargo build --release`
//! (the scaffold's `.cargo/config.toml` makes `wasm32-wasip2` the default target).
//!
//! # A worked example
//!
//! A space module that counts form submissions per form. Its configuration names the forms to ignore; it
//! keeps the counts in its key-value store, updates them on form events and serves them at `GET /counts`.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//! use std::collections::BTreeMap;
//! use trellis_plugin_sdk::{
//!     Context, Event, Manifest, Method, Permission, Request, Response, Result, SpaceModule, item, kv, log,
//! };
//!
//! /// The configuration a space gives the module; the host validates it against the schema first.
//! #[derive(Deserialize, Default)]
//! #[serde(rename_all = "camelCase", default)]
//! struct Config {
//!     ignore_forms: Vec<String>,
//! }
//!
//! #[derive(Serialize, Deserialize, Default)]
//! struct Counts {
//!     counts: BTreeMap<String, u64>,
//! }
//!
//! struct SubmissionCounter;
//!
//! impl SpaceModule for SubmissionCounter {
//!     fn manifest() -> Manifest {
//!         Manifest::new("submission-counter", "Submission counter", env!("CARGO_PKG_VERSION"))
//!             .description("Counts form submissions per form")
//!             .config_schema(serde_json::json!({
//!                 "$schema": "https://json-schema.org/draft/2020-12/schema",
//!                 "type": "object",
//!                 "additionalProperties": false,
//!                 "properties": {"ignoreForms": {"type": "array", "items": {"type": "string"}}}
//!             }))
//!             .permission(Permission::KeyValue)
//!             .permission(Permission::ItemRead)
//!             .permission(Permission::Logging)
//!     }
//!
//!     fn on_event(ctx: &Context, event: &Event) -> Result<()> {
//!         let config: Config = ctx.config()?;
//!         let Some(instance) = item::current_form_instance()? else { return Ok(()) };
//!         if !event.is_form_instance() || config.ignore_forms.contains(&instance.form_id) {
//!             return Ok(());
//!         }
//!         // Events run concurrently: update shared state atomically, never by a read and a write.
//!         kv::update_json("counts", |counts: Option<Counts>| {
//!             let mut counts = counts.unwrap_or_default();
//!             *counts.counts.entry(instance.form_id.clone()).or_default() += 1;
//!             Some(counts)
//!         })?;
//!         log::debug(format!("counted {}", event.item_id()));
//!         Ok(())
//!     }
//!
//!     fn handle_request(_ctx: &Context, request: &Request) -> Result<Response> {
//!         Ok(match (request.method(), request.segments().as_slice()) {
//!             (Method::Get, ["counts"]) => Response::ok(&kv::get_json::<Counts>("counts")?.unwrap_or_default()),
//!             _ => Response::not_found(),
//!         })
//!     }
//! }
//!
//! trellis_plugin_sdk::export_space_module!(SubmissionCounter);
//!
//! // In a module crate this is a `#[test]` in `#[cfg(test)] mod tests`.
//! fn counts_submissions_except_ignored_forms() {
//!     use trellis_plugin_sdk::{EventKind, testing::TestHost};
//!     // Arrange
//!     let host = TestHost::new();
//!     let ctx = Context::with_config("space-1", &serde_json::json!({"ignoreForms": ["noise"]}));
//!     let created = Event::new(EventKind::FormInstanceCreated, "instance-1");
//!
//!     // Act
//!     for form in ["survey", "survey", "noise"] {
//!         host.set_item(&serde_json::json!({"formId": form, "payload": {}}));
//!         SubmissionCounter::on_event(&ctx, &created).unwrap();
//!     }
//!     let response = SubmissionCounter::handle_request(&ctx, &Request::get("/counts")).unwrap();
//!
//!     // Assert
//!     assert_eq!(response.status(), 200);
//!     assert_eq!(response.body(), r#"{"counts":{"survey":2}}"#);
//!     assert_eq!(host.logs().len(), 2);
//!     assert_eq!(SubmissionCounter::handle_request(&ctx, &Request::get("/nope")).unwrap().status(), 404);
//!     SubmissionCounter::manifest().check().unwrap();
//! }
//! # counts_submissions_except_ignored_forms();
//! ```
//!
//! Its `Cargo.toml` needs `crate-type = ["cdylib", "rlib"]` (the `rlib` for doctests and integration tests), and
//! `cargo build --release --target wasm32-wasip2` writes the component to
//! `target/wasm32-wasip2/release/<crate_name>.wasm`. `trellis module new NAME` scaffolds such a crate.
//!
//! # How it maps to WIT
//!
//! Each trait method is one WIT export; errors become the `string` of the WIT `result`. The export macro
//! also exports `module-info`, whose manifest carries the [`ModuleKind`] of the macro used. The component
//! imports only the host interfaces the module's code calls: `wit-component` drops the others.
//!
//! # Names
//!
//! Trellis calls them modules, and so does everything here. Only the crate (`trellis-plugin-sdk`) and the
//! folders of the repository (`plugin-sdk/`, and `plugins/` for the first-party modules) keep the older word,
//! because the project brief names them so.

extern crate self as trellis_plugin_sdk;

pub mod analysis;
pub mod asset;
mod capability;
mod context;
mod error;
mod export;
pub mod http;
pub mod item;
pub mod kv;
pub mod log;
mod manifest;
pub mod marketplace;
pub mod media;
mod request;
mod response;
mod space;
pub mod speech;
#[cfg(not(target_arch = "wasm32"))]
pub mod testing;
pub mod vision;
#[doc(hidden)]
pub mod wit;

pub use capability::CapabilityError;
pub use context::Context;
pub use error::{Error, Result};
pub use manifest::{Manifest, ModuleKind, Permission};
pub use request::{CallerRole, Method, Request, percent_decode};
pub use response::{Detail, Response};
pub use space::{Event, EventKind, SpaceModule};

/// What the export macros expand to. Not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::export::{AnalysisExport, MarketplaceExport, SpaceExport};
    pub use wit_bindgen;
}
