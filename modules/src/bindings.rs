//! Host bindings of the WIT package, one module per supported version (`wit/<version>/`, frozen once
//! released). The rest of the crate uses the current version through the re-export below; a new version gets
//! its own module here, pointing unchanged interfaces at the latest with `with`.
#![allow(missing_docs)]

pub mod v0_1_0;

pub use v0_1_0::*;
