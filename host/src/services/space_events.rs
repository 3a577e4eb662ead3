//! Space events for modules: which changes become events, and delivering a queued event to the
//! modules connected to its space, recording each outcome in `module_delivery`.
//!
//! An event is a [`SpaceEvent`] job written in the transaction of the change that causes it
//! ([`Outbox`]): a change that commits has its event queued, a change that rolls back has none,
//! and a request cancelled after its commit loses nothing. Its order key is its space, so a
//! space's modules see its events in the order they committed and never two at once (modules'
//! key-value stores have no transactions). A module failing on an event is recorded, not retried:
//! the module saw the event. A database error retries the job, so delivery is at least once; a
//! module that already took the event (recorded under the event's id) is skipped when the job runs
//! again. Failures never reach the request that caused the event.
//!
//! A form-instance event carries the instance as it is when the event is delivered (the queued
//! copy if it is gone or left the space), so the last event a module sees of an instance shows its
//! latest state. A space holds at most `modules.max_queued_events_per_space` unfinished events;
//! beyond that a change commits without its event, which is logged and counted, so a flood of
//! changes cannot grow the table without bound.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;
use time::OffsetDateTime;
use trellis_modules::{EventKind, Invocation, ModuleEvent, ModuleHost, ModuleKind};

use crate::domain::jobs::{SpaceEvent, SpaceEventKind};
use crate::error::Result;
use crate::services::spaces::Spaces;
use crate::store::{Delivery, Outbox, Store};

pub mod items;

/// Turns changes into events and delivers them.
pub struct SpaceEvents {
    host: ModuleHost,
    /// Whether any module is enabled at all; without one there is nothing to deliver.
    any_enabled: bool,
    spaces: Arc<Spaces>,
    store: Store,
    /// Unfinished events a space holds at most.
    capacity: usize,
    /// The second (since the epoch) a drop was last logged: a flood of changes must not flood the
    /// log as well, so drops are logged at most once a second (the metric counts them all).
    last_drop_logged: AtomicU64,
}

impl SpaceEvents {
    pub fn new(host: ModuleHost, spaces: Arc<Spaces>, store: Store, capacity: usize) -> Self {
        let any_enabled = !host.catalogue().is_empty();
        Self { host, any_enabled, spaces, store, capacity: capacity.max(1), last_drop_logged: AtomicU64::new(0) }
    }

    /// The outbox that queues an event of `space_id` about `item_id` (described by `item`) with the
    /// change: empty when the space has no module connected.
    pub async fn outbox(&self, space_id: &str, kind: SpaceEventKind, item_id: &str, item: Value) -> Outbox {
        if !self.any_enabled || self.spaces.connected_modules(space_id).await.is_ok_and(|m| m.is_empty()) {
            return Outbox::new();
        }
        let event = SpaceEvent { space_id: space_id.to_owned(), kind, item_id: item_id.to_owned(), item };
        Outbox::new().bounded_job(&event, self.capacity)
    }

    /// After the change that wrote `outbox` committed: counts (and logs, at most once a second)
    /// the events its space could not hold.
    pub fn committed(&self, outbox: &Outbox) {
        let dropped = outbox.dropped();
        if dropped == 0 {
            return;
        }
        for _ in 0..dropped {
            crate::infra::metrics::event_dropped();
        }
        let second =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_secs());
        let last = self.last_drop_logged.load(Ordering::Relaxed);
        if second > last
            && self.last_drop_logged.compare_exchange(last, second, Ordering::Relaxed, Ordering::Relaxed).is_ok()
        {
            tracing::warn!(dropped, "a space's event queue is full; events are dropped (logged at most once a second)");
        }
    }

    /// Delivers event `event_id` to every module connected to its space that has not taken it yet.
    /// Fails only when the database does (the job is tried again).
    pub async fn deliver(&self, event_id: i64, mut event: SpaceEvent) -> Result<()> {
        if matches!(event.kind, SpaceEventKind::FormInstanceCreated | SpaceEventKind::FormInstanceUpdated) {
            let current = self.store.instances.instance(&event.item_id).await?;
            if let Some(current) = current.filter(|current| current.space_id.as_deref() == Some(&event.space_id)) {
                event.item = items::instance(&current);
            }
        }
        let space_id = event.space_id.as_str();
        let item_json = event.item.to_string();
        let modules = self.spaces.connected_modules(space_id).await?;
        // Analysis steps a space connected analyse its assets; they take no events.
        let space_modules = modules.iter().filter(|module| {
            self.host.summary(&module.module_id).is_none_or(|summary| summary.kind == ModuleKind::Space)
        });
        for module in space_modules {
            if self.store.module_deliveries.delivered(event_id, &module.module_id).await? {
                continue;
            }
            let invocation = Invocation { space_id: space_id.to_owned(), config_json: module.config.clone() };
            let delivered = ModuleEvent {
                kind: module_event_kind(event.kind),
                item_id: event.item_id.clone(),
                item_json: Some(item_json.clone()),
            };
            let outcome = self.host.dispatch_event(&module.module_id, invocation, delivered).await;
            let error = outcome.err().map(|failure| {
                tracing::warn!(space_id, module_id = %module.module_id, item_id = %event.item_id, %failure, "event delivery failed");
                failure.to_string()
            });
            let delivery = Delivery {
                event_id: Some(event_id),
                space_id: space_id.to_owned(),
                module_id: module.module_id.clone(),
                event_kind: event.kind.as_str().to_owned(),
                item_id: event.item_id.clone(),
                state: if error.is_none() { "DELIVERED" } else { "FAILED" }.to_owned(),
                error,
                created_at: OffsetDateTime::now_utc(),
            };
            self.store.module_deliveries.insert_module_delivery(delivery).await?;
        }
        Ok(())
    }
}

/// The module host's name for an event kind.
fn module_event_kind(kind: SpaceEventKind) -> EventKind {
    match kind {
        SpaceEventKind::FormInstanceCreated => EventKind::FormInstanceCreated,
        SpaceEventKind::FormInstanceUpdated => EventKind::FormInstanceUpdated,
        SpaceEventKind::AssetStateChanged => EventKind::AssetStateChanged,
        SpaceEventKind::CommentCreated => EventKind::CommentCreated,
    }
}
