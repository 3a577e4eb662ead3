//! Delivering space events (a form instance created or changed in a space) to the modules connected
//! to that space, in the background, recording each outcome in `module_delivery`.
//!
//! Each space has one queue, drained by one task, so a space's modules see its events in the order
//! they happened and never two at once (modules' key-value stores have no transactions). A task
//! ends after a quiet spell and the next event starts a new one. Failures are logged and recorded;
//! they never reach the request that caused the event. A space's queue holds at most
//! `modules.max_queued_events_per_space` events; beyond that new events of the space are dropped,
//! logged and counted, so a flood of changes cannot grow memory without bound.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use time::OffsetDateTime;
use tokio::sync::mpsc;
use trellis_modules::{EventKind, Invocation, ModuleEvent, ModuleHost};

use crate::services::spaces::Spaces;
use crate::store::{Delivery, Store};

/// How long a space's delivery task waits for another event before it ends.
const IDLE: Duration = Duration::from_secs(30);

/// Hands events to the per-space delivery tasks. Cheap to clone.
#[derive(Clone)]
pub struct ModuleEvents {
    shared: Arc<Shared>,
}

struct Shared {
    host: ModuleHost,
    /// Whether any module is enabled at all; without one there is nothing to deliver.
    any_enabled: bool,
    spaces: Arc<Spaces>,
    store: Store,
    queues: Mutex<HashMap<String, mpsc::Sender<Job>>>,
    /// Events a space's queue holds at most.
    capacity: usize,
    /// Events dropped because their space's queue was full, since start.
    dropped: AtomicU64,
}

/// One event to deliver to every module connected to the space.
struct Job {
    kind: EventKind,
    item_id: String,
    item_json: String,
}

/// The name an event kind is recorded under.
pub fn kind_name(kind: EventKind) -> &'static str {
    match kind {
        EventKind::FormInstanceCreated => "form-instance-created",
        EventKind::FormInstanceUpdated => "form-instance-updated",
        EventKind::AssetStateChanged => "asset-state-changed",
    }
}

impl ModuleEvents {
    pub fn new(host: ModuleHost, spaces: Arc<Spaces>, store: Store, capacity: usize) -> Self {
        let any_enabled = !host.catalogue().is_empty();
        let queues = Mutex::new(HashMap::new());
        let capacity = capacity.max(1);
        Self {
            shared: Arc::new(Shared { host, any_enabled, spaces, store, queues, capacity, dropped: AtomicU64::new(0) }),
        }
    }

    /// Events dropped because their space's queue was full, since start.
    pub fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// Queues an event of `space_id` about `item_id` (described by `item_json`) and returns at once.
    /// Must be called inside the tokio runtime.
    pub fn publish(&self, space_id: &str, kind: EventKind, item_id: &str, item_json: String) {
        if !self.shared.any_enabled {
            return;
        }
        let job = Job { kind, item_id: item_id.to_owned(), item_json };
        let mut queues = self.shared.queues.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let job = match queues.get(space_id) {
            Some(queue) => match queue.try_send(job) {
                Ok(()) => return,
                Err(mpsc::error::TrySendError::Full(job)) => {
                    let dropped = self.shared.dropped.fetch_add(1, Ordering::Relaxed) + 1;
                    tracing::warn!(space_id, item_id = %job.item_id, dropped, "the space's event queue is full; event dropped");
                    return;
                }
                Err(mpsc::error::TrySendError::Closed(job)) => job,
            },
            None => job,
        };
        let (queue, jobs) = mpsc::channel(self.shared.capacity);
        let _ = queue.try_send(job);
        queues.insert(space_id.to_owned(), queue);
        tokio::spawn(drain(self.shared.clone(), space_id.to_owned(), jobs));
    }
}

async fn drain(shared: Arc<Shared>, space_id: String, mut jobs: mpsc::Receiver<Job>) {
    loop {
        match tokio::time::timeout(IDLE, jobs.recv()).await {
            Ok(Some(job)) => shared.deliver(&space_id, job).await,
            Ok(None) => return,
            Err(_) => {
                // Publishers send while holding the lock, so an empty queue seen under it stays empty.
                let mut queues = shared.queues.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                if jobs.is_empty() {
                    queues.remove(&space_id);
                    return;
                }
            }
        }
    }
}

impl Shared {
    async fn deliver(&self, space_id: &str, job: Job) {
        let modules = match self.spaces.connected_modules(space_id).await {
            Ok(modules) => modules,
            Err(error) => {
                tracing::warn!(space_id, error = %error, "reading the connected modules failed; event dropped");
                return;
            }
        };
        for module in modules.iter() {
            let invocation = Invocation { space_id: space_id.to_owned(), config_json: module.config.clone() };
            let event =
                ModuleEvent { kind: job.kind, item_id: job.item_id.clone(), item_json: Some(job.item_json.clone()) };
            let outcome = self.host.dispatch_event(&module.module_id, invocation, event).await;
            let error = outcome.err().map(|failure| {
                tracing::warn!(space_id, module_id = %module.module_id, item_id = %job.item_id, %failure, "event delivery failed");
                failure.to_string()
            });
            let delivery = Delivery {
                space_id: space_id.to_owned(),
                module_id: module.module_id.clone(),
                event_kind: kind_name(job.kind).to_owned(),
                item_id: job.item_id.clone(),
                state: if error.is_none() { "DELIVERED" } else { "FAILED" }.to_owned(),
                error,
                created_at: OffsetDateTime::now_utc(),
            };
            if let Err(error) = self.store.module_deliveries.insert_module_delivery(delivery).await {
                tracing::warn!(space_id, module_id = %module.module_id, error = %error, "recording a delivery failed");
            }
        }
    }
}
