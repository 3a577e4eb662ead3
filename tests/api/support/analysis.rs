//! What the analysis tests need: a server that analyses, the shared models, real photos, speech
//! made with espeak-ng and video made with ffmpeg, and waiting for an analysis to end.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};
use trellis::config::Config;
use trellis_tests::{TestApp, in_ci, note_skip};

use crate::support::assets::{announce, decide, file_part, read, upload_asset};

/// The models `trellis models install` put in the shared cache (`scripts/test` installs them first).
pub fn models_dir() -> PathBuf {
    std::env::var_os("TRELLIS_MODELS_DIR").map(PathBuf::from).unwrap_or_else(|| cache_dir().join("models"))
}

fn cache_dir() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .expect("HOME is set")
        .join("trellis")
}

/// Where `scripts/fixtures` put the real photos.
pub fn fixtures_dir() -> PathBuf {
    std::env::var_os("TRELLIS_FIXTURES").map(PathBuf::from).unwrap_or_else(|| cache_dir().join("fixtures"))
}

/// Whether `what` is there; in CI its absence fails the test, elsewhere the test is skipped.
pub fn require(test: &str, present: bool, what: &str) -> bool {
    assert!(present || !in_ci(), "{test}: CI is set but {what} (scripts/test prepares it)");
    if !present {
        note_skip(test, what);
    }
    present
}

/// Whether the models are installed, failing in CI.
pub fn models_present(test: &str) -> bool {
    let installed = trellis_inference::install::installed(&models_dir());
    require(test, installed, "the models are not installed (run `trellis models install`)")
}

/// The configuration of a server that analyses with the shared models.
pub fn analysing(config: &mut Config) {
    config.analysis.workers = 1;
    config.analysis.models_dir = Some(models_dir());
}

/// A real photo among the fixtures, by file name (found in any folder below the fixtures dir).
pub fn photo(test: &str, name: &str) -> Option<Vec<u8>> {
    let found = find(&fixtures_dir(), name);
    require(test, found.is_some(), &format!("the fixture photo {name} is missing (run scripts/fixtures)"))
        .then(|| std::fs::read(found.unwrap()).expect("reading a fixture"))
}

fn find(dir: &Path, name: &str) -> Option<PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Some(found) = find(&path, name) {
                return Some(found);
            }
        } else if path.file_name().is_some_and(|n| n == name) {
            return Some(path);
        }
    }
    None
}

/// Whether `program` runs (`version_flag` is `--version`, or `-version` for ffmpeg).
fn have(program: &str, version_flag: &str) -> bool {
    Command::new(program).arg(version_flag).output().is_ok_and(|out| out.status.success())
}

/// `text` spoken by espeak-ng as a WAV, or `None` (skipped) without espeak-ng.
pub fn speech(test: &str, text: &str) -> Option<Vec<u8>> {
    if !require(test, have("espeak-ng", "--version"), "espeak-ng is not installed") {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let wav = dir.path().join("speech.wav");
    let status = Command::new("espeak-ng").args(["-s", "150", "-w"]).arg(&wav).arg(text).status().unwrap();
    assert!(status.success(), "espeak-ng failed");
    Some(std::fs::read(wav).unwrap())
}

/// An MP4 of `photo` shown for the length of `wav`, with `wav` as its soundtrack; `None` without ffmpeg.
pub fn video(test: &str, photo: &[u8], wav: &[u8]) -> Option<Vec<u8>> {
    if !require(test, have("ffmpeg", "-version"), "ffmpeg is not installed") {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let (jpg, sound, mp4) = (dir.path().join("p.jpg"), dir.path().join("s.wav"), dir.path().join("v.mp4"));
    std::fs::write(&jpg, photo).unwrap();
    std::fs::write(&sound, wav).unwrap();
    let status = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-loop", "1", "-i"])
        .arg(&jpg)
        .arg("-i")
        .arg(&sound)
        .args(["-vf", "scale=640:-2", "-r", "5", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"])
        .arg(&mp4)
        .status()
        .unwrap();
    assert!(status.success(), "ffmpeg could not make the test video");
    Some(std::fs::read(mp4).unwrap())
}

/// One frame of `video` at `seconds` as PNG (a still photo from it); `None` without ffmpeg.
pub fn still(test: &str, video: &[u8], seconds: u32) -> Option<Vec<u8>> {
    if !require(test, have("ffmpeg", "-version"), "ffmpeg is not installed") {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let (input, png) = (dir.path().join("in"), dir.path().join("still.png"));
    std::fs::write(&input, video).unwrap();
    let status = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-ss", &seconds.to_string(), "-i"])
        .arg(&input)
        .args(["-frames:v", "1"])
        .arg(&png)
        .status()
        .unwrap();
    assert!(status.success(), "ffmpeg could not take a still");
    Some(std::fs::read(png).unwrap())
}

/// A Matroska file of about 1.5 MB holding one 16000×16000 16-bit RGB PNG frame (1.5 GB once decoded):
/// the PNG is deflated row by row (each row the same bytes after a full flush, so it is made in
/// moments), and ffmpeg only copies it into the container (decoders off, so the copy decodes nothing).
/// `None` without ffmpeg.
pub fn giant_frame_video(test: &str) -> Option<Vec<u8>> {
    use flate2::{Compress, Compression, Crc, FlushCompress};
    if !require(test, have("ffmpeg", "-version"), "ffmpeg is not installed") {
        return None;
    }
    const SIDE: u32 = 16_000;
    let row_len = 1 + SIDE as usize * 6;
    let mut one_row = Vec::with_capacity(4096);
    Compress::new(Compression::best(), false)
        .compress_vec(&vec![0u8; row_len], &mut one_row, FlushCompress::Full)
        .unwrap();
    assert!(one_row.len() < 4096, "a row of zeros deflates to a few hundred bytes");
    let mut idat = vec![0x78, 0xda];
    for _ in 0..SIDE {
        idat.extend_from_slice(&one_row);
    }
    idat.extend_from_slice(&[0x03, 0x00]); // the final, empty, fixed-Huffman block
    // Adler-32 of zeros: a stays 1, b counts the bytes.
    let total = row_len as u64 * u64::from(SIDE);
    idat.extend_from_slice(&((((total % 65_521) as u32) << 16) | 1).to_be_bytes());
    let chunk = |kind: &[u8], data: &[u8]| {
        let mut crc = Crc::new();
        crc.update(kind);
        crc.update(data);
        [&(data.len() as u32).to_be_bytes()[..], kind, data, &crc.sum().to_be_bytes()].concat()
    };
    let mut header = SIDE.to_be_bytes().to_vec();
    header.extend_from_slice(&SIDE.to_be_bytes());
    header.extend_from_slice(&[16, 2, 0, 0, 0]); // 16-bit, RGB, deflate, no filter method, not interlaced
    let png =
        [&b"\x89PNG\r\n\x1a\n"[..], &chunk(b"IHDR", &header), &chunk(b"IDAT", &idat), &chunk(b"IEND", &[])].concat();
    let dir = tempfile::tempdir().unwrap();
    let (frame, mkv) = (dir.path().join("frame.png"), dir.path().join("giant.mkv"));
    std::fs::write(&frame, png).unwrap();
    let status = Command::new("ffmpeg")
        .args(["-v", "error", "-y", "-codec_whitelist", "none", "-f", "png_pipe"])
        .args(["-video_size", "16000x16000", "-pixel_format", "rgb48be", "-i"])
        .arg(&frame)
        .args(["-c", "copy"])
        .arg(&mkv)
        .status()
        .unwrap();
    assert!(status.success(), "ffmpeg could not put the frame in Matroska");
    Some(std::fs::read(mkv).unwrap())
}

/// Announces and uploads `bytes` as `filename` of `content_type` by `token`, then the owner approves:
/// answers the asset id.
pub async fn approved(
    app: &TestApp,
    owner: &str,
    space_id: &str,
    filename: &str,
    content_type: &str,
    bytes: Vec<u8>,
) -> String {
    let metadata = json!({"title": filename, "filename": filename, "contentType": content_type});
    let created = announce(app, owner, space_id, &metadata).await.expect(StatusCode::CREATED);
    let asset_id = created["newPublishedAssetId"].as_str().unwrap().to_owned();
    upload_asset(app, owner, space_id, &asset_id, vec![file_part(filename, content_type, bytes)])
        .await
        .expect(StatusCode::CREATED);
    decide(app, owner, space_id, &asset_id, "APPROVED").await.expect(StatusCode::OK);
    asset_id
}

/// Reads the asset until its analysis ended (SUCCEEDED or FAILED), at most `within`; answers the asset.
pub async fn analysed(app: &TestApp, token: &str, space_id: &str, asset_id: &str, within: Duration) -> Value {
    let path = format!("/v0/spaces/{space_id}/assets/{asset_id}");
    let started = Instant::now();
    loop {
        let asset = read(app, token, &path).await;
        if matches!(asset["analysis"]["state"].as_str(), Some("SUCCEEDED" | "FAILED")) {
            return asset;
        }
        assert!(started.elapsed() < within, "the analysis did not end within {within:?}: {asset}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The words of `text`, lower case, without punctuation.
pub fn words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| w.chars().filter(|c| c.is_alphanumeric() || *c == '\'').collect::<String>().to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// The share of `expected`'s words found in `heard` (a bag-of-words recall, enough to tell speech was heard).
pub fn recall(expected: &str, heard: &str) -> f64 {
    let heard = words(heard);
    let expected = words(expected);
    let found = expected.iter().filter(|w| heard.contains(w)).count();
    found as f64 / expected.len().max(1) as f64
}

/// An MPEG-TS video whose first second is 64×64 and next two 256×256 (H.264 key frames only):
/// ffprobe reports the first frame's size only, so a bound on it says nothing of the later frames.
pub fn growing_video(test: &str) -> Option<Vec<u8>> {
    if !require(test, have("ffmpeg", "-version"), "ffmpeg is not installed") {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = Vec::new();
    for (side, seconds, offset) in [(64, 1, 0), (256, 2, 1)] {
        let part = dir.path().join(format!("{side}.ts"));
        let source = format!("testsrc=size={side}x{side}:rate=10:duration={seconds}");
        let status = Command::new("ffmpeg")
            .args(["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", &source])
            .args(["-c:v", "libx264", "-pix_fmt", "yuv420p", "-bf", "0", "-g", "1"])
            .args(["-output_ts_offset", &offset.to_string(), "-f", "mpegts"])
            .arg(&part)
            .status()
            .expect("ffmpeg runs");
        assert!(status.success(), "ffmpeg made no video");
        bytes.extend(std::fs::read(&part).unwrap());
    }
    Some(bytes)
}
