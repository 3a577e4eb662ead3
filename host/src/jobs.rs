//! Work the server does on its own, off the request path: delivering space events to modules,
//! analysing assets, sweeping unreferenced media, keeping the SQLite log short and dropping
//! expired rows.
//!
//! Jobs receive what they use ([`JobDeps`]), never the handlers' state, and call use cases in
//! `services/`, never HTTP handlers; nothing in `services/` imports `jobs/`. Work that must
//! survive a restart is a durable job kind: its name and typed payload are defined once in
//! `domain::jobs`, the change that causes it writes it in its own transaction (`store::Outbox`),
//! and its handler here is a [`queue::KindHandler`] whose workers [`start`] spawns.

pub mod analysis;
pub mod module_events;
pub mod queue;

mod announcement_expiry;
mod content_addresses;
mod housekeeping;
mod live_listener;
mod live_sequencer;
mod marketplace_ranking;
mod media_sweep;
mod stale_listener;
mod wal_checkpoints;

use std::sync::Arc;

use tokio::task::JoinHandle;

use crate::config::Config;
use crate::media::objects::MediaObjects;
use crate::rate_limits::RateLimits;
use crate::services::analysis::Analysis;
use crate::services::assets::Assets;
use crate::services::live::Live;
use crate::services::marketplace::ranking::Ranking;
use crate::services::space_events::SpaceEvents;
use crate::stale::Caches;
use crate::store::Store;

/// What the background jobs use.
pub struct JobDeps {
    pub config: Arc<Config>,
    pub store: Store,
    pub queue: queue::JobQueue,
    pub space_events: Arc<SpaceEvents>,
    pub analysis: Arc<Analysis>,
    /// Rejects announcements whose upload never came.
    pub assets: Arc<Assets>,
    pub ranking: Arc<Ranking>,
    pub media: MediaObjects,
    /// Resumable uploads, whose expired ones the media sweep removes.
    pub uploads: Arc<crate::services::resumable::ResumableUploads>,
    pub limits: Arc<RateLimits>,
    /// Forgets what another server announced stale.
    pub caches: Arc<dyn Caches>,
    /// Sends committed live events to the open streams.
    pub live: Arc<Live>,
}

/// The periodic jobs of a running server; they stop when this is dropped or [`Jobs::stop`]ped.
pub struct Jobs {
    tasks: Vec<JoinHandle<()>>,
}

/// Starts every periodic job and the queue's workers.
pub fn start(deps: JobDeps) -> Jobs {
    let config = &deps.config;
    let mut tasks = vec![
        tokio::spawn(housekeeping::run(deps.store.clone(), deps.limits.clone(), config.jobs.keep_finished())),
        tokio::spawn(wal_checkpoints::run(deps.store.clone())),
        tokio::spawn(media_sweep::run(deps.media.clone(), deps.uploads.clone(), config.media.sweep_interval_seconds)),
        tokio::spawn(announcement_expiry::run(deps.assets.clone(), config.media.sweep_interval_seconds)),
        tokio::spawn(content_addresses::run(
            deps.store.clone(),
            deps.media.clone(),
            config.media.sweep_interval_seconds,
        )),
        tokio::spawn(marketplace_ranking::run(deps.ranking.clone(), &config.marketplace)),
    ];
    let events = queue::handler(module_events::ModuleEventJobs::new(deps.space_events.clone()));
    tasks.extend(queue::spawn_workers(&deps.queue, events, config.jobs.event_workers));
    let analysis = queue::handler(analysis::AnalysisJobs::new(deps.analysis.clone()));
    tasks.extend(queue::spawn_workers(&deps.queue, analysis, config.analysis.workers));
    tasks.extend(stale_listener::start(config.database_url(), deps.caches.clone()));
    tasks.push(tokio::spawn(deps.live.clone().dispatch()));
    tasks.extend(live_sequencer::start(deps.store.clone()));
    tasks.extend(live_listener::start(config.database_url(), deps.live.clone()));
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
