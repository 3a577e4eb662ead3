//! Per-module call metrics for operators: calls, failures by kind, busy refusals, a duration histogram and
//! the memory high-water mark. Fixed size per module (modules are a bounded set) and lock-free: a call adds
//! a few relaxed atomic increments.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::Serialize;

use crate::invoke::failure::{FailureCounts, FailureKind};

/// Exact buckets below this many microseconds, then this many buckets per power of two (~6 % resolution).
const SUB_BUCKETS: u64 = 16;
const SUB_BITS: u32 = SUB_BUCKETS.trailing_zeros();
/// Powers of two above the exact range: up to 2^40 µs (~12 days), far past any deadline.
const OCTAVES: u64 = 40 - SUB_BITS as u64;
const BUCKETS: usize = (SUB_BUCKETS + OCTAVES * SUB_BUCKETS) as usize;

/// Call metrics of one module since the host started.
pub(crate) struct ModuleMetrics {
    failures: [AtomicU64; 6],
    calls: AtomicU64,
    busy: AtomicU64,
    memory_high_water: AtomicU64,
    /// The sum of all call durations in microseconds (a Prometheus histogram's `_sum`).
    total_micros: AtomicU64,
    durations: Box<[AtomicU64; BUCKETS]>,
}

/// The upper bounds (µs) of the coarse histogram a report carries, for Prometheus: 100 µs to 10 s.
pub const REPORT_BOUNDS_MICROS: [u64; 15] = [
    100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000,
    10_000_000,
];

impl Default for ModuleMetrics {
    fn default() -> Self {
        Self {
            failures: Default::default(),
            calls: AtomicU64::new(0),
            busy: AtomicU64::new(0),
            memory_high_water: AtomicU64::new(0),
            total_micros: AtomicU64::new(0),
            durations: Box::new(std::array::from_fn(|_| AtomicU64::new(0))),
        }
    }
}

fn bucket_of(micros: u64) -> usize {
    if micros < SUB_BUCKETS {
        return micros as usize;
    }
    let octave = u64::from(63 - micros.leading_zeros()) - u64::from(SUB_BITS);
    let sub = (micros >> octave) - SUB_BUCKETS;
    ((SUB_BUCKETS + octave * SUB_BUCKETS + sub) as usize).min(BUCKETS - 1)
}

/// The largest duration (µs) a bucket holds, so a percentile never understates.
fn upper_of(bucket: usize) -> u64 {
    let bucket = bucket as u64;
    if bucket < SUB_BUCKETS {
        return bucket;
    }
    let octave = (bucket - SUB_BUCKETS) / SUB_BUCKETS;
    let sub = (bucket - SUB_BUCKETS) % SUB_BUCKETS;
    ((SUB_BUCKETS + sub + 1) << octave) - 1
}

impl ModuleMetrics {
    pub fn record(&self, kind: FailureKind) {
        self.failures[kind as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// One finished call (successful or not): how long it took and how much linear memory it reached.
    pub fn record_call(&self, took: Duration, memory_bytes: u64) {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let micros = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
        self.durations[bucket_of(micros)].fetch_add(1, Ordering::Relaxed);
        self.total_micros.fetch_add(micros, Ordering::Relaxed);
        self.memory_high_water.fetch_max(memory_bytes, Ordering::Relaxed);
    }

    /// A call refused at admission because the module or its space was at a bound.
    pub fn record_busy(&self) {
        self.busy.fetch_add(1, Ordering::Relaxed);
    }

    pub fn snapshot(&self) -> FailureCounts {
        let get = |kind: FailureKind| self.failures[kind as usize].load(Ordering::Relaxed);
        FailureCounts {
            trap: get(FailureKind::Trap),
            deadline: get(FailureKind::Deadline),
            memory_cap: get(FailureKind::MemoryCap),
            invalid_answer: get(FailureKind::InvalidAnswer),
            module_error: get(FailureKind::ModuleError),
            host: get(FailureKind::Host),
        }
    }

    /// The metrics as operators read them.
    pub fn report(&self, module_id: &str) -> ModuleMetricsReport {
        let counts: Vec<u64> = self.durations.iter().map(|c| c.load(Ordering::Relaxed)).collect();
        let total: u64 = counts.iter().sum();
        let percentile = |q: f64| {
            if total == 0 {
                return None;
            }
            let rank = ((total as f64 * q).ceil() as u64).max(1);
            let mut seen = 0;
            counts.iter().position(|&c| {
                seen += c;
                seen >= rank
            })
        };
        let micros = |q: f64| percentile(q).map(upper_of);
        // A fine bucket counts under the first coarse bound its upper end fits (so within ~6 %).
        let mut cumulative = vec![0u64; REPORT_BOUNDS_MICROS.len()];
        for (bucket, &count) in counts.iter().enumerate() {
            let upper = upper_of(bucket);
            if let Some(first) = REPORT_BOUNDS_MICROS.iter().position(|&bound| upper <= bound) {
                cumulative[first] += count;
            }
        }
        for i in 1..cumulative.len() {
            cumulative[i] += cumulative[i - 1];
        }
        ModuleMetricsReport {
            module_id: module_id.to_owned(),
            calls: self.calls.load(Ordering::Relaxed),
            failures: self.snapshot(),
            busy: self.busy.load(Ordering::Relaxed),
            p50_micros: micros(0.50),
            p99_micros: micros(0.99),
            memory_high_water_bytes: self.memory_high_water.load(Ordering::Relaxed),
            duration_counts: cumulative,
            duration_total: total,
            duration_sum_micros: self.total_micros.load(Ordering::Relaxed),
        }
    }
}

/// One module's call metrics since the host started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModuleMetricsReport {
    /// The module id.
    pub module_id: String,
    /// Invocations that ran (instantiated), successful or not.
    pub calls: u64,
    /// Failures by kind.
    pub failures: FailureCounts,
    /// Calls refused at once because the module or its space was at a bound (not counted in `calls`).
    pub busy: u64,
    /// Median duration of a call, in microseconds (upper bound of its ~6 % bucket); none before the first call.
    pub p50_micros: Option<u64>,
    /// 99th percentile duration, in microseconds, likewise.
    pub p99_micros: Option<u64>,
    /// The most linear memory one instance of the module has reached, in bytes.
    pub memory_high_water_bytes: u64,
    /// Calls that took at most each of [`REPORT_BOUNDS_MICROS`] (cumulative, as a Prometheus histogram).
    pub duration_counts: Vec<u64>,
    /// Calls timed (the histogram's count).
    pub duration_total: u64,
    /// The sum of their durations, in microseconds.
    pub duration_sum_micros: u64,
}

impl ModuleMetricsReport {
    /// One log line's worth, for the periodic summary.
    pub(crate) fn log(&self) {
        tracing::info!(
            module = %self.module_id,
            calls = self.calls,
            failures = self.failures.total(),
            deadline = self.failures.deadline,
            memory_cap = self.failures.memory_cap,
            trap = self.failures.trap,
            invalid_answer = self.failures.invalid_answer,
            module_error = self.failures.module_error,
            host = self.failures.host,
            busy = self.busy,
            p50_us = self.p50_micros,
            p99_us = self.p99_micros,
            memory_high_water_bytes = self.memory_high_water_bytes,
            "module metrics"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_cover_their_values_within_a_sixteenth() {
        for micros in [0, 1, 15, 16, 17, 31, 32, 100, 1_000, 12_345, 50_000, 10_000_000] {
            let upper = upper_of(bucket_of(micros));
            assert!(upper >= micros, "{micros} -> {upper}");
            assert!(upper as f64 <= micros as f64 * 1.07 + 1.0, "{micros} -> {upper}");
        }
        assert_eq!(bucket_of(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn percentiles_and_high_water_come_from_the_calls() {
        let metrics = ModuleMetrics::default();
        assert_eq!(metrics.report("m").p50_micros, None);
        for i in 0..100u64 {
            metrics.record_call(Duration::from_micros(if i < 98 { 10 } else { 5_000 }), i * 65_536);
        }
        metrics.record(FailureKind::Deadline);
        metrics.record_busy();
        let report = metrics.report("m");
        assert_eq!((report.calls, report.busy, report.failures.deadline), (100, 1, 1));
        assert_eq!(report.p50_micros, Some(10));
        assert!(report.p99_micros.is_some_and(|p| (5_000..5_400).contains(&p)), "{report:?}");
        assert_eq!(report.memory_high_water_bytes, 99 * 65_536);
        // 98 calls of 10 µs sit under the first bound; the two of 5 ms under the 5 ms (well, ~6 % more) one.
        assert_eq!(report.duration_counts[0], 98);
        assert_eq!(*report.duration_counts.last().unwrap(), 100);
        assert_eq!(report.duration_total, 100);
        assert_eq!(report.duration_sum_micros, 98 * 10 + 2 * 5_000);
    }
}
