//! The `logging` import: a module's log lines, cut to size and counted, go to the host's tracing under the
//! target `trellis_modules::guest`.

use crate::bindings::logging;
use crate::invoke::state::{HostVerdict, StoreState};

/// Longest log message kept, in bytes; longer ones are cut.
const MAX_LOG_BYTES: usize = 4096;

impl logging::Host for StoreState {
    async fn log(&mut self, level: logging::Level, mut message: String) -> wasmtime::Result<()> {
        if !self.caps.logging {
            return Err(self.fail(HostVerdict::Host("logging called without the logging grant".into())));
        }
        if self.logs_left == 0 {
            return Ok(());
        }
        self.logs_left -= 1;
        if message.len() > MAX_LOG_BYTES {
            let cut = (0..=MAX_LOG_BYTES).rev().find(|&i| message.is_char_boundary(i)).unwrap_or(0);
            message.truncate(cut);
        }
        let module = self.caps.module_id.as_str();
        let space = self.scope.space_id.as_str();
        macro_rules! emit {
            ($level:ident) => {
                tracing::event!(target: "trellis_modules::guest", tracing::Level::$level, module, space, "{message}")
            };
        }
        match level {
            logging::Level::Trace => emit!(TRACE),
            logging::Level::Debug => emit!(DEBUG),
            logging::Level::Info => emit!(INFO),
            logging::Level::Warn => emit!(WARN),
            logging::Level::Error => emit!(ERROR),
        }
        Ok(())
    }
}
