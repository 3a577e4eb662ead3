//! The background analysis of published assets (capability 11; conventions 4, 12, 13): real photos,
//! speech and video through the real models and the bundled `analysis-default` step, failures that
//! end FAILED with a clear `error`, provenance per step, a third-party step a space connects, and
//! the tags reaching the Tags module.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use trellis_tests::{TestApp, TestUser, spawn_app_with};

use crate::support::analysis::{
    analysed, analysing, approved, giant_frame_video, growing_video, models_present, photo, recall, speech, still,
    video,
};
use crate::support::assets::{decide, read};
use crate::support::modules::{connect, enable_analysis_probe, wait_until};
use crate::support::spaces::{created_space, id};

/// Lets the tests read `/metrics`.
const METRICS_TOKEN: &str = "metrics-token-for-the-analysis-tests";

/// Generous: the whole test run shares two cores.
const WITHIN: Duration = Duration::from_secs(180);

const SENTENCE: &str = "The quick brown fox jumps over the lazy dog. Please send the report to the office before noon.";

async fn gallery(app: &TestApp) -> (TestUser, String) {
    let ann = app.sign_up("ann").await;
    let space_id = id(&created_space(app, &ann, "gallery").await);
    (ann, space_id)
}

fn labels_of(asset: &Value) -> String {
    asset["analysis"]["tags"].as_array().map(|t| format!("{t:?}")).unwrap_or_default().to_lowercase()
}

#[tokio::test]
async fn a_real_photo_gets_sensible_tags_and_a_composed_english_description() {
    let test = "a_real_photo_gets_sensible_tags_and_a_composed_english_description";
    let (Some(eagle), true) = (photo(test, "eagle.jpg"), models_present(test)) else { return };
    let app = spawn_app_with(analysing).await;
    let (ann, space_id) = gallery(&app).await;
    // Act
    let asset_id = approved(&app, &ann.token, &space_id, "eagle.jpg", "image/jpeg", eagle).await;
    let asset = analysed(&app, &ann.token, &space_id, &asset_id, WITHIN).await;
    // Assert: a bird of prey, said in sentences, traced to the step and its models
    let analysis = &asset["analysis"];
    assert_eq!(analysis["state"], "SUCCEEDED", "{asset}");
    assert_eq!(analysis["error"], Value::Null);
    let tags = labels_of(&asset);
    assert!(["kite", "eagle", "vulture", "hawk"].iter().any(|bird| tags.contains(bird)), "tags: {tags}");
    let description = analysis["description"].as_str().expect("a description");
    assert!(description.ends_with('.') && description.chars().next().is_some_and(char::is_uppercase), "{description}");
    assert!(["kite", "eagle", "vulture", "hawk"].iter().any(|bird| description.contains(bird)), "{description}");
    let step = &analysis["steps"][0];
    assert_eq!(step["module"], "analysis-default");
    assert_eq!(step["state"], "SUCCEEDED");
    assert!(step["tags"][0]["model"].as_str().is_some_and(|m| m.to_lowercase().contains("efficientnet")), "{step}");
    assert!(step["sentences"].as_array().is_some_and(|s| !s.is_empty()), "{step}");
    assert_eq!(analysis["transcript"], Value::Null);
    assert_eq!(analysis["text"], Value::Null, "a photo without writing has no text: {asset}");
    app.stop().await;
}

#[tokio::test]
async fn a_photo_of_people_walking_gets_a_people_tag_though_no_face_is_seen() {
    let test = "a_photo_of_people_walking_gets_a_people_tag_though_no_face_is_seen";
    // OpenCV's vtest.avi (opencv-doc): people walking across a campus road, seen from a window above.
    let (Some(walk), true) = (photo(test, "vtest.avi"), models_present(test)) else { return };
    let Some(png) = still(test, &walk, 3) else { return };
    let app = spawn_app_with(analysing).await;
    let (ann, space_id) = gallery(&app).await;
    let asset_id = approved(&app, &ann.token, &space_id, "walkers.png", "image/png", png).await;
    let asset = analysed(&app, &ann.token, &space_id, &asset_id, WITHIN).await;
    let analysis = &asset["analysis"];
    assert_eq!(analysis["state"], "SUCCEEDED", "{asset}");
    let tags = labels_of(&asset);
    assert!(tags.contains("\"people\""), "tags: {tags}");
    assert!(!tags.contains("face"), "the walkers are too small for a face: {tags}");
    let people = analysis["steps"][0]["tags"].as_array().unwrap().iter().find(|t| t["text"] == "people").unwrap();
    assert!(people["model"].as_str().is_some_and(|m| m.contains("yolox")), "{people}");
    let description = analysis["description"].as_str().unwrap_or_default();
    assert!(description.contains("people are in the picture"), "{description}");
    app.stop().await;
}

#[tokio::test]
async fn a_video_of_a_street_scene_gets_people_in_its_tags_and_description() {
    let test = "a_video_of_a_street_scene_gets_people_in_its_tags_and_description";
    let (Some(walk), true) = (photo(test, "vtest.avi"), models_present(test)) else { return };
    let app = spawn_app_with(analysing).await;
    let (ann, space_id) = gallery(&app).await;
    let asset_id = approved(&app, &ann.token, &space_id, "vtest.avi", "video/x-msvideo", walk).await;
    let asset = analysed(&app, &ann.token, &space_id, &asset_id, WITHIN).await;
    let analysis = &asset["analysis"];
    assert_eq!(analysis["state"], "SUCCEEDED", "{asset}");
    assert!(labels_of(&asset).contains("\"people\""), "{asset}");
    let description = analysis["description"].as_str().unwrap_or_default();
    assert!(description.contains("people appear at once in its frames"), "{description}");
    app.stop().await;
}

/// The first and last lines of scikit-image's `bw_text.png`, a printed passage of Moby-Dick.
const PASSAGE_FIRST: &str = "Men may seem detestable as joint";
const PASSAGE_LAST: &str = "costliest robes.";

#[tokio::test]
async fn a_picture_of_printed_words_returns_them_in_analysis_text() {
    let test = "a_picture_of_printed_words_returns_them_in_analysis_text";
    let (Some(page), true) = (photo(test, "bw_text.png"), models_present(test)) else { return };
    let app = spawn_app_with(analysing).await;
    let (ann, space_id) = gallery(&app).await;
    // Act
    let asset_id = approved(&app, &ann.token, &space_id, "passage.png", "image/png", page).await;
    let asset = analysed(&app, &ann.token, &space_id, &asset_id, WITHIN).await;
    // Assert: the lines in order, joined by newlines, traced to the OCR model
    let analysis = &asset["analysis"];
    assert_eq!(analysis["state"], "SUCCEEDED", "{asset}");
    let text = analysis["text"].as_str().expect("a text");
    let lines: Vec<&str> = text.split('\n').collect();
    assert_eq!((lines.first(), lines.last(), lines.len()), (Some(&PASSAGE_FIRST), Some(&PASSAGE_LAST), 10), "{text}");
    let model = analysis["steps"][0]["text"]["model"].as_str().unwrap_or_default();
    assert!(model.starts_with("tesseract ") && model.contains("eng"), "{asset}");
    assert_eq!(analysis["steps"][0]["text"]["text"].as_str(), Some(text));
    assert!(labels_of(&asset).contains("\"text\""), "{asset}");
    assert!(analysis["description"].as_str().is_some_and(|d| d.contains(PASSAGE_FIRST)), "{asset}");
    app.stop().await;
}

#[tokio::test]
async fn a_video_of_printed_words_has_them_in_its_text_once() {
    let test = "a_video_of_printed_words_has_them_in_its_text_once";
    let (Some(page), Some(wav), true) = (photo(test, "bw_text.png"), speech(test, SENTENCE), models_present(test))
    else {
        return;
    };
    let Some(mp4) = video(test, &page, &wav) else { return };
    let app = spawn_app_with(analysing).await;
    let (ann, space_id) = gallery(&app).await;
    let asset_id = approved(&app, &ann.token, &space_id, "reading.mp4", "video/mp4", mp4).await;
    let asset = analysed(&app, &ann.token, &space_id, &asset_id, WITHIN).await;
    let analysis = &asset["analysis"];
    assert_eq!(analysis["state"], "SUCCEEDED", "{asset}");
    // Every keyframe shows the same page: each line appears once.
    let text = analysis["text"].as_str().expect("a text");
    assert_eq!(text.matches(PASSAGE_FIRST).count(), 1, "{text}");
    assert!(text.contains(PASSAGE_LAST), "{text}");
    app.stop().await;
}

#[tokio::test]
async fn a_photo_of_people_is_tagged_with_their_faces() {
    let test = "a_photo_of_people_is_tagged_with_their_faces";
    // scikit-image's astronaut (NASA, public domain): one frontal face.
    let (Some(portrait), true) = (photo(test, "astronaut.png"), models_present(test)) else { return };
    let app = spawn_app_with(analysing).await;
    let (ann, space_id) = gallery(&app).await;
    let asset_id = approved(&app, &ann.token, &space_id, "astronaut.png", "image/png", portrait).await;
    let asset = analysed(&app, &ann.token, &space_id, &asset_id, WITHIN).await;
    let analysis = &asset["analysis"];
    assert_eq!(analysis["state"], "SUCCEEDED", "{asset}");
    let description = analysis["description"].as_str().unwrap().to_lowercase();
    assert!(description.contains("face"), "{description}");
    let models: Vec<&str> =
        analysis["steps"][0]["sentences"].as_array().unwrap().iter().filter_map(|s| s["model"].as_str()).collect();
    assert!(models.iter().any(|m| m.to_lowercase().contains("rustface")), "{models:?}");
    app.stop().await;
}

#[tokio::test]
async fn a_spoken_recording_gets_its_words_back() {
    let test = "a_spoken_recording_gets_its_words_back";
    let (Some(wav), true) = (speech(test, SENTENCE), models_present(test)) else { return };
    let app = spawn_app_with(analysing).await;
    let (ann, space_id) = gallery(&app).await;
    let asset_id = approved(&app, &ann.token, &space_id, "memo.wav", "audio/wav", wav).await;
    let asset = analysed(&app, &ann.token, &space_id, &asset_id, WITHIN).await;
    let analysis = &asset["analysis"];
    assert_eq!(analysis["state"], "SUCCEEDED", "{asset}");
    let transcript = analysis["transcript"].as_str().expect("a transcript");
    assert!(recall(SENTENCE, transcript) >= 0.8, "heard {transcript:?}");
    assert!(analysis["steps"][0]["transcript"]["model"].as_str().is_some_and(|m| m.contains("whisper")), "{asset}");
    app.stop().await;
}

#[tokio::test]
async fn a_video_gets_keyframe_tags_and_a_transcript_of_its_soundtrack() {
    let test = "a_video_gets_keyframe_tags_and_a_transcript_of_its_soundtrack";
    let (Some(eagle), Some(wav), true) = (photo(test, "eagle.jpg"), speech(test, SENTENCE), models_present(test))
    else {
        return;
    };
    let Some(mp4) = video(test, &eagle, &wav) else { return };
    let app = spawn_app_with(analysing).await;
    let (ann, space_id) = gallery(&app).await;
    let asset_id = approved(&app, &ann.token, &space_id, "clip.mp4", "video/mp4", mp4).await;
    let asset = analysed(&app, &ann.token, &space_id, &asset_id, WITHIN).await;
    let analysis = &asset["analysis"];
    assert_eq!(analysis["state"], "SUCCEEDED", "{asset}");
    let tags = labels_of(&asset);
    assert!(["kite", "eagle", "vulture", "hawk"].iter().any(|bird| tags.contains(bird)), "tags: {tags}");
    assert!(recall(SENTENCE, analysis["transcript"].as_str().unwrap_or_default()) >= 0.8, "{asset}");
    assert!(analysis["description"].as_str().is_some_and(|d| d.contains("video")), "{asset}");
    app.stop().await;
}

#[tokio::test]
async fn unreadable_bytes_end_failed_with_a_clear_error() {
    let test = "unreadable_bytes_end_failed_with_a_clear_error";
    if !models_present(test) {
        return;
    }
    let app = spawn_app_with(analysing).await;
    let (ann, space_id) = gallery(&app).await;
    // A PNG signature (so the upload is accepted as image/png) followed by no picture at all.
    let mut broken = b"\x89PNG\r\n\x1a\n".to_vec();
    broken.extend(std::iter::repeat_n(0x42, 4_000));
    let asset_id = approved(&app, &ann.token, &space_id, "broken.png", "image/png", broken).await;
    let asset = analysed(&app, &ann.token, &space_id, &asset_id, WITHIN).await;
    assert_eq!(asset["analysis"]["state"], "FAILED", "{asset}");
    let error = asset["analysis"]["error"].as_str().unwrap();
    assert!(error.contains("analysis-default") && error.contains("unreadable"), "{error}");
    app.stop().await;
}

#[tokio::test]
async fn a_giant_frame_in_a_small_video_cannot_take_the_media_tools_past_their_memory_bound() {
    // Issue 28: 1.5 MB of Matroska holding one 16000×16000 16-bit PNG frame drove ffprobe and ffmpeg to
    // 1.5-2 GB resident each. Now PNG is not among the decoders, each run maps at most
    // `tool_memory_bytes`, and frames are measured before decoding.
    let test = "a_giant_frame_in_a_small_video_cannot_take_the_media_tools_past_their_memory_bound";
    let (Some(giant), true) = (giant_frame_video(test), models_present(test)) else { return };
    let app = spawn_app_with(|config| {
        analysing(config);
        config.metrics.token = Some(METRICS_TOKEN.into());
    })
    .await;
    let (ann, space_id) = gallery(&app).await;
    // Act
    let asset_id = approved(&app, &ann.token, &space_id, "giant.mkv", "video/x-matroska", giant).await;
    let asset = analysed(&app, &ann.token, &space_id, &asset_id, WITHIN).await;
    // Assert: the analysis failed readably, and no child of this process (the server's ffprobe and
    // ffmpeg runs among them) ever held 1 GiB.
    assert_eq!(asset["analysis"]["state"], "FAILED", "{asset}");
    let metrics = app.request(Method::GET, "/metrics").bearer_auth(METRICS_TOKEN).send().await.unwrap();
    let metrics = metrics.text().await.unwrap();
    let peak: f64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("trellis_media_tools_peak_resident_bytes "))
        .expect("the peak is published")
        .parse()
        .unwrap();
    assert!(peak > 0.0, "the tools ran");
    assert!(peak < f64::from(1u32 << 30), "a media tool held {peak} bytes");
    app.stop().await;
}

#[tokio::test]
async fn a_video_whose_frames_grow_past_the_bound_after_a_small_first_one_is_not_decoded() {
    // Security III, finding 6: the frame-size bound read only the first frame from ffprobe, so a
    // 64×64 first frame let 144-megapixel ones through to the decoder. The decoder now has the bound.
    let test = "a_video_whose_frames_grow_past_the_bound_after_a_small_first_one_is_not_decoded";
    let (Some(grows), true) = (growing_video(test), models_present(test)) else { return };
    // Arrange: frames of at most 8,192 pixels: the first (4,096) passes, the later ones (65,536) not.
    let app = spawn_app_with(|config| {
        analysing(config);
        config.analysis.max_pixels = 64 * 64 * 2;
    })
    .await;
    let (ann, space_id) = gallery(&app).await;
    // Act
    let asset_id = approved(&app, &ann.token, &space_id, "grows.ts", "video/mp2t", grows).await;
    let asset = analysed(&app, &ann.token, &space_id, &asset_id, WITHIN).await;
    // Assert: the frames past the bound were refused, so the analysis failed instead of reading them.
    assert_eq!(asset["analysis"]["state"], "FAILED", "{asset}");
    app.stop().await;
}

#[tokio::test]
async fn without_models_the_analysis_fails_saying_how_to_install_them() {
    let test = "without_models_the_analysis_fails_saying_how_to_install_them";
    let Some(eagle) = photo(test, "eagle.jpg") else { return };
    let empty = tempfile::tempdir().unwrap();
    let models = empty.path().to_owned();
    let models_path = models.display().to_string();
    let app = spawn_app_with(move |config| {
        analysing(config);
        config.analysis.models_dir = Some(models);
    })
    .await;
    let (ann, space_id) = gallery(&app).await;
    let asset_id = approved(&app, &ann.token, &space_id, "eagle.jpg", "image/jpeg", eagle).await;
    let asset = analysed(&app, &ann.token, &space_id, &asset_id, WITHIN).await;
    assert_eq!(asset["analysis"]["state"], "FAILED", "{asset}");
    let error = asset["analysis"]["error"].as_str().unwrap();
    assert!(error.contains("models not installed: run `trellis models install`"), "{error}");
    // Members read this: it names the missing file, not where the server keeps it (issue 28).
    assert!(!error.contains(&models_path), "{error}");
    app.stop().await;
}

#[tokio::test]
async fn a_step_the_space_connects_adds_its_tags_and_its_failure_fails_the_analysis() {
    let test = "a_step_the_space_connects_adds_its_tags_and_its_failure_fails_the_analysis";
    let (Some(eagle), true) = (photo(test, "eagle.jpg"), models_present(test)) else { return };
    let app = spawn_app_with(|config| {
        analysing(config);
        enable_analysis_probe(config);
    })
    .await;
    let (ann, space_id) = gallery(&app).await;
    connect(&app, &ann, &space_id, json!([{"moduleId": "analysis-probe", "config": {"words": ["eagle", "sky"]}}]))
        .await;
    // Act: a file name the probe recognises
    let asset_id = approved(&app, &ann.token, &space_id, "eagle-in-the-sky.jpg", "image/jpeg", eagle.clone()).await;
    let asset = analysed(&app, &ann.token, &space_id, &asset_id, WITHIN).await;
    // Assert: both steps ran in order, the probe's tags joined
    assert_eq!(asset["analysis"]["state"], "SUCCEEDED", "{asset}");
    let steps: Vec<&str> =
        asset["analysis"]["steps"].as_array().unwrap().iter().filter_map(|s| s["module"].as_str()).collect();
    assert_eq!(steps, ["analysis-default", "analysis-probe"]);
    let tags = labels_of(&asset);
    assert!(tags.contains("sky"), "{tags}");
    // Act: the probe now fails
    let failing = json!([{"moduleId": "analysis-probe", "config": {"fail": "the domain dictionary is offline"}}]);
    connect(&app, &ann, &space_id, failing).await;
    let second = approved(&app, &ann.token, &space_id, "again.jpg", "image/jpeg", eagle).await;
    let failed = analysed(&app, &ann.token, &space_id, &second, WITHIN).await;
    // Assert: FAILED naming the step and its words; what the default step found is kept
    assert_eq!(failed["analysis"]["state"], "FAILED", "{failed}");
    let error = failed["analysis"]["error"].as_str().unwrap();
    assert!(error.contains("analysis-probe") && error.contains("the domain dictionary is offline"), "{error}");
    assert!(!failed["analysis"]["tags"].as_array().unwrap().is_empty(), "{failed}");
    assert_eq!(failed["analysis"]["steps"][1]["state"], "FAILED");
    app.stop().await;
}

#[tokio::test]
async fn analysis_runs_once_per_asset_and_its_tags_reach_the_tags_module() {
    let test = "analysis_runs_once_per_asset_and_its_tags_reach_the_tags_module";
    let (Some(eagle), true) = (photo(test, "eagle.jpg"), models_present(test)) else { return };
    let app = spawn_app_with(analysing).await;
    let (ann, space_id) = gallery(&app).await;
    connect(&app, &ann, &space_id, json!([{"moduleId": "tags", "config": {}}])).await;
    let asset_id = approved(&app, &ann.token, &space_id, "eagle.jpg", "image/jpeg", eagle).await;
    let first = analysed(&app, &ann.token, &space_id, &asset_id, WITHIN).await;
    assert_eq!(first["analysis"]["state"], "SUCCEEDED", "{first}");
    // Act: enable, disable, enable again
    for state in ["ENABLED", "DISABLED", "ENABLED"] {
        decide(&app, &ann.token, &space_id, &asset_id, state).await.expect(StatusCode::OK);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    // Assert: the same analysis, not queued again
    let path = format!("/v0/spaces/{space_id}/assets/{asset_id}");
    let later = read(&app, &ann.token, &path).await;
    assert_eq!(later["analysis"], first["analysis"]);
    // ...and the Tags module holds the analysis's tags for the asset
    let tags_path = format!("/v0/spaces/{space_id}/modules/tags/items/{asset_id}/tags");
    let tagged =
        wait_until(&app, &ann.token, &tags_path, |t| t["tags"].as_array().is_some_and(|t| !t.is_empty())).await;
    let expected: Vec<String> =
        first["analysis"]["tags"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_lowercase()).collect();
    let held: Vec<String> = tagged["tags"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_owned()).collect();
    assert!(expected.iter().all(|t| held.contains(t)), "analysis {expected:?}, tags module {held:?}");
    app.stop().await;
}
