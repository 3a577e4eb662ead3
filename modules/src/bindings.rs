//! Host bindings of the WIT package, one module per supported version (`wit/<version>/`, frozen once
//! released). Most of the crate uses 0.1.0 through the re-export below, since the space and marketplace
//! worlds exist only there; analysis steps use 0.2.0 (`v0_2_0`), and 0.1.0 steps are adapted to it.
#![allow(missing_docs)]

pub mod v0_1_0;
pub mod v0_2_0;

pub use v0_1_0::*;
