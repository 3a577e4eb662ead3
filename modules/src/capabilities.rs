//! The host capabilities a module may be granted, one file per capability, each holding all the host knows
//! about it: its [`Capability`] descriptor (permission name, WIT interface, the worlds and versions that have
//! it, its linker set-up) beside its import, written once against the newest WIT (older versions are adapted
//! in `wit/`), which checks the grant again. `inference.rs` holds what `media`, `vision` and `speech` share.
//!
//! Adding a capability: a file here with its `CAPABILITY` and its import, and one line in the registry
//! below (which also makes its [`Grant`]); its interface and its manifest permission come with the WIT version
//! that adds them (`wit/`).
//!
//! Each import is linked only when granted, and checks the grant again here, so a linking mistake cannot
//! widen what a module reaches. A failure of the host itself (database error, time out) ends the invocation
//! with a trap and a note in the store saying it was the host's fault.

pub(crate) mod inference;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::error::Elapsed;
use wasmtime::component::{HasSelf, Linker};

use crate::invoke::state::{HostVerdict, StoreState};
use crate::load::manifest::ModuleKind;
use crate::wit::WitVersion;

/// Everything the host knows about one capability, kept beside its import.
pub(crate) struct Capability {
    /// The permission's name in manifests, in `grants` and in the catalogue (`key-value`).
    pub name: &'static str,
    /// The WIT interface behind it: `trellis:module/<interface>`.
    pub interface: &'static str,
    /// The first WIT version that has the interface.
    pub since: WitVersion,
    /// The module kinds whose world may import it.
    pub kinds: &'static [ModuleKind],
    /// Whether a 0.2.0 analysis step may import it at 0.1.x too: the interface came over unchanged, and
    /// SDK builds before 0.2.0 imported it so (see `WitVersion::accepts`).
    pub carried_over: bool,
    /// Adds its import to a linker under the names of `version` (only versions since `since`).
    pub link: fn(&mut Linker<StoreState>, WitVersion) -> anyhow::Result<()>,
}

/// How every import reaches the store's data, for `add_to_linker`.
pub(crate) type Data = HasSelf<StoreState>;

/// The data every import is implemented on.
pub(crate) fn data(state: &mut StoreState) -> &mut StoreState {
    state
}

/// Declares each capability's module and its [`Grant`], in catalogue order.
macro_rules! registry {
    ($($(#[$doc:meta])* $grant:ident => $module:ident,)*) => {
        $(pub(crate) mod $module;)*

        /// A permission the deployment grants a file module.
        #[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[serde(rename_all = "kebab-case")]
        pub enum Grant {
            $($(#[$doc])* $grant,)*
        }

        impl Grant {
            /// Every capability, in registry order.
            pub(crate) const ALL: &[Grant] = &[$(Grant::$grant,)*];

            /// The capability's descriptor.
            pub(crate) fn capability(self) -> &'static Capability {
                match self {
                    $(Grant::$grant => &$module::CAPABILITY,)*
                }
            }
        }
    };
}

registry! {
    /// The key-value store scoped to (space, module).
    KeyValue => key_value,
    /// Logging through the host.
    Logging => logging,
    /// The item that triggered the invocation.
    ItemRead => item_read,
    /// The bytes of the asset under analysis.
    AssetRead => asset_read,
    /// Outbound HTTP to the hosts in `allow_hosts`.
    OutboundHttp => outbound_http,
    /// Decode the asset under analysis (WIT 0.2.0 `media`).
    MediaDecode => media,
    /// Labels, faces and facts of decoded frames (WIT 0.2.0 `vision`).
    Vision => vision,
    /// Transcription of the asset's speech (WIT 0.2.0 `speech`).
    Speech => speech,
}

impl Grant {
    /// The permission's name: `key-value`, `outbound-http`, ...
    pub(crate) fn label(self) -> &'static str {
        self.capability().name
    }

    /// The capability behind `trellis:module/<interface>` at `version`, if that version has it.
    pub(crate) fn of_interface(interface: &str, version: WitVersion) -> Option<Grant> {
        Self::ALL.iter().copied().find(|grant| {
            let capability = grant.capability();
            capability.interface == interface && capability.since <= version
        })
    }

    /// The capabilities the world of `kind` has at `version`.
    pub(crate) fn importable(kind: ModuleKind, version: WitVersion) -> Vec<Grant> {
        let has = |grant: &Grant| {
            let capability = grant.capability();
            capability.kinds.contains(&kind) && capability.since <= version
        };
        Self::ALL.iter().copied().filter(has).collect()
    }
}

impl StoreState {
    /// Traps (a host bug: the import is linked only when granted) unless the module holds `grant`.
    pub(crate) fn require(&mut self, grant: Grant) -> wasmtime::Result<()> {
        if self.caps.has(grant) {
            return Ok(());
        }
        let name = grant.label();
        Err(self.fail(HostVerdict::Host(format!("{name} called without the {name} grant"))))
    }

    /// Turns the outcome of a bounded host call into the import's result.
    pub(crate) fn settle<T>(&mut self, outcome: Result<anyhow::Result<T>, Elapsed>) -> wasmtime::Result<T> {
        match outcome {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(err)) => Err(self.fail(HostVerdict::Host(format!("{err:#}")))),
            Err(_) => Err(self.fail(HostVerdict::WallClock)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_grant_is_named_as_its_capability() {
        for grant in Grant::ALL {
            assert_eq!(serde_json::to_value(grant).unwrap(), grant.label(), "{grant:?}");
        }
    }

    #[test]
    fn interfaces_are_found_only_from_their_first_version() {
        assert_eq!(Grant::of_interface("key-value", WitVersion::V0_1), Some(Grant::KeyValue));
        assert_eq!(Grant::of_interface("media", WitVersion::V0_2), Some(Grant::MediaDecode));
        assert_eq!(Grant::of_interface("vision", WitVersion::V0_1), None);
        assert_eq!(Grant::of_interface("types", WitVersion::V0_2), None);
    }

    #[test]
    fn each_world_imports_what_it_did() {
        use Grant::*;
        let at = |kind, version| Grant::importable(kind, version);
        assert_eq!(at(ModuleKind::Space, WitVersion::V0_2), [KeyValue, Logging, ItemRead, OutboundHttp]);
        assert_eq!(at(ModuleKind::MarketplaceRule, WitVersion::V0_2), [KeyValue, Logging]);
        assert_eq!(at(ModuleKind::AnalysisStep, WitVersion::V0_1), [Logging, AssetRead, OutboundHttp]);
        assert_eq!(
            at(ModuleKind::AnalysisStep, WitVersion::V0_2),
            [Logging, AssetRead, OutboundHttp, MediaDecode, Vision, Speech]
        );
    }
}
