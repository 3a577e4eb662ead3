//! `trellis module check FILE [--config FILE]`: the component against this host's WIT and, when a
//! configuration is given (or `./trellis.toml` is present), against what that deployment grants it.

use std::path::Path;

use trellis_modules::{CheckReport, EnabledModule, Grant};

use crate::config::Config;

/// Adds to `report` the problems of running the component under `config`: a host import whose permission
/// the deployment's entry for this file does not grant stops the module from loading, as `serve` would
/// refuse it.
pub fn judge_grants(report: &mut CheckReport, file: &Path, config: &Config, config_name: &str) {
    let Some(manifest) = &report.manifest else { return };
    let entry = entry_for(&config.modules.runtime.enable, file);
    let granted: Vec<Grant> = entry.map(|e| e.grants.clone()).unwrap_or_default();
    let missing: Vec<&str> = report
        .imports
        .host
        .iter()
        .map(|import| import.permission)
        .filter(|permission| grant(permission).is_none_or(|g| !granted.contains(&g)))
        .collect();
    if missing.is_empty() {
        return;
    }
    let mut missing = missing;
    missing.dedup();
    let problem = match entry {
        Some(_) => format!(
            "{config_name} does not grant module {:?} the permissions it imports: {} (add them to `grants` of its \
             entry in [modules] enable)",
            manifest.id,
            missing.join(", ")
        ),
        None => format!(
            "{config_name} does not enable {}, so it would be granted nothing; it imports {}: add {{ path = {:?}, \
             grants = [{}] }} to [modules] enable",
            file.display(),
            missing.join(", "),
            file.display(),
            missing.iter().map(|m| format!("{m:?}")).collect::<Vec<_>>().join(", ")
        ),
    };
    report.problems.push(problem);
    report.fits = false;
}

/// The entry enabling this file, comparing canonical paths.
fn entry_for<'a>(enable: &'a [EnabledModule], file: &Path) -> Option<&'a EnabledModule> {
    let file = file.canonicalize().ok()?;
    enable.iter().find(|entry| entry.path.as_deref().and_then(|p| p.canonicalize().ok()).is_some_and(|p| p == file))
}

fn grant(label: &str) -> Option<Grant> {
    serde_json::from_value(serde_json::Value::String(label.to_owned())).ok()
}

/// The one-line reason `check` exits non-zero.
pub fn verdict(report: &CheckReport, file: &Path) -> String {
    // `problems` holds every reason, the import ones included (`trellis_modules::check`).
    format!("{} cannot be loaded: {}", file.display(), report.problems.join("; "))
}
