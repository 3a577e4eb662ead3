//! How a component relates to this host's WIT: the world it implements (read from its exports) and what its
//! imports need (WASI, host interfaces behind permissions, or something this host does not provide).

use serde::Serialize;
use wasmtime::Engine;
use wasmtime::component::Component;

use crate::bindings::names;
use crate::config::Grant;
use crate::load::manifest::{Manifest, ModuleKind, grant_label};

/// WASI p2 interfaces the host links (with no authority behind them). Any 0.2.x version is accepted.
const WASI_P2: &[&str] = &[
    "wasi:cli/environment",
    "wasi:cli/exit",
    "wasi:cli/stdin",
    "wasi:cli/stdout",
    "wasi:cli/stderr",
    "wasi:cli/terminal-input",
    "wasi:cli/terminal-output",
    "wasi:cli/terminal-stdin",
    "wasi:cli/terminal-stdout",
    "wasi:cli/terminal-stderr",
    "wasi:clocks/monotonic-clock",
    "wasi:clocks/wall-clock",
    "wasi:filesystem/types",
    "wasi:filesystem/preopens",
    "wasi:io/error",
    "wasi:io/poll",
    "wasi:io/streams",
    "wasi:random/insecure-seed",
    "wasi:random/insecure",
    "wasi:random/random",
    "wasi:sockets/network",
    "wasi:sockets/instance-network",
    "wasi:sockets/ip-name-lookup",
    "wasi:sockets/tcp",
    "wasi:sockets/tcp-create-socket",
    "wasi:sockets/udp",
    "wasi:sockets/udp-create-socket",
];

/// Splits `ns:pkg/iface@1.2.3` into the name and its version.
fn split_version(name: &str) -> (&str, Option<semver::Version>) {
    match name.split_once('@') {
        Some((base, version)) => (base, semver::Version::parse(version).ok()),
        None => (name, None),
    }
}

/// Whether `version` is compatible with this host's package version (0.1.x).
fn ours(version: &Option<semver::Version>) -> bool {
    version.as_ref().is_some_and(|v| v.major == 0 && v.minor == 1)
}

fn trellis_interface(name: &str) -> Option<&str> {
    let (base, version) = split_version(name);
    base.strip_prefix("trellis:module/").filter(|_| ours(&version))
}

fn grant_of(interface: &str) -> Option<Grant> {
    Some(match interface {
        "key-value" => Grant::KeyValue,
        "logging" => Grant::Logging,
        "item-read" => Grant::ItemRead,
        "asset-read" => Grant::AssetRead,
        "outbound-http" => Grant::OutboundHttp,
        _ => return None,
    })
}

/// The world a component implements, from the hooks interface it exports.
pub(crate) fn world_of(engine: &Engine, component: &Component) -> Result<ModuleKind, String> {
    let exports: Vec<String> = component.component_type().exports(engine).map(|(name, _)| name.to_owned()).collect();
    let exported = |iface: &str| exports.iter().any(|name| trellis_interface(name) == Some(iface));
    let kinds: Vec<ModuleKind> = [
        ("space-hooks", ModuleKind::Space),
        ("marketplace-hooks", ModuleKind::MarketplaceRule),
        ("analysis-hooks", ModuleKind::AnalysisStep),
    ]
    .into_iter()
    .filter(|(iface, _)| exported(iface))
    .map(|(_, kind)| kind)
    .collect();
    if !exported("module-info") {
        return Err(format!("component does not export {} (exports: {})", names::MODULE_INFO, exports.join(", ")));
    }
    match kinds.as_slice() {
        [kind] => Ok(*kind),
        [] => Err(format!(
            "component exports none of {}, {} or {} (exports: {})",
            names::SPACE_HOOKS,
            names::MARKETPLACE_HOOKS,
            names::ANALYSIS_HOOKS,
            exports.join(", ")
        )),
        _ => Err("component exports the hooks of more than one world".to_owned()),
    }
}

/// An imported host interface and the permission it needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HostImport {
    /// The interface, as named in the component (`trellis:module/key-value@0.1.0`).
    pub interface: String,
    /// The permission behind it (`key-value`).
    pub permission: &'static str,
}

/// A component's imports, sorted by what the host makes of them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportReport {
    /// Every import, as named in the component.
    pub all: Vec<String>,
    /// Host interfaces behind a permission.
    pub host: Vec<HostImport>,
    /// Imports this host does not provide to a module of this world.
    pub unsupported: Vec<String>,
}

impl ImportReport {
    pub(crate) fn of(engine: &Engine, component: &Component, kind: ModuleKind) -> Self {
        let mut report = Self::default();
        for (name, _) in component.component_type().imports(engine) {
            report.all.push(name.to_owned());
            if let Some(interface) = trellis_interface(name) {
                match grant_of(interface) {
                    Some(grant) if kind.importable().contains(&grant) => {
                        report.host.push(HostImport { interface: name.to_owned(), permission: grant_label(grant) });
                    }
                    None if interface == "types" => {}
                    _ => report.unsupported.push(name.to_owned()),
                }
                continue;
            }
            let (base, version) = split_version(name);
            let wasi_p2 = version.is_some_and(|v| v.major == 0 && v.minor == 2);
            if !(wasi_p2 && WASI_P2.contains(&base)) {
                report.unsupported.push(name.to_owned());
            }
        }
        report
    }

    fn grants(&self) -> impl Iterator<Item = (&str, Grant)> {
        self.host
            .iter()
            .filter_map(|host| Some((host.interface.as_str(), grant_of(trellis_interface(&host.interface)?)?)))
    }

    /// Host interfaces imported without the manifest asking for their permission.
    pub fn undeclared(&self, manifest: &Manifest) -> Vec<String> {
        let asked = manifest.asked();
        self.grants().filter(|(_, grant)| !asked.contains(grant)).map(|(name, _)| name.to_owned()).collect()
    }

    /// Refuses a module that imports what the host will not link for it. Loading fails rather than linking a
    /// stub: a module that needs an import it was not granted would fail on every call, so the deployer is
    /// better told at start-up, with the fix.
    pub(crate) fn ensure_allowed(&self, manifest: &Manifest, granted: &[Grant]) -> anyhow::Result<()> {
        let kind = manifest.kind;
        anyhow::ensure!(
            self.unsupported.is_empty(),
            "module {:?} imports what this host does not provide to a {kind} module: {}",
            manifest.id,
            self.unsupported.join(", ")
        );
        let undeclared = self.undeclared(manifest);
        anyhow::ensure!(
            undeclared.is_empty(),
            "module {:?} imports {} without asking for the permission in its manifest",
            manifest.id,
            undeclared.join(", ")
        );
        let missing: Vec<&str> =
            self.grants().filter(|(_, grant)| !granted.contains(grant)).map(|(_, g)| grant_label(g)).collect();
        anyhow::ensure!(
            missing.is_empty(),
            "module {:?} needs permissions the deployment did not grant: {} (add them to `grants` of its entry \
             in [modules] enable, or disable the module)",
            manifest.id,
            missing.join(", ")
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trellis_interfaces_match_any_0_1_version() {
        assert_eq!(trellis_interface("trellis:module/key-value@0.1.0"), Some("key-value"));
        assert_eq!(trellis_interface("trellis:module/key-value@0.1.7"), Some("key-value"));
        assert_eq!(trellis_interface("trellis:module/key-value@0.2.0"), None);
        assert_eq!(trellis_interface("other:module/key-value@0.1.0"), None);
    }
}
