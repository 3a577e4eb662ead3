//! Shared fixtures: the models directory, the loaded speech model, spoken WAVs and a test video.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use trellis_inference::install;
use trellis_inference::speech::Speech;

/// Spoken by espeak-ng in the tests; plain words whisper should get back. (espeak-ng's "quick brown fox"
/// comes back as "quick round fox jump" from tiny.en, 89-92 %: the robot voice, not the pipeline; natural
/// speech is measured by bench/speech-accuracy.sh.)
pub const SENTENCE: &str = "The weather today will be sunny and warm, with a light breeze from the west in the \
    afternoon. Please call the office before noon and ask for the weekly report.";

/// The installed models, or a failure saying how to install them.
pub fn models_dir() -> PathBuf {
    let dir = std::env::var_os("TRELLIS_MODELS_DIR").map_or_else(
        || PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache/trellis/models"),
        PathBuf::from,
    );
    assert!(
        install::installed(&dir),
        "no models installed in {} (TRELLIS_MODELS_DIR): run `cargo run -p trellis-inference --example \
         install-models` or scripts/setup first",
        dir.display()
    );
    dir
}

/// The speech model, loaded once for all tests.
pub fn speech() -> &'static Speech {
    static SPEECH: OnceLock<Speech> = OnceLock::new();
    SPEECH.get_or_init(|| Speech::load(&models_dir()).expect("loading the speech model"))
}

/// Runs a program the tests need, failing clearly when it is missing.
pub fn run(program: &str, args: &[&str]) {
    let status = Command::new(program)
        .args(args)
        .status()
        .unwrap_or_else(|e| panic!("{program} is needed for these tests (scripts/setup installs it): {e}"));
    assert!(status.success(), "{program} {args:?} failed");
}

/// `text` spoken by espeak-ng into `dir/name` (22,050 Hz mono WAV).
pub fn spoken_wav(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    run("espeak-ng", &["-w", path.to_str().unwrap(), text]);
    path
}

/// A 320×240 MP4 of ffmpeg's test pattern with `soundtrack` as its sound, as long as the sound.
pub fn video_with(dir: &Path, soundtrack: &Path) -> PathBuf {
    let path = dir.join("clip.mp4");
    #[rustfmt::skip]
    run("ffmpeg", &[
        "-nostdin", "-v", "error", "-y",
        "-f", "lavfi", "-i", "testsrc=size=320x240:rate=10",
        "-i", soundtrack.to_str().unwrap(),
        "-shortest", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac",
        path.to_str().unwrap(),
    ]);
    path
}

/// The transcript's words as one string.
pub fn text_of(segments: &[trellis_inference::Segment]) -> String {
    segments.iter().map(|s| s.text.as_str()).collect::<Vec<_>>().join(" ")
}
