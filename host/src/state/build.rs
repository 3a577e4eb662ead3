//! Building the services: each family of them, and the modules that deployment-wide roles need,
//! checked before the server starts.

use std::sync::Arc;
use std::time::Duration;

use crate::config::Config;
use crate::infra::mail::Mailer;
use crate::infra::media::objects::MediaObjects;
use crate::infra::password_work::PasswordWork;
use crate::infra::rate_limits::RateLimits;
use crate::services::accounts::Accounts;
use crate::services::analysis::inference::{Inference, InferenceLimits};
use crate::services::analysis::{Analysis, DeploymentStep};
use crate::services::assets::Assets;
use crate::services::attachments::Attachments;
use crate::services::avatars::Avatars;
use crate::services::form_configurations::FormConfigurations;
use crate::services::form_instances::FormInstances;
use crate::services::instance_access::InstanceAccess;
use crate::services::marketplace::Marketplace;
use crate::services::marketplace::ranking::{Ranking, RankingSettings};
use crate::services::marketplace::registrations::RegistrationLimits;
use crate::services::space_events::SpaceEvents;
use crate::services::spaces::Spaces;
use crate::services::workflow_configurations::WorkflowConfigurations;
use crate::services::workflow_items::WorkflowItems;
use crate::store::KvQuota;
use crate::store::Store;

/// The form instances and what reads or carries them: items, the read policy, attachments, export.
pub(super) struct FormFamily {
    pub(super) instances: Arc<FormInstances>,
    pub(super) items: Arc<WorkflowItems>,
    pub(super) access: Arc<InstanceAccess>,
    pub(super) attachments: Arc<Attachments>,
    pub(super) exports: Arc<crate::services::export::Exports>,
}

impl FormFamily {
    pub(super) fn new(
        config: &Config,
        store: &Store,
        form_configurations: &Arc<FormConfigurations>,
        workflows: &Arc<WorkflowConfigurations>,
        spaces: &Arc<Spaces>,
        events: &Arc<SpaceEvents>,
        media: &MediaObjects,
    ) -> Self {
        let instances = Arc::new(FormInstances::new(
            store.clone(),
            form_configurations.clone(),
            workflows.clone(),
            spaces.clone(),
            events.clone(),
        ));
        let items = Arc::new(WorkflowItems::new(store.clone(), workflows.clone(), instances.clone()));
        let access = Arc::new(InstanceAccess::new(store.clone(), instances.clone(), workflows.clone()));
        let attachments = Arc::new(Attachments::new(
            store.clone(),
            media.clone(),
            instances.clone(),
            items.clone(),
            access.clone(),
            &config.media,
        ));
        let exports = Arc::new(crate::services::export::Exports::new(
            store.clone(),
            instances.clone(),
            workflows.clone(),
            access.clone(),
            &config.export,
        ));
        Self { instances, items, access, attachments, exports }
    }
}

/// Media other than form attachments: avatars, published assets, resumable uploads.
pub(super) struct FileFamily {
    pub(super) avatars: Arc<Avatars>,
    pub(super) assets: Arc<Assets>,
    pub(super) uploads: Arc<crate::services::resumable::ResumableUploads>,
}

impl FileFamily {
    pub(super) fn new(
        config: &Config,
        store: &Store,
        spaces: &Arc<Spaces>,
        events: &Arc<SpaceEvents>,
        media: &MediaObjects,
    ) -> Self {
        let avatars = Arc::new(Avatars::new(store.clone(), media.clone(), &config.media.shard));
        let assets = Arc::new(Assets::new(
            store.clone(),
            spaces.clone(),
            media.clone(),
            events.clone(),
            config.media.max_asset_bytes.min(config.media.max_file_bytes),
            Duration::from_secs(config.media.asset_upload_window_seconds),
        ));
        let uploads =
            Arc::new(crate::services::resumable::ResumableUploads::new(store.clone(), media.clone(), &config.media));
        Self { avatars, assets, uploads }
    }
}

/// The form and workflow configurations, each kind parsed once per revision and cached.
pub(super) fn configurations(config: &Config, store: &Store) -> (Arc<FormConfigurations>, Arc<WorkflowConfigurations>) {
    let ttl = Duration::from_secs(config.configuration_cache_seconds);
    let forms = Arc::new(FormConfigurations::new(store.clone(), ttl));
    let workflows = Arc::new(WorkflowConfigurations::new(store.clone(), forms.clone(), ttl));
    (forms, workflows)
}

/// Accounts, sessions and passwords: refuses a password cost argon2 refuses, and warns of one below
/// OWASP's minimum.
pub(super) fn accounts(config: &Config, store: &Store, limits: &Arc<RateLimits>) -> anyhow::Result<Accounts> {
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
    let mailer = Arc::new(Mailer::from_config(config)?);
    Ok(Accounts::new(
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
    ))
}

/// The module host over the bundled modules and the configured ones, its key-value store bounded per space.
pub(super) fn module_host(config: &Config, store: &Store) -> anyhow::Result<trellis_modules::ModuleHost> {
    trellis_modules::ModuleHost::new(
        config.modules.runtime_for(config.data_dir()),
        &crate::bundled::modules(),
        Arc::new(store.module_kv.with_quota(KvQuota {
            max_keys: i64::try_from(config.modules.runtime.kv_max_keys_per_space).unwrap_or(i64::MAX),
            max_bytes: i64::try_from(config.modules.runtime.kv_max_bytes_per_space).unwrap_or(i64::MAX),
        })),
    )
}

/// The marketplace over the deployment's rule module, checked here so a deployment that names a
/// module it does not run, or configures it against its schema, does not start.
pub(super) fn marketplace(
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
pub(super) fn analysis(
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
