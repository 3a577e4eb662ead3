//! WAV in process (hound): the first seconds, mixed to mono and resampled to 16 kHz (rubato).

use std::path::Path;

use rubato::audioadapter_buffers::direct::InterleavedSlice;
use rubato::audioadapter_buffers::owned::InterleavedOwned;
use rubato::{Fft, FixedSync, Resampler};

use crate::InferenceError;
use crate::speech::SAMPLE_RATE;

/// Sample rates above this are refused (no recording needs more; it bounds memory per second).
const MAX_RATE: u32 = 192_000;

/// The WAV's frame count, to size the buffer without trusting it past the file's real length.
fn reader_len_hint(path: &Path, channels: usize) -> usize {
    std::fs::metadata(path).map_or(0, |m| m.len() as usize / 2 / channels)
}

/// A WAV's shape, if `path` is a WAV hound can read.
pub(crate) fn spec(path: &Path) -> Option<(hound::WavSpec, u32)> {
    let reader = hound::WavReader::open(path).ok()?;
    Some((reader.spec(), reader.duration()))
}

/// The first `max_seconds` of the WAV at `path`, as 16 kHz mono f32.
pub(crate) fn read(path: &Path, max_seconds: u32) -> Result<Vec<f32>, InferenceError> {
    let unreadable = |e: hound::Error| InferenceError::Unreadable(format!("WAV: {e}"));
    let mut reader = hound::WavReader::open(path).map_err(unreadable)?;
    let spec = reader.spec();
    if spec.sample_rate == 0 || spec.sample_rate > MAX_RATE {
        return Err(InferenceError::Unreadable(format!("WAV at {} Hz", spec.sample_rate)));
    }
    let channels = usize::from(spec.channels.max(1));
    let frames = (spec.sample_rate as usize).saturating_mul(max_seconds as usize);
    let wanted = frames.saturating_mul(channels);
    // Mixed down while read, so memory follows the mono length; a damaged tail ends the sound.
    let samples: Box<dyn Iterator<Item = f32>> = match spec.sample_format {
        hound::SampleFormat::Float => Box::new(reader.samples::<f32>().take(wanted).map_while(Result::ok)),
        hound::SampleFormat::Int => {
            let scale = 1.0 / (1u64 << (spec.bits_per_sample.clamp(1, 32) - 1)) as f32;
            Box::new(reader.samples::<i32>().take(wanted).map_while(Result::ok).map(move |s| s as f32 * scale))
        }
    };
    let mut mono = Vec::with_capacity(frames.min(reader_len_hint(path, channels)));
    let (mut sum, mut n) = (0.0f32, 0);
    for s in samples {
        sum += s;
        n += 1;
        if n == channels {
            mono.push(sum / channels as f32);
            (sum, n) = (0.0, 0);
        }
    }
    resample(&mono, spec.sample_rate)
}

/// `mono` at `rate` Hz, resampled to 16 kHz.
pub(crate) fn resample(mono: &[f32], rate: u32) -> Result<Vec<f32>, InferenceError> {
    if rate == SAMPLE_RATE || mono.is_empty() {
        return Ok(mono.to_vec());
    }
    let failed = |e: &dyn std::fmt::Display| InferenceError::Unreadable(format!("resampling from {rate} Hz: {e}"));
    let mut resampler =
        Fft::<f32>::new(rate as usize, SAMPLE_RATE as usize, 1024, 1, FixedSync::Input).map_err(|e| failed(&e))?;
    let input = InterleavedSlice::new(mono, 1, mono.len()).map_err(|e| failed(&e))?;
    let needed = resampler.process_all_needed_output_len(mono.len());
    let mut output = InterleavedOwned::new(0.0f32, 1, needed);
    let (_, produced) =
        resampler.process_all_into_buffer(&input, &mut output, mono.len(), None).map_err(|e| failed(&e))?;
    let mut samples = output.take_data();
    samples.truncate(produced);
    Ok(samples)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_22050_hz_stereo_wav_becomes_16_khz_mono_of_the_same_length_and_pitch() {
        // Arrange: one second of a 441 Hz tone, left and right equal.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tone.wav");
        let spec = hound::WavSpec {
            channels: 2,
            sample_rate: 22_050,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut w = hound::WavWriter::create(&path, spec).unwrap();
        for i in 0..22_050 {
            let s = (0.5 * (2.0 * std::f32::consts::PI * 441.0 * i as f32 / 22_050.0).sin() * 32767.0) as i16;
            w.write_sample(s).unwrap();
            w.write_sample(s).unwrap();
        }
        w.finalize().unwrap();
        // Act
        let samples = read(&path, 10).unwrap();
        // Assert: 16,000 samples, and about 441 upward zero crossings per second.
        assert!((samples.len() as i64 - 16_000).abs() <= 2, "{}", samples.len());
        let crossings = samples.windows(2).filter(|w| w[0] < 0.0 && w[1] >= 0.0).count();
        assert!((430..=450).contains(&crossings), "{crossings}");
    }

    #[test]
    fn only_the_first_seconds_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("long.wav");
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate: 16_000,
            bits_per_sample: 32,
            sample_format: hound::SampleFormat::Float,
        };
        let mut w = hound::WavWriter::create(&path, spec).unwrap();
        for _ in 0..16_000 * 5 {
            w.write_sample(0.25f32).unwrap();
        }
        w.finalize().unwrap();
        assert_eq!(read(&path, 2).unwrap().len(), 32_000);
    }
}
