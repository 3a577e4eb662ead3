//! What handlers share. Cheap to clone: every field is an `Arc` or a pool handle.

use std::sync::Arc;
use std::time::Duration;

use crate::config::Config;
use crate::http::forwarded::TrustedProxies;
use crate::infra::media::objects::MediaObjects;
use crate::infra::rate_limits::RateLimits;
use crate::jobs::queue::JobQueue;
use crate::services::accounts::Accounts;
use crate::services::analysis::Analysis;
use crate::services::assets::Assets;
use crate::services::attachments::Attachments;
use crate::services::avatars::Avatars;
use crate::services::channels::Channels;
use crate::services::comments::Comments;
use crate::services::form_configurations::FormConfigurations;
use crate::services::form_instances::FormInstances;
use crate::services::instance_access::InstanceAccess;
use crate::services::licenses::Licenses;
use crate::services::marketplace::Marketplace;
use crate::services::messages::Messages;
use crate::services::modules::Modules;
use crate::services::readiness::Readiness;
use crate::services::space_events::SpaceEvents;
use crate::services::spaces::Spaces;
use crate::services::users::Users;
use crate::services::workflow_configurations::WorkflowConfigurations;
use crate::services::workflow_items::WorkflowItems;
use crate::store::Store;

mod build;

use build::{FileFamily, FormFamily, accounts, analysis, configurations, marketplace, module_host};

/// The services every handler reaches, behind one `Arc`: axum clones the state for every request, and
/// one reference count is cheaper than one per service (profiled: cloning and dropping 26 `Arc`s took
/// a tenth of the server's time under load).
#[derive(Clone)]
pub struct AppState(Arc<Services>);

impl std::ops::Deref for AppState {
    type Target = Services;

    fn deref(&self) -> &Services {
        &self.0
    }
}

pub struct Services {
    pub config: Arc<Config>,
    pub store: Store,
    pub licenses: Arc<Licenses>,
    pub accounts: Arc<Accounts>,
    pub users: Arc<Users>,
    pub limits: Arc<RateLimits>,
    pub form_configurations: Arc<FormConfigurations>,
    pub form_instances: Arc<FormInstances>,
    /// Who may read an instance, and what of it.
    pub instance_access: Arc<InstanceAccess>,
    pub spaces: Arc<Spaces>,
    pub channels: Arc<Channels>,
    pub comments: Arc<Comments>,
    pub assets: Arc<Assets>,
    pub marketplace: Arc<Marketplace>,
    pub modules: Arc<Modules>,
    pub workflows: Arc<WorkflowConfigurations>,
    pub workflow_items: Arc<WorkflowItems>,
    pub media: MediaObjects,
    pub attachments: Arc<Attachments>,
    pub avatars: Arc<Avatars>,
    /// Direct messages and the platform's notices (`Messages::notify`).
    pub messages: Arc<Messages>,
    /// The durable background job queue; `jobs::start` runs its workers.
    pub queue: JobQueue,
    /// Space events for modules: which changes queue one, and their delivery.
    pub space_events: Arc<SpaceEvents>,
    /// The background analysis of published assets (run by the `analysis` jobs).
    pub analysis: Arc<Analysis>,
    /// `GET /readyz`: one bounded check of the database and the media store, shared for a second.
    pub readiness: Arc<Readiness>,
    /// `http.trusted_proxies`, parsed: whose `X-Forwarded-For` is believed.
    pub trusted_proxies: Arc<TrustedProxies>,
    /// Live updates: the open event streams and their dispatcher (`jobs::start` runs it).
    pub live: Arc<crate::services::live::Live>,
    /// Streaming exports of instances and items, and how many run.
    pub exports: Arc<crate::services::export::Exports>,
    /// Resumable uploads (tus) and their use in place of a file part.
    pub uploads: Arc<crate::services::resumable::ResumableUploads>,
}

impl AppState {
    /// Builds the services over an open, migrated store.
    pub fn new(config: Config, store: Store) -> anyhow::Result<Self> {
        let config = Arc::new(config);
        let limits = Arc::new(RateLimits::new(&config.rate_limits));
        let licenses = Arc::new(Licenses::new(store.clone(), config.clone()));
        let accounts = Arc::new(accounts(&config, &store, &limits)?);
        let users = Arc::new(Users::new(store.users.clone()));
        let (form_configurations, workflows) = configurations(&config, &store);
        let spaces = Arc::new(Spaces::new(store.clone(), Duration::from_secs(config.space_cache_seconds)));
        let module_host = module_host(&config, &store)?;
        let queue = JobQueue::new(store.clone(), &config.jobs);
        let events = Arc::new(SpaceEvents::new(
            module_host.clone(),
            spaces.clone(),
            store.clone(),
            config.modules.runtime.max_queued_events_per_space,
        ));
        let messages = Arc::new(Messages::new(store.clone()));
        let marketplace = Arc::new(marketplace(&config, &store, &spaces, &module_host)?);
        let analysis_host = module_host.clone();
        let modules = Arc::new(Modules::new(module_host, spaces.clone(), store.clone()));
        let objects = crate::infra::media::open(&config.media, config.data_dir())?;
        let media = MediaObjects::new(store.clone(), objects, &config.media);
        let forms = FormFamily::new(&config, &store, &form_configurations, &workflows, &spaces, &events, &media);
        let files = FileFamily::new(&config, &store, &spaces, &events, &media);
        let readiness = Arc::new(Readiness::new(store.clone(), media.clone(), config.media.retry_after_seconds));
        let trusted_proxies = Arc::new(
            TrustedProxies::parse(&config.http.trusted_proxies)
                .map_err(|problem| anyhow::anyhow!("http.trusted_proxies: {problem}"))?,
        );
        let comments = Arc::new(Comments::new(store.clone(), spaces.clone(), limits.clone(), events.clone()));
        let reinvite_after = Duration::from_secs(config.rate_limits.reinvite_after_decline_seconds);
        let channels = Arc::new(Channels::new(store.clone(), comments.clone(), spaces.clone(), reinvite_after));
        let analysis = Arc::new(analysis(&config, &store, &spaces, &analysis_host, &media, &events)?);
        let live = Arc::new(crate::services::live::Live::new(
            store.clone(),
            config.live.clone(),
            accounts.clone(),
            licenses.clone(),
            workflows.clone(),
            limits.clone(),
        ));
        Ok(Self(Arc::new(Services {
            config,
            store,
            licenses,
            accounts,
            users,
            limits,
            form_configurations,
            form_instances: forms.instances,
            instance_access: forms.access,
            spaces,
            channels,
            comments,
            assets: files.assets,
            marketplace,
            modules,
            workflows,
            workflow_items: forms.items,
            media,
            attachments: forms.attachments,
            avatars: files.avatars,
            messages,
            queue,
            space_events: events,
            analysis,
            readiness,
            trusted_proxies,
            live,
            exports: forms.exports,
            uploads: files.uploads,
        })))
    }
}

impl AppState {
    /// What the background jobs use.
    pub fn job_deps(&self) -> crate::jobs::JobDeps {
        crate::jobs::JobDeps {
            settings: crate::jobs::JobSettings::of(&self.config),
            store: self.store.clone(),
            queue: self.queue.clone(),
            space_events: self.space_events.clone(),
            analysis: self.analysis.clone(),
            assets: self.assets.clone(),
            ranking: self.marketplace.ranking().clone(),
            media: self.media.clone(),
            uploads: self.uploads.clone(),
            limits: self.limits.clone(),
            caches: Arc::new(self.clone()),
            live: self.live.clone(),
        }
    }
}

impl crate::infra::stale::Caches for AppState {
    /// Drops what another server announced stale (`jobs::stale_listener`).
    fn forget(&self, stale: &crate::infra::stale::Stale) {
        use crate::infra::stale::Stale;
        match stale {
            Stale::Licenses => self.licenses.forget_all(),
            Stale::Session(digest) => self.accounts.forget_session(digest),
            Stale::UserSessions(user_id) => self.accounts.forget_user_sessions(user_id),
            Stale::Role { space_id, user_id } => self.spaces.forget_role(space_id, user_id),
            Stale::Roles => self.spaces.forget_roles(),
            Stale::SpaceModules(space_id) => self.spaces.forget_modules(space_id),
            Stale::FormConfiguration(id) => self.form_configurations.forget(id),
            Stale::Workflow(id) => self.workflows.forget(id),
        }
    }

    /// Drops every cached entry another server could have changed: announcements may have been missed.
    fn forget_all(&self) {
        self.licenses.forget_all();
        self.accounts.forget_all_sessions();
        self.spaces.forget_roles();
        self.spaces.forget_all_modules();
        self.form_configurations.forget_all();
        self.workflows.forget_all();
    }
}

impl AppState {
    /// What `/metrics` reads when scraped rather than counts. The job table is read with a short
    /// deadline, so a scrape still answers (with `trellis_jobs_readable 0`) while the database is away.
    pub async fn metrics_snapshot(&self) -> crate::infra::metrics::Snapshot {
        let jobs = match tokio::time::timeout(Duration::from_secs(2), self.store.jobs.depth()).await {
            Ok(Ok(rows)) => Some(rows.into_iter().map(|d| (d.kind, d.state, d.count)).collect()),
            Ok(Err(error)) => {
                tracing::warn!(%error, "metrics: reading the job queue failed");
                None
            }
            Err(_) => None,
        };
        crate::infra::metrics::Snapshot {
            readiness_checks: self.readiness.checks(),
            pools: self.store.pool_use(),
            jobs,
            modules: self.modules.host().metrics(),
            media_tools_peak_bytes: trellis_inference::media::tools_peak_resident_bytes(),
            live_streams: self.live.open_streams(),
            exports_running: self.exports.running(),
        }
    }
}

/// Each service on its own (`State<Arc<Accounts>>`), so a handler takes what it uses and nothing else.
macro_rules! services_from_state {
    ($($field:ident: $service:ty),* $(,)?) => {
        $(impl axum::extract::FromRef<AppState> for $service {
            fn from_ref(state: &AppState) -> Self {
                state.$field.clone()
            }
        })*
    };
}

services_from_state!(
    config: Arc<Config>,
    licenses: Arc<Licenses>,
    accounts: Arc<Accounts>,
    users: Arc<Users>,
    limits: Arc<RateLimits>,
    form_configurations: Arc<FormConfigurations>,
    form_instances: Arc<FormInstances>,
    instance_access: Arc<InstanceAccess>,
    spaces: Arc<Spaces>,
    channels: Arc<Channels>,
    comments: Arc<Comments>,
    assets: Arc<Assets>,
    marketplace: Arc<Marketplace>,
    modules: Arc<Modules>,
    workflows: Arc<WorkflowConfigurations>,
    workflow_items: Arc<WorkflowItems>,
    attachments: Arc<Attachments>,
    avatars: Arc<Avatars>,
    messages: Arc<Messages>,
    analysis: Arc<Analysis>,
    readiness: Arc<Readiness>,
    trusted_proxies: Arc<TrustedProxies>,
    live: Arc<crate::services::live::Live>,
    exports: Arc<crate::services::export::Exports>,
    uploads: Arc<crate::services::resumable::ResumableUploads>,
);
