//! The wall-clock budget of one invocation, which stands still while the host runs an inference
//! capability (media, vision, speech) for the guest.
//!
//! `analysis_deadline_ms` bounds the guest's own code; a transcription may take longer than that and is
//! bounded by the host per call and per invocation instead. So each capability call pauses the clock, and the
//! deadline moves on by the time the call took. Other host calls (key-value, outbound HTTP, asset reads) keep
//! counting: they are the guest's to spend.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Shared by the store (the epoch callback) and the outer timeout around the call.
pub(crate) struct GuestClock(Mutex<State>);

struct State {
    deadline: Instant,
    paused_since: Option<Instant>,
    /// Time spent in paused (capability) calls so far.
    paused_total: Duration,
}

impl GuestClock {
    pub fn new(budget: Duration) -> Arc<Self> {
        let state = State { deadline: Instant::now() + budget, paused_since: None, paused_total: Duration::ZERO };
        Arc::new(Self(Mutex::new(state)))
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// When the guest's budget runs out, as things stand: while paused, it moves with the clock.
    pub fn deadline(&self) -> Instant {
        let state = self.state();
        match state.paused_since {
            Some(since) => state.deadline + since.elapsed(),
            None => state.deadline,
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

    /// Stops the guest's clock until the returned guard is dropped.
    pub fn pause(self: &Arc<Self>) -> Pause {
        self.state().paused_since.get_or_insert_with(Instant::now);
        Pause(self.clone())
    }
}

/// Restarts the clock when dropped, moving the deadline on by the pause.
pub(crate) struct Pause(Arc<GuestClock>);

impl Drop for Pause {
    fn drop(&mut self) {
        let mut state = self.0.state();
        if let Some(since) = state.paused_since.take() {
            let paused = since.elapsed();
            state.deadline += paused;
            state.paused_total += paused;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pause_moves_the_deadline_on_by_its_length() {
        let clock = GuestClock::new(Duration::from_millis(10));
        let before = clock.deadline();

        let pause = clock.pause();
        std::thread::sleep(Duration::from_millis(30));
        assert!(clock.is_paused());
        assert!(clock.deadline() > Instant::now(), "a paused clock does not run out");
        drop(pause);

        assert!(!clock.is_paused());
        assert!(clock.deadline() >= before + Duration::from_millis(30));
        assert!(clock.paused_total() >= Duration::from_millis(30));
    }
}
