//! The two budgets of one invocation.
//!
//! - **Guest time**, the deadline of the call's kind (`request_deadline_ms` and so on): CPU time of the thread
//!   while the call is being polled. Time waiting for a guest thread (after a yield, or behind other calls on
//!   the guest threads), time inside host calls that wait (key-value, outbound HTTP, asset reads: they return
//!   `Pending` and the poll ends) and time the operating system gives other threads do not count. Under a
//!   burst a call that takes 1 ms alone still takes 1 ms of its budget, however long it waits.
//! - **Wall time**, `max_call_wait_ms` on top of the deadline: whatever it waits for, a call ends by then, so
//!   a guest parked in slow host calls still gives its instance slot back.
//!
//! Inference capability calls (media, vision, speech) stop both clocks: they are bounded by the host per call
//! and per invocation instead (`paused_total`).

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Shared by the store (the epoch callback, host calls) and the outer timeout around the call.
pub(crate) struct GuestClock {
    budget: Duration,
    state: Mutex<State>,
}

struct State {
    /// Guest time of the runs that ended.
    used: Duration,
    /// The thread's CPU time when the run under way began: set while the call is polled and no capability call
    /// is under way.
    run_began: Option<Duration>,
    polled: bool,
    /// When the call must end whatever it waits for; moves on by capability calls.
    wall_deadline: Instant,
    paused_since: Option<Instant>,
    /// Time spent in capability calls so far.
    paused_total: Duration,
}

/// CPU time of the calling thread. A call is polled on one thread at a time, so the difference of two readings
/// within one poll is the guest's own time.
fn thread_cpu() -> Duration {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(now.tv_sec.max(0) as u64, now.tv_nsec.clamp(0, 999_999_999) as u32)
}

impl GuestClock {
    /// A clock with `budget` of guest time and `budget + max_wait` of wall time.
    pub fn new(budget: Duration, max_wait: Duration) -> Arc<Self> {
        let state = State {
            used: Duration::ZERO,
            run_began: None,
            polled: false,
            wall_deadline: Instant::now() + budget + max_wait,
            paused_since: None,
            paused_total: Duration::ZERO,
        };
        Arc::new(Self { budget, state: Mutex::new(state) })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Guest time used so far. Exact on the thread polling the call (the epoch callback, a host call); elsewhere
    /// it leaves out the run under way.
    pub fn used(&self) -> Duration {
        let state = self.state();
        state.used + state.run_began.map_or(Duration::ZERO, |began| thread_cpu().saturating_sub(began))
    }

    /// Guest time left; zero once the budget is spent.
    pub fn guest_left(&self) -> Duration {
        self.budget.saturating_sub(self.used())
    }

    /// When the call must end whatever it waits for; while paused, it moves with the clock.
    pub fn wall_deadline(&self) -> Instant {
        let state = self.state();
        match state.paused_since {
            Some(since) => state.wall_deadline + since.elapsed(),
            None => state.wall_deadline,
        }
    }

    /// Whether a capability call is under way.
    pub fn is_paused(&self) -> bool {
        self.state().paused_since.is_some()
    }

    /// Time spent in capability calls, the one under way included.
    pub fn paused_total(&self) -> Duration {
        let state = self.state();
        state.paused_total + state.paused_since.map_or(Duration::ZERO, |since| since.elapsed())
    }

    /// Counts guest time until the returned guard is dropped: one poll of the call.
    pub fn run(&self) -> Run<'_> {
        let mut state = self.state();
        state.polled = true;
        if state.paused_since.is_none() {
            state.run_began = Some(thread_cpu());
        }
        Run(self)
    }

    /// Stops both clocks until the returned guard is dropped.
    pub fn pause(self: &Arc<Self>) -> Pause {
        let mut state = self.state();
        if let Some(began) = state.run_began.take() {
            state.used += thread_cpu().saturating_sub(began);
        }
        state.paused_since.get_or_insert_with(Instant::now);
        Pause(self.clone())
    }
}

/// One poll of the call; adds its guest time when dropped.
pub(crate) struct Run<'c>(&'c GuestClock);

impl Drop for Run<'_> {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.polled = false;
        if let Some(began) = state.run_began.take() {
            state.used += thread_cpu().saturating_sub(began);
        }
    }
}

/// Restarts the clocks when dropped, moving the wall deadline on by the pause.
pub(crate) struct Pause(Arc<GuestClock>);

impl Drop for Pause {
    fn drop(&mut self) {
        let mut state = self.0.state();
        if let Some(since) = state.paused_since.take() {
            let paused = since.elapsed();
            state.wall_deadline += paused;
            state.paused_total += paused;
        }
        // Dropped inside a poll (the capability call returned): the guest runs again from here.
        if state.polled && state.run_began.is_none() {
            state.run_began = Some(thread_cpu());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spins until this thread has run for `for_` (its CPU time, not the wall clock's: on a
    /// loaded machine the thread is also descheduled while it spins).
    fn spin(for_: Duration) {
        let start = thread_cpu();
        while thread_cpu() - start < for_ {
            std::hint::spin_loop();
        }
    }

    #[test]
    fn only_time_inside_a_poll_counts_as_the_guest_s() {
        let clock = GuestClock::new(Duration::from_millis(20), Duration::from_secs(1));
        {
            let _run = clock.run();
            spin(Duration::from_millis(5));
        }
        // Waiting between polls (for a thread, for a host call's answer) is not the guest's time.
        std::thread::sleep(Duration::from_millis(30));
        let used = clock.used();
        assert!(used >= Duration::from_millis(4) && used < Duration::from_millis(15), "{used:?}");
        assert!(!clock.guest_left().is_zero());
        {
            let _run = clock.run();
            spin(Duration::from_millis(20));
        }
        assert!(clock.guest_left().is_zero(), "{:?}", clock.used());
    }

    #[test]
    fn a_pause_stops_guest_time_and_moves_the_wall_deadline_on() {
        let clock = GuestClock::new(Duration::from_millis(10), Duration::from_millis(10));
        let before = clock.wall_deadline();
        let run = clock.run();
        let pause = clock.pause();
        spin(Duration::from_millis(30));
        assert!(clock.is_paused());
        assert!(clock.wall_deadline() > Instant::now(), "a paused clock does not run out");
        drop(pause);
        drop(run);

        assert!(!clock.is_paused());
        assert!(clock.used() < Duration::from_millis(10), "{:?}", clock.used());
        assert!(clock.wall_deadline() >= before + Duration::from_millis(30));
        assert!(clock.paused_total() >= Duration::from_millis(30));
    }
}
