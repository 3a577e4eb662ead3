//! The Trellis module host: runs sandboxed WebAssembly components (modules) with wasmtime's component model.
//!
//! Independent of HTTP and of the database: the host crate gives it a [`KeyValueBackend`] (and, for analysis,
//! an [`AssetSource`] and the [`MediaAnalysis`] capabilities) and calls [`ModuleHost`]. It knows no particular module: the binary that embeds modules
//! hands their bytes over as [`BundledModule`]s, and a deployment enables them by id. One pooled `Engine` with epoch deadlines runs every module;
//! each module is compiled once (or loaded from the on-disk cache) into an `InstancePre`, and every invocation
//! gets a fresh store and instance with a memory cap and a wall-clock budget. A trap, a deadline, a memory cap
//! or an invalid answer ends only that invocation, and is logged and counted.
//!
//! Modules have no ambient authority: WASI is linked (guests built with `std` import it) but with nothing
//! preopened, no environment, no arguments, no stdio and no sockets. A module reaches the outside only through
//! the host imports its manifest asks for and the deployment grants.
#![deny(missing_docs)]

// The public API: what the host crate passes in and gets back.
mod analysis;
mod api;
mod config;
mod host;

// How it works: the capabilities a module may be granted (one file each), the WIT versions (one folder
// each: bindings and adapters), loading a module, and running it.
mod capabilities;
mod invoke;
mod load;
mod wit;

pub use analysis::{
    AnalysisResult, AssetInfo, AssetSource, BytesAsset, Colour, Face, Faces, Finding, Label, Labels,
    MAX_ASSET_READ_BYTES, MAX_DESCRIPTION_BYTES, MAX_FACES, MAX_FRAMES, MAX_LABELS, MAX_MODEL_BYTES, MAX_OBJECTS,
    MAX_SEGMENTS, MAX_SENTENCES, MAX_TAG_CHARS, MAX_TAGS, MAX_TEXT_BYTES, MAX_TEXT_LINES, MAX_TRANSCRIPT_BYTES,
    MediaAnalysis, MediaInfo, MediaKind, Object, Objects, PictureFacts, Segment, Text, Transcript,
};
pub use api::{
    CallerRole, ConfigError, ConfigProblem, Decision, EventKind, Invocation, ListingStats, MAX_RESPONSE_BODY_BYTES,
    Method, ModuleEvent, ModuleRequest, ModuleResponse, ModuleSummary, Registration,
};
pub use capabilities::key_value::{
    CommitRefused, KeyValueBackend, KvRoom, KvScope, KvWrite, MAX_KEY_BYTES, MAX_LIST_LIMIT, MAX_VALUE_BYTES, MemoryKv,
    QuotaExceeded, add_to_counter, apply_writes, usage_change,
};
pub use config::{BundledModule, EnabledModule, Grant, ModulesConfig};
pub use host::{ModuleHost, RefusedModule};
pub use invoke::engine::EPOCH_TICK;
pub use invoke::failure::{BusyBound, FailureCounts, FailureKind, ModuleFailure};
pub use invoke::metrics::{ModuleMetricsReport, REPORT_BOUNDS_MICROS};
pub use load::cache::{CodeLoad, CodeOrigin};
pub use load::inspect::{CheckReport, check, check_cached, inspect, inspect_cached};
pub use load::manifest::{Manifest, ModuleKind, Permission, is_valid_module_id};
pub use load::wit_check::{HostImport, ImportReport};
pub use wit::WitVersion;
