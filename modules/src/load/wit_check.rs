//! How a component relates to this host's WIT: the world it implements (read from its exports) and what its
//! imports need (WASI, host interfaces behind permissions, or something this host does not provide).

use serde::Serialize;
use wasmtime::Engine;
use wasmtime::component::Component;

use crate::capabilities::Grant;
use crate::load::manifest::{Manifest, ModuleKind};
use crate::wit::{WitVersion, v0_3};

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

impl WitVersion {
    /// Whether a component of `kind` targeting this version may import `grant`'s interface at version
    /// `imported`. Besides its own version: a 0.2.0 analysis step may take the interfaces 0.2.0 carried over
    /// unchanged (logging, asset-read, outbound-http) at 0.1.x, since SDK builds before 0.2.0 imported them
    /// so; space modules and marketplace rules at 0.2.0 came with SDK 0.2.0, which imports only 0.2.0.
    fn accepts(self, kind: ModuleKind, imported: WitVersion, grant: Grant) -> bool {
        imported == self
            || (self == Self::V0_2
                && imported == Self::V0_1
                && kind == ModuleKind::AnalysisStep
                && grant.capability().carried_over)
    }
}

/// `iface` of `trellis:module/iface@version`, with the version it is compatible with.
fn trellis_interface(name: &str) -> Option<(&str, WitVersion)> {
    let (base, version) = split_version(name);
    Some((base.strip_prefix("trellis:module/")?, WitVersion::of(&version)?))
}

/// The world a component implements and the WIT version it targets, from the hooks interface it exports.
pub(crate) fn world_of(engine: &Engine, component: &Component) -> Result<(ModuleKind, WitVersion), String> {
    let exports: Vec<String> = component.component_type().exports(engine).map(|(name, _)| name.to_owned()).collect();
    let exported: Vec<(&str, WitVersion)> = exports.iter().filter_map(|name| trellis_interface(name)).collect();
    let worlds: Vec<(ModuleKind, WitVersion)> = exported
        .iter()
        .filter_map(|(iface, version)| {
            let kind = match *iface {
                "space-hooks" => ModuleKind::Space,
                "marketplace-hooks" => ModuleKind::MarketplaceRule,
                "analysis-hooks" => ModuleKind::AnalysisStep,
                _ => return None,
            };
            Some((kind, *version))
        })
        .collect();
    let (kind, version) = match worlds.as_slice() {
        [world] => *world,
        [] => {
            return Err(format!(
                "component exports none of {}, {}, {} (nor their 0.1.0 or 0.2.0 versions) (exports: {})",
                v0_3::names::SPACE_HOOKS,
                v0_3::names::MARKETPLACE_HOOKS,
                v0_3::names::ANALYSIS_HOOKS,
                exports.join(", ")
            ));
        }
        _ => return Err("component exports the hooks of more than one world".to_owned()),
    };
    if !exported.contains(&("module-info", version)) {
        let info = version.module_info();
        return Err(format!("component does not export {info} (exports: {})", exports.join(", ")));
    }
    Ok((kind, version))
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
    pub(crate) fn of(engine: &Engine, component: &Component, kind: ModuleKind, version: WitVersion) -> Self {
        let mut report = Self::default();
        let importable = Grant::importable(kind, version);
        for (name, _) in component.component_type().imports(engine) {
            report.all.push(name.to_owned());
            if let Some((interface, imported)) = trellis_interface(name) {
                let grant =
                    Grant::of_interface(interface, imported).filter(|grant| version.accepts(kind, imported, *grant));
                match grant {
                    Some(grant) if importable.contains(&grant) => {
                        report.host.push(HostImport { interface: name.to_owned(), permission: grant.label() });
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
        self.host.iter().filter_map(|host| {
            let (interface, version) = trellis_interface(&host.interface)?;
            Some((host.interface.as_str(), Grant::of_interface(interface, version)?))
        })
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
            self.grants().filter(|(_, grant)| !granted.contains(grant)).map(|(_, g)| g.label()).collect();
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
    fn trellis_interfaces_match_any_patch_of_a_supported_version() {
        assert_eq!(trellis_interface("trellis:module/key-value@0.1.0"), Some(("key-value", WitVersion::V0_1)));
        assert_eq!(trellis_interface("trellis:module/key-value@0.1.7"), Some(("key-value", WitVersion::V0_1)));
        assert_eq!(trellis_interface("trellis:module/media@0.2.1"), Some(("media", WitVersion::V0_2)));
        assert_eq!(trellis_interface("trellis:module/vision@0.3.2"), Some(("vision", WitVersion::V0_3)));
        assert_eq!(trellis_interface("trellis:module/key-value@0.4.0"), None);
        assert_eq!(trellis_interface("other:module/key-value@0.1.0"), None);
    }

    #[test]
    fn only_a_0_2_step_may_import_the_unchanged_interfaces_at_0_1() {
        let step = ModuleKind::AnalysisStep;
        assert!(WitVersion::V0_2.accepts(step, WitVersion::V0_1, Grant::Logging));
        assert!(WitVersion::V0_2.accepts(step, WitVersion::V0_2, Grant::Logging));
        assert!(!WitVersion::V0_1.accepts(step, WitVersion::V0_2, Grant::Logging));
        assert!(!WitVersion::V0_2.accepts(step, WitVersion::V0_1, Grant::KeyValue));
        assert!(!WitVersion::V0_2.accepts(ModuleKind::Space, WitVersion::V0_1, Grant::Logging));
        assert!(WitVersion::V0_1.accepts(ModuleKind::Space, WitVersion::V0_1, Grant::KeyValue));
        assert!(WitVersion::V0_2.accepts(ModuleKind::Space, WitVersion::V0_2, Grant::KeyValue));
        assert!(!WitVersion::V0_3.accepts(step, WitVersion::V0_1, Grant::Logging));
        assert!(!WitVersion::V0_3.accepts(step, WitVersion::V0_2, Grant::Vision));
        assert!(WitVersion::V0_3.accepts(step, WitVersion::V0_3, Grant::Vision));
    }
}
