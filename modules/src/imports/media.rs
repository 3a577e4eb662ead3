//! The `media` import (WIT 0.2.0, permission `media-decode`): what the asset is, and its frames. Frames stay
//! in the host; a step names them by number.

use crate::analysis::{MAX_FRAMES, MediaInfo, MediaKind};
use crate::bindings::latest::media;
use crate::invoke::state::StoreState;

impl media::Host for StoreState {
    async fn probe(&mut self) -> wasmtime::Result<Result<media::MediaInfo, String>> {
        let answer = self.capability("media.probe", |a| a.media_decode, |m| async move { m.probe().await }).await?;
        Ok(answer.map(info))
    }

    async fn frames(&mut self, count: u32) -> wasmtime::Result<Result<u32, String>> {
        let count = count.min(MAX_FRAMES);
        let answer =
            self.capability("media.frames", |a| a.media_decode, |m| async move { m.frames(count).await }).await?;
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
