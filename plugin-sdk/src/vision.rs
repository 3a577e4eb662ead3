//! Looking at a decoded frame (see [`media::frames`](crate::media::frames)): labels of the whole picture,
//! faces, people and things at any size, facts that need no model, and printed text. Needs
//! [`Permission::Vision`](crate::Permission) (an analysis step's; `detect_objects` and `read_text` since WIT
//! 0.3.0).
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
pub use trellis_analysis_types::{
    Colour, Face, Faces, Label, Labels, MAX_LABELS, MAX_OBJECTS, MAX_TEXT_BYTES, MAX_TEXT_LINES, Object, Objects,
    PictureFacts, Text,
};

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

/// The people and things in frame `frame` (at most [`MAX_OBJECTS`]), best first: each with its name (the
/// 80 everyday categories of COCO: `person`, `bicycle`, `car`, `dog`, `traffic light`...), its box in
/// pixels of the frame and a score in 0..1. Unlike [`detect_faces`], it finds people from behind, far
/// away or in a crowd.
///
/// ```
/// use trellis_plugin_sdk::vision::{self, Object, Objects};
/// use trellis_plugin_sdk::{media, testing::TestHost};
///
/// let host = TestHost::new();
/// host.set_frames(Ok(1));
/// let walker = Object { name: "person".into(), x: 10, y: 20, width: 40, height: 110, score: 0.86 };
/// host.set_objects(Ok(Objects { objects: vec![walker.clone(), walker], model: "yolox-nano (coco)".into() }));
/// media::frames(1)?;
/// let people = vision::detect_objects(0)?.objects.iter().filter(|o| o.name == "person").count();
/// assert_eq!(people, 2);
/// # Ok::<(), trellis_plugin_sdk::CapabilityError>(())
/// ```
pub fn detect_objects(frame: u32) -> Result<Objects, CapabilityError> {
    imp::detect_objects(frame).map_err(CapabilityError)
}

/// The printed English text of frame `frame`: its lines in reading order (none when it shows no writing),
/// at most [`MAX_TEXT_LINES`] lines and [`MAX_TEXT_BYTES`] together. Fails with the host's message when it
/// cannot read text (its OCR engine is not installed), which a step may treat as "no text" rather than
/// fail the whole analysis.
///
/// ```
/// use trellis_plugin_sdk::vision::{self, Text};
/// use trellis_plugin_sdk::{media, testing::TestHost};
///
/// let host = TestHost::new();
/// host.set_frames(Ok(1));
/// host.set_text(Ok(Text { lines: vec!["EXIT".into(), "Platform 2".into()], model: "tesseract 5.3.0 (eng)".into() }));
/// media::frames(1)?;
/// assert_eq!(vision::read_text(0)?.lines.join("\n"), "EXIT\nPlatform 2");
/// # Ok::<(), trellis_plugin_sdk::CapabilityError>(())
/// ```
pub fn read_text(frame: u32) -> Result<Text, CapabilityError> {
    imp::read_text(frame).map_err(CapabilityError)
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::{Colour, Face, Faces, Label, Labels, Object, Objects, PictureFacts, Text};
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

    pub(super) fn detect_objects(frame: u32) -> Result<Objects, String> {
        host::detect_objects(frame).map(|found| Objects {
            objects: found
                .objects
                .into_iter()
                .map(|o| Object { name: o.name, x: o.x, y: o.y, width: o.width, height: o.height, score: o.score })
                .collect(),
            model: found.model,
        })
    }

    pub(super) fn read_text(frame: u32) -> Result<Text, String> {
        host::read_text(frame).map(|found| Text { lines: found.lines, model: found.model })
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::{Faces, Labels, Objects, PictureFacts, Text};
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

    pub(super) fn detect_objects(frame: u32) -> Result<Objects, String> {
        with_host(|host| host.inference.detect_objects(frame))
    }

    pub(super) fn read_text(frame: u32) -> Result<Text, String> {
        with_host(|host| host.inference.read_text(frame))
    }
}
