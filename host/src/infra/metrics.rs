//! Operational metrics in the Prometheus text format.
//!
//! Every layer records into one process-wide registry through the functions here (a handful of
//! relaxed atomic adds per event); what is cheaper to read than to count (database pool use, queue
//! depth, module call histograms the module host keeps anyway) is read when `/metrics` is scraped.
//! Label values come from bounded sets only (route templates, never raw paths), so the registry
//! cannot grow with what clients send.

use std::sync::LazyLock;
use std::time::Duration;

use prometheus::proto::{Bucket, Counter, Gauge, Histogram, LabelPair, Metric, MetricFamily, MetricType};
use prometheus::{Encoder, HistogramOpts, HistogramVec, IntCounterVec, Opts, Registry, TextEncoder};

/// The content type of the text exposition format.
pub const CONTENT_TYPE: &str = prometheus::TEXT_FORMAT;

/// Request latency buckets in seconds: 1 ms to 10 s.
const REQUEST_BUCKETS: [f64; 14] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0];

struct Recorded {
    registry: Registry,
    requests: HistogramVec,
    media_errors: IntCounterVec,
    jobs: IntCounterVec,
    events_dropped: IntCounterVec,
    quota_refusals: IntCounterVec,
    rate_limit_refusals: IntCounterVec,
    live_sent: IntCounterVec,
    live_slow_dropped: IntCounterVec,
}

static RECORDED: LazyLock<Recorded> = LazyLock::new(|| {
    let registry = Registry::new();
    let requests = HistogramVec::new(
        HistogramOpts::new(
            "trellis_http_request_duration_seconds",
            "HTTP requests by method, route template and status, and how long they took to answer",
        )
        .buckets(REQUEST_BUCKETS.to_vec()),
        &["method", "route", "status"],
    )
    .expect("valid histogram");
    let counter = |name: &str, help: &str, labels: &[&str]| {
        let counter = IntCounterVec::new(Opts::new(name, help), labels).expect("valid counter");
        registry.register(Box::new(counter.clone())).expect("registered once");
        counter
    };
    let media_errors = counter(
        "trellis_media_store_errors_total",
        "Media store operations that failed, by operation and kind",
        &["operation", "kind"],
    );
    let jobs = counter(
        "trellis_jobs_finished_total",
        "Background job runs by kind and outcome (succeeded, retry, failed)",
        &["kind", "outcome"],
    );
    let events_dropped = counter(
        "trellis_module_events_dropped_total",
        "Space events dropped because their space held its bound of undelivered ones",
        &[],
    );
    let quota_refusals =
        counter("trellis_quota_refusals_total", "Requests refused by a plan's daily quota", &["entitlement"]);
    let rate_limit_refusals =
        counter("trellis_rate_limit_refusals_total", "Attempts refused by an attempt limit", &["limit"]);
    let live_sent =
        counter("trellis_live_events_sent_total", "Live events queued to an open stream (GET /v0/events)", &[]);
    let live_slow_dropped = counter(
        "trellis_live_slow_clients_dropped_total",
        "Live streams ended because their client did not read while live.stream_buffer events queued \
         (the event that found the queue full is dropped with it)",
        &[],
    );
    registry.register(Box::new(requests.clone())).expect("registered once");
    Recorded {
        registry,
        requests,
        media_errors,
        jobs,
        events_dropped,
        quota_refusals,
        rate_limit_refusals,
        live_sent,
        live_slow_dropped,
    }
});

/// One answered HTTP request. `route` is the matched route template, or `unmatched`.
pub fn request(method: &str, route: &str, status: u16, took: Duration) {
    RECORDED.requests.with_label_values(&[method, route, status_text(status)]).observe(took.as_secs_f64());
}

/// A media store operation that failed (`kind`: `unavailable`, `missing`).
pub fn media_error(operation: &'static str, kind: &'static str) {
    RECORDED.media_errors.with_label_values(&[operation, kind]).inc();
}

/// A background job run ended (`outcome`: `succeeded`, `retry`, `failed`).
pub fn job_finished(kind: &str, outcome: &'static str) {
    RECORDED.jobs.with_label_values(&[kind, outcome]).inc();
}

/// A space event dropped at its space's bound of undelivered events.
pub fn event_dropped() {
    RECORDED.events_dropped.with_label_values::<&str>(&[]).inc();
}

/// A live event queued to a stream.
pub fn live_event_sent() {
    RECORDED.live_sent.with_label_values::<&str>(&[]).inc();
}

/// A live stream dropped because its client stopped reading.
pub fn live_slow_client_dropped() {
    RECORDED.live_slow_dropped.with_label_values::<&str>(&[]).inc();
}

/// A request refused by its plan's daily quota.
pub fn quota_refused(entitlement: &str) {
    RECORDED.quota_refusals.with_label_values(&[entitlement]).inc();
}

/// An attempt refused by an attempt limit (`limit`: `login_per_address`, `comments_per_user`, ...).
pub fn rate_limit_refused(limit: &'static str) {
    RECORDED.rate_limit_refusals.with_label_values(&[limit]).inc();
}

/// The statuses this service answers, as static text, so the hot path allocates nothing for them.
const KNOWN_STATUSES: [(u16, &str); 21] = [
    (200, "200"),
    (201, "201"),
    (204, "204"),
    (206, "206"),
    (304, "304"),
    (400, "400"),
    (401, "401"),
    (403, "403"),
    (404, "404"),
    (405, "405"),
    (409, "409"),
    (412, "412"),
    (413, "413"),
    (415, "415"),
    (416, "416"),
    (422, "422"),
    (429, "429"),
    (500, "500"),
    (502, "502"),
    (503, "503"),
    (504, "504"),
];

/// A status as a label value: itself when known, else its class, so the label set stays bounded.
fn status_text(status: u16) -> &'static str {
    if let Some((_, text)) = KNOWN_STATUSES.iter().find(|(known, _)| *known == status) {
        return text;
    }
    match status {
        100..=199 => "1xx",
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        _ => "5xx",
    }
}

/// What is read at scrape time rather than counted.
#[derive(Default)]
pub struct Snapshot {
    /// Readiness checks run (each a database ping and a media store check).
    pub readiness_checks: u64,
    /// Connections per pool (`reader`, `writer`): (open, idle, max).
    pub pools: Vec<(&'static str, u32, u32, u32)>,
    /// Jobs per kind and state; `None` when the database could not be read.
    pub jobs: Option<Vec<(String, String, i64)>>,
    pub modules: Vec<trellis_modules::ModuleMetricsReport>,
    /// The largest resident memory a finished ffmpeg or ffprobe run reached, in bytes.
    pub media_tools_peak_bytes: u64,
    /// Live-update streams open on this server.
    pub live_streams: usize,
    /// Exports streaming now.
    pub exports_running: usize,
}

/// The whole exposition: the recorded families and the snapshot's.
pub fn render(snapshot: &Snapshot) -> String {
    let mut families = RECORDED.registry.gather();
    families.extend(snapshot_families(snapshot));
    families.sort_by(|a, b| a.name().cmp(b.name()));
    let mut out = Vec::new();
    TextEncoder::new().encode(&families, &mut out).expect("metrics encode into memory");
    String::from_utf8(out).expect("the text format is UTF-8")
}

fn snapshot_families(snapshot: &Snapshot) -> Vec<MetricFamily> {
    let mut open =
        family("trellis_db_pool_connections", "Open database connections by pool and state", MetricType::GAUGE);
    let mut max = family("trellis_db_pool_max_connections", "The most connections a pool opens", MetricType::GAUGE);
    for &(pool, size, idle, limit) in &snapshot.pools {
        open.mut_metric().push(gauge(&[("pool", pool), ("state", "idle")], f64::from(idle)));
        open.mut_metric().push(gauge(&[("pool", pool), ("state", "in_use")], f64::from(size.saturating_sub(idle))));
        max.mut_metric().push(gauge(&[("pool", pool)], f64::from(limit)));
    }
    let mut families = vec![open, max];

    let mut tools = family(
        "trellis_media_tools_peak_resident_bytes",
        "The largest resident memory any finished ffmpeg or ffprobe run of this server reached",
        MetricType::GAUGE,
    );
    tools.mut_metric().push(gauge(&[], snapshot.media_tools_peak_bytes as f64));
    families.push(tools);

    let mut streams = family("trellis_live_streams", "Live-update streams open on this server", MetricType::GAUGE);
    streams.mut_metric().push(gauge(&[], snapshot.live_streams as f64));
    families.push(streams);

    let mut exports = family("trellis_exports_running", "Exports streaming on this server", MetricType::GAUGE);
    exports.mut_metric().push(gauge(&[], snapshot.exports_running as f64));
    families.push(exports);

    let mut up =
        family("trellis_jobs_readable", "1 when the job table could be read for this scrape", MetricType::GAUGE);
    up.mut_metric().push(gauge(&[], if snapshot.jobs.is_some() { 1.0 } else { 0.0 }));
    families.push(up);
    let mut depth =
        family("trellis_jobs", "Jobs in the durable queue by kind and state (QUEUED is the depth)", MetricType::GAUGE);
    for (kind, state, count) in snapshot.jobs.iter().flatten() {
        depth.mut_metric().push(gauge(&[("kind", kind), ("state", state)], *count as f64));
    }
    families.push(depth);

    let mut readiness = family(
        "trellis_readiness_checks_total",
        "Readiness checks run (a database ping and a media store check each); /readyz answers from the last one \
         for a second",
        MetricType::COUNTER,
    );
    readiness.mut_metric().push(counter(&[], snapshot.readiness_checks as f64));
    families.push(readiness);

    families.extend(module_families(&snapshot.modules));
    // The encoder skips nothing: a family without samples would print a bare HELP/TYPE pair.
    families.retain(|f| !f.get_metric().is_empty());
    families
}

/// Each module's calls by outcome, how long they took and its memory high water.
fn module_families(modules: &[trellis_modules::ModuleMetricsReport]) -> [MetricFamily; 3] {
    let mut calls = family(
        "trellis_module_calls_total",
        "Module invocations by module and outcome (ok, deadline, memory_cap, trap, module_error, invalid_answer, \
         host, busy)",
        MetricType::COUNTER,
    );
    let mut durations =
        family("trellis_module_call_duration_seconds", "How long module invocations took", MetricType::HISTOGRAM);
    let mut memory = family(
        "trellis_module_memory_high_water_bytes",
        "The most linear memory one instance of the module reached",
        MetricType::GAUGE,
    );
    for report in modules {
        let module = report.module_id.as_str();
        let f = &report.failures;
        let ok = report.calls.saturating_sub(f.total());
        for (outcome, n) in [
            ("ok", ok),
            ("deadline", f.deadline),
            ("memory_cap", f.memory_cap),
            ("trap", f.trap),
            ("module_error", f.module_error),
            ("invalid_answer", f.invalid_answer),
            ("host", f.host),
            ("busy", report.busy),
        ] {
            calls.mut_metric().push(counter(&[("module", module), ("outcome", outcome)], n as f64));
        }
        let mut histogram = Histogram::default();
        histogram.set_sample_count(report.duration_total);
        histogram.set_sample_sum(report.duration_sum_micros as f64 / 1e6);
        histogram.set_bucket(
            trellis_modules::REPORT_BOUNDS_MICROS
                .iter()
                .zip(&report.duration_counts)
                .map(|(&bound, &count)| {
                    let mut bucket = Bucket::default();
                    bucket.set_upper_bound(bound as f64 / 1e6);
                    bucket.set_cumulative_count(count);
                    bucket
                })
                .collect(),
        );
        let mut metric = Metric::from_label(labels(&[("module", module)]));
        metric.set_histogram(histogram);
        durations.mut_metric().push(metric);
        memory.mut_metric().push(gauge(&[("module", module)], report.memory_high_water_bytes as f64));
    }
    [calls, durations, memory]
}

fn family(name: &str, help: &str, kind: MetricType) -> MetricFamily {
    let mut family = MetricFamily::default();
    family.set_name(name.into());
    family.set_help(help.into());
    family.set_field_type(kind);
    family
}

fn labels(pairs: &[(&str, &str)]) -> Vec<LabelPair> {
    pairs
        .iter()
        .map(|(name, value)| {
            let mut pair = LabelPair::default();
            pair.set_name((*name).into());
            pair.set_value((*value).into());
            pair
        })
        .collect()
}

fn gauge(pairs: &[(&str, &str)], value: f64) -> Metric {
    let mut g = Gauge::default();
    g.set_value(value);
    let mut metric = Metric::from_label(labels(pairs));
    metric.set_gauge(g);
    metric
}

fn counter(pairs: &[(&str, &str)], value: f64) -> Metric {
    let mut c = Counter::default();
    c.set_value(value);
    let mut metric = Metric::from_label(labels(pairs));
    metric.set_counter(c);
    metric
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_and_snapshot_families_render_as_prometheus_text() {
        request("GET", "/v0/spaces", 200, Duration::from_millis(3));
        rate_limit_refused("login_per_address");
        let snapshot = Snapshot {
            readiness_checks: 3,
            pools: vec![("reader", 4, 3, 8)],
            jobs: Some(vec![("analysis".into(), "QUEUED".into(), 2)]),
            modules: Vec::new(),
            media_tools_peak_bytes: 0,
            live_streams: 7,
            exports_running: 1,
        };
        let text = render(&snapshot);
        assert!(text.contains("trellis_live_streams 7"), "{text}");
        assert!(text.contains("trellis_exports_running 1"), "{text}");
        assert!(text.contains("# TYPE trellis_http_request_duration_seconds histogram"), "{text}");
        assert!(
            text.contains(
                r#"trellis_http_request_duration_seconds_count{method="GET",route="/v0/spaces",status="200"} 1"#
            ),
            "{text}"
        );
        assert!(text.contains(r#"trellis_rate_limit_refusals_total{limit="login_per_address"} 1"#), "{text}");
        assert!(text.contains(r#"trellis_db_pool_connections{pool="reader",state="in_use"} 1"#), "{text}");
        assert!(text.contains(r#"trellis_jobs{kind="analysis",state="QUEUED"} 2"#), "{text}");
        assert!(text.contains("trellis_jobs_readable 1"), "{text}");
        assert!(text.contains("trellis_readiness_checks_total 3"), "{text}");
    }

    #[test]
    fn statuses_become_bounded_label_values() {
        assert_eq!(status_text(418), "4xx");
        assert_eq!(status_text(599), "5xx");
        assert_eq!(status_text(201), "201");
    }
}
