//! Background jobs: each durable kind with its typed payload, their states, and when a failed one
//! runs again.
//!
//! A job kind is defined once, here: its name, its payload and how jobs of the kind are keyed
//! ([`JobKind`]). The store writes jobs from these types inside the transaction of the change that
//! causes them (`store/outbox.rs`); the workers in `jobs/` read the same types back.
//!
//! The retry policy is a pure function of the attempt number and a jitter the caller draws, so the
//! back-off can be tested without a clock or a random source.

use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// A durable job kind: its name in the job table and its payload, which is this type as JSON.
pub trait JobKind: Serialize + DeserializeOwned + Send + Sync + 'static {
    /// The name jobs of this kind are stored and claimed under.
    const NAME: &'static str;
    /// A second job with the same key is not queued while the first exists.
    fn dedupe_key(&self) -> Option<String> {
        None
    }
    /// Jobs with the same key run one at a time, in the order they were queued.
    fn order_key(&self) -> Option<String> {
        None
    }
    /// Whose turn the job takes: a worker takes the next job of the key it served least recently,
    /// so one key's many jobs do not hold everybody else's back.
    fn fair_key(&self) -> Option<String> {
        None
    }
}

/// Analyse a published asset's bytes (queued with its first approval or enabling).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnalyseAsset {
    pub asset_id: String,
    /// Who proposed the asset: the analysis worker takes proposers in turn (`None` in jobs queued
    /// before the turns existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposer_id: Option<String>,
    /// An analysis queued again (by the space owner or the operator) has an id of its own; the
    /// first has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rerun_id: Option<String>,
}

impl AnalyseAsset {
    /// The first analysis of an asset.
    pub fn first(asset_id: &str, proposer_id: &str) -> Self {
        Self { asset_id: asset_id.to_owned(), proposer_id: Some(proposer_id.to_owned()), rerun_id: None }
    }

    /// The analysis of an asset queued once more.
    pub fn again(asset_id: &str, proposer_id: &str) -> Self {
        Self { rerun_id: Some(uuid::Uuid::now_v7().to_string()), ..Self::first(asset_id, proposer_id) }
    }
}

impl JobKind for AnalyseAsset {
    const NAME: &'static str = "analysis";
    /// The bytes are analysed once however often the asset is approved or enabled; a re-analysis
    /// is a job of its own (the asset's analysis state lets only one be queued at a time).
    fn dedupe_key(&self) -> Option<String> {
        Some(match &self.rerun_id {
            None => format!("analysis:{}", self.asset_id),
            Some(rerun) => format!("analysis:{}:{rerun}", self.asset_id),
        })
    }
    /// One user's self-approved assets take turns with everybody else's.
    fn fair_key(&self) -> Option<String> {
        self.proposer_id.as_ref().map(|user| format!("user:{user}"))
    }
}

/// What happened in a space that its modules hear of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpaceEventKind {
    FormInstanceCreated,
    FormInstanceUpdated,
    AssetStateChanged,
    CommentCreated,
}

impl SpaceEventKind {
    /// The name an event kind is recorded under (`module_delivery.event_kind`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::FormInstanceCreated => "form-instance-created",
            Self::FormInstanceUpdated => "form-instance-updated",
            Self::AssetStateChanged => "asset-state-changed",
            Self::CommentCreated => "comment-created",
        }
    }
}

/// Deliver a space event to the modules connected to the space. Keyed by space, so a space's
/// modules see its events in the order they committed and never two at once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpaceEvent {
    pub space_id: String,
    pub kind: SpaceEventKind,
    pub item_id: String,
    /// What the modules are told of the item, as it was when the change committed.
    pub item: serde_json::Value,
}

impl JobKind for SpaceEvent {
    const NAME: &'static str = "module-event";
    fn order_key(&self) -> Option<String> {
        Some(self.space_id.clone())
    }
}

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
    #[test]
    fn a_space_event_reads_back_as_the_payload_earlier_servers_queued() {
        // Jobs queued before an upgrade are read by the new server: the payload keeps its shape.
        let queued = serde_json::json!({"spaceId": "s", "kind": "comment-created", "itemId": "c", "item": {"a": 1}});
        let event: super::SpaceEvent = serde_json::from_value(queued.clone()).unwrap();
        assert_eq!(event.kind, super::SpaceEventKind::CommentCreated);
        assert_eq!(serde_json::to_value(&event).unwrap(), queued);
        let analysis: super::AnalyseAsset = serde_json::from_value(serde_json::json!({"assetId": "a"})).unwrap();
        assert_eq!(super::JobKind::dedupe_key(&analysis).as_deref(), Some("analysis:a"));
    }

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
