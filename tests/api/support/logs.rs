//! The servers' log lines of guest output (`trellis_modules::guest`: what a module wrote to stdout and
//! stderr), kept in memory for the tests that look at what an operator would read. One collector serves
//! every server of the test binary; each line carries its module and space, so a test reads its own.

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

/// One line of guest output as the host logged it.
#[derive(Clone, Debug, Default)]
pub struct GuestLine {
    pub module: String,
    pub space: String,
    /// `stdout` or `stderr`.
    pub stream: String,
    pub message: String,
}

type Lines = Arc<Mutex<Vec<GuestLine>>>;

static LINES: OnceLock<Lines> = OnceLock::new();

/// Starts keeping guest output, once per test binary (the binary's global subscriber). Only the guest
/// target is enabled, so every other log call of the servers stays as cheap as with no subscriber.
pub fn capture_guest_output() {
    LINES.get_or_init(|| {
        let lines = Lines::default();
        let guest = Targets::new().with_target("trellis_modules::guest", Level::TRACE);
        let subscriber = tracing_subscriber::registry().with(Collector(Arc::clone(&lines)).with_filter(guest));
        tracing::subscriber::set_global_default(subscriber).expect("no other global subscriber in this test binary");
        lines
    });
}

/// What `module` wrote in `space` since [`capture_guest_output`], in order.
pub fn guest_output(module: &str, space: &str) -> Vec<GuestLine> {
    let lines = LINES.get().expect("capture_guest_output first").lock().unwrap();
    lines.iter().filter(|line| line.module == module && line.space == space).cloned().collect()
}

struct Collector(Lines);

impl<S: Subscriber> Layer<S> for Collector {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let mut line = GuestLine::default();
        event.record(&mut line);
        self.0.lock().unwrap().push(line);
    }
}

impl Visit for GuestLine {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "module" => self.module = value.to_owned(),
            "space" => self.space = value.to_owned(),
            "stream" => self.stream = value.to_owned(),
            "message" => self.message = value.to_owned(),
            _ => {}
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.record_str(field, &format!("{value:?}"));
    }
}
