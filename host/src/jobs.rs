//! Work the server does on its own, off the request path: delivering space events to modules,
//! sweeping unreferenced media, keeping the SQLite log short and dropping expired rows.
//!
//! A new kind of background work (the analysis queue, a marketplace ranking) is a file here, and
//! [`start`] runs it beside the others; it calls use cases in `services/`, never HTTP handlers.

pub mod module_events;

mod housekeeping;
mod marketplace_ranking;
mod media_sweep;
mod wal_checkpoints;

use tokio::task::JoinHandle;

use crate::state::AppState;

/// The periodic jobs of a running server; they stop when this is dropped or [`Jobs::stop`]ped.
pub struct Jobs {
    tasks: Vec<JoinHandle<()>>,
}

/// Starts every periodic job. Event delivery runs on demand (see [`module_events`]).
pub fn start(state: &AppState) -> Jobs {
    Jobs {
        tasks: vec![
            tokio::spawn(housekeeping::run(state.clone())),
            tokio::spawn(wal_checkpoints::run(state.store.clone())),
            tokio::spawn(media_sweep::run(state.clone())),
            tokio::spawn(marketplace_ranking::run(state.clone())),
        ],
    }
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
