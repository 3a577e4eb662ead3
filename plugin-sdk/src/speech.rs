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
/// What speech answers: the types the host defines them with (`trellis-analysis-types`).
pub use trellis_analysis_types::{Segment, Transcript};

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
