//! What the asset under analysis is, and its decoded frames. Needs
//! [`Permission::MediaDecode`](crate::Permission) (an analysis step's, WIT 0.2.0).
//!
//! Decoded pictures stay in the host: [`frames`] decodes some and answers how many, and
//! [`vision`](crate::vision) then names a frame by its number, `0..n`.
//!
//! ```
//! use trellis_plugin_sdk::media::{self, MediaInfo, MediaKind};
//! use trellis_plugin_sdk::testing::TestHost;
//!
//! let host = TestHost::new();
//! host.set_probe(Ok(MediaInfo { kind: MediaKind::Video, width: 640, height: 360, duration_ms: 12_000, has_sound: true }));
//! host.set_frames(Ok(10));
//! assert_eq!(media::probe()?.kind, MediaKind::Video);
//! assert_eq!(media::frames(4)?, 4);
//! assert_eq!(media::frames(100)?, 10, "no more than the asset has (and at most 16)");
//! # Ok::<(), trellis_plugin_sdk::CapabilityError>(())
//! ```

use crate::CapabilityError;
/// What media answers: the types the host defines them with (`trellis-analysis-types`).
pub use trellis_analysis_types::{MAX_FRAMES, MediaInfo, MediaKind};

/// What the asset is; fails when its bytes cannot be read as media.
pub fn probe() -> Result<MediaInfo, CapabilityError> {
    imp::probe().map_err(CapabilityError)
}

/// Decodes up to `count` frames (at most [`MAX_FRAMES`]) spread evenly over the asset, and answers how
/// many there are: frame numbers are then `0..n`. An image has one.
pub fn frames(count: u32) -> Result<u32, CapabilityError> {
    imp::frames(count).map_err(CapabilityError)
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::{MediaInfo, MediaKind};
    use crate::wit::imports::trellis::module::media as host;

    pub(super) fn probe() -> Result<MediaInfo, String> {
        host::probe().map(|info| MediaInfo {
            kind: match info.kind {
                host::MediaKind::Image => MediaKind::Image,
                host::MediaKind::Audio => MediaKind::Audio,
                host::MediaKind::Video => MediaKind::Video,
                host::MediaKind::Other => MediaKind::Other,
            },
            width: info.width,
            height: info.height,
            duration_ms: info.duration_ms,
            has_sound: info.has_sound,
        })
    }

    pub(super) fn frames(count: u32) -> Result<u32, String> {
        host::frames(count)
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::MediaInfo;
    use crate::testing::with_host;

    pub(super) fn probe() -> Result<MediaInfo, String> {
        with_host(|host| host.inference.probe())
    }

    pub(super) fn frames(count: u32) -> Result<u32, String> {
        with_host(|host| host.inference.frames(count))
    }
}
