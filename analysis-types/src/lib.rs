//! What the host's media analysis answers, defined once for everyone who handles it: `trellis-inference`
//! computes these, the module host (`trellis-modules`) bounds them and hands them to analysis steps through
//! WIT `media`, `vision` and `speech` (0.2.0 and 0.3.0), and the module SDK (`trellis-plugin-sdk`) gives them to a Rust
//! step and its in-process test kit. Plain data with no dependencies, so it builds for `wasm32-wasip2` and
//! the SDK need not depend on the host.
//!
//! The WIT records of those interfaces have the same fields: the host and the SDK convert from and to their
//! generated bindings at the edge, and the bounds below are the ones the host enforces.
#![deny(missing_docs)]

/// Most frames a step may have decoded at once (`media.frames`).
pub const MAX_FRAMES: u32 = 16;
/// Most labels of one frame handed to a step (`vision.classify`).
pub const MAX_LABELS: u32 = 20;
/// Most faces of one frame handed to a step.
pub const MAX_FACES: usize = 100;
/// Most objects of one frame handed to a step (`vision.detect-objects`).
pub const MAX_OBJECTS: usize = 100;
/// Most colours of one frame handed to a step.
pub const MAX_COLOURS: usize = 5;
/// Most transcript segments handed to a step (their text together is at most [`MAX_TRANSCRIPT_BYTES`]).
pub const MAX_SEGMENTS: usize = 10_000;
/// Longest transcript, in bytes.
pub const MAX_TRANSCRIPT_BYTES: usize = 1024 * 1024;
/// Most lines of printed text read from one frame handed to a step (`vision.read-text`).
pub const MAX_TEXT_LINES: usize = 200;
/// Longest printed text of one frame (its lines together) handed to a step, and longest `text` finding a
/// step may return, in bytes.
pub const MAX_TEXT_BYTES: usize = 16 * 1024;
/// Longest model string (name and version) handed to a step or accepted in its findings, in bytes.
pub const MAX_MODEL_BYTES: usize = 200;

/// What kind of media an asset is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MediaKind {
    /// A still picture.
    Image,
    /// Sound only.
    Audio,
    /// Moving pictures, maybe with a soundtrack.
    Video,
    /// Anything else.
    #[default]
    Other,
}

/// What an asset is (`media.probe`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MediaInfo {
    /// Image, audio, video or other.
    pub kind: MediaKind,
    /// Pixels, for images and video (0 otherwise).
    pub width: u32,
    /// Pixels, for images and video (0 otherwise).
    pub height: u32,
    /// Milliseconds, for audio and video (0 otherwise).
    pub duration_ms: u64,
    /// Whether there is sound to transcribe (audio, or video with a soundtrack).
    pub has_sound: bool,
}

/// A label of a whole picture.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Label {
    /// Plain English name, e.g. `golden retriever`.
    pub name: String,
    /// Probability, 0..1.
    pub score: f32,
}

impl Label {
    /// A label with this name and score.
    pub fn new(name: impl Into<String>, score: f32) -> Self {
        Self { name: name.into(), score }
    }
}

/// Labels, best first, and the model (name and version) that gave them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Labels {
    /// Best first.
    pub labels: Vec<Label>,
    /// The model.
    pub model: String,
}

/// A face, in pixels of its frame.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Face {
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// The detector's confidence; a step sees it as 0..1.
    pub score: f32,
}

/// The faces of a frame (at most [`MAX_FACES`] handed to a step) and the model that found them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Faces {
    /// The faces.
    pub faces: Vec<Face>,
    /// The model.
    pub model: String,
}

/// A person or thing found in a frame, in pixels of its frame.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Object {
    /// Plain English name: `person`, `car`, `traffic light`...
    pub name: String,
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// The detector's confidence, 0..1.
    pub score: f32,
}

/// The objects of a frame, best first (at most [`MAX_OBJECTS`] handed to a step), and the model that found
/// them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Objects {
    /// Best first.
    pub objects: Vec<Object>,
    /// The model.
    pub model: String,
}

/// A named colour and its share of a frame's pixels (0..1).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Colour {
    /// Plain English name, e.g. `blue` or `dark green`.
    pub name: String,
    /// Share of pixels.
    pub share: f32,
}

/// Facts about a frame that need no model.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PictureFacts {
    /// Pixels.
    pub width: u32,
    /// Pixels.
    pub height: u32,
    /// `landscape`, `portrait` or `square`.
    pub orientation: String,
    /// The main colours, largest share first (at most [`MAX_COLOURS`]).
    pub colours: Vec<Colour>,
    /// Mean brightness, 0 (black) to 1 (white).
    pub brightness: f32,
}

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

/// A transcript (at most [`MAX_SEGMENTS`] segments and [`MAX_TRANSCRIPT_BYTES`] of text handed to a step) and
/// the model (name and version) that made it.
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

/// Printed text read from a frame (`vision.read-text`, WIT 0.3.0): its lines top to bottom, each trimmed and
/// non-empty (at most [`MAX_TEXT_LINES`] lines and [`MAX_TEXT_BYTES`] handed to a step), and the model that
/// read them. No text found is no lines.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Text {
    /// The lines, in reading order.
    pub lines: Vec<String>,
    /// The model (engine and its language data).
    pub model: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transcript_s_text_joins_its_trimmed_segments() {
        let transcript = Transcript {
            segments: vec![Segment::new(0, 1, " Hello there."), Segment::new(1, 2, "  "), Segment::new(2, 3, "Bye.")],
            model: "m".into(),
        };
        assert_eq!(transcript.text(), "Hello there. Bye.");
    }
}
