//! Looking at a decoded frame (see [`media::frames`](crate::media::frames)): labels of the whole picture,
//! faces, and facts that need no model. Needs [`Permission::Vision`](crate::Permission) (an analysis
//! step's, WIT 0.2.0).
//!
//! ```
//! use trellis_plugin_sdk::vision::{self, Label, Labels};
//! use trellis_plugin_sdk::{media, testing::TestHost};
//!
//! let host = TestHost::new();
//! host.set_frames(Ok(1));
//! host.set_labels(Ok(Labels {
//!     labels: vec![Label::new("golden retriever", 0.91), Label::new("tennis ball", 0.04)],
//!     model: "efficientnet-lite0 1".into(),
//! }));
//! media::frames(1)?;
//! let labels = vision::classify(0, 5)?;
//! assert_eq!(labels.labels[0].name, "golden retriever");
//! assert_eq!(labels.model, "efficientnet-lite0 1");
//! assert!(vision::classify(1, 5).is_err(), "frame 1 was not decoded");
//! # Ok::<(), trellis_plugin_sdk::CapabilityError>(())
//! ```

use crate::CapabilityError;
/// What vision answers: the types the host defines them with (`trellis-analysis-types`).
pub use trellis_analysis_types::{Colour, Face, Faces, Label, Labels, MAX_LABELS, PictureFacts};

/// At most `limit` labels (and at most [`MAX_LABELS`]) of frame `frame`, best first.
pub fn classify(frame: u32, limit: u32) -> Result<Labels, CapabilityError> {
    imp::classify(frame, limit).map_err(CapabilityError)
}

/// The faces in frame `frame`.
pub fn detect_faces(frame: u32) -> Result<Faces, CapabilityError> {
    imp::detect_faces(frame).map_err(CapabilityError)
}

/// Size, orientation, colours and brightness of frame `frame`.
pub fn facts(frame: u32) -> Result<PictureFacts, CapabilityError> {
    imp::facts(frame).map_err(CapabilityError)
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::{Colour, Face, Faces, Label, Labels, PictureFacts};
    use crate::wit::imports::trellis::module::vision as host;

    pub(super) fn classify(frame: u32, limit: u32) -> Result<Labels, String> {
        host::classify(frame, limit).map(|found| Labels {
            labels: found.labels.into_iter().map(|l| Label { name: l.name, score: l.score }).collect(),
            model: found.model,
        })
    }

    pub(super) fn detect_faces(frame: u32) -> Result<Faces, String> {
        host::detect_faces(frame).map(|found| Faces {
            faces: found
                .faces
                .into_iter()
                .map(|f| Face { x: f.x, y: f.y, width: f.width, height: f.height, score: f.score })
                .collect(),
            model: found.model,
        })
    }

    pub(super) fn facts(frame: u32) -> Result<PictureFacts, String> {
        host::facts(frame).map(|found| PictureFacts {
            width: found.width,
            height: found.height,
            orientation: found.orientation,
            colours: found.colours.into_iter().map(|c| Colour { name: c.name, share: c.share }).collect(),
            brightness: found.brightness,
        })
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::{Faces, Labels, PictureFacts};
    use crate::testing::with_host;

    pub(super) fn classify(frame: u32, limit: u32) -> Result<Labels, String> {
        with_host(|host| host.inference.classify(frame, limit))
    }

    pub(super) fn detect_faces(frame: u32) -> Result<Faces, String> {
        with_host(|host| host.inference.detect_faces(frame))
    }

    pub(super) fn facts(frame: u32) -> Result<PictureFacts, String> {
        with_host(|host| host.inference.facts(frame))
    }
}
