//! Host bindings of the WIT package, one module per supported version (`wit/<version>/`, frozen once
//! released). The host's imports are implemented once, against the newest version (`v0_2_0`); the
//! interfaces of older versions are adapters over them (`imports/v0_1_0.rs`), and their exports are
//! called through their own bindings and adapted to the newest answer (`invoke/`).
#![allow(missing_docs)]

pub mod v0_1_0;
pub mod v0_2_0;

/// The newest version: what the host implements.
pub use v0_2_0 as latest;
