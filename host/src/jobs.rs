//! Work the server does on its own, off the request path: delivering space events to modules,
//! sweeping unreferenced media, keeping the SQLite log short and dropping expired rows.
//!
//! A new kind of background work (the analysis queue, a marketplace ranking) is a file here, and
//! [`start`] runs it beside the others; it calls use cases in `services/`, never HTTP handlers.
//! Work that must survive a restart is a job on the durable queue ([`queue`]): a
//! [`queue::JobHandler`] whose workers [`start`] spawns.

pub mod analysis;
pub mod module_events;
pub mod queue;

mod housekeeping;
mod marketplace_ranking;
mod media_sweep;
mod stale_listener;
mod wal_checkpoints;

use tokio::task::JoinHandle;

use crate::state::AppState;

/// The periodic jobs of a running server; they stop when this is dropped or [`Jobs::stop`]ped.
pub struct Jobs {
    tasks: Vec<JoinHandle<()>>,
}

/// Starts every periodic job and the queue's workers.
pub fn start(state: &AppState) -> Jobs {
    let mut tasks = vec![
        tokio::spawn(housekeeping::run(state.clone())),
        tokio::spawn(wal_checkpoints::run(state.store.clone())),
        tokio::spawn(media_sweep::run(state.clone())),
        tokio::spawn(marketplace_ranking::run(state.clone())),
    ];
    tasks.extend(queue::spawn_workers(&state.queue, state.events.delivery(), state.config.jobs.event_workers));
    let analysis = std::sync::Arc::new(analysis::AnalysisJobs::new(state.analysis.clone()));
    tasks.extend(queue::spawn_workers(&state.queue, analysis, state.config.analysis.workers));
    tasks.extend(stale_listener::start(state));
    Jobs { tasks }
}

impl Jobs {
    pub fn stop(self) {
        drop(self);
    }
}

impl Drop for Jobs {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}
