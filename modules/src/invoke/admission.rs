//! Who may start a guest call now: at most `max_calls_per_module` calls of one module and
//! `max_calls_per_space` calls for one space run at once, and each space has a budget of guest time
//! (`space_guest_ms_per_second`, saving up to `space_guest_burst_ms`). A route call beyond any of them
//! is refused at once with [`ModuleFailure::Busy`]; an event is only charged, never refused (it is
//! delivered later, not lost).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::config::ModulesConfig;
use crate::invoke::clock::GuestClock;
use crate::invoke::failure::{BusyBound, ModuleFailure};

/// Spaces remembered at once; idle spaces with a full budget are forgotten first.
const MAX_TRACKED_SPACES: usize = 100_000;

pub(crate) struct Admission {
    per_module: usize,
    per_space: usize,
    /// Guest milliseconds a space earns per second, and the most it can save.
    rate_ms_per_s: f64,
    burst_ms: f64,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    modules: HashMap<String, usize>,
    spaces: HashMap<String, SpaceUse>,
}

struct SpaceUse {
    running: usize,
    budget_ms: f64,
    refilled: Instant,
}

/// One admitted call; on drop it leaves the counts and charges its space the guest time it used (the wall
/// time it took when it never got a clock: it ended before running).
pub(crate) struct Ticket {
    admission: Arc<Admission>,
    module_id: String,
    space_id: String,
    started: Instant,
    /// A route call, refused when busy (an event waits instead).
    pub refusable: bool,
    /// The clocks of the call's runs (more than one when its writes conflicted and it ran again).
    clocks: Mutex<Vec<Arc<GuestClock>>>,
}

impl Ticket {
    /// Charges the space what `clock` counts too.
    pub(crate) fn charge_by(&self, clock: Arc<GuestClock>) {
        self.clocks.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).push(clock);
    }
}

impl Admission {
    pub(crate) fn new(settings: &ModulesConfig) -> Self {
        Self {
            per_module: settings.max_calls_per_module.max(1),
            per_space: settings.max_calls_per_space.max(1),
            rate_ms_per_s: settings.space_guest_ms_per_second.max(1) as f64,
            burst_ms: settings.space_guest_burst_ms.max(1) as f64,
            state: Mutex::default(),
        }
    }

    /// Admits a call of `module_id` for `space_id`; `refuse` says whether a call over a bound is
    /// refused (route calls) or let through and only counted (events).
    pub(crate) fn admit(
        self: &Arc<Self>,
        module_id: &str,
        space_id: &str,
        refuse: bool,
    ) -> Result<Ticket, ModuleFailure> {
        let mut state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let now = Instant::now();
        let module_running = state.modules.get(module_id).copied().unwrap_or(0);
        if !state.spaces.contains_key(space_id) && state.spaces.len() >= MAX_TRACKED_SPACES {
            state.spaces.retain(|_, space| space.running > 0);
        }
        let space = state.spaces.entry(space_id.to_owned()).or_insert(SpaceUse {
            running: 0,
            budget_ms: self.burst_ms,
            refilled: now,
        });
        let earned = now.duration_since(space.refilled).as_secs_f64() * self.rate_ms_per_s;
        space.budget_ms = (space.budget_ms + earned).min(self.burst_ms);
        space.refilled = now;
        if refuse {
            if space.budget_ms <= 0.0 {
                let wait = Duration::from_secs_f64(-space.budget_ms / self.rate_ms_per_s);
                let retry_after = wait.max(Duration::from_millis(100));
                return Err(ModuleFailure::Busy { retry_after, bound: BusyBound::SpaceGuestTime });
            }
            let retry_after = Duration::from_secs(1);
            if module_running >= self.per_module {
                return Err(ModuleFailure::Busy { retry_after, bound: BusyBound::CallsPerModule });
            }
            if space.running >= self.per_space {
                return Err(ModuleFailure::Busy { retry_after, bound: BusyBound::CallsPerSpace });
            }
        }
        space.running += 1;
        *state.modules.entry(module_id.to_owned()).or_insert(0) += 1;
        Ok(Ticket {
            admission: self.clone(),
            module_id: module_id.to_owned(),
            space_id: space_id.to_owned(),
            started: now,
            refusable: refuse,
            clocks: Mutex::default(),
        })
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let clocks = self.clocks.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner());
        let spent = match clocks.is_empty() {
            true => self.started.elapsed(),
            false => clocks.iter().map(|clock| clock.used()).sum(),
        };
        let spent_ms = spent.as_secs_f64() * 1e3;
        let mut state = self.admission.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(count) = state.modules.get_mut(&self.module_id) {
            *count -= 1;
            if *count == 0 {
                state.modules.remove(&self.module_id);
            }
        }
        if let Some(space) = state.spaces.get_mut(&self.space_id) {
            space.running -= 1;
            space.budget_ms -= spent_ms;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn admission(per_module: usize, per_space: usize, rate: u64, burst: u64) -> Arc<Admission> {
        let settings = ModulesConfig {
            max_calls_per_module: per_module,
            max_calls_per_space: per_space,
            space_guest_ms_per_second: rate,
            space_guest_burst_ms: burst,
            ..ModulesConfig::default()
        };
        Arc::new(Admission::new(&settings))
    }

    #[test]
    fn calls_beyond_the_module_and_space_bounds_are_refused_but_events_pass() {
        let admission = admission(2, 3, 1000, 1000);
        let a = admission.admit("m", "s1", true).unwrap();
        let _b = admission.admit("m", "s2", true).unwrap();
        let busy = admission.admit("m", "s3", true);
        assert!(matches!(busy, Err(ModuleFailure::Busy { bound: BusyBound::CallsPerModule, .. })));
        let event = admission.admit("m", "s3", false).expect("events are only counted");
        drop((a, event));
        let _c = admission.admit("m", "s1", true).expect("a place freed up");
        let _d = admission.admit("n", "s1", true).unwrap();
        let _e = admission.admit("o", "s1", true).unwrap();
        let full = admission.admit("p", "s1", true);
        assert!(matches!(full, Err(ModuleFailure::Busy { bound: BusyBound::CallsPerSpace, .. })), "space s1 is full");
    }

    #[test]
    fn a_space_that_spent_its_guest_time_waits_for_it() {
        let admission = admission(10, 10, 10, 20);
        let ticket = admission.admit("m", "s", true).unwrap();
        std::thread::sleep(Duration::from_millis(60));
        drop(ticket);
        match admission.admit("m", "s", true) {
            Err(ModuleFailure::Busy { retry_after, bound }) => {
                assert!(retry_after >= Duration::from_secs(1), "{retry_after:?}");
                assert_eq!(bound, BusyBound::SpaceGuestTime);
            }
            _ => panic!("the space overspent its budget"),
        }
        assert!(admission.admit("m", "other", true).is_ok(), "other spaces have their own budget");
    }
}
