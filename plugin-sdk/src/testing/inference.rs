//! The test kit's inference capabilities: answers a test sets, served within the real host's bounds
//! (frames at most 16, labels at most 20, frames named only once decoded), with every call recorded.

use std::collections::HashMap;

use super::{TestHost, with_host};
use crate::media::{MAX_FRAMES, MediaInfo};
use crate::speech::Transcript;
use crate::vision::{Faces, Labels, MAX_LABELS, MAX_OBJECTS, MAX_TEXT_LINES, Objects, PictureFacts, Text};

/// Most faces the real host hands a step.
const MAX_FACES: usize = 100;

#[derive(Default)]
pub(crate) struct InferenceState {
    probe: Option<Result<MediaInfo, String>>,
    frames: Option<Result<u32, String>>,
    labels: Option<Result<Labels, String>>,
    frame_labels: HashMap<u32, Result<Labels, String>>,
    faces: Option<Result<Faces, String>>,
    facts: Option<Result<PictureFacts, String>>,
    objects: Option<Result<Objects, String>>,
    text: Option<Result<Text, String>>,
    transcript: Option<Result<Transcript, String>>,
    /// Frames decoded by the last `frames` call.
    decoded: u32,
    calls: Vec<String>,
}

fn answer<T: Clone>(set: &Option<Result<T, String>>, setter: &str) -> Result<T, String> {
    set.clone().unwrap_or_else(|| Err(format!("the test set no answer (TestHost::{setter})")))
}

impl InferenceState {
    fn frame(&self, frame: u32) -> Result<(), String> {
        if frame < self.decoded {
            return Ok(());
        }
        Err(format!("frame {frame} was not decoded ({} decoded; call media::frames first)", self.decoded))
    }

    pub(crate) fn probe(&mut self) -> Result<MediaInfo, String> {
        self.calls.push("probe".into());
        answer(&self.probe, "set_probe")
    }

    pub(crate) fn frames(&mut self, count: u32) -> Result<u32, String> {
        self.calls.push(format!("frames({count})"));
        let available = answer(&self.frames, "set_frames")?;
        self.decoded = count.min(MAX_FRAMES).min(available);
        Ok(self.decoded)
    }

    pub(crate) fn classify(&mut self, frame: u32, limit: u32) -> Result<Labels, String> {
        self.calls.push(format!("classify({frame}, {limit})"));
        self.frame(frame)?;
        let mut labels = match self.frame_labels.get(&frame) {
            Some(set) => set.clone(),
            None => answer(&self.labels, "set_labels"),
        }?;
        labels.labels.truncate(limit.min(MAX_LABELS) as usize);
        Ok(labels)
    }

    pub(crate) fn detect_faces(&mut self, frame: u32) -> Result<Faces, String> {
        self.calls.push(format!("detect_faces({frame})"));
        self.frame(frame)?;
        let mut faces = answer(&self.faces, "set_faces")?;
        faces.faces.truncate(MAX_FACES);
        Ok(faces)
    }

    pub(crate) fn facts(&mut self, frame: u32) -> Result<PictureFacts, String> {
        self.calls.push(format!("facts({frame})"));
        self.frame(frame)?;
        answer(&self.facts, "set_facts")
    }

    pub(crate) fn detect_objects(&mut self, frame: u32) -> Result<Objects, String> {
        self.calls.push(format!("detect_objects({frame})"));
        self.frame(frame)?;
        let mut objects = answer(&self.objects, "set_objects")?;
        objects.objects.truncate(MAX_OBJECTS);
        Ok(objects)
    }

    pub(crate) fn read_text(&mut self, frame: u32) -> Result<Text, String> {
        self.calls.push(format!("read_text({frame})"));
        self.frame(frame)?;
        let mut text = answer(&self.text, "set_text")?;
        text.lines.truncate(MAX_TEXT_LINES);
        Ok(text)
    }

    pub(crate) fn transcribe(&mut self) -> Result<Transcript, String> {
        self.calls.push("transcribe".into());
        answer(&self.transcript, "set_transcript")
    }
}

/// Answers of the inference capabilities ([`media`](crate::media), [`vision`](crate::vision),
/// [`speech`](crate::speech)). A capability whose answer was not set fails, naming the setter.
///
/// ```
/// use trellis_plugin_sdk::vision::{self, Faces, Labels, Label};
/// use trellis_plugin_sdk::{media, testing::TestHost};
///
/// let host = TestHost::new();
/// host.set_frames(Ok(3));
/// host.set_labels(Ok(Labels { labels: vec![Label::new("seashore", 0.7)], model: "m".into() }));
/// host.set_frame_labels(2, Ok(Labels { labels: vec![Label::new("kite", 0.6)], model: "m".into() }));
/// host.set_faces(Err("models not installed".into()));
///
/// assert_eq!(media::frames(4)?, 3);
/// assert_eq!(vision::classify(0, 5)?.labels[0].name, "seashore");
/// assert_eq!(vision::classify(2, 5)?.labels[0].name, "kite");
/// assert!(vision::detect_faces(0).is_err());
/// assert_eq!(host.inference_calls(), ["frames(4)", "classify(0, 5)", "classify(2, 5)", "detect_faces(0)"]);
/// # Ok::<(), trellis_plugin_sdk::CapabilityError>(())
/// ```
impl TestHost {
    /// What [`media::probe`](crate::media::probe) answers.
    pub fn set_probe(&self, answer: Result<MediaInfo, String>) {
        with_host(|host| host.inference.probe = Some(answer));
    }

    /// How many frames the asset has (`Ok`), or why it cannot be decoded: [`media::frames`](crate::media::frames)
    /// answers at most this many, and at most 16.
    pub fn set_frames(&self, answer: Result<u32, String>) {
        with_host(|host| host.inference.frames = Some(answer));
    }

    /// What [`vision::classify`](crate::vision::classify) answers for every frame without its own answer.
    pub fn set_labels(&self, answer: Result<Labels, String>) {
        with_host(|host| host.inference.labels = Some(answer));
    }

    /// What [`vision::classify`](crate::vision::classify) answers for frame `frame`.
    pub fn set_frame_labels(&self, frame: u32, answer: Result<Labels, String>) {
        with_host(|host| host.inference.frame_labels.insert(frame, answer));
    }

    /// What [`vision::detect_faces`](crate::vision::detect_faces) answers for every frame.
    pub fn set_faces(&self, answer: Result<Faces, String>) {
        with_host(|host| host.inference.faces = Some(answer));
    }

    /// What [`vision::facts`](crate::vision::facts) answers for every frame.
    pub fn set_facts(&self, answer: Result<PictureFacts, String>) {
        with_host(|host| host.inference.facts = Some(answer));
    }

    /// What [`vision::detect_objects`](crate::vision::detect_objects) answers for every frame.
    pub fn set_objects(&self, answer: Result<Objects, String>) {
        with_host(|host| host.inference.objects = Some(answer));
    }

    /// What [`vision::read_text`](crate::vision::read_text) answers for every frame.
    pub fn set_text(&self, answer: Result<Text, String>) {
        with_host(|host| host.inference.text = Some(answer));
    }

    /// What [`speech::transcribe`](crate::speech::transcribe) answers.
    pub fn set_transcript(&self, answer: Result<Transcript, String>) {
        with_host(|host| host.inference.transcript = Some(answer));
    }

    /// Every inference call, in order: `probe`, `frames(4)`, `classify(0, 20)`, `detect_faces(0)`,
    /// `facts(0)`, `detect_objects(0)`, `read_text(0)`, `transcribe`.
    pub fn inference_calls(&self) -> Vec<String> {
        with_host(|host| host.inference.calls.clone())
    }
}
