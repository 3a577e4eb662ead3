//! The `logging` import: a module's log lines, cut to size, escaped (a module cannot forge lines of its
//! own with newlines or terminal escapes) and limited per invocation and per space, go to the host's
//! tracing under the target `trellis_modules::guest`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use wasmtime::component::Linker;

use crate::capabilities::{Capability, Data, Grant, data};
use crate::invoke::state::StoreState;
use crate::load::manifest::ModuleKind;
use crate::wit::latest::logging;
use crate::wit::{WitVersion, v0_1, v0_2, v0_3};

/// The `logging` permission.
pub(crate) const CAPABILITY: Capability = Capability {
    name: "logging",
    interface: "logging",
    since: WitVersion::V0_1,
    kinds: &[ModuleKind::Space, ModuleKind::MarketplaceRule, ModuleKind::AnalysisStep],
    carried_over: true,
    link,
};

fn link(linker: &mut Linker<StoreState>, version: WitVersion) -> anyhow::Result<()> {
    match version {
        WitVersion::V0_1 => v0_1::logging::add_to_linker::<_, Data>(linker, data)?,
        // Under both names: a 0.2.0 analysis step from an older SDK imports it at 0.1.x (see
        // `WitVersion::accepts`); the check refuses such imports for the other kinds.
        WitVersion::V0_2 => {
            v0_2::logging::add_to_linker::<_, Data>(linker, data)?;
            v0_1::logging::add_to_linker::<_, Data>(linker, data)?;
        }
        WitVersion::V0_3 => v0_3::logging::add_to_linker::<_, Data>(linker, data)?,
    }
    Ok(())
}

/// Spaces whose log budget is remembered at once; when full, the oldest refills are forgotten.
const MAX_TRACKED_SPACES: usize = 100_000;

/// Log lines each space may emit: `per_second` on average, `burst` at once; the rest are dropped.
pub(crate) struct LogBudget {
    per_second: f64,
    burst: f64,
    spaces: Mutex<HashMap<String, (f64, Instant)>>,
}

impl LogBudget {
    pub(crate) fn new(per_second: u32, burst: u32) -> Self {
        Self { per_second: f64::from(per_second.max(1)), burst: f64::from(burst.max(1)), spaces: Mutex::default() }
    }

    /// Takes one line of `space_id`'s budget; `false` when it is spent.
    pub(crate) fn take(&self, space_id: &str) -> bool {
        let mut spaces = self.spaces.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let now = Instant::now();
        if spaces.len() >= MAX_TRACKED_SPACES && !spaces.contains_key(space_id) {
            let burst = self.burst;
            let rate = self.per_second;
            spaces.retain(|_, (tokens, at)| *tokens + now.duration_since(*at).as_secs_f64() * rate < burst);
        }
        let (tokens, at) = spaces.entry(space_id.to_owned()).or_insert((self.burst, now));
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * self.per_second).min(self.burst);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Longest log message kept, in bytes; longer ones are cut.
const MAX_LOG_BYTES: usize = 4096;

impl logging::Host for StoreState {
    async fn log(&mut self, level: logging::Level, mut message: String) -> wasmtime::Result<()> {
        self.require(Grant::Logging)?;
        if self.logs_left == 0 || !self.caps.log_budget.take(&self.scope.space_id) {
            return Ok(());
        }
        self.logs_left -= 1;
        if message.len() > MAX_LOG_BYTES {
            let cut = (0..=MAX_LOG_BYTES).rev().find(|&i| message.is_char_boundary(i)).unwrap_or(0);
            message.truncate(cut);
        }
        // Newlines, terminal escapes and other control characters are written as escapes.
        let message = message.escape_debug().to_string();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_space_spends_its_log_budget_and_others_keep_theirs() {
        let budget = LogBudget::new(1, 3);
        assert_eq!((0..5).filter(|_| budget.take("a")).count(), 3);
        assert!(budget.take("b"));
    }

    #[test]
    fn control_characters_cannot_forge_lines() {
        let forged = "ok\n2026-11-24T00:00:00Z  INFO trellis: admin logged in\u{1b}[2J".escape_debug().to_string();
        assert!(!forged.contains('\n') && !forged.contains('\u{1b}'), "{forged}");
    }
}
