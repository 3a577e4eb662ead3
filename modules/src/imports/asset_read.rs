//! The `asset-read` import: the bytes of the asset under analysis, read in bounded pieces.

use std::sync::Arc;
use std::time::Duration;

use crate::analysis::{AssetSource, MAX_ASSET_READ_BYTES};
use crate::bindings::latest::asset_read;
use crate::invoke::state::{HostVerdict, StoreState};

impl StoreState {
    fn asset(&mut self) -> wasmtime::Result<(Arc<dyn AssetSource>, Duration)> {
        let left = self.remaining()?;
        match (self.caps.asset_read, self.asset.clone()) {
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
