//! The `speech` import (WIT 0.2.0, permission `speech`): an English transcript of the asset's sound, cut
//! to at most `MAX_SEGMENTS` segments and `MAX_TRANSCRIPT_BYTES` of text.

use wasmtime::component::Linker;

use crate::analysis::{MAX_MODEL_BYTES, MAX_SEGMENTS, MAX_TRANSCRIPT_BYTES, Transcript};
use crate::capabilities::Grant;
use crate::capabilities::inference::clip;
use crate::capabilities::{Capability, Data, data};
use crate::invoke::state::StoreState;
use crate::load::manifest::ModuleKind;
use crate::wit::latest::speech;
use crate::wit::{WitVersion, v0_2, v0_3};

/// The `speech` permission.
pub(crate) const CAPABILITY: Capability = Capability {
    name: "speech",
    interface: "speech",
    since: WitVersion::V0_2,
    kinds: &[ModuleKind::AnalysisStep],
    carried_over: false,
    link,
};

fn link(linker: &mut Linker<StoreState>, version: WitVersion) -> anyhow::Result<()> {
    match version {
        WitVersion::V0_1 => anyhow::bail!("WIT {version} has no speech import"),
        WitVersion::V0_2 => v0_2::speech::add_to_linker::<_, Data>(linker, data)?,
        WitVersion::V0_3 => v0_3::speech::add_to_linker::<_, Data>(linker, data)?,
    }
    Ok(())
}

impl speech::Host for StoreState {
    async fn transcribe(&mut self) -> wasmtime::Result<Result<speech::Transcript, String>> {
        let answer =
            self.capability("speech.transcribe", Grant::Speech, |m| async move { m.transcribe().await }).await?;
        Ok(answer.map(bounded))
    }
}

fn bounded(found: Transcript) -> speech::Transcript {
    let mut left = MAX_TRANSCRIPT_BYTES;
    let mut segments = Vec::new();
    for segment in found.segments.into_iter().take(MAX_SEGMENTS) {
        if left == 0 {
            break;
        }
        let text = clip(segment.text, left);
        left -= text.len();
        segments.push(speech::Segment { start_ms: segment.start_ms, end_ms: segment.end_ms, text });
    }
    speech::Transcript { segments, model: clip(found.model, MAX_MODEL_BYTES) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Segment;

    fn transcript(segments: usize, text: &str) -> Transcript {
        let segment = Segment { start_ms: 0, end_ms: 1, text: text.into() };
        Transcript { segments: vec![segment; segments], model: "whisper tiny.en".into() }
    }

    #[test]
    fn many_segments_are_cut_to_the_cap() {
        assert_eq!(bounded(transcript(MAX_SEGMENTS + 1, "a")).segments.len(), MAX_SEGMENTS);
    }

    #[test]
    fn text_stops_at_the_byte_cap() {
        let cut = bounded(transcript(3, &"é".repeat(MAX_TRANSCRIPT_BYTES / 3)));
        let total: usize = cut.segments.iter().map(|s| s.text.len()).sum();
        assert!(total <= MAX_TRANSCRIPT_BYTES && total > MAX_TRANSCRIPT_BYTES - 4, "{total}");
    }
}
