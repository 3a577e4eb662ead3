//! The bytes of the asset under analysis. Needs [`Permission::AssetRead`](crate::Permission).
//!
//! ```
//! use trellis_plugin_sdk::{asset, testing::TestHost};
//!
//! let host = TestHost::new();
//! host.set_asset(b"hello world".to_vec());
//! assert_eq!(asset::size(), 11);
//! assert_eq!(asset::read(6, 100), b"world");
//! ```

/// The asset's size in bytes.
pub fn size() -> u64 {
    imp::size()
}

/// Up to `length` bytes from `offset`: fewer at the end, and at most 1 MiB per call.
pub fn read(offset: u64, length: u32) -> Vec<u8> {
    imp::read(offset, length)
}

/// The largest read the host answers in one call.
pub const MAX_READ: u32 = 1 << 20;

#[cfg(target_arch = "wasm32")]
mod imp {
    use crate::wit::imports::trellis::module::asset_read as host;

    pub(super) fn size() -> u64 {
        host::size()
    }
    pub(super) fn read(offset: u64, length: u32) -> Vec<u8> {
        host::read(offset, length)
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::MAX_READ;
    use crate::testing::with_host;

    pub(super) fn size() -> u64 {
        with_host(|host| {
            host.require(crate::Permission::AssetRead, "asset::size");
            host.asset.len() as u64
        })
    }
    pub(super) fn read(offset: u64, length: u32) -> Vec<u8> {
        with_host(|host| {
            host.require(crate::Permission::AssetRead, "asset::read");
            let start = usize::try_from(offset).unwrap_or(usize::MAX).min(host.asset.len());
            let end = start.saturating_add(length.min(MAX_READ) as usize).min(host.asset.len());
            host.asset[start..end].to_vec()
        })
    }
}
