//! Work the server does on its own, off the request path: delivering space events to modules,
//! analysing assets, sweeping unreferenced media, keeping the SQLite log short and dropping
//! expired rows.
//!
//! Jobs receive what they use ([`JobDeps`], their settings as [`JobSettings`]), never the handlers'
//! state or the whole configuration, and call use cases in
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
use crate::config::jobs::JobsConfig;
use crate::config::marketplace::MarketplaceConfig;
use crate::infra::media::objects::MediaObjects;
use crate::infra::rate_limits::RateLimits;
use crate::infra::stale::Caches;
use crate::services::analysis::Analysis;
use crate::services::assets::Assets;
use crate::services::live::Live;
use crate::services::marketplace::ranking::Ranking;
use crate::services::space_events::SpaceEvents;
use crate::store::Store;

/// The settings the jobs read: their sections of the configuration, not the whole of it.
pub struct JobSettings {
    pub jobs: JobsConfig,
    /// How often media is swept and unfinished announcements and old media are looked at.
    pub sweep_interval_seconds: u64,
    pub marketplace: MarketplaceConfig,
    /// Analysis workers.
    pub analysis_workers: usize,
    /// Where other servers' announcements and live events are heard (PostgreSQL), or nothing.
    pub database_url: String,
}

impl JobSettings {
    pub fn of(config: &Config) -> Self {
        Self {
            jobs: config.jobs.clone(),
            sweep_interval_seconds: config.media.sweep_interval_seconds,
            marketplace: config.marketplace.clone(),
            analysis_workers: config.analysis.workers,
            database_url: config.database_url(),
        }
    }
}

/// What the background jobs use.
pub struct JobDeps {
    pub settings: JobSettings,
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
    let settings = &deps.settings;
    let mut tasks = vec![
        tokio::spawn(housekeeping::run(deps.store.clone(), deps.limits.clone(), settings.jobs.keep_finished())),
        tokio::spawn(wal_checkpoints::run(deps.store.clone())),
        tokio::spawn(media_sweep::run(deps.media.clone(), deps.uploads.clone(), settings.sweep_interval_seconds)),
        tokio::spawn(announcement_expiry::run(deps.assets.clone(), settings.sweep_interval_seconds)),
        tokio::spawn(content_addresses::run(deps.store.clone(), deps.media.clone(), settings.sweep_interval_seconds)),
        tokio::spawn(marketplace_ranking::run(deps.ranking.clone(), &settings.marketplace)),
    ];
    let events = queue::handler(module_events::ModuleEventJobs::new(deps.space_events.clone()));
    tasks.extend(queue::spawn_workers(&deps.queue, events, settings.jobs.event_workers));
    let analysis = queue::handler(analysis::AnalysisJobs::new(deps.analysis.clone()));
    tasks.extend(queue::spawn_workers(&deps.queue, analysis, settings.analysis_workers));
    tasks.extend(stale_listener::start(settings.database_url.clone(), deps.caches.clone()));
    tasks.push(tokio::spawn(deps.live.clone().dispatch()));
    tasks.extend(live_sequencer::start(deps.store.clone()));
    tasks.extend(live_listener::start(settings.database_url.clone(), deps.live.clone()));
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
