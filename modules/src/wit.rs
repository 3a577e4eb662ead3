//! The WIT package `trellis:module`, one folder per supported version (`wit/<version>/` at the top of the
//! repository, frozen once released): each holds that version's bindings and its adapters. The host's
//! imports are implemented once, against the newest version (`v0_3`, in `capabilities/`); an older version
//! adapts its imports to them (`v0_1/imports.rs`, `v0_2/imports.rs`), and its exports are called through its
//! own bindings with arguments and answers adapted to the newest (`v0_1/exports.rs`, `v0_2/exports.rs`).
//!
//! Adding a version: a folder here with its bindings (`bindgen!` over `wit/<version>/`) and its manifest
//! conversion, a [`WitVersion`] variant, `latest` pointed at it, and the previous newest turned into adapters.
#![allow(missing_docs)]

pub mod v0_1;
pub mod v0_2;
pub mod v0_3;

use serde::Serialize;

/// The newest version: what the host implements.
pub use v0_3 as latest;

/// The version of the WIT package a component targets. Every world exists at 0.1 and 0.2 (adapted) and 0.3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum WitVersion {
    /// `trellis:module@0.1.x`.
    #[serde(rename = "0.1.0")]
    V0_1,
    /// `trellis:module@0.2.x`.
    #[serde(rename = "0.2.0")]
    V0_2,
    /// `trellis:module@0.3.x`.
    #[serde(rename = "0.3.0")]
    V0_3,
}

impl WitVersion {
    /// The version as written in WIT: `0.1.0`, `0.2.0` or `0.3.0`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::V0_1 => "0.1.0",
            Self::V0_2 => "0.2.0",
            Self::V0_3 => "0.3.0",
        }
    }

    /// The package name with its version.
    pub fn package(self) -> &'static str {
        match self {
            Self::V0_1 => v0_1::names::PACKAGE,
            Self::V0_2 => v0_2::names::PACKAGE,
            Self::V0_3 => v0_3::names::PACKAGE,
        }
    }

    /// The `module-info` interface of this version, with its version.
    pub(crate) fn module_info(self) -> &'static str {
        match self {
            Self::V0_1 => v0_1::names::MODULE_INFO,
            Self::V0_2 => v0_2::names::MODULE_INFO,
            Self::V0_3 => v0_3::names::MODULE_INFO,
        }
    }

    /// The version a `semver` version (of `ns:pkg/iface@0.2.3`) is compatible with, if it is one of ours.
    pub(crate) fn of(version: &Option<semver::Version>) -> Option<Self> {
        match version.as_ref().map(|v| (v.major, v.minor)) {
            Some((0, 1)) => Some(Self::V0_1),
            Some((0, 2)) => Some(Self::V0_2),
            Some((0, 3)) => Some(Self::V0_3),
            _ => None,
        }
    }
}

impl std::fmt::Display for WitVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
