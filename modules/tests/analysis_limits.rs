//! What the host bounds around analysis steps: grants, the size of capability answers, and time (the
//! step's own code against its deadline; capability calls by the host's own bounds).

use std::time::{Duration, Instant};

use trellis_modules::{
    EnabledModule, Grant, Label, MAX_MODEL_BYTES, MAX_TRANSCRIPT_BYTES, MediaInfo, MediaKind, ModuleFailure,
    ModulesConfig, Segment,
};

use crate::analysis::{DEFAULT, FakeMedia, PROBE_WASM, STEP_BUDGET, analyze, analyze_on, host_with, recording, steps};
use crate::support::plugin;

#[test]
fn a_step_without_its_inference_grants_is_refused_and_the_reason_names_them() {
    // Arrange: analysis-probe imports media, vision and speech; this deployment grants only speech.
    let enable = vec![EnabledModule::file(plugin(PROBE_WASM), vec![Grant::Speech], Vec::new())];

    // Act
    let host = host_with(enable, ModulesConfig::default()).expect("a bad entry is not fatal");

    // Assert
    let [refused] = host.refused() else { panic!("one refusal expected: {:?}", host.refused()) };
    let message = &refused.reason;
    assert!(message.contains("did not grant") && message.contains("media-decode, vision"), "{message}");
}

#[tokio::test]
async fn capability_answers_are_bounded_before_the_guest_sees_them() {
    // Arrange: far more than the host hands out.
    let media = FakeMedia {
        info: Some(MediaInfo { kind: MediaKind::Video, width: 1, height: 1, duration_ms: 1, has_sound: true }),
        frames: 1_000,
        labels: (0..50).map(|i| Label { name: format!("label {i}"), score: 0.5 }).collect(),
        faces: 500,
        segments: vec![Segment { start_ms: 0, end_ms: 1, text: "x".repeat(200) }; 20_000],
        text: vec!["y".repeat(100); 1_000],
        model: Some("m".repeat(1_000)),
        ..FakeMedia::default()
    };

    // Act
    let found = analyze(&steps().probe_id, serde_json::json!({"measure": true}), media).await.unwrap();

    // Assert
    let sentences: Vec<&str> = found.sentences.iter().map(|s| s.text.as_str()).collect();
    let model_bytes = format!("model bytes {MAX_MODEL_BYTES}.");
    assert_eq!(sentences[..4], ["frames 16.", "labels 20.", "faces 100.", "segments 5243."]);
    assert_eq!(sentences[4], format!("transcript bytes {MAX_TRANSCRIPT_BYTES}."));
    assert_eq!(sentences[5], model_bytes);
    // 200 lines of 100 bytes would be 20,199 bytes: whole lines are kept up to 16 KiB.
    assert_eq!(sentences[6..], ["text lines 162.", "text bytes 16361."]);
}

#[tokio::test]
async fn time_in_a_capability_does_not_count_against_the_step_s_deadline() {
    // Arrange: transcription takes three times the step's budget.
    let media = FakeMedia { transcribe_delay: STEP_BUDGET * 3, ..recording(&[" Slow but sure."]) };
    let started = Instant::now();

    // Act
    let found = analyze(DEFAULT, serde_json::json!({}), media).await;

    // Assert
    assert_eq!(found.unwrap().transcript.unwrap().text, "Slow but sure.");
    assert!(started.elapsed() >= STEP_BUDGET * 3);
}

#[tokio::test]
async fn a_spinning_step_still_ends_at_its_deadline() {
    let started = Instant::now();

    let failure = analyze(&steps().probe_id, serde_json::json!({"spin": true}), FakeMedia::default()).await;

    let took = started.elapsed();
    assert_eq!(failure.unwrap_err(), ModuleFailure::Deadline);
    assert!(took >= STEP_BUDGET && took < STEP_BUDGET + Duration::from_millis(1_500), "{took:?}");
}

#[tokio::test]
async fn a_capability_call_past_its_own_bound_answers_the_step_with_an_error() {
    // Arrange: calls may take 100 ms each; transcription takes 600.
    let settings = ModulesConfig { analysis_capability_timeout_ms: 100, ..ModulesConfig::default() };
    let host = host_with(vec![EnabledModule::bundled(DEFAULT)], settings).unwrap();
    let media = FakeMedia { transcribe_delay: Duration::from_millis(600), ..recording(&["late"]) };

    // Act
    let failure = analyze_on(&host, DEFAULT, serde_json::json!({}), "a.wav", media).await.unwrap_err();

    // Assert
    assert_eq!(failure, ModuleFailure::ModuleError("speech.transcribe did not answer within 100 ms".into()));
}

#[tokio::test]
async fn capability_time_of_one_step_is_bounded_in_all() {
    // Arrange: 150 ms of capability time in all; transcription alone takes 400.
    let settings = ModulesConfig { analysis_capability_budget_ms: 150, ..ModulesConfig::default() };
    let host = host_with(vec![EnabledModule::bundled(DEFAULT)], settings).unwrap();
    let media = FakeMedia { transcribe_delay: Duration::from_millis(400), ..recording(&["late"]) };

    // Act
    let failure = analyze_on(&host, DEFAULT, serde_json::json!({}), "a.wav", media).await.unwrap_err();

    // Assert
    assert_eq!(failure, ModuleFailure::Deadline);
}
