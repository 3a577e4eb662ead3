//! The composition, through the SDK's test kit: what the step answers for what the host found.

use trellis_plugin_sdk::analysis::{AnalysisResult, AnalysisStep, AssetInfo, Finding};
use trellis_plugin_sdk::media::{MediaInfo, MediaKind};
use trellis_plugin_sdk::speech::{Segment, Transcript};
use trellis_plugin_sdk::testing::TestHost;
use trellis_plugin_sdk::vision::{Colour, Face, Faces, Label, Labels, Objects, PictureFacts, Text};
use trellis_plugin_sdk::{Context, Error};

use super::AnalysisDefault;

const LABELS: &str = "efficientnet-lite0 (imagenet-1k) 1";
const FACES: &str = "rustface 0.1";
const WHISPER: &str = "whisper tiny.en";
const TESSERACT: &str = "tesseract 5.3.0 (eng)";

fn text(lines: &[&str]) -> Text {
    Text { lines: lines.iter().map(|l| (*l).to_owned()).collect(), model: TESSERACT.into() }
}

fn labels(found: &[(&str, f32)]) -> Labels {
    Labels { labels: found.iter().map(|(name, score)| Label::new(*name, *score)).collect(), model: LABELS.into() }
}

fn faces(count: usize) -> Faces {
    Faces { faces: vec![Face { x: 1, y: 2, width: 30, height: 30, score: 0.9 }; count], model: FACES.into() }
}

fn facts() -> PictureFacts {
    PictureFacts {
        width: 1600,
        height: 900,
        orientation: "landscape".into(),
        colours: vec![
            Colour { name: "blue".into(), share: 0.5 },
            Colour { name: "white".into(), share: 0.3 },
            Colour { name: "green".into(), share: 0.05 },
        ],
        brightness: 0.8,
    }
}

/// A host answering for a 1600x900 picture with these labels and faces.
fn picture(found: &[(&str, f32)], face_count: usize) -> TestHost {
    let host = TestHost::new();
    host.set_probe(Ok(MediaInfo { kind: MediaKind::Image, width: 1600, height: 900, ..Default::default() }));
    host.set_frames(Ok(1));
    host.set_labels(Ok(labels(found)));
    host.set_faces(Ok(faces(face_count)));
    host.set_facts(Ok(facts()));
    host.set_text(Ok(text(&[])));
    host.set_objects(Ok(Objects { objects: Vec::new(), model: "yolox-nano (coco)".into() }));
    host
}

fn transcript(texts: &[&str]) -> Transcript {
    let segments = texts.iter().enumerate().map(|(i, t)| Segment::new(i as u64 * 1000, i as u64 * 1000 + 900, *t));
    Transcript { segments: segments.collect(), model: WHISPER.into() }
}

fn analyze(config: serde_json::Value) -> Result<AnalysisResult, Error> {
    let asset = AssetInfo { asset_id: "a1".into(), filename: "x".into(), ..Default::default() };
    AnalysisDefault::analyze(&Context::with_config("", &config), &asset)
}

fn sentences(result: &AnalysisResult) -> Vec<&str> {
    result.sentences.iter().map(|s| s.text.as_str()).collect()
}

#[test]
fn a_clear_photo_gets_its_label_as_tag_and_three_plain_sentences() {
    // Arrange
    let _host = picture(&[("golden retriever", 0.91), ("tennis ball", 0.05)], 0);

    // Act
    let result = analyze(serde_json::json!({})).unwrap();

    // Assert
    assert_eq!(result.tags, [Finding::from_model("golden retriever", LABELS)]);
    assert_eq!(
        sentences(&result),
        [
            "The picture most likely shows a golden retriever.",
            "It is a bright landscape picture, mostly blue and white."
        ]
    );
    assert_eq!(result.sentences[0].model.as_deref(), Some(LABELS));
    assert_eq!(result.sentences[1].model, None, "measured facts need no model");
    assert_eq!(result.transcript, None);
}

#[test]
fn middling_scores_are_hedged_and_name_the_runner_up() {
    let _host = picture(&[("kite", 0.35), ("bald eagle, American eagle", 0.25), ("vulture", 0.1)], 0);

    let result = analyze(serde_json::json!({})).unwrap();

    assert_eq!(result.sentences[0].text, "The picture probably shows a kite, or possibly a bald eagle.");
    assert_eq!(result.tag_texts(), ["kite", "bald eagle"]);
}

#[test]
fn low_scores_give_no_tags_and_an_honest_sentence() {
    let _host = picture(&[("kite", 0.12), ("umbrella", 0.1)], 0);

    let result = analyze(serde_json::json!({})).unwrap();

    assert!(result.tags.is_empty());
    assert_eq!(result.sentences[0].text, "No object could be recognised with confidence.");
}

#[test]
fn faces_are_counted_in_grammatical_sentences_and_tagged() {
    let cases = [
        (0, None, vec![]),
        (1, Some("One face is visible."), vec!["face", "person"]),
        (2, Some("Two faces are visible."), vec!["faces", "people"]),
        (23, Some("23 faces are visible."), vec!["faces", "people"]),
    ];
    for (count, sentence, tags) in cases {
        let _host = picture(&[("umbrella", 0.6)], count);

        let result = analyze(serde_json::json!({})).unwrap();

        let face_sentence = result.sentences.iter().find(|s| s.text.contains("face"));
        assert_eq!(face_sentence.map(|s| s.text.as_str()), sentence, "{count} faces");
        assert!(face_sentence.is_none_or(|s| s.model.as_deref() == Some(FACES)));
        assert_eq!(result.tag_texts()[1..], tags, "{count} faces");
        assert_eq!(result.sentences[0].text, "The picture most likely shows an umbrella.");
    }
}

#[test]
fn configuration_bounds_tags_and_score() {
    let _host = picture(&[("a", 0.5), ("b", 0.4), ("c", 0.3), ("d", 0.2)], 0);

    let two = analyze(serde_json::json!({"maxTags": 2})).unwrap();
    let strict = analyze(serde_json::json!({"minScore": 0.35})).unwrap();

    assert_eq!(two.tag_texts(), ["a", "b"]);
    assert_eq!(strict.tag_texts(), ["a", "b"]);
}

#[test]
fn a_video_aggregates_labels_over_its_frames_and_transcribes_its_soundtrack() {
    // Arrange: three of four asked frames; the seashore is clearest in frame 1, a kite only in frame 2.
    let host = TestHost::new();
    host.set_probe(Ok(MediaInfo {
        kind: MediaKind::Video,
        duration_ms: 12_000,
        has_sound: true,
        ..Default::default()
    }));
    host.set_frames(Ok(3));
    host.set_frame_labels(0, Ok(labels(&[("seashore", 0.4), ("sandbar", 0.3)])));
    host.set_frame_labels(1, Ok(labels(&[("seashore", 0.7), ("sandbar", 0.1)])));
    host.set_frame_labels(2, Ok(labels(&[("kite", 0.25), ("seashore", 0.2)])));
    host.set_faces(Ok(faces(0)));
    host.set_objects(Ok(Objects::default()));
    host.set_transcript(Ok(transcript(&[" The tide", " is coming in."])));

    // Act
    let result = analyze(serde_json::json!({})).unwrap();

    // Assert: the seashore label also names the place
    assert_eq!(result.tag_texts(), ["seashore", "sandbar", "kite", "beach", "speech"]);
    assert_eq!(
        sentences(&result),
        [
            "A 12-second video; its frames most likely show a seashore.",
            "It looks like a beach.",
            "Its soundtrack contains speech."
        ]
    );
    assert_eq!(result.transcript, Some(Finding::from_model("The tide is coming in.", WHISPER)));
    let calls = host.inference_calls();
    assert_eq!(calls[..2], ["probe", "frames(4)"]);
    assert_eq!(calls.iter().filter(|c| c.starts_with("classify")).count(), 3);
}

#[test]
fn a_silent_video_with_faces_is_not_transcribed() {
    let host = TestHost::new();
    host.set_probe(Ok(MediaInfo {
        kind: MediaKind::Video,
        duration_ms: 8_000,
        has_sound: false,
        ..Default::default()
    }));
    host.set_frames(Ok(16));
    host.set_labels(Ok(labels(&[("stage", 0.3)])));
    host.set_faces(Ok(faces(3)));
    host.set_objects(Ok(Objects::default()));

    let result = analyze(serde_json::json!({"frames": 2})).unwrap();

    assert_eq!(
        sentences(&result),
        ["An 8-second video; its frames probably show a stage.", "Up to three faces appear at once in its frames."]
    );
    assert!(!host.inference_calls().contains(&"transcribe".to_owned()));
    assert!(host.inference_calls().contains(&"frames(2)".to_owned()));
}

#[test]
fn a_recording_gets_its_transcript_and_a_sentence_saying_so() {
    let host = TestHost::new();
    host.set_probe(Ok(MediaInfo {
        kind: MediaKind::Audio,
        duration_ms: 45_000,
        has_sound: true,
        ..Default::default()
    }));
    host.set_transcript(Ok(transcript(&[" Hello,", " and welcome."])));

    let result = analyze(serde_json::json!({})).unwrap();

    assert_eq!(sentences(&result), ["A 45-second recording of speech."]);
    assert_eq!(result.sentences[0].model.as_deref(), Some(WHISPER));
    assert_eq!(result.transcript.as_ref().unwrap().text, "Hello, and welcome.");
    assert_eq!(result.tag_texts(), ["speech"]);
}

#[test]
fn a_recording_without_words_says_so_and_has_no_transcript() {
    let host = TestHost::new();
    host.set_probe(Ok(MediaInfo { kind: MediaKind::Audio, duration_ms: 3_000, has_sound: true, ..Default::default() }));
    host.set_transcript(Ok(transcript(&["  "])));

    let result = analyze(serde_json::json!({})).unwrap();

    assert_eq!(sentences(&result), ["A 3-second recording with no recognisable speech."]);
    assert_eq!(result.transcript, None);
    assert!(result.tags.is_empty());
}

#[test]
fn a_failing_required_capability_fails_the_step_with_its_message() {
    // Transcription of a recording.
    let host = TestHost::new();
    host.set_probe(Ok(MediaInfo { kind: MediaKind::Audio, duration_ms: 3_000, has_sound: true, ..Default::default() }));
    let missing = "models not installed: run `trellis models install` (whisper tiny.en)";
    host.set_transcript(Err(missing.into()));
    assert_eq!(analyze(serde_json::json!({})).unwrap_err().to_string(), missing);

    // Decoding a video without ffmpeg.
    host.set_probe(Ok(MediaInfo { kind: MediaKind::Video, duration_ms: 3_000, ..Default::default() }));
    let no_ffmpeg = "ffmpeg is not installed: needed to decode video frames";
    host.set_frames(Err(no_ffmpeg.into()));
    assert_eq!(analyze(serde_json::json!({})).unwrap_err().to_string(), no_ffmpeg);

    // Bytes that are no media at all.
    host.set_probe(Err("unreadable media: not a known format".into()));
    assert_eq!(analyze(serde_json::json!({})).unwrap_err().to_string(), "unreadable media: not a known format");

    // Labels of a picture.
    let host = picture(&[], 0);
    host.set_labels(Err("models not installed: run `trellis models install`".into()));
    assert!(analyze(serde_json::json!({})).unwrap_err().to_string().starts_with("models not installed"));
}

#[test]
fn a_file_that_is_no_media_gets_one_sentence_and_no_model_calls() {
    let host = TestHost::new();
    host.set_probe(Ok(MediaInfo { kind: MediaKind::Other, ..Default::default() }));

    let result = analyze(serde_json::json!({})).unwrap();

    assert_eq!(result.sentences.len(), 1);
    assert!(result.sentences[0].text.ends_with('.'));
    assert_eq!(host.inference_calls(), ["probe"]);
}

#[test]
fn manifest_is_valid_and_asks_for_the_inference_capabilities() {
    let manifest = AnalysisDefault::manifest();
    manifest.check().unwrap();
    assert_eq!(manifest.id(), "analysis-default");
    assert_eq!(manifest.permissions().len(), 4);
}

#[test]
fn printed_text_becomes_the_text_a_tag_and_a_sentence_quoting_its_start() {
    // Arrange
    let host = picture(&[("street sign", 0.7)], 0);
    host.set_text(Ok(text(&["PLATFORM 2", "Trains to the airport every ten minutes"])));

    // Act
    let result = analyze(serde_json::json!({})).unwrap();

    // Assert
    let expected = "PLATFORM 2\nTrains to the airport every ten minutes";
    assert_eq!(result.text, Some(Finding::from_model(expected, TESSERACT)));
    assert!(result.tags.contains(&Finding::from_model("text", TESSERACT)), "{:?}", result.tags);
    assert_eq!(sentences(&result).last(), Some(&"It carries printed text, beginning “PLATFORM 2”."));
    assert_eq!(host.inference_calls().last().map(String::as_str), Some("read_text(0)"));
}

#[test]
fn a_picture_without_writing_has_no_text_tag_or_sentence() {
    let _host = picture(&[("golden retriever", 0.91)], 0);

    let result = analyze(serde_json::json!({})).unwrap();

    assert_eq!(result.text, None);
    assert!(!result.tags.iter().any(|t| t.text == "text"));
}

#[test]
fn a_host_that_cannot_read_text_leaves_the_rest_of_the_analysis_standing() {
    // Arrange
    let host = picture(&[("golden retriever", 0.91)], 0);
    host.set_text(Err("tesseract is not installed: needed to read text in pictures".into()));

    // Act
    let result = analyze(serde_json::json!({})).unwrap();

    // Assert
    assert_eq!(result.text, None);
    assert_eq!(result.tags, [Finding::from_model("golden retriever", LABELS)]);
}

#[test]
fn a_video_s_lines_are_read_from_every_frame_once_each() {
    // Arrange
    let host = TestHost::new();
    host.set_probe(Ok(MediaInfo {
        kind: MediaKind::Video,
        width: 640,
        height: 360,
        duration_ms: 8_000,
        ..Default::default()
    }));
    host.set_frames(Ok(3));
    host.set_labels(Ok(labels(&[("streetcar", 0.6)])));
    host.set_faces(Ok(faces(0)));
    host.set_objects(Ok(Objects::default()));
    host.set_text(Ok(text(&["MAIN STREET", "  ", "MAIN STREET"])));

    // Act
    let result = analyze(serde_json::json!({"frames": 3})).unwrap();

    // Assert
    assert_eq!(result.text.map(|t| t.text), Some("MAIN STREET".into()));
    let reads: Vec<String> = host.inference_calls().into_iter().filter(|c| c.starts_with("read_text")).collect();
    assert_eq!(reads, ["read_text(0)", "read_text(1)", "read_text(2)"]);
}

#[test]
fn a_long_first_line_is_quoted_up_to_a_word() {
    let long = "Men may seem detestable as joint stock-companies and nations; knaves, fools";
    let sentence = crate::compose::text_sentence(&Finding::from_model(long, TESSERACT));
    assert_eq!(sentence.text, "It carries printed text: “Men may seem detestable as joint stock-companies and…”.");
}

#[test]
fn people_the_faces_miss_and_the_street_they_walk_in_are_tagged_and_said() {
    // Arrange: walkers seen from behind (no face) between cars and a traffic light.
    let host = picture(&[("streetcar", 0.3)], 0);
    let thing =
        |name: &str, score| trellis_plugin_sdk::vision::Object { name: name.into(), score, ..Default::default() };
    let found = vec![thing("person", 0.86), thing("person", 0.71), thing("car", 0.8), thing("traffic light", 0.6)];
    host.set_objects(Ok(Objects { objects: found, model: "yolox-nano (coco)".into() }));

    // Act
    let result = analyze(serde_json::json!({})).unwrap();

    // Assert
    assert_eq!(result.tag_texts(), ["streetcar", "people", "car", "traffic light", "street"]);
    assert_eq!(
        sentences(&result)[..3],
        ["The picture probably shows a streetcar.", "Two people are in the picture.", "It looks like a street."]
    );
    assert_eq!(result.tags[1].model.as_deref(), Some("yolox-nano (coco)"));
}
