//! How an invocation can fail, how a wasmtime error becomes one of those failures, and the counters.

use std::time::Duration;

use serde::Serialize;
use wasmtime::Trap;

use crate::config::ModulesConfig;
use crate::invoke::state::{HostVerdict, StoreState};
use crate::load::manifest::ModuleKind;

/// Why an invocation gave no usable answer. Every variant ends only that invocation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModuleFailure {
    /// No enabled module has this id.
    #[error("unknown module")]
    Unknown,
    /// The module exists but is of another kind than the call needs.
    #[error("module is a {actual} module, not a {expected} module")]
    WrongKind {
        /// The kind the call needs.
        expected: ModuleKind,
        /// The module's kind.
        actual: ModuleKind,
    },
    /// The guest trapped (panic, unreachable, out-of-bounds access, ...).
    #[error("module trapped: {0}")]
    Trap(String),
    /// The guest used up its own time (the deadline of the call's kind).
    #[error("module exceeded its deadline")]
    Deadline,
    /// The call waited past its wall-clock bound (the deadline plus `max_call_wait_ms`): for a guest
    /// thread, or inside host calls.
    #[error("module call exceeded its wall-clock bound")]
    WallClock,
    /// The guest tried to grow its memory past the cap.
    #[error("module exceeded its memory cap")]
    MemoryCap,
    /// The guest answered something the host cannot use.
    #[error("module gave an invalid answer: {0}")]
    InvalidAnswer(String),
    /// The guest returned an error of its own.
    #[error("module failed: {0}")]
    ModuleError(String),
    /// The call's key-value writes would take the module past its quota in the space; none was written.
    #[error("module wrote past its key-value quota: {0}")]
    KvQuota(String),
    /// Every run of the call found a key it compared-and-swapped changed by another call when its writes
    /// were committed; none was written.
    #[error("module call conflicted with other calls {attempts} times")]
    Conflict {
        /// How many times the call ran.
        attempts: u32,
    },
    /// The host failed while serving the guest (key-value backend, asset store, no instance slot).
    #[error("host failure while running module: {0}")]
    Host(String),
    /// Not run: the module or the space has as many calls running as it may, or the space has spent
    /// its guest time; try again after `retry_after`.
    #[error("module is busy; retry after {retry_after:?}")]
    Busy {
        /// When a retry may be admitted.
        retry_after: std::time::Duration,
        /// Which bound was met.
        bound: BusyBound,
    },
}

/// The failure kinds that are counted per module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// See [`ModuleFailure::Trap`].
    Trap,
    /// See [`ModuleFailure::Deadline`].
    Deadline,
    /// See [`ModuleFailure::MemoryCap`].
    MemoryCap,
    /// See [`ModuleFailure::InvalidAnswer`].
    InvalidAnswer,
    /// See [`ModuleFailure::ModuleError`].
    ModuleError,
    /// See [`ModuleFailure::Host`].
    Host,
}

impl FailureKind {
    /// The name used in logs and metrics.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Trap => "trap",
            Self::Deadline => "deadline",
            Self::MemoryCap => "memory-cap",
            Self::InvalidAnswer => "invalid-answer",
            Self::ModuleError => "module-error",
            Self::Host => "host",
        }
    }
}

impl ModuleFailure {
    /// The counted kind; `None` for calls that never reached a module.
    pub fn kind(&self) -> Option<FailureKind> {
        Some(match self {
            Self::Unknown | Self::WrongKind { .. } | Self::Busy { .. } | Self::Conflict { .. } => return None,
            Self::Trap(_) => FailureKind::Trap,
            Self::Deadline | Self::WallClock => FailureKind::Deadline,
            Self::MemoryCap => FailureKind::MemoryCap,
            Self::InvalidAnswer(_) => FailureKind::InvalidAnswer,
            Self::ModuleError(_) | Self::KvQuota(_) => FailureKind::ModuleError,
            Self::Host(_) => FailureKind::Host,
        })
    }

    /// Classifies a failed instantiation or call. The store's notes come first: when the host ended the
    /// invocation (deadline, backend failure) or refused memory, the trap the guest saw is only the symptom.
    pub(crate) fn from_wasmtime(err: &wasmtime::Error, state: &StoreState) -> Self {
        match &state.verdict {
            Some(HostVerdict::Deadline) => return Self::Deadline,
            Some(HostVerdict::WallClock) => return Self::WallClock,
            Some(HostVerdict::Host(why)) => return Self::Host(why.clone()),
            None => {}
        }
        if state.limiter.hit {
            return Self::MemoryCap;
        }
        match err.downcast_ref::<Trap>() {
            Some(Trap::Interrupt) => Self::Deadline,
            Some(trap) => Self::Trap(trap.to_string()),
            None if err.downcast_ref::<DeadlineExceeded>().is_some() => Self::Deadline,
            None if err.downcast_ref::<WallClockExceeded>().is_some() => Self::WallClock,
            None => Self::Trap(truncate(format!("{err:#}"), 512)),
        }
    }

    /// What a client of `module_id` learns of this failure: which limit was hit and its value (`deadline` is the
    /// budget of the call's kind and the setting that sets it), or the trap's message; never the module's own
    /// error text or the host's internals.
    pub fn describe(&self, module_id: &str, deadline: (Duration, &str), settings: &ModulesConfig) -> String {
        let (budget, setting) = deadline;
        let what = match self {
            Self::Deadline => {
                format!("ran past its deadline of {} ms of its own time (modules.{setting})", budget.as_millis())
            }
            Self::WallClock => format!(
                "was still waiting {} ms after its deadline (modules.max_call_wait_ms)",
                settings.max_call_wait_ms
            ),
            Self::MemoryCap => {
                format!("hit its memory limit of {} (modules.memory_limit_bytes)", bytes(settings.memory_limit_bytes))
            }
            Self::Trap(why) => format!("trapped: {why}"),
            Self::InvalidAnswer(why) => format!("gave an invalid answer: {why}"),
            Self::ModuleError(_) => "reported an error".to_owned(),
            Self::KvQuota(why) => format!("wrote past its key-value quota, so none of its writes were kept: {why}"),
            Self::Conflict { attempts } => format!(
                "ran {attempts} times and each time another call had changed a key it compared-and-swapped; \
                 none of its writes were kept, try again"
            ),
            Self::Busy { bound, .. } => bound.describe(settings),
            Self::Unknown | Self::WrongKind { .. } | Self::Host(_) => "could not be run".to_owned(),
        };
        format!("module {module_id:?} {what}")
    }

    /// A module's own `Err`, cut to a sane length.
    pub(crate) fn module_error(message: String) -> Self {
        Self::ModuleError(truncate(message, crate::api::MAX_MODULE_ERROR_BYTES))
    }
}

/// The bound a refused call met, each a setting of `[modules]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BusyBound {
    /// `max_calls_per_module` calls of the module are running.
    CallsPerModule,
    /// `max_calls_per_space` calls for the space are running.
    CallsPerSpace,
    /// The space spent its guest time (`space_guest_ms_per_second`, `space_guest_burst_ms`).
    SpaceGuestTime,
    /// No instance slot (`max_instances`) freed up within `max_queue_wait_ms`.
    Queue,
}

impl BusyBound {
    fn describe(self, settings: &ModulesConfig) -> String {
        match self {
            Self::CallsPerModule => format!(
                "is busy: {} calls of this module are running (modules.max_calls_per_module)",
                settings.max_calls_per_module
            ),
            Self::CallsPerSpace => format!(
                "is busy: {} module calls for this space are running (modules.max_calls_per_space)",
                settings.max_calls_per_space
            ),
            Self::SpaceGuestTime => format!(
                "is busy: this space used its module time of {} ms a second (modules.space_guest_ms_per_second, \
                 modules.space_guest_burst_ms)",
                settings.space_guest_ms_per_second
            ),
            Self::Queue => format!(
                "is busy: no instance of the {} (modules.max_instances) freed up within {} ms \
                 (modules.max_queue_wait_ms)",
                settings.max_instances, settings.max_queue_wait_ms
            ),
        }
    }
}

/// Raised by the epoch callback when the guest's own time is used up.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("deadline exceeded")]
pub(crate) struct DeadlineExceeded;

/// Raised by the outer timeout when the call's wall-clock bound passes.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("wall-clock bound exceeded")]
pub(crate) struct WallClockExceeded;

/// A size as people write it: `32 MiB`, `512 KiB`, or bytes.
fn bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} bytes"),
    }
}

pub(crate) fn truncate(mut text: String, max: usize) -> String {
    if text.len() > max {
        let cut = (0..=max).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        text.truncate(cut);
    }
    text
}

/// The failure counters live with the rest of a module's call metrics.
pub(crate) type FailureCounters = crate::invoke::metrics::ModuleMetrics;

/// How often one module failed, by kind, since the host started.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FailureCounts {
    /// Traps.
    pub trap: u64,
    /// Deadlines exceeded.
    pub deadline: u64,
    /// Memory caps hit.
    pub memory_cap: u64,
    /// Invalid answers.
    pub invalid_answer: u64,
    /// Errors the module returned.
    pub module_error: u64,
    /// Host failures while running it.
    pub host: u64,
}

impl FailureCounts {
    /// All failures together.
    pub fn total(&self) -> u64 {
        self.trap + self.deadline + self.memory_cap + self.invalid_answer + self.module_error + self.host
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_names_the_limit_it_hit_and_its_value() {
        let deadline = (Duration::from_millis(50), "request_deadline_ms");
        let settings = ModulesConfig { memory_limit_bytes: 32 << 20, max_call_wait_ms: 2_000, ..Default::default() };
        let describe = |failure: ModuleFailure| failure.describe("x", deadline, &settings);
        assert_eq!(
            describe(ModuleFailure::Deadline),
            r#"module "x" ran past its deadline of 50 ms of its own time (modules.request_deadline_ms)"#
        );
        assert_eq!(
            describe(ModuleFailure::WallClock),
            r#"module "x" was still waiting 2000 ms after its deadline (modules.max_call_wait_ms)"#
        );
        assert_eq!(
            describe(ModuleFailure::MemoryCap),
            r#"module "x" hit its memory limit of 32 MiB (modules.memory_limit_bytes)"#
        );
        assert_eq!(describe(ModuleFailure::Trap("boom".into())), r#"module "x" trapped: boom"#);
        assert_eq!(describe(ModuleFailure::module_error("secret".into())), r#"module "x" reported an error"#);
        assert_eq!(bytes(65_536 + 1), "65537 bytes");
    }
}
