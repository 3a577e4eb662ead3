//! The mel filter bank whisper.cpp reads from the model file (Whisper's own: librosa's Slaney-style mel
//! scale and area normalisation, 16 kHz, 400-point FFT). Computed here so no Python is needed.

/// Sampling rate Whisper was trained on.
const SAMPLE_RATE: f64 = 16_000.0;
/// FFT length of Whisper's front end.
pub(crate) const N_FFT: usize = 400;
/// Frequency bins of one FFT frame (`N_FFT / 2 + 1`).
pub(crate) const N_BINS: usize = N_FFT / 2 + 1;

// The Slaney mel scale: linear below 1 kHz, logarithmic above.
const F_SP: f64 = 200.0 / 3.0;
const MIN_LOG_HZ: f64 = 1000.0;
const MIN_LOG_MEL: f64 = MIN_LOG_HZ / F_SP;

fn log_step() -> f64 {
    6.4f64.ln() / 27.0
}

fn hz_to_mel(hz: f64) -> f64 {
    if hz >= MIN_LOG_HZ { MIN_LOG_MEL + (hz / MIN_LOG_HZ).ln() / log_step() } else { hz / F_SP }
}

fn mel_to_hz(mel: f64) -> f64 {
    if mel >= MIN_LOG_MEL { MIN_LOG_HZ * (log_step() * (mel - MIN_LOG_MEL)).exp() } else { F_SP * mel }
}

/// `n_mels` triangular filters over the `N_BINS` FFT bins, row-major (`n_mels × N_BINS`), each scaled
/// to unit area (Slaney normalisation), as librosa's `filters.mel(sr=16000, n_fft=400, n_mels)`.
pub(crate) fn filters(n_mels: usize) -> Vec<f32> {
    let nyquist = SAMPLE_RATE / 2.0;
    let fft_freqs: Vec<f64> = (0..N_BINS).map(|i| i as f64 * nyquist / (N_BINS - 1) as f64).collect();
    let (low, high) = (hz_to_mel(0.0), hz_to_mel(nyquist));
    let mel_points: Vec<f64> =
        (0..n_mels + 2).map(|i| mel_to_hz(low + (high - low) * i as f64 / (n_mels + 1) as f64)).collect();
    let mut weights = Vec::with_capacity(n_mels * N_BINS);
    for m in 0..n_mels {
        let (left, centre, right) = (mel_points[m], mel_points[m + 1], mel_points[m + 2]);
        let area = 2.0 / (right - left);
        for &f in &fft_freqs {
            let rising = (f - left) / (centre - left);
            let falling = (right - f) / (right - centre);
            weights.push((rising.min(falling).max(0.0) * area) as f32);
        }
    }
    weights
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mel_scale_round_trips_on_both_sides_of_one_kilohertz() {
        for hz in [0.0, 440.0, 999.0, 1000.0, 4000.0, 8000.0] {
            assert!((mel_to_hz(hz_to_mel(hz)) - hz).abs() < 1e-6, "{hz}");
        }
        assert!((hz_to_mel(1000.0) - 15.0).abs() < 1e-9);
    }

    #[test]
    fn filters_match_openai_whispers_own_bank() {
        // Arrange: values from `whisper/assets/mel_filters.npz` (`mel_80`) of the openai-whisper package.
        let (first_peak, high_tail) = (0.024_862_595_f32, 0.000_897_518_f32);
        // Act
        let f = filters(80);
        // Assert
        assert_eq!(f.len(), 80 * N_BINS);
        assert!((f[1] - first_peak).abs() < 1e-8, "{}", f[1]);
        assert_eq!((f[0], f[2]), (0.0, 0.0));
        assert!((f[79 * N_BINS + 198] - high_tail).abs() < 1e-8, "{}", f[79 * N_BINS + 198]);
        assert_eq!(f[79 * N_BINS + 200], 0.0);
    }
}
