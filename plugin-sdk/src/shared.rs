//! The interfaces every world imports under its own version's name (logging, outbound HTTP, asset reads):
//! `log`, `http` and `asset` call whichever set the running hook installed.
//!
//! A component targets one WIT version, so it must import `logging@0.1.0` or `logging@0.2.0`, never both.
//! Calling the generated imports straight from `log::info` would import both into every module. Instead each
//! export glue installs its version's set before it runs the module's hook; the glue is generic over the
//! module, so only the exported kind's set is compiled into a component, and the linker drops the other
//! version's imports with the code that nobody references.

use std::sync::OnceLock;

use crate::http::{IncomingResponse, OutgoingRequest};
use crate::log::Level;

/// One WIT version's shared imports.
pub(crate) struct SharedImports {
    pub log: fn(Level, &str),
    pub fetch: fn(OutgoingRequest) -> Result<IncomingResponse, String>,
    pub asset_size: fn() -> u64,
    pub asset_read: fn(u64, u32) -> Vec<u8>,
}

static CURRENT: OnceLock<&'static SharedImports> = OnceLock::new();

/// Installs `imports` for the rest of the instance's life (a component exports one kind).
pub(crate) fn install(imports: &'static SharedImports) {
    let _ = CURRENT.set(imports);
}

/// The installed set; `None` before the first hook runs (e.g. while the host reads the manifest).
pub(crate) fn current() -> Option<&'static SharedImports> {
    CURRENT.get().copied()
}

/// The same, for a capability that cannot do without it.
pub(crate) fn required(what: &str) -> &'static SharedImports {
    current().unwrap_or_else(|| panic!("{what} was called outside a module hook"))
}

pub(crate) mod v0_1 {
    use super::SharedImports;
    use crate::http::{IncomingResponse, OutgoingRequest};
    use crate::log::Level;
    use crate::wit::imports::trellis::module::{asset_read, logging, outbound_http};

    pub(crate) static IMPORTS: SharedImports = SharedImports { log, fetch, asset_size, asset_read };

    fn log(level: Level, message: &str) {
        let level = match level {
            Level::Trace => logging::Level::Trace,
            Level::Debug => logging::Level::Debug,
            Level::Info => logging::Level::Info,
            Level::Warn => logging::Level::Warn,
            Level::Error => logging::Level::Error,
        };
        logging::log(level, message)
    }

    fn fetch(request: OutgoingRequest) -> Result<IncomingResponse, String> {
        let request = outbound_http::OutgoingRequest {
            method: request.method,
            url: request.url,
            headers: request.headers,
            body: request.body,
        };
        outbound_http::fetch(&request).map(|r| IncomingResponse { status: r.status, headers: r.headers, body: r.body })
    }

    fn asset_size() -> u64 {
        asset_read::size()
    }

    fn asset_read(offset: u64, length: u32) -> Vec<u8> {
        asset_read::read(offset, length)
    }
}

pub(crate) mod v0_2 {
    use super::SharedImports;
    use crate::http::{IncomingResponse, OutgoingRequest};
    use crate::log::Level;
    use crate::wit::analysis_imports::trellis::module::{asset_read, logging, outbound_http};

    pub(crate) static IMPORTS: SharedImports = SharedImports { log, fetch, asset_size, asset_read };

    fn log(level: Level, message: &str) {
        let level = match level {
            Level::Trace => logging::Level::Trace,
            Level::Debug => logging::Level::Debug,
            Level::Info => logging::Level::Info,
            Level::Warn => logging::Level::Warn,
            Level::Error => logging::Level::Error,
        };
        logging::log(level, message)
    }

    fn fetch(request: OutgoingRequest) -> Result<IncomingResponse, String> {
        let request = outbound_http::OutgoingRequest {
            method: request.method,
            url: request.url,
            headers: request.headers,
            body: request.body,
        };
        outbound_http::fetch(&request).map(|r| IncomingResponse { status: r.status, headers: r.headers, body: r.body })
    }

    fn asset_size() -> u64 {
        asset_read::size()
    }

    fn asset_read(offset: u64, length: u32) -> Vec<u8> {
        asset_read::read(offset, length)
    }
}
