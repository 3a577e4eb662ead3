//! The crate against real parts: the installed models, espeak-ng, ffmpeg.
//!
//! Needs the models installed first (`cargo run -p trellis-inference --example install-models`, which
//! `scripts/setup` runs) in `$TRELLIS_MODELS_DIR` (default `~/.cache/trellis/models`).

mod media;
mod speech;
mod support;
