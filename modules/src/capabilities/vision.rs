//! The `vision` import (WIT 0.2.0, permission `vision`; `detect-objects` and `read-text` since 0.3.0):
//! labels, faces, objects, facts and printed text of a decoded frame, each answer bounded before the guest
//! sees it.

use wasmtime::component::Linker;

use crate::analysis::{
    Faces, Labels, MAX_COLOURS, MAX_FACES, MAX_LABELS, MAX_MODEL_BYTES, MAX_OBJECTS, MAX_TEXT_BYTES, MAX_TEXT_LINES,
    Objects, PictureFacts, Text,
};
use crate::capabilities::Grant;
use crate::capabilities::inference::{MAX_NAME_BYTES, clip, unit};
use crate::capabilities::{Capability, Data, data};
use crate::invoke::state::StoreState;
use crate::load::manifest::ModuleKind;
use crate::wit::latest::vision;
use crate::wit::{WitVersion, v0_2, v0_3};

/// The `vision` permission.
pub(crate) const CAPABILITY: Capability = Capability {
    name: "vision",
    interface: "vision",
    since: WitVersion::V0_2,
    kinds: &[ModuleKind::AnalysisStep],
    carried_over: false,
    link,
};

fn link(linker: &mut Linker<StoreState>, version: WitVersion) -> anyhow::Result<()> {
    match version {
        WitVersion::V0_1 => anyhow::bail!("WIT {version} has no vision import"),
        WitVersion::V0_2 => v0_2::vision::add_to_linker::<_, Data>(linker, data)?,
        WitVersion::V0_3 => v0_3::vision::add_to_linker::<_, Data>(linker, data)?,
    }
    Ok(())
}

impl vision::Host for StoreState {
    async fn classify(&mut self, frame: u32, limit: u32) -> wasmtime::Result<Result<vision::Labels, String>> {
        let limit = limit.min(MAX_LABELS);
        let answer =
            self.capability("vision.classify", Grant::Vision, |m| async move { m.classify(frame, limit).await }).await?;
        Ok(answer.map(|found| labels(found, limit as usize)))
    }

    async fn detect_faces(&mut self, frame: u32) -> wasmtime::Result<Result<vision::Faces, String>> {
        let answer = self
            .capability("vision.detect-faces", Grant::Vision, |m| async move { m.detect_faces(frame).await })
            .await?;
        Ok(answer.map(faces))
    }

    async fn facts(&mut self, frame: u32) -> wasmtime::Result<Result<vision::PictureFacts, String>> {
        let answer = self.capability("vision.facts", Grant::Vision, |m| async move { m.facts(frame).await }).await?;
        Ok(answer.map(facts))
    }

    async fn detect_objects(&mut self, frame: u32) -> wasmtime::Result<Result<vision::Objects, String>> {
        let answer = self
            .capability("vision.detect-objects", Grant::Vision, |m| async move { m.detect_objects(frame).await })
            .await?;
        Ok(answer.map(objects))
    }

    async fn read_text(&mut self, frame: u32) -> wasmtime::Result<Result<vision::Text, String>> {
        let answer =
            self.capability("vision.read-text", Grant::Vision, |m| async move { m.read_text(frame).await }).await?;
        Ok(answer.map(text))
    }
}

fn objects(found: Objects) -> vision::Objects {
    vision::Objects {
        objects: found
            .objects
            .into_iter()
            .take(MAX_OBJECTS)
            .map(|o| vision::Object {
                name: clip(o.name, MAX_NAME_BYTES),
                x: o.x,
                y: o.y,
                width: o.width,
                height: o.height,
                score: unit(o.score),
            })
            .collect(),
        model: clip(found.model, MAX_MODEL_BYTES),
    }
}

/// At most [`MAX_TEXT_LINES`] trimmed, non-empty lines of at most [`MAX_TEXT_BYTES`] together (with a `\n`
/// between two), whole lines only.
fn text(found: Text) -> vision::Text {
    let mut lines = Vec::new();
    let mut total = 0;
    for line in found.lines.iter().map(|l| l.trim()).filter(|l| !l.is_empty()).take(MAX_TEXT_LINES) {
        total += line.len() + usize::from(!lines.is_empty());
        if total > MAX_TEXT_BYTES {
            break;
        }
        lines.push(line.to_owned());
    }
    vision::Text { lines, model: clip(found.model, MAX_MODEL_BYTES) }
}

fn labels(found: Labels, limit: usize) -> vision::Labels {
    vision::Labels {
        labels: found
            .labels
            .into_iter()
            .take(limit)
            .map(|label| vision::Label { name: clip(label.name, MAX_NAME_BYTES), score: unit(label.score) })
            .collect(),
        model: clip(found.model, MAX_MODEL_BYTES),
    }
}

fn faces(found: Faces) -> vision::Faces {
    vision::Faces {
        faces: found
            .faces
            .into_iter()
            .take(MAX_FACES)
            .map(|f| vision::Face { x: f.x, y: f.y, width: f.width, height: f.height, score: unit(f.score) })
            .collect(),
        model: clip(found.model, MAX_MODEL_BYTES),
    }
}

fn facts(found: PictureFacts) -> vision::PictureFacts {
    vision::PictureFacts {
        width: found.width,
        height: found.height,
        orientation: clip(found.orientation, MAX_NAME_BYTES),
        colours: found
            .colours
            .into_iter()
            .take(MAX_COLOURS)
            .map(|c| vision::Colour { name: clip(c.name, MAX_NAME_BYTES), share: unit(c.share) })
            .collect(),
        brightness: unit(found.brightness),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Face, Label};

    #[test]
    fn labels_are_cut_to_the_limit_and_scores_to_probabilities() {
        let found = Labels {
            labels: (0..30)
                .map(|i| Label { name: format!("l{i}"), score: if i == 0 { 7.0 } else { f32::NAN } })
                .collect(),
            model: "m".repeat(MAX_MODEL_BYTES * 2),
        };

        let bounded = labels(found, 3);

        assert_eq!(bounded.labels.len(), 3);
        assert_eq!(bounded.labels[0].score, 1.0);
        assert_eq!(bounded.labels[1].score, 0.0);
        assert_eq!(bounded.model.len(), MAX_MODEL_BYTES);
    }

    #[test]
    fn text_is_trimmed_and_cut_at_whole_lines() {
        let found = Text {
            lines: vec![" EXIT ".into(), "  ".into(), "x".repeat(MAX_TEXT_BYTES - 5), "next".into()],
            model: "tesseract 5.3.0 (eng)".into(),
        };

        let bounded = text(found);

        assert_eq!(bounded.lines.len(), 2);
        assert_eq!(bounded.lines[0], "EXIT");
        assert_eq!(bounded.model, "tesseract 5.3.0 (eng)");
        let many = text(Text { lines: vec!["a".into(); MAX_TEXT_LINES * 2], model: String::new() });
        assert_eq!(many.lines.len(), MAX_TEXT_LINES);
    }

    #[test]
    fn objects_are_capped_and_their_names_and_scores_bounded() {
        let object = crate::analysis::Object { name: "p".repeat(1_000), x: 1, y: 2, width: 3, height: 4, score: 2.0 };
        let bounded = objects(Objects { objects: vec![object; MAX_OBJECTS + 5], model: "yolox-nano".into() });
        assert_eq!(bounded.objects.len(), MAX_OBJECTS);
        assert_eq!((bounded.objects[0].name.len(), bounded.objects[0].score), (MAX_NAME_BYTES, 1.0));
    }

    #[test]
    fn faces_are_capped() {
        let face = Face { x: 1, y: 2, width: 3, height: 4, score: 0.9 };
        let bounded = faces(Faces { faces: vec![face; MAX_FACES + 5], model: "rustface".into() });
        assert_eq!(bounded.faces.len(), MAX_FACES);
    }
}
