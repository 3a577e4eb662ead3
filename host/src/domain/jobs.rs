//! Background jobs: their states and when a failed one runs again.
//!
//! The retry policy is a pure function of the attempt number and a jitter the caller draws, so the
//! back-off can be tested without a clock or a random source.

use std::time::Duration;

/// Where a job is in its life. A RUNNING job whose lease ran out is taken again, so RUNNING is
/// not final; SUCCEEDED and FAILED are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobState {
    Queued,
    Running,
    Succeeded,
    Failed,
}

impl JobState {
    pub const ALL: [JobState; 4] = [Self::Queued, Self::Running, Self::Succeeded, Self::Failed];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "QUEUED",
            Self::Running => "RUNNING",
            Self::Succeeded => "SUCCEEDED",
            Self::Failed => "FAILED",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|state| state.as_str() == text)
    }

    /// Whether the job will not run again.
    pub fn is_finished(self) -> bool {
        matches!(self, Self::Succeeded | Self::Failed)
    }
}

/// What becomes of a job whose attempt failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterFailure {
    /// Queue it again, due after this delay.
    RetryAfter(Duration),
    /// Its attempts are used up: FAILED.
    GiveUp,
}

/// Exponential back-off with jitter between a base and a cap, and a bound on attempts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    base: Duration,
    cap: Duration,
    max_attempts: u32,
}

impl RetryPolicy {
    /// A policy; `cap` below `base` is raised to it and at least one attempt is made.
    pub fn new(base: Duration, cap: Duration, max_attempts: u32) -> Self {
        Self { base, cap: cap.max(base), max_attempts: max_attempts.max(1) }
    }

    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
    }

    /// What follows the failure of attempt `attempt` (1 for the first run). `jitter` in `[0, 1)`
    /// spreads retries of jobs that failed together (say, while the database was away) so they
    /// do not all come back at the same instant.
    pub fn after_failure(&self, attempt: u32, jitter: f64) -> AfterFailure {
        if attempt >= self.max_attempts {
            return AfterFailure::GiveUp;
        }
        AfterFailure::RetryAfter(self.delay(attempt, jitter))
    }

    /// The wait after the failed attempt `attempt`: its ceiling doubles from `base` per attempt
    /// up to `cap`, and the wait is drawn from the upper half of it ("equal jitter"), never below
    /// `base`, so back-off still grows while retries spread out.
    pub fn delay(&self, attempt: u32, jitter: f64) -> Duration {
        let doublings = attempt.saturating_sub(1).min(31);
        let ceiling = self.base.saturating_mul(1u32 << doublings).min(self.cap);
        let jitter = if jitter.is_finite() { jitter.clamp(0.0, 1.0) } else { 0.0 };
        ceiling.mul_f64(0.5 + jitter / 2.0).clamp(self.base, self.cap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> RetryPolicy {
        RetryPolicy::new(Duration::from_secs(5), Duration::from_secs(600), 5)
    }

    #[test]
    fn states_read_back_as_they_are_written() {
        for state in JobState::ALL {
            assert_eq!(JobState::parse(state.as_str()), Some(state));
        }
        assert_eq!(JobState::parse("queued"), None);
        assert!(JobState::Failed.is_finished() && JobState::Succeeded.is_finished());
        assert!(!JobState::Queued.is_finished() && !JobState::Running.is_finished());
    }

    #[test]
    fn the_ceiling_doubles_per_attempt_up_to_the_cap() {
        let top = |attempt| policy().delay(attempt, 1.0);
        assert_eq!(top(1), Duration::from_secs(5));
        assert_eq!(top(2), Duration::from_secs(10));
        assert_eq!(top(3), Duration::from_secs(20));
        assert_eq!(top(8), Duration::from_secs(600));
        assert_eq!(top(u32::MAX), Duration::from_secs(600));
    }

    #[test]
    fn jitter_stays_between_half_the_ceiling_and_the_ceiling_never_below_base() {
        let p = policy();
        assert_eq!(p.delay(1, 0.0), Duration::from_secs(5), "half of the first ceiling is below base");
        assert_eq!(p.delay(3, 0.0), Duration::from_secs(10));
        assert_eq!(p.delay(3, 0.5), Duration::from_secs(15));
        for jitter in [0.0, 0.3, 0.999, -1.0, 7.0, f64::NAN] {
            for attempt in 1..40 {
                let delay = p.delay(attempt, jitter);
                assert!((Duration::from_secs(5)..=Duration::from_secs(600)).contains(&delay), "{attempt} {jitter}");
            }
        }
    }

    #[test]
    fn the_last_attempt_gives_up() {
        let p = policy();
        for attempt in 1..5 {
            assert!(matches!(p.after_failure(attempt, 0.5), AfterFailure::RetryAfter(_)), "{attempt}");
        }
        assert_eq!(p.after_failure(5, 0.5), AfterFailure::GiveUp);
        assert_eq!(p.after_failure(9, 0.5), AfterFailure::GiveUp);
        assert_eq!(RetryPolicy::new(Duration::ZERO, Duration::ZERO, 0).after_failure(1, 0.0), AfterFailure::GiveUp);
    }

    #[test]
    fn a_cap_below_the_base_is_raised_to_it() {
        let p = RetryPolicy::new(Duration::from_secs(30), Duration::from_secs(1), 3);
        assert_eq!(p.delay(1, 0.0), Duration::from_secs(30));
        assert_eq!(p.delay(9, 1.0), Duration::from_secs(30));
    }
}
