//! The host side of the imports a module may be granted, one file per interface: key-value, logging,
//! item-read, asset-read and outbound HTTP, written once against WIT 0.2.0 (0.1.0 adapted in `v0_1_0.rs`), and
//! the inference capabilities of WIT 0.2.0, media, vision and speech, over the invocation's
//! [`MediaAnalysis`](crate::analysis::MediaAnalysis) (`capability.rs` holds what they share).
//!
//! Each import is linked only when granted, and checks the grant again here, so a linking mistake cannot
//! widen what a module reaches. A failure of the host itself (database error, time out) ends the invocation
//! with a trap and a note in the store saying it was the host's fault.

pub(crate) mod asset_read;
pub(crate) mod capability;
pub(crate) mod item_read;
pub(crate) mod key_value;
pub(crate) mod logging;
pub(crate) mod media;
pub(crate) mod outbound_http;
pub(crate) mod speech;
pub(crate) mod v0_1_0;
pub(crate) mod vision;

use tokio::time::error::Elapsed;

use crate::bindings::latest::types;
use crate::invoke::state::{HostVerdict, StoreState};

impl StoreState {
    /// Turns the outcome of a bounded host call into the import's result.
    pub(crate) fn settle<T>(&mut self, outcome: Result<anyhow::Result<T>, Elapsed>) -> wasmtime::Result<T> {
        match outcome {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(err)) => Err(self.fail(HostVerdict::Host(format!("{err:#}")))),
            Err(_) => Err(self.fail(HostVerdict::Deadline)),
        }
    }
}

impl types::Host for StoreState {}
