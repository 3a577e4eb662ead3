//! Delivering space events (a form instance created or changed in a space, an asset's state
//! changed) to the modules connected to that space, in the background, recording each outcome in
//! `module_delivery`.
//!
//! An event is a `module-event` job on the durable queue (`jobs/queue.rs`) whose order key is its
//! space, so a space's modules see its events in the order they happened and never two at once
//! (modules' key-value stores have no transactions), and events queued when the server stops
//! are delivered after it starts again. A module failing on an event is recorded, not retried:
//! the module saw the event. A database error retries the job, so delivery is at least once.
//! Failures never reach the request that caused the event.
//!
//! Events are queued after their change commits, so two quick updates of one instance may be queued in the
//! other order than they committed. A form-instance event therefore carries the instance as it is when the
//! event is delivered (the queued copy if it is gone or left the space): whatever the order, the last event a
//! module sees of an instance shows its latest state. A space holds at most
//! `modules.max_queued_events_per_space` unfinished events; beyond that new events of the space
//! are dropped, logged and counted, so a flood of changes cannot grow the table without bound.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};
use time::OffsetDateTime;
use trellis_modules::{EventKind, Invocation, ModuleEvent, ModuleHost, ModuleKind};

use crate::jobs::queue::{ClaimedJob, JobFailure, JobHandler, JobQueue, NewJob};
use crate::services::form_instances;
use crate::services::spaces::Spaces;
use crate::store::{Delivery, Store};

/// The job kind of a space event.
pub const KIND: &str = "module-event";

/// Queues space events. Cheap to clone.
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
    queue: JobQueue,
    /// Unfinished events a space holds at most.
    capacity: usize,
    /// Events dropped because their space held `capacity` unfinished ones, since start.
    dropped: AtomicU64,
    /// The second (since the epoch) a drop was last logged: a flood of changes must not flood the
    /// log as well, so drops are logged at most once a second (`dropped` counts them all).
    last_drop_logged: AtomicU64,
}

/// The name an event kind is recorded under.
pub fn kind_name(kind: EventKind) -> &'static str {
    match kind {
        EventKind::FormInstanceCreated => "form-instance-created",
        EventKind::FormInstanceUpdated => "form-instance-updated",
        EventKind::AssetStateChanged => "asset-state-changed",
        EventKind::CommentCreated => "comment-created",
    }
}

fn kind_of(name: &str) -> Option<EventKind> {
    [
        EventKind::FormInstanceCreated,
        EventKind::FormInstanceUpdated,
        EventKind::AssetStateChanged,
        EventKind::CommentCreated,
    ]
    .into_iter()
    .find(|kind| kind_name(*kind) == name)
}

impl ModuleEvents {
    pub fn new(host: ModuleHost, spaces: Arc<Spaces>, store: Store, queue: JobQueue, capacity: usize) -> Self {
        let any_enabled = !host.catalogue().is_empty();
        let capacity = capacity.max(1);
        Self {
            shared: Arc::new(Shared {
                host,
                any_enabled,
                spaces,
                store,
                queue,
                capacity,
                dropped: AtomicU64::new(0),
                last_drop_logged: AtomicU64::new(0),
            }),
        }
    }

    /// Queues an event of `space_id` about `item_id` (described by `item`) for the space's modules.
    /// A space without connected modules queues nothing; a failure is logged, never returned.
    pub async fn publish(&self, space_id: &str, kind: EventKind, item_id: &str, item: Value) {
        let shared = &self.shared;
        if !shared.any_enabled || shared.spaces.connected_modules(space_id).await.is_ok_and(|m| m.is_empty()) {
            return;
        }
        let job = NewJob {
            kind: KIND,
            dedupe_key: None,
            order_key: Some(space_id.to_owned()),
            payload: json!({"spaceId": space_id, "kind": kind_name(kind), "itemId": item_id, "item": item}),
        };
        match shared.queue.enqueue_bounded(job, shared.capacity).await {
            Ok(true) => {}
            Ok(false) => {
                let dropped = shared.dropped.fetch_add(1, Ordering::Relaxed) + 1;
                crate::metrics::event_dropped();
                let second = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |since| since.as_secs());
                let last = shared.last_drop_logged.load(Ordering::Relaxed);
                if second > last
                    && shared
                        .last_drop_logged
                        .compare_exchange(last, second, Ordering::Relaxed, Ordering::Relaxed)
                        .is_ok()
                {
                    tracing::warn!(
                        space_id,
                        item_id,
                        dropped,
                        "a space's event queue is full; events are dropped (logged at most once a second)"
                    );
                }
            }
            Err(error) => tracing::warn!(space_id, item_id, %error, "queueing a space event failed; event dropped"),
        }
    }

    /// The handler that delivers queued events, for the job workers.
    pub fn delivery(&self) -> Arc<dyn JobHandler> {
        Arc::new(Deliver(self.shared.clone()))
    }
}

/// Delivers one `module-event` job to every module connected to its space.
struct Deliver(Arc<Shared>);

/// What a `module-event` job carries.
struct Event {
    space_id: String,
    kind: EventKind,
    item_id: String,
    item_json: String,
}

fn event_of(payload: &Value) -> Option<Event> {
    Some(Event {
        space_id: payload["spaceId"].as_str()?.to_owned(),
        kind: kind_of(payload["kind"].as_str()?)?,
        item_id: payload["itemId"].as_str()?.to_owned(),
        item_json: payload.get("item")?.to_string(),
    })
}

#[async_trait::async_trait]
impl JobHandler for Deliver {
    fn kind(&self) -> &'static str {
        KIND
    }

    async fn run(&self, job: &ClaimedJob) -> Result<(), JobFailure> {
        let shared = &self.0;
        let mut event = event_of(&job.payload).ok_or_else(|| JobFailure::Permanent("not a space event".to_owned()))?;
        if matches!(event.kind, EventKind::FormInstanceCreated | EventKind::FormInstanceUpdated) {
            let current =
                shared.store.instances.instance(&event.item_id).await.map_err(|error| {
                    JobFailure::Retry(format!("reading the instance's current state failed: {error}"))
                })?;
            if let Some(current) = current.filter(|current| current.space_id.as_deref() == Some(&event.space_id)) {
                event.item_json = form_instances::event_item(&current).to_string();
            }
        }
        let space_id = event.space_id.as_str();
        let modules = shared
            .spaces
            .connected_modules(space_id)
            .await
            .map_err(|error| JobFailure::Retry(format!("reading the space's connected modules failed: {error}")))?;
        // Analysis steps a space connected analyse its assets; they take no events.
        let space_modules = modules.iter().filter(|module| {
            shared.host.summary(&module.module_id).is_none_or(|summary| summary.kind == ModuleKind::Space)
        });
        for module in space_modules {
            let invocation = Invocation { space_id: space_id.to_owned(), config_json: module.config.clone() };
            let delivered = ModuleEvent {
                kind: event.kind,
                item_id: event.item_id.clone(),
                item_json: Some(event.item_json.clone()),
            };
            let outcome = shared.host.dispatch_event(&module.module_id, invocation, delivered).await;
            let error = outcome.err().map(|failure| {
                tracing::warn!(space_id, module_id = %module.module_id, item_id = %event.item_id, %failure, "event delivery failed");
                failure.to_string()
            });
            let delivery = Delivery {
                space_id: space_id.to_owned(),
                module_id: module.module_id.clone(),
                event_kind: kind_name(event.kind).to_owned(),
                item_id: event.item_id.clone(),
                state: if error.is_none() { "DELIVERED" } else { "FAILED" }.to_owned(),
                error,
                created_at: OffsetDateTime::now_utc(),
            };
            shared
                .store
                .module_deliveries
                .insert_module_delivery(delivery)
                .await
                .map_err(|error| JobFailure::Retry(format!("recording a delivery failed: {error}")))?;
        }
        Ok(())
    }

    async fn failed(&self, job: &ClaimedJob, error: &str) {
        tracing::warn!(job_id = job.id, error, "a space event was given up; its modules did not all see it");
    }
}
