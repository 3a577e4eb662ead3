//! Runs queued space events ([`SpaceEvent`] jobs, written by the change that caused them) through
//! the delivery use case (`services/space_events.rs`). A database failure is tried again; a module
//! failing on the event is recorded there, not retried.

use std::sync::Arc;

use super::queue::{JobFailure, KindHandler};
use crate::domain::jobs::SpaceEvent;
use crate::services::space_events::SpaceEvents;

/// The space-event job handler.
pub struct ModuleEventJobs {
    events: Arc<SpaceEvents>,
}

impl ModuleEventJobs {
    pub fn new(events: Arc<SpaceEvents>) -> Self {
        Self { events }
    }
}

#[async_trait::async_trait]
impl KindHandler for ModuleEventJobs {
    type Kind = SpaceEvent;

    async fn run(&self, job_id: i64, event: SpaceEvent) -> Result<(), JobFailure> {
        self.events.deliver(job_id, event).await.map_err(|error| JobFailure::Retry(error.to_string()))
    }

    async fn failed(&self, job_id: i64, event: SpaceEvent, error: &str) {
        tracing::warn!(job_id, space_id = %event.space_id, error, "a space event was given up; its modules did not all see it");
    }
}
