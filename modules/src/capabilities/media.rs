//! The `media` import (WIT 0.2.0, permission `media-decode`): what the asset is, and its frames. Frames stay
//! in the host; a step names them by number.

use wasmtime::component::Linker;

use crate::analysis::{MAX_FRAMES, MediaInfo, MediaKind};
use crate::capabilities::{Capability, Data, Grant, data};
use crate::invoke::state::StoreState;
use crate::load::manifest::ModuleKind;
use crate::wit::latest::media;
use crate::wit::{WitVersion, v0_2, v0_3};

/// The `media-decode` permission.
pub(crate) const CAPABILITY: Capability = Capability {
    name: "media-decode",
    interface: "media",
    since: WitVersion::V0_2,
    kinds: &[ModuleKind::AnalysisStep],
    carried_over: false,
    link,
};

fn link(linker: &mut Linker<StoreState>, version: WitVersion) -> anyhow::Result<()> {
    match version {
        WitVersion::V0_1 => anyhow::bail!("WIT {version} has no media import"),
        WitVersion::V0_2 => v0_2::media::add_to_linker::<_, Data>(linker, data)?,
        WitVersion::V0_3 => v0_3::media::add_to_linker::<_, Data>(linker, data)?,
    }
    Ok(())
}

impl media::Host for StoreState {
    async fn probe(&mut self) -> wasmtime::Result<Result<media::MediaInfo, String>> {
        let answer = self.capability("media.probe", Grant::MediaDecode, |m| async move { m.probe().await }).await?;
        Ok(answer.map(info))
    }

    async fn frames(&mut self, count: u32) -> wasmtime::Result<Result<u32, String>> {
        let count = count.min(MAX_FRAMES);
        let answer =
            self.capability("media.frames", Grant::MediaDecode, |m| async move { m.frames(count).await }).await?;
        Ok(answer.map(|frames| frames.min(count)))
    }
}

fn info(info: MediaInfo) -> media::MediaInfo {
    media::MediaInfo {
        kind: match info.kind {
            MediaKind::Image => media::MediaKind::Image,
            MediaKind::Audio => media::MediaKind::Audio,
            MediaKind::Video => media::MediaKind::Video,
            MediaKind::Other => media::MediaKind::Other,
        },
        width: info.width,
        height: info.height,
        duration_ms: info.duration_ms,
        has_sound: info.has_sound,
    }
}
