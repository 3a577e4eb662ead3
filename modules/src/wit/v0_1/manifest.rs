//! A 0.1.0 component's manifest in the host's terms: 0.1.0 lacks the inference permissions.

use crate::capabilities::Grant;
use crate::load::manifest::{Manifest, ModuleKind, Permission};
use crate::wit::v0_1::types as wit;

impl From<wit::Manifest> for Manifest {
    fn from(m: wit::Manifest) -> Self {
        Self {
            id: m.id,
            name: m.name,
            version: m.version,
            kind: match m.kind {
                wit::ModuleKind::Space => ModuleKind::Space,
                wit::ModuleKind::MarketplaceRule => ModuleKind::MarketplaceRule,
                wit::ModuleKind::AnalysisStep => ModuleKind::AnalysisStep,
            },
            description: m.description,
            config_schema: m.config_schema,
            permissions: m
                .permissions
                .into_iter()
                .map(|p| match p {
                    wit::Permission::KeyValue => Permission::Plain(Grant::KeyValue),
                    wit::Permission::Logging => Permission::Plain(Grant::Logging),
                    wit::Permission::ItemRead => Permission::Plain(Grant::ItemRead),
                    wit::Permission::AssetRead => Permission::Plain(Grant::AssetRead),
                    wit::Permission::OutboundHttp(hosts) => Permission::OutboundHttp(hosts),
                })
                .collect(),
        }
    }
}
