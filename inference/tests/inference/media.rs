use std::time::Duration;

use trellis_inference::media::{self, MAX_FRAMES};
use trellis_inference::speech::word_accuracy;
use trellis_inference::{InferenceError, MediaKind};

use crate::support::{SENTENCE, run, speech, spoken_wav, text_of, video_with};

const TIMEOUT: Duration = Duration::from_secs(60);

fn bounds() -> media::DecodeBounds {
    media::DecodeBounds::new(TIMEOUT)
}

#[test]
fn a_wav_probes_as_audio_with_its_duration() {
    let dir = tempfile::tempdir().unwrap();
    let wav = spoken_wav(dir.path(), "a.wav", "One two three four five.");
    let info = media::probe(&wav, "application/octet-stream", &bounds()).unwrap();
    assert_eq!((info.kind, info.has_sound, info.width), (MediaKind::Audio, true, 0));
    assert!((1000..5000).contains(&info.duration_ms), "{info:?}");
}

#[test]
fn a_picture_probes_by_its_header() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("p.png");
    run(
        "ffmpeg",
        &[
            "-nostdin",
            "-v",
            "error",
            "-f",
            "lavfi",
            "-i",
            "testsrc=size=64x48",
            "-frames:v",
            "1",
            png.to_str().unwrap(),
        ],
    );
    let info = media::probe(&png, "", &bounds()).unwrap();
    assert_eq!((info.kind, info.width, info.height, info.has_sound), (MediaKind::Image, 64, 48, false));
}

#[test]
fn an_mp4_is_video_with_sound_gives_frames_and_its_soundtrack_transcribes() {
    // Arrange
    assert!(media::ffmpeg_available(), "ffmpeg is needed (scripts/setup installs it)");
    let dir = tempfile::tempdir().unwrap();
    let wav = spoken_wav(dir.path(), "s.wav", SENTENCE);
    let spoken_ms = media::probe(&wav, "audio/wav", &bounds()).unwrap().duration_ms;
    let mp4 = video_with(dir.path(), &wav);
    // Act
    let info = media::probe(&mp4, "video/mp4", &bounds()).unwrap();
    let frames = media::video_frames(&mp4, &info, 4, 160, &bounds()).unwrap();
    let sound = media::sound(&mp4, &info, 600, &bounds()).unwrap();
    let text = text_of(&speech().transcribe(&sound, 2).unwrap());
    // Assert
    assert_eq!((info.kind, info.width, info.height, info.has_sound), (MediaKind::Video, 320, 240, true));
    assert!(info.duration_ms > 3000, "{info:?}");
    assert_eq!(frames.len(), 4);
    for f in &frames {
        assert_eq!(f.dimensions(), (160, 120));
        let distinct: std::collections::HashSet<_> = f.pixels().map(|p| p.0).collect();
        assert!(distinct.len() > 20, "a test pattern frame has many colours");
    }
    assert_ne!(frames[0], frames[3], "frames are spread over the video");
    assert!((sound.len() as u64 * 1000 / 16_000).abs_diff(spoken_ms) < 500, "{} samples", sound.len());
    let accuracy = word_accuracy(SENTENCE, &text);
    assert!(accuracy >= 0.9, "{accuracy:.3}: {text}");
}

#[test]
fn frames_and_sound_stay_within_their_caps() {
    let dir = tempfile::tempdir().unwrap();
    let mp4 = video_with(dir.path(), &spoken_wav(dir.path(), "s.wav", SENTENCE));
    let info = media::probe(&mp4, "video/mp4", &bounds()).unwrap();
    let frames = media::video_frames(&mp4, &info, 1000, 100_000, &bounds()).unwrap();
    assert!(frames.len() <= MAX_FRAMES as usize);
    assert_eq!(frames[0].dimensions(), (320, 240), "never enlarged");
    assert_eq!(media::sound(&mp4, &info, 1, &bounds()).unwrap().len(), 16_000);
}

#[test]
fn garbage_bytes_are_unreadable() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("garbage.mp4");
    let bytes: Vec<u8> = (0..50_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    std::fs::write(&path, bytes).unwrap();
    let err = media::probe(&path, "video/mp4", &bounds()).unwrap_err();
    assert!(matches!(err, InferenceError::Unreadable(_)), "{err}");
    std::fs::write(&path, b"").unwrap();
    assert!(matches!(media::probe(&path, "", &bounds()), Err(InferenceError::Unreadable(_))));
}

#[test]
fn a_playlist_naming_other_files_is_not_followed() {
    // Arrange: an HLS playlist and an ffconcat list that point at a readable local WAV.
    let dir = tempfile::tempdir().unwrap();
    let wav = spoken_wav(dir.path(), "secret.wav", "secret words");
    let hls = dir.path().join("list.m3u8");
    std::fs::write(
        &hls,
        format!("#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\nfile:{}\n#EXT-X-ENDLIST\n", wav.display()),
    )
    .unwrap();
    let concat = dir.path().join("list.txt");
    std::fs::write(&concat, format!("ffconcat version 1.0\nfile '{}'\n", wav.display())).unwrap();
    // Act / Assert
    for list in [hls, concat] {
        let err = media::probe(&list, "audio/mpegurl", &bounds()).unwrap_err();
        assert!(matches!(err, InferenceError::Unreadable(_)), "{}: {err}", list.display());
    }
}

#[test]
fn ffmpeg_is_killed_at_its_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let mp4 = video_with(dir.path(), &spoken_wav(dir.path(), "s.wav", SENTENCE));
    let info = media::probe(&mp4, "video/mp4", &bounds()).unwrap();
    let started = std::time::Instant::now();
    let err =
        media::video_frames(&mp4, &info, 8, 320, &media::DecodeBounds::new(Duration::from_millis(1))).unwrap_err();
    assert!(err.to_string().contains("took longer than 1 ms"), "{err}");
    assert!(
        media::sound(&mp4, &info, 60, &media::DecodeBounds::new(Duration::from_millis(1)))
            .unwrap_err()
            .to_string()
            .contains("took longer")
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn frames_larger_than_the_bound_are_refused_before_any_is_decoded() {
    // ffprobe's answer for a 16000×16000 frame; the file itself is never opened.
    let info = trellis_inference::MediaInfo {
        kind: MediaKind::Video,
        width: 16_000,
        height: 16_000,
        duration_ms: 40,
        has_sound: false,
    };
    let err = media::video_frames(std::path::Path::new("/nonexistent.mkv"), &info, 1, 512, &bounds()).unwrap_err();
    assert!(matches!(err, InferenceError::TooLarge(_)), "{err}");
    assert!(err.to_string().contains("16000×16000"), "{err}");
}

/// `seconds` of a `side`×`side` test pattern as an MPEG-TS stream of H.264 key frames only, whose
/// timestamps start `offset` seconds in, so such streams can be joined end to end and seeked.
fn pattern_ts(dir: &std::path::Path, name: &str, side: u32, seconds: u32, offset: u32) -> Vec<u8> {
    let path = dir.join(name);
    let source = format!("testsrc=size={side}x{side}:rate=10:duration={seconds}");
    #[rustfmt::skip]
    run("ffmpeg", &[
        "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", &source,
        "-c:v", "libx264", "-pix_fmt", "yuv420p", "-bf", "0", "-g", "1",
        "-output_ts_offset", &offset.to_string(), "-f", "mpegts", path.to_str().unwrap(),
    ]);
    std::fs::read(path).unwrap()
}

#[test]
fn frames_that_grow_past_the_bound_after_a_small_first_one_are_refused_by_the_decoder() {
    // Arrange: one second of 64×64, then two of 256×256, in one stream: ffprobe sees only the first
    // frame's size, which passes a bound of 8,192 pixels that the later frames break.
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = pattern_ts(dir.path(), "small.ts", 64, 1, 0);
    bytes.extend(pattern_ts(dir.path(), "large.ts", 256, 2, 1));
    let grows = dir.path().join("grows.ts");
    std::fs::write(&grows, bytes).unwrap();
    let tight = media::DecodeBounds { max_pixels: 64 * 64 * 2, ..bounds() };
    let info = media::probe(&grows, "video/mp2t", &tight).unwrap();
    assert_eq!((info.kind, info.width, info.height), (MediaKind::Video, 64, 64), "{info:?}");
    // Act
    let within_default = media::video_frames(&grows, &info, 4, 64, &bounds());
    let within_tight = media::video_frames(&grows, &info, 4, 64, &tight);
    // Assert: the frames decode under the default bound, and the decoder refuses the large ones under
    // the tight one instead of decoding them.
    assert_eq!(within_default.expect("the stream decodes").len(), 4);
    assert!(within_tight.is_err(), "frames past the bound were decoded");
}
