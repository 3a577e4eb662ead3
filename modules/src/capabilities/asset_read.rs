//! The `asset-read` import: the bytes of the asset under analysis, read in bounded pieces.

use std::sync::Arc;
use std::time::Duration;

use wasmtime::component::Linker;

use crate::analysis::{AssetSource, MAX_ASSET_READ_BYTES};
use crate::capabilities::{Capability, Data, Grant, data};
use crate::invoke::state::{HostVerdict, StoreState};
use crate::load::manifest::ModuleKind;
use crate::wit::latest::asset_read;
use crate::wit::{WitVersion, v0_1, v0_2, v0_3};

/// The `asset-read` permission.
pub(crate) const CAPABILITY: Capability = Capability {
    name: "asset-read",
    interface: "asset-read",
    since: WitVersion::V0_1,
    kinds: &[ModuleKind::AnalysisStep],
    carried_over: true,
    link,
};

fn link(linker: &mut Linker<StoreState>, version: WitVersion) -> anyhow::Result<()> {
    match version {
        WitVersion::V0_1 => v0_1::asset_read::add_to_linker::<_, Data>(linker, data)?,
        // Under both names: a 0.2.0 analysis step from an older SDK imports it at 0.1.x (see
        // `WitVersion::accepts`); the check refuses such imports for the other kinds.
        WitVersion::V0_2 => {
            v0_2::asset_read::add_to_linker::<_, Data>(linker, data)?;
            v0_1::asset_read::add_to_linker::<_, Data>(linker, data)?;
        }
        WitVersion::V0_3 => v0_3::asset_read::add_to_linker::<_, Data>(linker, data)?,
    }
    Ok(())
}

impl StoreState {
    fn asset(&mut self) -> wasmtime::Result<(Arc<dyn AssetSource>, Duration)> {
        let left = self.remaining()?;
        match (self.caps.has(Grant::AssetRead), self.asset.clone()) {
            (true, Some(asset)) => Ok((asset, left)),
            _ => Err(self.fail(HostVerdict::Host("asset-read called without a grant or an asset".into()))),
        }
    }
}

impl asset_read::Host for StoreState {
    async fn size(&mut self) -> wasmtime::Result<u64> {
        let (asset, left) = self.asset()?;
        let outcome = tokio::time::timeout(left, asset.size()).await;
        self.settle(outcome)
    }

    async fn read(&mut self, offset: u64, length: u32) -> wasmtime::Result<Vec<u8>> {
        let (asset, left) = self.asset()?;
        let length = length.min(MAX_ASSET_READ_BYTES);
        let outcome = tokio::time::timeout(left, asset.read(offset, length)).await;
        let mut bytes = self.settle(outcome)?;
        bytes.truncate(length as usize);
        Ok(bytes)
    }
}
