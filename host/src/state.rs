//! What handlers share. Cheap to clone: every field is an `Arc` or a pool handle.

use std::sync::Arc;
use std::time::Duration;

use crate::config::Config;
use crate::http::forwarded::TrustedProxies;
use crate::jobs::queue::JobQueue;
use crate::mail::Mailer;
use crate::media::objects::MediaObjects;
use crate::password_work::PasswordWork;
use crate::rate_limits::RateLimits;
use crate::services::accounts::Accounts;
use crate::services::analysis::inference::{Inference, InferenceLimits};
use crate::services::analysis::{Analysis, DeploymentStep};
use crate::services::assets::Assets;
use crate::services::attachments::Attachments;
use crate::services::avatars::Avatars;
use crate::services::channels::Channels;
use crate::services::comments::Comments;
use crate::services::form_configurations::FormConfigurations;
use crate::services::form_instances::FormInstances;
use crate::services::licenses::Licenses;
use crate::services::marketplace::Marketplace;
use crate::services::marketplace::ranking::{Ranking, RankingSettings};
use crate::services::marketplace::registrations::RegistrationLimits;
use crate::services::messages::Messages;
use crate::services::modules::Modules;
use crate::services::readiness::Readiness;
use crate::services::space_events::SpaceEvents;
use crate::services::spaces::Spaces;
use crate::services::users::Users;
use crate::services::workflow_configurations::WorkflowConfigurations;
use crate::services::workflow_items::WorkflowItems;
use crate::store::KvQuota;
use crate::store::Store;

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
        let password_cost = config.auth.password_cost();
        password_cost.params().map_err(|e| {
            anyhow::anyhow!("auth.password_hash_memory_kib and auth.password_hash_iterations: argon2 refuses them: {e}")
        })?;
        if password_cost.is_below_recommended() {
            tracing::warn!(
                memory_kib = password_cost.memory_kib,
                iterations = password_cost.iterations,
                "new password hashes cost less than OWASP's minimum for argon2id (19,456 KiB, 2 passes): \
                 a stolen hash is cheaper to guess at; use this only for tests"
            );
        }
        let mailer = Arc::new(Mailer::from_config(&config)?);
        let limits = Arc::new(RateLimits::new(&config.rate_limits));
        let licenses = Arc::new(Licenses::new(store.clone(), config.clone()));
        let accounts = Arc::new(Accounts::new(
            store.clone(),
            mailer,
            limits.clone(),
            Duration::from_secs(config.auth.session_ttl_seconds),
            config.modules.web.authentication.password_reset.enabled,
            Duration::from_secs(config.session_cache_seconds),
            PasswordWork::new(
                match config.auth.max_parallel_hashes {
                    0 => std::thread::available_parallelism().map_or(2, usize::from),
                    n => n,
                },
                config.auth.max_waiting_hashes,
                password_cost,
            ),
        ));
        let users = Arc::new(Users::new(store.users.clone()));
        let form_configurations =
            Arc::new(FormConfigurations::new(store.clone(), Duration::from_secs(config.configuration_cache_seconds)));
        let workflows = Arc::new(WorkflowConfigurations::new(
            store.clone(),
            form_configurations.clone(),
            Duration::from_secs(config.configuration_cache_seconds),
        ));
        let spaces = Arc::new(Spaces::new(store.clone(), Duration::from_secs(config.space_cache_seconds)));
        let module_host = trellis_modules::ModuleHost::new(
            config.modules.runtime_for(config.data_dir()),
            &crate::bundled::modules(),
            Arc::new(store.module_kv.with_quota(KvQuota {
                max_keys: i64::try_from(config.modules.runtime.kv_max_keys_per_space).unwrap_or(i64::MAX),
                max_bytes: i64::try_from(config.modules.runtime.kv_max_bytes_per_space).unwrap_or(i64::MAX),
            })),
        )?;
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
        let modules = Arc::new(Modules::new(module_host, spaces.clone()));
        let form_instances = Arc::new(FormInstances::new(
            store.clone(),
            form_configurations.clone(),
            workflows.clone(),
            spaces.clone(),
            events.clone(),
        ));
        let workflow_items = Arc::new(WorkflowItems::new(store.clone(), workflows.clone(), form_instances.clone()));
        let objects = crate::media::open(&config.media, config.data_dir())?;
        let media = MediaObjects::new(store.clone(), objects, &config.media);
        let readiness = Arc::new(Readiness::new(store.clone(), media.clone(), config.media.retry_after_seconds));
        let trusted_proxies = Arc::new(
            TrustedProxies::parse(&config.http.trusted_proxies)
                .map_err(|problem| anyhow::anyhow!("http.trusted_proxies: {problem}"))?,
        );
        let attachments = Arc::new(Attachments::new(
            store.clone(),
            media.clone(),
            form_instances.clone(),
            workflow_items.clone(),
            &config.media,
        ));
        let avatars = Arc::new(Avatars::new(store.clone(), media.clone(), &config.media.shard));
        let comments = Arc::new(Comments::new(store.clone(), spaces.clone(), limits.clone(), events.clone()));
        let channels = Arc::new(Channels::new(
            store.clone(),
            comments.clone(),
            spaces.clone(),
            Duration::from_secs(config.rate_limits.reinvite_after_decline_seconds),
        ));
        let analysis = Arc::new(analysis(&config, &store, &spaces, &analysis_host, &media, &events)?);
        let assets = Arc::new(Assets::new(
            store.clone(),
            spaces.clone(),
            media.clone(),
            events.clone(),
            config.media.max_asset_bytes.min(config.media.max_file_bytes),
            std::time::Duration::from_secs(config.media.asset_upload_window_seconds),
        ));
        let live = Arc::new(crate::services::live::Live::new(
            store.clone(),
            config.live.clone(),
            accounts.clone(),
            licenses.clone(),
            workflows.clone(),
            limits.clone(),
        ));
        let exports = Arc::new(crate::services::export::Exports::new(
            store.clone(),
            form_instances.clone(),
            workflows.clone(),
            &config.export,
        ));
        let uploads =
            Arc::new(crate::services::resumable::ResumableUploads::new(store.clone(), media.clone(), &config.media));
        Ok(Self(Arc::new(Services {
            config,
            store,
            licenses,
            accounts,
            users,
            limits,
            form_configurations,
            form_instances,
            spaces,
            channels,
            comments,
            assets,
            marketplace,
            modules,
            workflows,
            workflow_items,
            media,
            attachments,
            avatars,
            messages,
            queue,
            space_events: events,
            analysis,
            readiness,
            trusted_proxies,
            live,
            exports,
            uploads,
        })))
    }
}

impl AppState {
    /// What the background jobs use.
    pub fn job_deps(&self) -> crate::jobs::JobDeps {
        crate::jobs::JobDeps {
            config: self.config.clone(),
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

impl crate::stale::Caches for AppState {
    /// Drops what another server announced stale (`jobs::stale_listener`).
    fn forget(&self, stale: &crate::stale::Stale) {
        use crate::stale::Stale;
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
    pub async fn metrics_snapshot(&self) -> crate::metrics::Snapshot {
        let jobs = match tokio::time::timeout(Duration::from_secs(2), self.store.jobs.depth()).await {
            Ok(Ok(rows)) => Some(rows.into_iter().map(|d| (d.kind, d.state, d.count)).collect()),
            Ok(Err(error)) => {
                tracing::warn!(%error, "metrics: reading the job queue failed");
                None
            }
            Err(_) => None,
        };
        crate::metrics::Snapshot {
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

/// The marketplace over the deployment's rule module, checked here so a deployment that names a
/// module it does not run, or configures it against its schema, does not start.
fn marketplace(
    config: &Config,
    store: &Store,
    spaces: &Arc<Spaces>,
    host: &trellis_modules::ModuleHost,
) -> anyhow::Result<Marketplace> {
    let settings = &config.marketplace;
    let bundled = crate::bundled::MARKETPLACE_DEFAULT;
    let named = match settings.rule_module.as_deref().map(str::trim) {
        Some("") => None,
        Some(id) => Some(id),
        None if host.summary(bundled).is_some() => Some(bundled),
        None => {
            tracing::warn!(
                "[modules] enable leaves out {bundled}: the marketplace ranks by members and registrations go to \
                 the owners; name a rule module in marketplace.rule_module, or set it to \"\" to say so"
            );
            None
        }
    };
    let rule_module = match named {
        None => None,
        Some(id) => {
            match host.summary(id) {
                Some(summary) if summary.kind == trellis_modules::ModuleKind::MarketplaceRule => {}
                Some(summary) => anyhow::bail!(
                    "marketplace.rule_module = {id:?} is a {} module, not a marketplace-rule module",
                    summary.kind
                ),
                None => anyhow::bail!(
                    "marketplace.rule_module = {id:?} is not enabled: add it to [modules] enable, or set \
                     rule_module = \"\" to rank without a module{}",
                    refused_note(host)
                ),
            }
            let rule_config = serde_json::Value::Object(settings.rule_config.clone());
            if let Err(error) = host.validate_config(id, &rule_config) {
                anyhow::bail!("marketplace.rule_config does not fit module {id}'s schema: {}", config_problems(error));
            }
            Some(id.to_owned())
        }
    };
    let ranking = Arc::new(Ranking::new(
        store.clone(),
        host.clone(),
        RankingSettings {
            rule_module,
            rule_config: serde_json::Value::Object(settings.rule_config.clone()).to_string(),
            budget: Duration::from_millis(settings.ranking_budget_ms),
            size: settings.trending_size.max(1),
        },
    ));
    let limits = RegistrationLimits {
        per_space: settings.max_pending_registrations_per_space,
        per_user: settings.max_pending_registrations_per_user,
    };
    Ok(Marketplace::new(store.clone(), spaces.clone(), host.clone(), ranking, limits))
}

/// The analysis use case over the deployment's steps, checked here like the marketplace's rule:
/// a step that is not enabled, not an analysis step, or configured against its schema stops the start.
fn analysis(
    config: &Config,
    store: &Store,
    spaces: &Arc<Spaces>,
    host: &trellis_modules::ModuleHost,
    media: &MediaObjects,
    events: &Arc<SpaceEvents>,
) -> anyhow::Result<Analysis> {
    let settings = &config.analysis;
    let bundled = crate::bundled::ANALYSIS_DEFAULT;
    let ids: Vec<String> = match &settings.steps {
        Some(ids) => ids.iter().map(|id| id.trim().to_owned()).collect(),
        None if host.summary(bundled).is_some() => vec![bundled.to_owned()],
        None => {
            tracing::warn!(
                "[modules] enable leaves out {bundled} and analysis.steps is not set: assets are analysed only by \
                 the analysis steps their spaces connect"
            );
            Vec::new()
        }
    };
    let mut steps = Vec::new();
    for id in ids {
        match host.summary(&id) {
            Some(summary) if summary.kind == trellis_modules::ModuleKind::AnalysisStep => {}
            Some(summary) => {
                anyhow::bail!("analysis.steps names {id:?}, a {} module, not an analysis-step module", summary.kind)
            }
            None => anyhow::bail!(
                "analysis.steps names {id:?}, which is not enabled: add it to [modules] enable{}",
                refused_note(host)
            ),
        }
        let step_config = serde_json::Value::Object(settings.step_config.get(&id).cloned().unwrap_or_default());
        if let Err(error) = host.validate_config(&id, &step_config) {
            anyhow::bail!("analysis.step_config.{id} does not fit the module's schema: {}", config_problems(error));
        }
        steps.push(DeploymentStep { module_id: id, config: step_config.to_string() });
    }
    if let Some(unused) = settings.step_config.keys().find(|id| !steps.iter().any(|s| &s.module_id == *id)) {
        anyhow::bail!("analysis.step_config.{unused} configures a module that analysis.steps does not name");
    }
    let models_dir = config.analysis.models_dir(config.data_dir());
    if !trellis_inference::install::installed(&models_dir) {
        tracing::warn!(
            models_dir = %models_dir.display(),
            "models not installed: analysis will fail until `trellis models install` runs"
        );
    }
    let inference =
        Arc::new(Inference::new(models_dir, settings.inference_threads, InferenceLimits::from_config(settings)));
    let scratch_dir = config.data_dir().join("scratch").join("analysis");
    // Scratch files of analyses a crash interrupted; their jobs run again and make new ones.
    let _ = std::fs::remove_dir_all(&scratch_dir);
    Ok(Analysis::new(
        store.clone(),
        spaces.clone(),
        host.clone(),
        media.clone(),
        events.clone(),
        inference,
        steps,
        scratch_dir,
    ))
}

/// The modules refused at start, for a refusal to start that may be their consequence. The
/// deployment-wide roles (the marketplace's rule, the analysis steps) still stop the start when their
/// module is missing: running on without them would silently change who decides registrations and what
/// every asset is analysed by, which an operator must choose, not discover.
fn refused_note(host: &trellis_modules::ModuleHost) -> String {
    let refused: Vec<String> = host.refused().iter().map(|r| format!("{}: {}", r.entry, r.reason)).collect();
    if refused.is_empty() { String::new() } else { format!(" (refused at start: {})", refused.join("; ")) }
}

/// A deployment configuration's problems against a module's schema, for a refusal to start.
fn config_problems(error: trellis_modules::ConfigError) -> String {
    match error {
        trellis_modules::ConfigError::Invalid(problems) => {
            problems.iter().map(|p| format!("{}: {}", p.path, p.message)).collect::<Vec<_>>().join("; ")
        }
        other => other.to_string(),
    }
}
