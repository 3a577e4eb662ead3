//! The data of one invocation's `Store`: a WASI context with no authority, the memory cap, what the module was
//! granted, and the notes the host leaves for itself about why an invocation ended.

use std::sync::Arc;
use std::time::{Duration, Instant};

use wasmtime::ResourceLimiter;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

use crate::analysis::{AssetSource, MediaAnalysis};
use crate::capabilities::Grant;
use crate::capabilities::key_value::{KeyValueBackend, KvScope, KvTxn};
use crate::capabilities::logging::LogBudget;
use crate::capabilities::outbound_http::HttpAccess;
use crate::invoke::clock::GuestClock;
use crate::invoke::output::GuestOutput;

/// Log lines one invocation may emit; the rest are dropped so a module cannot flood the host's logs.
const LOG_LINES_PER_INVOCATION: u32 = 100;

/// What one module may reach, shared by all its invocations.
pub(crate) struct Capabilities {
    pub module_id: String,
    /// What the module was granted; each import checks it again (`StoreState::require`).
    pub granted: Vec<Grant>,
    /// The backend, when `key-value` is granted.
    pub key_value: Option<Arc<dyn KeyValueBackend>>,
    /// Log lines per space, shared by every module of the host.
    pub log_budget: Arc<LogBudget>,
    /// The hosts and bounds, when `outbound-http` is granted.
    pub http: Option<HttpAccess>,
    /// How long the inference capabilities (`media-decode`, `vision`, `speech`) may run.
    pub inference: InferenceAccess,
}

/// How long the host lets the inference capabilities run.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct InferenceAccess {
    /// Upper bound of one capability call.
    pub call_timeout: Duration,
    /// Upper bound of all capability calls of one invocation together.
    pub invocation_budget: Duration,
}

impl Capabilities {
    /// Nothing granted: used while reading a manifest, when every host import is a trap anyway.
    pub fn none(module_id: &str) -> Self {
        Self {
            module_id: module_id.to_owned(),
            granted: Vec::new(),
            key_value: None,
            log_budget: Arc::new(LogBudget::new(1, 1)),
            http: None,
            inference: InferenceAccess::default(),
        }
    }

    /// Whether the module holds `grant`.
    pub fn has(&self, grant: Grant) -> bool {
        self.granted.contains(&grant)
    }
}

/// Why the host ended an invocation, when it was the host that noticed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HostVerdict {
    /// The guest's own time is spent.
    Deadline,
    /// The call's wall-clock bound passed (it waited too long: for a thread, in host calls).
    WallClock,
    Host(String),
}

pub(crate) struct StoreState {
    wasi: WasiCtx,
    table: ResourceTable,
    pub limiter: MemoryCap,
    pub caps: Arc<Capabilities>,
    pub scope: KvScope,
    /// The call's key-value writes, committed when it ends well (`key_value/txn.rs`).
    pub kv_txn: KvTxn,
    pub item: Option<String>,
    pub asset: Option<Arc<dyn AssetSource>>,
    /// The inference capabilities over the asset under analysis.
    pub media: Option<Arc<dyn MediaAnalysis>>,
    pub clock: Arc<GuestClock>,
    /// When the store was made, for the module's duration metrics.
    pub started: Instant,
    pub verdict: Option<HostVerdict>,
    pub logs_left: u32,
    /// What the guest wrote to stdout and stderr, for the host's logs.
    pub stdout: GuestOutput,
    pub stderr: GuestOutput,
}

impl StoreState {
    pub fn new(caps: Arc<Capabilities>, space_id: String, clock: Arc<GuestClock>, memory_limit: usize) -> Self {
        let scope = KvScope { space_id, module_id: caps.module_id.clone() };
        let (stdout, stderr) = (GuestOutput::default(), GuestOutput::default());
        Self {
            wasi: no_authority(&stdout, &stderr),
            table: ResourceTable::new(),
            limiter: MemoryCap::new(memory_limit),
            caps,
            scope,
            kv_txn: KvTxn::default(),
            item: None,
            asset: None,
            media: None,
            clock,
            started: Instant::now(),
            verdict: None,
            logs_left: LOG_LINES_PER_INVOCATION,
            stdout,
            stderr,
        }
    }

    /// How long a host call may wait (until the wall deadline), or a trap when the guest's time or the wall
    /// time is spent.
    pub fn remaining(&mut self) -> wasmtime::Result<Duration> {
        if self.clock.guest_left().is_zero() {
            return Err(self.fail(HostVerdict::Deadline));
        }
        let left = self.clock.wall_deadline().saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(self.fail(HostVerdict::WallClock));
        }
        Ok(left)
    }

    /// Notes why the host ends the invocation and returns the trap that ends it.
    pub fn fail(&mut self, verdict: HostVerdict) -> wasmtime::Error {
        let message = match &verdict {
            HostVerdict::Deadline => "deadline exceeded in a host call".to_owned(),
            HostVerdict::WallClock => "wall-clock bound exceeded in a host call".to_owned(),
            HostVerdict::Host(why) => format!("host failure: {why}"),
        };
        self.verdict.get_or_insert(verdict);
        wasmtime::Error::msg(message)
    }
}

/// WASI for a guest built with `std`: it links, but opens nothing. No preopened directory, no environment or
/// arguments, stdin that reads nothing, stdout and stderr into bounded buffers, no network of any kind.
fn no_authority(stdout: &GuestOutput, stderr: &GuestOutput) -> WasiCtx {
    WasiCtxBuilder::new()
        .stdout(stdout.clone())
        .stderr(stderr.clone())
        .allow_tcp(false)
        .allow_udp(false)
        .allow_ip_name_lookup(false)
        .build()
}

impl WasiView for StoreState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
    }
}

/// Caps linear memory per instance, remembering whether the cap was what stopped the guest.
pub(crate) struct MemoryCap {
    limit: usize,
    pub hit: bool,
    /// The most linear memory granted, for the module's high-water mark.
    pub peak: usize,
}

/// Table elements an instance may have; generous for real modules, small next to memory.
const TABLE_ELEMENTS_LIMIT: usize = 100_000;

impl MemoryCap {
    pub fn new(limit: usize) -> Self {
        Self { limit, hit: false, peak: 0 }
    }
}

impl ResourceLimiter for MemoryCap {
    fn memory_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        if desired > self.limit {
            self.hit = true;
            return Ok(false);
        }
        self.peak = self.peak.max(desired);
        Ok(true)
    }

    fn table_growing(&mut self, _current: usize, desired: usize, _maximum: Option<usize>) -> wasmtime::Result<bool> {
        Ok(desired <= TABLE_ELEMENTS_LIMIT)
    }
}
