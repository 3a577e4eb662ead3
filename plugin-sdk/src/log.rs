//! Structured logging through the host, attributed to the module. Needs
//! [`Permission::Logging`](crate::Permission).
//!
//! ```
//! use trellis_plugin_sdk::{log, testing::TestHost};
//!
//! let host = TestHost::new();
//! log::info("tagged item-1");
//! log::log(log::Level::Warn, format!("{} tags dropped", 2));
//! let logs = host.logs();
//! assert_eq!(logs[0], (log::Level::Info, "tagged item-1".to_owned()));
//! assert_eq!(logs[1], (log::Level::Warn, "2 tags dropped".to_owned()));
//! ```

/// How much a message matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Step-by-step detail.
    Trace,
    /// Detail for debugging.
    Debug,
    /// Normal operation.
    Info,
    /// Something unexpected that the module handled.
    Warn,
    /// Something failed.
    Error,
}

/// Logs `message` at `level`.
pub fn log(level: Level, message: impl AsRef<str>) {
    imp::log(level, message.as_ref())
}

/// Logs at [`Level::Trace`].
pub fn trace(message: impl AsRef<str>) {
    log(Level::Trace, message)
}

/// Logs at [`Level::Debug`].
pub fn debug(message: impl AsRef<str>) {
    log(Level::Debug, message)
}

/// Logs at [`Level::Info`].
pub fn info(message: impl AsRef<str>) {
    log(Level::Info, message)
}

/// Logs at [`Level::Warn`].
pub fn warn(message: impl AsRef<str>) {
    log(Level::Warn, message)
}

/// Logs at [`Level::Error`].
pub fn error(message: impl AsRef<str>) {
    log(Level::Error, message)
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::Level;
    use crate::wit::imports::trellis::module::logging as host;

    pub(super) fn log(level: Level, message: &str) {
        let level = match level {
            Level::Trace => host::Level::Trace,
            Level::Debug => host::Level::Debug,
            Level::Info => host::Level::Info,
            Level::Warn => host::Level::Warn,
            Level::Error => host::Level::Error,
        };
        host::log(level, message)
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::Level;

    pub(super) fn log(level: Level, message: &str) {
        crate::testing::with_host(|host| host.logs.push((level, message.to_owned())))
    }
}
