//! Asking the `ffmpeg` and `ffprobe` programs, confined to the one local file they are given: only the
//! `file` protocol, a list of ordinary media demuxers and a list of ordinary decoders, so a crafted file
//! (an HLS or concat playlist, an image sequence pattern, a giant PNG frame) cannot make them open the
//! network or other files or reach the rest of ffmpeg's decoders. Every run is also confined as a process
//! (`process::Confinement`: memory and CPU limits, empty environment, bubblewrap where it runs).

use std::ffi::OsString;
use std::path::Path;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde::Deserialize;

use super::process::{self, Confinement, Ran, RunError};
use super::{DecodeBounds, Sandbox};
use crate::{InferenceError, MediaInfo, MediaKind};

/// Demuxers of ordinary audio and video files; playlists and sequences are left out on purpose.
const DEMUXERS: &str = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,avi,flv,mpegts,mpeg,mpegvideo,m4v,h264,hevc,\
ogg,wav,w64,mp3,flac,aac,asf,aiff,caf,amr,ac3,eac3,wv,ape,au,ivf,dv";
/// Decoders of the video and sound those files ordinarily carry (ffmpeg's decoder names). Picture
/// codecs inside a video container (PNG, TIFF, EXR …) are left out: their frames have no size bound.
const DECODERS: &str = "h264,hevc,vp8,vp9,av1,libdav1d,libaom-av1,mpeg4,msmpeg4v1,msmpeg4v2,msmpeg4,\
mpeg1video,mpeg2video,mjpeg,theora,vc1,wmv1,wmv2,wmv3,h263,h263p,flv,vp6,vp6f,dvvideo,prores,\
aac,aac_fixed,mp3,mp3float,mp2,mp2float,opus,libopus,vorbis,libvorbis,flac,alac,ac3,ac3_fixed,eac3,\
amrnb,amrwb,libopencore_amrnb,libopencore_amrwb,wavpack,ape,wmav1,wmav2,adpcm_ima_wav,adpcm_ms,\
pcm_u8,pcm_s8,pcm_s16le,pcm_s16be,pcm_s24le,pcm_s24be,pcm_s32le,pcm_s32be,pcm_f32le,pcm_f32be,\
pcm_f64le,pcm_f64be,pcm_alaw,pcm_mulaw";
/// ffprobe's JSON for any one file stays well under this.
const PROBE_CAP: usize = 1 << 20;
/// What asking a program its version may spend.
const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether both programs run (under `prlimit`, which every run goes through).
pub(crate) fn available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        let bounds = DecodeBounds::new(VERSION_TIMEOUT);
        let plain = confinement_of(&bounds, false, None);
        let runs = |p: &str| {
            let deadline = Instant::now() + VERSION_TIMEOUT;
            process::run(p, &["-version".into()], 1 << 16, deadline, &plain).is_ok_and(|r| r.success)
        };
        runs("ffmpeg") && runs("ffprobe")
    })
}

/// Whether ffprobe runs inside bubblewrap on this machine (checked once per process).
fn sandbox_runs() -> bool {
    static RUNS: OnceLock<bool> = OnceLock::new();
    *RUNS.get_or_init(|| {
        let bounds = DecodeBounds::new(VERSION_TIMEOUT);
        let jail = confinement_of(&bounds, true, None);
        let deadline = Instant::now() + VERSION_TIMEOUT;
        let runs = process::run("ffprobe", &["-version".into()], 1 << 16, deadline, &jail).is_ok_and(|r| r.success);
        if !runs {
            tracing::warn!(
                "bubblewrap (bwrap) does not run here: ffmpeg and ffprobe run without a sandbox, still under their \
                 memory and CPU limits and with an empty environment"
            );
        }
        runs
    })
}

fn confinement_of<'a>(bounds: &DecodeBounds, sandboxed: bool, input: Option<&'a Path>) -> Confinement<'a> {
    Confinement {
        memory_bytes: bounds.memory_bytes,
        // The wall-clock deadline is the real bound; this one stops a child that outlives a lost parent.
        cpu_seconds: bounds.timeout.as_secs() + 1,
        sandboxed,
        input,
        env: &[],
    }
}

/// How a run on `input` is confined under `bounds`.
fn confinement<'a>(bounds: &DecodeBounds, input: &'a Path) -> Result<Confinement<'a>, InferenceError> {
    let sandboxed = Sandbox::decide(bounds.sandbox, sandbox_runs)?;
    Ok(confinement_of(bounds, sandboxed, Some(input)))
}

pub(crate) fn missing(why: &str) -> InferenceError {
    InferenceError::MissingProgram { program: "ffmpeg", why: why.to_owned() }
}

/// The absolute path of `path` (bound into the sandbox and named to ffmpeg).
pub(crate) fn absolute(path: &Path) -> Result<std::path::PathBuf, InferenceError> {
    std::path::absolute(path).map_err(|e| InferenceError::Unreadable(e.to_string()))
}

/// The input options and the input, as `file:` plus the absolute path (so no name reads as an option
/// or another protocol).
pub(crate) fn input(absolute: &Path) -> Vec<OsString> {
    let mut file = OsString::from("file:");
    file.push(absolute.as_os_str());
    vec![
        "-protocol_whitelist".into(),
        "file".into(),
        "-format_whitelist".into(),
        DEMUXERS.into(),
        "-codec_whitelist".into(),
        DECODERS.into(),
        "-i".into(),
        file,
    ]
}

/// Runs `program` on the file at `absolute` confined under `bounds` until `deadline`, mapping its
/// failures to the crate's errors.
pub(crate) fn run(
    program: &str,
    args: &[OsString],
    cap: usize,
    absolute: &Path,
    bounds: &DecodeBounds,
    deadline: Instant,
) -> Result<Ran, InferenceError> {
    let confinement = confinement(bounds, absolute)?;
    process::run(program, args, cap, deadline, &confinement).map_err(|e| match e {
        RunError::NotFound => missing("needed for audio and video (run under prlimit, from util-linux)"),
        RunError::TimedOut => {
            InferenceError::Failed(format!("{program} took longer than {} ms", bounds.timeout.as_millis()))
        }
        RunError::Io(e) => InferenceError::Failed(format!("{program}: {e}")),
    })
}

#[derive(Deserialize)]
struct Probe {
    #[serde(default)]
    streams: Vec<Stream>,
    format: Option<Format>,
}

#[derive(Deserialize)]
struct Stream {
    codec_type: Option<String>,
    width: Option<u32>,
    height: Option<u32>,
    #[serde(default)]
    disposition: Disposition,
    #[serde(default)]
    tags: Tags,
    #[serde(default)]
    side_data_list: Vec<SideData>,
}

#[derive(Deserialize, Default)]
struct Disposition {
    #[serde(default)]
    attached_pic: u8,
}

#[derive(Deserialize, Default)]
struct Tags {
    rotate: Option<String>,
}

#[derive(Deserialize)]
struct SideData {
    rotation: Option<f64>,
}

#[derive(Deserialize)]
struct Format {
    duration: Option<String>,
}

/// What ffprobe says about the file at `path`.
pub(crate) fn probe(path: &Path, bounds: &DecodeBounds) -> Result<MediaInfo, InferenceError> {
    let path = absolute(path)?;
    let mut args: Vec<OsString> =
        ["-v", "error", "-print_format", "json", "-show_format", "-show_streams"].map(OsString::from).to_vec();
    args.extend(input(&path));
    let ran = run("ffprobe", &args, PROBE_CAP, &path, bounds, Instant::now() + bounds.timeout)?;
    if !ran.success || ran.truncated {
        tracing::debug!(stderr = %ran.stderr, "ffprobe could not read a file");
        return Err(InferenceError::Unreadable(
            "not a picture, a WAV or an audio or video file ffmpeg can read".into(),
        ));
    }
    let probe: Probe =
        serde_json::from_slice(&ran.stdout).map_err(|e| InferenceError::Failed(format!("ffprobe's answer: {e}")))?;
    Ok(info(&probe))
}

fn info(probe: &Probe) -> MediaInfo {
    let duration_ms = probe
        .format
        .as_ref()
        .and_then(|f| f.duration.as_deref())
        .and_then(|d| d.parse::<f64>().ok())
        .filter(|d| d.is_finite() && *d > 0.0)
        .map_or(0, |d| (d * 1000.0) as u64);
    let kind_is = |s: &Stream, kind: &str| s.codec_type.as_deref() == Some(kind);
    // Cover art in a music file is a video stream in ffprobe's eyes, but not moving pictures.
    let video = probe.streams.iter().find(|s| kind_is(s, "video") && s.disposition.attached_pic == 0);
    let has_sound = probe.streams.iter().any(|s| kind_is(s, "audio"));
    let (kind, width, height) = match video {
        Some(v) => {
            let (w, h) = (v.width.unwrap_or(0), v.height.unwrap_or(0));
            // ffmpeg turns rotated video upright when decoding; report the upright size.
            let rotation = v
                .side_data_list
                .iter()
                .find_map(|s| s.rotation)
                .or_else(|| v.tags.rotate.as_deref().and_then(|r| r.parse().ok()))
                .unwrap_or(0.0);
            if (rotation.abs() - 90.0).abs() < 1.0 || (rotation.abs() - 270.0).abs() < 1.0 {
                (MediaKind::Video, h, w)
            } else {
                (MediaKind::Video, w, h)
            }
        }
        None if has_sound => (MediaKind::Audio, 0, 0),
        None => (MediaKind::Other, 0, 0),
    };
    MediaInfo { kind, width, height, duration_ms, has_sound }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> MediaInfo {
        info(&serde_json::from_str(json).unwrap())
    }

    #[test]
    fn a_phone_video_turned_upright_reports_its_upright_size() {
        let i = parse(
            r#"{"streams":[{"codec_type":"video","width":1920,"height":1080,
            "side_data_list":[{"rotation":-90}]},{"codec_type":"audio"}],"format":{"duration":"3.5"}}"#,
        );
        assert_eq!((i.kind, i.width, i.height, i.duration_ms, i.has_sound), (MediaKind::Video, 1080, 1920, 3500, true));
    }

    #[test]
    fn music_with_cover_art_is_audio() {
        let i = parse(
            r#"{"streams":[{"codec_type":"audio"},{"codec_type":"video","width":500,"height":500,
            "disposition":{"attached_pic":1}}],"format":{"duration":"200.0"}}"#,
        );
        assert_eq!((i.kind, i.width, i.has_sound), (MediaKind::Audio, 0, true));
    }

    #[test]
    fn a_file_with_neither_is_other() {
        let i = parse(r#"{"streams":[{"codec_type":"subtitle"}],"format":{}}"#);
        assert_eq!((i.kind, i.has_sound), (MediaKind::Other, false));
    }
}
