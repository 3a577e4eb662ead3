//! The Trellis module host: runs sandboxed WebAssembly components (modules) with wasmtime's component model.
//!
//! Independent of HTTP and of the database: the host crate gives it a [`KeyValueBackend`] (and, for analysis,
//! an [`AssetSource`]) and calls [`ModuleHost`]. One pooled `Engine` with epoch deadlines runs every module;
//! each module is compiled once (or loaded from the on-disk cache) into an `InstancePre`, and every invocation
//! gets a fresh store and instance with a memory cap and a wall-clock budget. A trap, a deadline, a memory cap
//! or an invalid answer ends only that invocation, and is logged and counted.
//!
//! Modules have no ambient authority: WASI is linked (guests built with `std` import it) but with nothing
//! preopened, no environment, no arguments, no stdio and no sockets. A module reaches the outside only through
//! the host imports its manifest asks for and the deployment grants.
#![deny(missing_docs)]

mod analysis;
mod api;
mod bindings;
mod cache;
mod calls;
mod config;
mod engine;
mod failure;
mod host;
mod http;
mod imports;
mod inspect;
mod invoke;
mod kv;
mod load;
mod manifest;
mod state;
mod wit_check;

pub use analysis::{AnalysisResult, AssetInfo, AssetSource, BytesAsset, MAX_ASSET_READ_BYTES};
pub use api::{
    CallerRole, ConfigError, ConfigProblem, Decision, EventKind, Invocation, ListingStats, MAX_RESPONSE_BODY_BYTES,
    Method, ModuleEvent, ModuleRequest, ModuleResponse, ModuleSummary, Registration,
};
pub use cache::{CodeLoad, CodeOrigin};
pub use config::{EnabledModule, Grant, ModulesConfig, TAGS_MODULE_ID};
pub use engine::EPOCH_TICK;
pub use failure::{FailureCounts, FailureKind, ModuleFailure};
pub use host::ModuleHost;
pub use inspect::{CheckReport, check, inspect};
pub use kv::{KeyValueBackend, KvScope, MAX_KEY_BYTES, MAX_LIST_LIMIT, MAX_VALUE_BYTES, MemoryKv};
pub use manifest::{Manifest, ModuleKind, Permission};
pub use wit_check::{HostImport, ImportReport};

/// Directory holding the components built from `plugins/` (`trellis_tags.wasm`, `trellis_hostile.wasm`,
/// `word_count.wasm`, ...), for tests and benchmarks.
pub const PLUGINS_DIR: &str = env!("TRELLIS_PLUGINS_DIR");

/// The bundled Tags component.
pub(crate) const TAGS_WASM: &[u8] = include_bytes!(concat!(env!("TRELLIS_PLUGINS_DIR"), "/trellis_tags.wasm"));
