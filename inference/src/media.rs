//! What an asset is, its frames and its sound.
//!
//! Pictures are recognised by their header and WAV is read in process; everything else goes through
//! the `ffmpeg` program when it is installed ([`ffmpeg_available`]), within the [`DecodeBounds`] (time,
//! memory, output caps, frame size), confined to the one file and its ordinary demuxers and decoders
//! (see `media/ffmpeg.rs`), with an empty environment and, where bubblewrap runs, in a sandbox
//! (`media/process.rs`).

mod ffmpeg;
pub(crate) mod process;
mod wav;

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::speech::{self, SAMPLE_RATE};
use crate::{InferenceError, MediaInfo, MediaKind};

/// At most this many frames per video.
pub const MAX_FRAMES: u32 = 32;
/// Frames are scaled down to at most this many pixels on their long side.
pub const MAX_FRAME_SIDE: u32 = 2048;
/// All frames of one call together stay under this many bytes of RGB.
pub const MAX_FRAME_BYTES: u64 = 128 << 20;
/// The header read to recognise a file.
const HEADER: u64 = 64 << 10;
/// The address space ffmpeg or ffprobe may map, unless set: a 4K HEVC frame decodes well within it.
pub const DEFAULT_TOOL_MEMORY_BYTES: u64 = 768 << 20;
/// The largest video frame decoded unless set, in pixels (as for pictures).
pub const DEFAULT_MAX_PIXELS: u64 = 50_000_000;

/// Whether ffmpeg and ffprobe run inside bubblewrap (`bwrap`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sandbox {
    /// When bubblewrap runs on this machine; otherwise without, saying so once in the log.
    #[default]
    Auto,
    /// Always: a decoding fails when bubblewrap does not run.
    Required,
    /// Never (the other bounds still hold).
    Off,
}

impl Sandbox {
    /// Whether a tool runs sandboxed under `setting`, given whether bubblewrap runs here (asked only when
    /// it matters); an error when the sandbox is required and does not run.
    pub(crate) fn decide(setting: Sandbox, runs: impl FnOnce() -> bool) -> Result<bool, InferenceError> {
        match setting {
            Sandbox::Off => Ok(false),
            Sandbox::Auto => Ok(runs()),
            Sandbox::Required if runs() => Ok(true),
            Sandbox::Required => Err(InferenceError::MissingProgram {
                program: "bwrap",
                why: "the media tools' sandbox is required (analysis.tool_sandbox = \"required\") but bubblewrap \
                      does not run here"
                    .into(),
            }),
        }
    }
}

/// What one decoding through ffmpeg or ffprobe may spend.
#[derive(Clone, Debug)]
pub struct DecodeBounds {
    /// Wall-clock time of one call; the child is killed after it.
    pub timeout: Duration,
    /// The address space each child may map (`RLIMIT_AS`), so also the most memory it holds.
    pub memory_bytes: u64,
    /// The largest video frame decoded, width × height as ffprobe reports it, checked before decoding.
    pub max_pixels: u64,
    pub sandbox: Sandbox,
}

impl DecodeBounds {
    /// `timeout` with the default memory, frame size and sandbox.
    pub fn new(timeout: Duration) -> Self {
        Self {
            timeout,
            memory_bytes: DEFAULT_TOOL_MEMORY_BYTES,
            max_pixels: DEFAULT_MAX_PIXELS,
            sandbox: Sandbox::Auto,
        }
    }
}

/// The largest resident memory any finished child of this process reached, in bytes (ffmpeg and
/// ffprobe are the server's only children).
pub fn tools_peak_resident_bytes() -> u64 {
    process::children_peak_resident_bytes()
}

/// Whether `ffmpeg` and `ffprobe` are installed (checked once per process).
pub fn ffmpeg_available() -> bool {
    ffmpeg::available()
}

/// What the file is: images by their header, WAV in process (hound), anything else through `ffprobe`
/// when installed (else audio and video are [`InferenceError::MissingProgram`] naming ffmpeg).
/// `content_type` only helps name what is missing; the bytes decide.
pub fn probe(path: &Path, content_type: &str, bounds: &DecodeBounds) -> Result<MediaInfo, InferenceError> {
    let header = read_header(path)?;
    if header.is_empty() {
        return Err(InferenceError::Unreadable("the file is empty".into()));
    }
    // A header that only looks like a picture falls through to the other readers.
    if imagesize::image_type(&header).is_ok()
        && let Ok(size) = imagesize::size(path)
    {
        return Ok(MediaInfo {
            kind: MediaKind::Image,
            width: u32::try_from(size.width).unwrap_or(u32::MAX),
            height: u32::try_from(size.height).unwrap_or(u32::MAX),
            duration_ms: 0,
            has_sound: false,
        });
    }
    if let Some((spec, frames)) = wav::spec(path) {
        let duration_ms = u64::from(frames) * 1000 / u64::from(spec.sample_rate.max(1));
        return Ok(MediaInfo { kind: MediaKind::Audio, width: 0, height: 0, duration_ms, has_sound: frames > 0 });
    }
    if ffmpeg_available() {
        return ffmpeg::probe(path, bounds);
    }
    let sniffed = infer::get(&header).map(|t| t.matcher_type());
    let media = matches!(sniffed, Some(infer::MatcherType::Audio | infer::MatcherType::Video))
        || content_type.starts_with("audio/")
        || content_type.starts_with("video/");
    if media {
        Err(ffmpeg::missing("needed to read audio other than WAV and video"))
    } else {
        Err(InferenceError::Unreadable("not a picture, a WAV or an audio or video file".into()))
    }
}

fn read_header(path: &Path) -> Result<Vec<u8>, InferenceError> {
    let file = std::fs::File::open(path).map_err(|e| InferenceError::Unreadable(format!("cannot open: {e}")))?;
    let mut header = Vec::new();
    file.take(HEADER).read_to_end(&mut header).map_err(|e| InferenceError::Unreadable(format!("cannot read: {e}")))?;
    Ok(header)
}

/// Up to `count` frames of a video spread evenly over its duration, scaled so the long side is at most
/// `max_side` (ffmpeg, raw RGB over a pipe, one seek per frame). `bounds.timeout` bounds the whole call;
/// frames larger than `bounds.max_pixels` are refused before any is decoded.
pub fn video_frames(
    path: &Path,
    info: &MediaInfo,
    count: u32,
    max_side: u32,
    bounds: &DecodeBounds,
) -> Result<Vec<image::RgbImage>, InferenceError> {
    if info.kind != MediaKind::Video || info.width == 0 || info.height == 0 {
        return Err(InferenceError::Unreadable("not a video with pictures".into()));
    }
    let pixels = u64::from(info.width) * u64::from(info.height);
    if pixels > bounds.max_pixels {
        return Err(InferenceError::TooLarge(format!(
            "the video's frames are {}×{}, more than {} pixels",
            info.width, info.height, bounds.max_pixels
        )));
    }
    if !ffmpeg_available() {
        return Err(ffmpeg::missing("needed for video frames"));
    }
    let deadline = Instant::now() + bounds.timeout;
    let path = ffmpeg::absolute(path)?;
    let count = count.clamp(1, MAX_FRAMES);
    let (width, height) = fit(info.width, info.height, max_side.clamp(1, MAX_FRAME_SIDE));
    let frame_bytes = width as usize * height as usize * 3;
    if frame_bytes as u64 * u64::from(count) > MAX_FRAME_BYTES {
        return Err(InferenceError::TooLarge(format!(
            "{count} frames of {width}×{height} exceed {MAX_FRAME_BYTES} bytes"
        )));
    }
    let times: Vec<u64> = match info.duration_ms {
        0 => vec![0],
        d => (0..u64::from(count)).map(|i| d * (2 * i + 1) / (2 * u64::from(count))).collect(),
    };
    let mut frames = Vec::with_capacity(times.len());
    for at_ms in times {
        let mut args: Vec<OsString> =
            vec!["-nostdin".into(), "-v".into(), "error".into(), "-threads".into(), "1".into()];
        args.extend(["-ss".into(), format!("{}.{:03}", at_ms / 1000, at_ms % 1000).into()]);
        // The decoder itself refuses frames past the bound: ffprobe's size is only the first frame's,
        // and a stream may grow after it.
        args.extend(["-max_pixels".into(), bounds.max_pixels.min(i32::MAX as u64).to_string().into()]);
        args.extend(ffmpeg::input(&path));
        args.extend(
            [
                "-an",
                "-sn",
                "-dn",
                "-frames:v",
                "1",
                "-vf",
                &format!("scale={width}:{height}"),
                "-pix_fmt",
                "rgb24",
                "-f",
                "rawvideo",
                "pipe:1",
            ]
            .map(OsString::from),
        );
        let ran = ffmpeg::run("ffmpeg", &args, frame_bytes, &path, bounds, deadline)?;
        if ran.stdout.len() == frame_bytes {
            frames.extend(image::RgbImage::from_raw(width, height, ran.stdout));
        } else if !ran.success {
            tracing::debug!(stderr = %ran.stderr, "ffmpeg could not decode a frame");
            return Err(InferenceError::Unreadable("ffmpeg cannot decode the video".into()));
        }
        // An empty answer is a seek past the last frame: fewer frames, not a failure.
    }
    if frames.is_empty() {
        return Err(InferenceError::Unreadable("the video has no decodable frames".into()));
    }
    Ok(frames)
}

/// The size that keeps the aspect ratio with the long side at most `max_side` (never enlarged).
fn fit(width: u32, height: u32, max_side: u32) -> (u32, u32) {
    let long = width.max(height);
    if long <= max_side {
        return (width, height);
    }
    let scale =
        |side: u32| ((u64::from(side) * u64::from(max_side) + u64::from(long) / 2) / u64::from(long)).max(1) as u32;
    (scale(width), scale(height))
}

/// The first `max_seconds` of the sound as 16 kHz mono f32: WAV in process (resampled as needed),
/// anything else through ffmpeg. No sound gives no samples.
pub fn sound(
    path: &Path,
    info: &MediaInfo,
    max_seconds: u32,
    bounds: &DecodeBounds,
) -> Result<Vec<f32>, InferenceError> {
    if !info.has_sound {
        return Ok(Vec::new());
    }
    let max_seconds = max_seconds.min(speech::MAX_SECONDS);
    if wav::spec(path).is_some() {
        return wav::read(path, max_seconds);
    }
    if !ffmpeg_available() {
        return Err(ffmpeg::missing("needed for sound other than WAV"));
    }
    let path = ffmpeg::absolute(path)?;
    let mut args: Vec<OsString> = vec!["-nostdin".into(), "-v".into(), "error".into(), "-threads".into(), "1".into()];
    args.extend(ffmpeg::input(&path));
    args.extend(["-vn", "-sn", "-dn", "-ac", "1", "-ar", "16000", "-t"].map(OsString::from));
    args.push(max_seconds.to_string().into());
    args.extend(["-f", "f32le", "pipe:1"].map(OsString::from));
    let cap = max_seconds as usize * SAMPLE_RATE as usize * 4;
    let ran = ffmpeg::run("ffmpeg", &args, cap, &path, bounds, Instant::now() + bounds.timeout)?;
    if !ran.success && !ran.truncated && ran.stdout.is_empty() {
        tracing::debug!(stderr = %ran.stderr, "ffmpeg could not decode the sound");
        return Err(InferenceError::Unreadable("ffmpeg cannot decode the sound".into()));
    }
    Ok(ran.stdout.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fitting_keeps_the_aspect_and_never_enlarges() {
        assert_eq!(fit(1920, 1080, 512), (512, 288));
        assert_eq!(fit(1080, 1920, 512), (288, 512));
        assert_eq!(fit(320, 240, 512), (320, 240));
        assert_eq!(fit(10_000, 1, 100), (100, 1));
    }
}
