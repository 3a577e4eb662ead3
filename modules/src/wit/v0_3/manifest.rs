//! A 0.3.0 component's manifest in the host's terms.

use crate::capabilities::Grant;
use crate::load::manifest::{Manifest, ModuleKind, Permission};
use crate::wit::v0_3::types as wit;

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
                    wit::Permission::MediaDecode => Permission::Plain(Grant::MediaDecode),
                    wit::Permission::Vision => Permission::Plain(Grant::Vision),
                    wit::Permission::Speech => Permission::Plain(Grant::Speech),
                })
                .collect(),
        }
    }
}
