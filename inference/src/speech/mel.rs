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
    fn filters_have_slaney_shape_and_area() {
        // Arrange: the first filter rises over 0..37.2 Hz and falls to 74.5 Hz with area scale 2/74.5,
        // so bin 1 (40 Hz) has (74.48 - 40) / 37.24 * 2 / 74.48 = 0.02486.
        // Act
        let f = filters(80);
        // Assert: shape, the first filter's peak bin and its height, and that high bins are reached.
        assert_eq!(f.len(), 80 * N_BINS);
        let first = &f[..N_BINS];
        let peak = first.iter().cloned().fold(0.0f32, f32::max);
        assert_eq!(first.iter().position(|&w| w == peak), Some(1));
        assert!((peak - 0.024_862_13).abs() < 1e-6, "{peak}");
        let last = &f[79 * N_BINS..];
        assert!(last[N_BINS - 2] > 0.0 && last[..150].iter().all(|&w| w == 0.0));
    }
}
