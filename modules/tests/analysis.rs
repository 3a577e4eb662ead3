//! Analysis steps on the real host: the bundled analysis-default over a fake `MediaAnalysis` (the models
//! are the host crate's business), the third-party analysis-probe, and a WIT 0.1.0 step.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use async_trait::async_trait;
use trellis_modules::{
    AnalysisResult, AssetInfo, BundledModule, BytesAsset, Colour, EnabledModule, Face, Faces, Finding, Grant,
    Invocation, Label, Labels, MediaAnalysis, MediaInfo, MediaKind, MemoryKv, ModuleFailure, ModuleHost, ModulesConfig,
    Object, Objects, PictureFacts, Segment, Text, Transcript, WitVersion, check,
};

use crate::support::{cache_dir, plugin};

pub const DEFAULT: &str = "analysis-default";
pub const PROBE_WASM: &str = "trellis_analysis_probe.wasm";
pub const LEGACY_WASM: &str = "trellis_analysis_legacy.wasm";
/// The shared analysis host's budget for a step's own code.
pub const STEP_BUDGET: Duration = Duration::from_millis(400);

pub const LABELS: &str = "efficientnet-lite0 (imagenet-1k)";
pub const FACES: &str = "rustface 0.1";
pub const WHISPER: &str = "whisper tiny.en";
pub const TESSERACT: &str = "tesseract 5.3.0 (eng)";
pub const YOLOX: &str = "yolox-nano (coco)";

/// Answers as a real host would for one asset, optionally slowly or failing, and records every call.
#[derive(Default)]
pub struct FakeMedia {
    pub info: Option<MediaInfo>,
    pub frames: u32,
    pub labels: Vec<Label>,
    pub faces: usize,
    pub segments: Vec<Segment>,
    /// The printed lines of every frame.
    pub text: Vec<String>,
    /// The things in every frame, by name and score.
    pub objects: Vec<(String, f32)>,
    pub model: Option<String>,
    pub transcribe_delay: Duration,
    pub transcribe_error: Option<String>,
    pub calls: Mutex<Vec<String>>,
}

impl FakeMedia {
    fn call(&self, what: String) {
        self.calls.lock().unwrap().push(what);
    }

    fn model(&self, default: &str) -> String {
        self.model.clone().unwrap_or_else(|| default.to_owned())
    }
}

#[async_trait]
impl MediaAnalysis for FakeMedia {
    async fn probe(&self) -> Result<MediaInfo, String> {
        self.call("probe".into());
        self.info.ok_or_else(|| "unreadable media: not a known format".to_owned())
    }

    async fn frames(&self, count: u32) -> Result<u32, String> {
        self.call(format!("frames({count})"));
        Ok(count.min(self.frames))
    }

    async fn classify(&self, frame: u32, limit: u32) -> Result<Labels, String> {
        self.call(format!("classify({frame}, {limit})"));
        Ok(Labels { labels: self.labels.clone(), model: self.model(LABELS) })
    }

    async fn detect_faces(&self, frame: u32) -> Result<Faces, String> {
        self.call(format!("detect_faces({frame})"));
        let face = Face { x: 10, y: 10, width: 40, height: 40, score: 0.9 };
        Ok(Faces { faces: vec![face; self.faces], model: self.model(FACES) })
    }

    async fn facts(&self, frame: u32) -> Result<PictureFacts, String> {
        self.call(format!("facts({frame})"));
        let colour = |name: &str, share| Colour { name: name.into(), share };
        Ok(PictureFacts {
            width: 1600,
            height: 900,
            orientation: "landscape".into(),
            colours: vec![colour("blue", 0.5), colour("white", 0.3)],
            brightness: 0.8,
        })
    }

    async fn detect_objects(&self, frame: u32) -> Result<Objects, String> {
        self.call(format!("detect_objects({frame})"));
        let objects = self
            .objects
            .iter()
            .map(|(name, score)| Object { name: name.clone(), x: 5, y: 5, width: 50, height: 120, score: *score })
            .collect();
        Ok(Objects { objects, model: self.model(YOLOX) })
    }

    async fn read_text(&self, frame: u32) -> Result<Text, String> {
        self.call(format!("read_text({frame})"));
        Ok(Text { lines: self.text.clone(), model: self.model(TESSERACT) })
    }

    async fn transcribe(&self) -> Result<Transcript, String> {
        self.call("transcribe".into());
        tokio::time::sleep(self.transcribe_delay).await;
        match &self.transcribe_error {
            Some(message) => Err(message.clone()),
            None => Ok(Transcript { segments: self.segments.clone(), model: self.model(WHISPER) }),
        }
    }
}

pub fn picture(labels: &[(&str, f32)], faces: usize) -> FakeMedia {
    FakeMedia {
        info: Some(MediaInfo { kind: MediaKind::Image, width: 1600, height: 900, duration_ms: 0, has_sound: false }),
        frames: 1,
        labels: labels.iter().map(|(name, score)| Label { name: (*name).into(), score: *score }).collect(),
        faces,
        ..FakeMedia::default()
    }
}

pub fn recording(words: &[&str]) -> FakeMedia {
    FakeMedia {
        info: Some(MediaInfo { kind: MediaKind::Audio, width: 0, height: 0, duration_ms: 45_000, has_sound: true }),
        segments: words.iter().map(|w| Segment { start_ms: 0, end_ms: 1_000, text: (*w).into() }).collect(),
        ..FakeMedia::default()
    }
}

/// What the analysis tests bundle: analysis-default, as the server does.
pub fn bundled() -> Vec<BundledModule> {
    vec![BundledModule::new(DEFAULT, std::fs::read(plugin("trellis_analysis_default.wasm")).unwrap())]
}

pub fn host_with(enable: Vec<EnabledModule>, settings: ModulesConfig) -> anyhow::Result<ModuleHost> {
    let settings = ModulesConfig { enable, cache_dir: Some(cache_dir()), ..settings };
    ModuleHost::new(settings, &bundled(), Arc::new(MemoryKv::new()))
}

pub struct Steps {
    pub host: ModuleHost,
    pub probe_id: String,
    pub legacy_id: String,
}

/// analysis-default (bundled), analysis-probe (a file, granted everything it asks) and analysis-legacy.
pub fn steps() -> &'static Steps {
    static STEPS: OnceLock<Steps> = OnceLock::new();
    STEPS.get_or_init(|| {
        let probe_id = trellis_modules::inspect(&plugin(PROBE_WASM)).unwrap().id;
        let legacy_id = trellis_modules::inspect(&plugin(LEGACY_WASM)).unwrap().id;
        let inference = vec![Grant::MediaDecode, Grant::Vision, Grant::Speech];
        let enable = vec![
            EnabledModule::bundled(DEFAULT),
            EnabledModule::file(plugin(PROBE_WASM), inference, Vec::new()),
            EnabledModule::file(plugin(LEGACY_WASM), Vec::new(), Vec::new()),
        ];
        let settings = ModulesConfig { analysis_deadline_ms: STEP_BUDGET.as_millis() as u64, ..Default::default() };
        let host = host_with(enable, settings).expect("analysis steps load");
        Steps { host, probe_id, legacy_id }
    })
}

pub fn asset(filename: &str) -> AssetInfo {
    AssetInfo { asset_id: "asset-1".into(), filename: filename.into(), content_type: String::new(), bytes: 3 }
}

pub async fn analyze_on(
    host: &ModuleHost,
    id: &str,
    config: serde_json::Value,
    filename: &str,
    media: FakeMedia,
) -> Result<AnalysisResult, ModuleFailure> {
    let invocation = Invocation { space_id: String::new(), config_json: config.to_string() };
    host.analyze(id, invocation, asset(filename), Arc::new(BytesAsset(b"abc".to_vec())), Arc::new(media)).await
}

pub async fn analyze(id: &str, config: serde_json::Value, media: FakeMedia) -> Result<AnalysisResult, ModuleFailure> {
    analyze_on(&steps().host, id, config, "file.bin", media).await
}

fn texts(findings: &[Finding]) -> Vec<&str> {
    findings.iter().map(|f| f.text.as_str()).collect()
}

#[tokio::test]
async fn analysis_default_describes_a_photo_with_findings_and_their_models() {
    // Act
    let result = analyze(DEFAULT, serde_json::json!({}), picture(&[("golden retriever", 0.91)], 2)).await.unwrap();

    // Assert
    assert_eq!(texts(&result.tags), ["golden retriever", "faces", "people"]);
    assert_eq!(
        texts(&result.sentences),
        [
            "The picture most likely shows a golden retriever.",
            "Two faces are visible.",
            "It is a bright landscape picture, mostly blue and white.",
        ]
    );
    assert_eq!(result.tags[0].model.as_deref(), Some(LABELS));
    assert_eq!(result.sentences[1].model.as_deref(), Some(FACES));
    assert_eq!(result.sentences[2].model, None);
    assert_eq!(result.transcript, None);
}

#[tokio::test]
async fn analysis_default_tags_a_video_from_its_frames_and_transcribes_it() {
    // Arrange
    let media = FakeMedia {
        info: Some(MediaInfo { kind: MediaKind::Video, width: 640, height: 360, duration_ms: 12_000, has_sound: true }),
        frames: 30,
        labels: vec![Label { name: "seashore".into(), score: 0.7 }],
        segments: vec![Segment { start_ms: 0, end_ms: 900, text: " Waves.".into() }],
        ..FakeMedia::default()
    };

    // Act
    let result = analyze(DEFAULT, serde_json::json!({"frames": 3}), media).await.unwrap();

    // Assert
    assert_eq!(texts(&result.tags), ["seashore", "beach", "speech"]);
    assert_eq!(
        texts(&result.sentences),
        [
            "A 12-second video; its frames most likely show a seashore.",
            "It looks like a beach.",
            "Its soundtrack contains speech."
        ]
    );
    assert_eq!(result.transcript, Some(Finding { text: "Waves.".into(), model: Some(WHISPER.into()) }));
}

#[tokio::test]
async fn analysis_default_transcribes_a_recording() {
    let result = analyze(DEFAULT, serde_json::json!({}), recording(&[" Hello,", " world."])).await.unwrap();

    assert_eq!(texts(&result.sentences), ["A 45-second recording of speech."]);
    assert_eq!(result.transcript.unwrap().text, "Hello, world.");
}

#[tokio::test]
async fn a_capability_error_becomes_the_step_s_error_word_for_word() {
    let missing = "models not installed: run `trellis models install`";
    let media = FakeMedia { transcribe_error: Some(missing.into()), ..recording(&[]) };

    let failure = analyze(DEFAULT, serde_json::json!({}), media).await.unwrap_err();

    assert_eq!(failure, ModuleFailure::ModuleError(missing.into()));
}

#[tokio::test]
async fn unreadable_media_fails_the_step_with_the_host_s_message() {
    let media = FakeMedia::default();

    let failure = analyze(DEFAULT, serde_json::json!({}), media).await.unwrap_err();

    assert_eq!(failure, ModuleFailure::ModuleError("unreadable media: not a known format".into()));
}

#[tokio::test]
async fn a_third_party_step_tags_by_file_name_and_fails_or_traps_on_demand() {
    let steps = steps();
    let words = serde_json::json!({"words": ["invoice", "receipt"]});

    let tagged = analyze_on(&steps.host, &steps.probe_id, words, "Invoice-7.pdf", FakeMedia::default()).await;
    let failed = analyze(&steps.probe_id, serde_json::json!({"fail": "no luck"}), FakeMedia::default()).await;
    let trapped = analyze(&steps.probe_id, serde_json::json!({"trap": true}), FakeMedia::default()).await;

    assert_eq!(tagged.unwrap().tags, [Finding { text: "invoice".into(), model: None }]);
    assert_eq!(failed.unwrap_err(), ModuleFailure::ModuleError("no luck".into()));
    assert!(matches!(trapped.unwrap_err(), ModuleFailure::Trap(_)));
}

#[tokio::test]
async fn a_wit_0_1_step_still_runs_and_its_answer_is_adapted_to_findings() {
    let steps = steps();

    let found =
        analyze_on(&steps.host, &steps.legacy_id, serde_json::json!({}), "talk-speech.WAV", FakeMedia::default())
            .await
            .unwrap();

    assert_eq!(texts(&found.tags), ["legacy", "wav"]);
    assert_eq!(found.sentences, [Finding { text: "A file named talk-speech.WAV.".into(), model: None }]);
    assert_eq!(found.transcript, Some(Finding { text: "words from an old step".into(), model: None }));
}

/// The bundled step as it was at WIT 0.2.0 (`plugins/legacy/analysis-default-0.2.0`, frozen).
fn frozen_v0_2_default() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../plugins/legacy/analysis-default-0.2.0/analysis_default_legacy.wasm")
}

#[tokio::test]
async fn analysis_default_reads_printed_text_into_its_answer() {
    // Arrange
    let media = FakeMedia { text: vec!["EXIT".into(), "Platform 2".into()], ..picture(&[("street sign", 0.6)], 0) };

    // Act
    let result = analyze(DEFAULT, serde_json::json!({}), media).await.unwrap();

    // Assert
    assert_eq!(result.text, Some(Finding { text: "EXIT\nPlatform 2".into(), model: Some(TESSERACT.into()) }));
    assert!(texts(&result.tags).contains(&"text"), "{:?}", result.tags);
}

#[tokio::test]
async fn a_wit_0_2_step_still_runs_its_media_vision_and_speech_calls_adapted() {
    // Arrange: the default step as built at 0.2.0, granted what it asks, alone on a host.
    let grants = vec![Grant::MediaDecode, Grant::Vision, Grant::Speech, Grant::Logging];
    let enable = vec![EnabledModule::file(frozen_v0_2_default(), grants, Vec::new())];
    let settings = ModulesConfig { analysis_deadline_ms: STEP_BUDGET.as_millis() as u64, ..Default::default() };
    let host = host_with(enable, settings).expect("the 0.2.0 step loads");
    let media = FakeMedia { text: vec!["EXIT".into()], ..picture(&[("golden retriever", 0.91)], 2) };

    // Act
    let found = analyze_on(&host, DEFAULT, serde_json::json!({}), "dog.jpg", media).await.unwrap();

    // Assert: what the current step answers, but no text (0.2.0 has no read-text and no text field).
    assert_eq!(texts(&found.tags), ["golden retriever", "faces", "people"]);
    assert_eq!(found.tags[0].model.as_deref(), Some(LABELS));
    assert_eq!(found.sentences.len(), 3);
    assert_eq!(found.text, None);
    let check = check(&frozen_v0_2_default()).unwrap();
    assert_eq!((check.wit_version, check.package), (Some(WitVersion::V0_2), "trellis:module@0.2.0"));
}

#[test]
fn check_reports_the_wit_version_each_step_targets() {
    let current = check(&plugin("trellis_analysis_default.wasm")).unwrap();
    let legacy = check(&plugin(LEGACY_WASM)).unwrap();

    assert!(current.fits && legacy.fits, "{current:#?} {legacy:#?}");
    assert_eq!((current.wit_version, current.package), (Some(WitVersion::V0_3), "trellis:module@0.3.0"));
    assert_eq!((legacy.wit_version, legacy.package), (Some(WitVersion::V0_1), "trellis:module@0.1.0"));
    let mut permissions: Vec<&str> = current.imports.host.iter().map(|i| i.permission).collect();
    permissions.sort_unstable();
    assert_eq!(permissions, ["logging", "media-decode", "speech", "vision"]);
}
