//! Listening to the asset under analysis: an English transcript of its sound (an audio asset, or a video's
//! soundtrack). Needs [`Permission::Speech`](crate::Permission) (an analysis step's, WIT 0.2.0).
//!
//! ```
//! use trellis_plugin_sdk::speech::{self, Segment, Transcript};
//! use trellis_plugin_sdk::testing::TestHost;
//!
//! let host = TestHost::new();
//! host.set_transcript(Ok(Transcript {
//!     segments: vec![Segment::new(0, 1_200, " Hello there."), Segment::new(1_200, 2_000, " Bye.")],
//!     model: "whisper tiny.en".into(),
//! }));
//! assert_eq!(speech::transcribe()?.text(), "Hello there. Bye.");
//! host.set_transcript(Err("models not installed: run `trellis models install`".into()));
//! assert!(speech::transcribe().is_err());
//! # Ok::<(), trellis_plugin_sdk::CapabilityError>(())
//! ```

use crate::CapabilityError;

/// A stretch of speech, with its times from the start of the asset.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Segment {
    /// Start, in milliseconds.
    pub start_ms: u64,
    /// End, in milliseconds.
    pub end_ms: u64,
    /// What was said.
    pub text: String,
}

impl Segment {
    /// A segment from `start_ms` to `end_ms` saying `text`.
    pub fn new(start_ms: u64, end_ms: u64, text: impl Into<String>) -> Self {
        Self { start_ms, end_ms, text: text.into() }
    }
}

/// A transcript (at most 10,000 segments and 1 MiB of text) and the model (name and version) that made it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Transcript {
    /// In order.
    pub segments: Vec<Segment>,
    /// The model.
    pub model: String,
}

impl Transcript {
    /// The segments' text, trimmed and joined with single spaces.
    pub fn text(&self) -> String {
        let parts: Vec<&str> = self.segments.iter().map(|s| s.text.trim()).filter(|t| !t.is_empty()).collect();
        parts.join(" ")
    }
}

/// An English transcript of the asset's sound.
pub fn transcribe() -> Result<Transcript, CapabilityError> {
    imp::transcribe().map_err(CapabilityError)
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::{Segment, Transcript};
    use crate::wit::imports::trellis::module::speech as host;

    pub(super) fn transcribe() -> Result<Transcript, String> {
        host::transcribe().map(|found| Transcript {
            segments: found
                .segments
                .into_iter()
                .map(|s| Segment { start_ms: s.start_ms, end_ms: s.end_ms, text: s.text })
                .collect(),
            model: found.model,
        })
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::Transcript;

    pub(super) fn transcribe() -> Result<Transcript, String> {
        crate::testing::with_host(|host| host.inference.transcribe())
    }
}
