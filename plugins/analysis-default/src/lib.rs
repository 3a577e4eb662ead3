//! The default analysis step (`analysis-default`), first-party and bundled: it asks the host what the asset
//! is and what its pictures and sound contain, and composes tags, an English description and a transcript.
//!
//! - an image: one frame's labels, faces, people and things, the place they suggest, facts and printed text;
//! - a video: `frames` frames' labels (each label with its best score over the frames), faces, people and
//!   things (the most people in one frame), the place, and printed text (each line once);
//! - sound (audio, or a video with a soundtrack): a transcript.
//!
//! A capability that fails for a part the asset needs (e.g. transcription of an audio file, decoding a
//! video without ffmpeg) fails the step with the host's message, which becomes the asset's analysis error.
//! Reading text is an extra: when the host cannot (no OCR engine installed), the step logs why and answers
//! no text.

mod compose;
mod config;
mod english;
mod scene;

use trellis_plugin_sdk::analysis::{AnalysisResult, AnalysisStep, AssetInfo, Finding};
use trellis_plugin_sdk::media::{self, MediaInfo, MediaKind};
use trellis_plugin_sdk::vision::{self, MAX_LABELS, Text};
use trellis_plugin_sdk::{Context, Error, Manifest, Permission, Result, log, speech};

use crate::compose::*;
use crate::config::Config;
use crate::scene::{people_sentence, place, place_sentence, seen, seen_tags};

/// The module.
pub struct AnalysisDefault;

impl AnalysisStep for AnalysisDefault {
    fn manifest() -> Manifest {
        Manifest::new("analysis-default", "Default analysis", env!("CARGO_PKG_VERSION"))
            .description("Tags, an English description, a transcript and printed text from the host's offline models")
            .config_schema(config::schema())
            .permission(Permission::MediaDecode)
            .permission(Permission::Vision)
            .permission(Permission::Speech)
            .permission(Permission::Logging)
    }

    fn analyze(ctx: &Context, asset: &AssetInfo) -> Result<AnalysisResult> {
        let config = ctx.config::<Config>()?.bounded();
        let info = media::probe()?;
        let mut found = AnalysisResult::default();
        match info.kind {
            MediaKind::Image => look_at_picture(&config, &mut found)?,
            MediaKind::Video => look_at_video(&config, &info, &mut found)?,
            MediaKind::Audio => {}
            MediaKind::Other => {
                let text = "The file is not a picture, a video or a sound recording, so nothing in it was analysed.";
                found.sentences.push(Finding::new(text));
            }
        }
        if info.kind == MediaKind::Audio || (info.kind == MediaKind::Video && info.has_sound) {
            listen(&info, &mut found)?;
        }
        log::debug(format!("{}: {} tags, {} sentences", asset.asset_id, found.tags.len(), found.sentences.len()));
        Ok(found)
    }
}

trellis_plugin_sdk::export_analysis_step!(AnalysisDefault);

fn look_at_picture(config: &Config, found: &mut AnalysisResult) -> Result<()> {
    if media::frames(1)? == 0 {
        return Err(Error::new("the picture could not be decoded"));
    }
    let labels = vision::classify(0, MAX_LABELS)?;
    let faces = vision::detect_faces(0)?;
    let seen = seen(&[vision::detect_objects(0)?]);
    let facts = vision::facts(0)?;
    let place = place(&seen, &labels, config.min_score);
    found.tags.extend(label_tags(&labels, config.min_score, config.max_tags));
    found.tags.extend(face_tags(faces.faces.len(), &faces.model));
    found.tags.extend(seen_tags(&seen, faces.faces.len(), &faces.model));
    found.tags.extend(place.clone());
    found.sentences.push(picture_sentence(&labels, config.min_score));
    found.sentences.extend(people_sentence(&seen, false));
    found.sentences.extend(faces_sentence(faces.faces.len(), &faces.model, false));
    found.sentences.extend(place.as_ref().map(place_sentence));
    found.sentences.push(facts_sentence(&facts));
    read(&[0], found);
    Ok(())
}

fn look_at_video(config: &Config, info: &MediaInfo, found: &mut AnalysisResult) -> Result<()> {
    let frames = media::frames(config.frames)?;
    if frames == 0 {
        return Err(Error::new("no frame of the video could be decoded"));
    }
    let (mut per_frame, mut objects) = (Vec::new(), Vec::new());
    let (mut most_faces, mut faces_model) = (0, String::new());
    for frame in 0..frames {
        per_frame.push(vision::classify(frame, MAX_LABELS)?);
        let faces = vision::detect_faces(frame)?;
        most_faces = most_faces.max(faces.faces.len());
        faces_model = faces.model;
        objects.push(vision::detect_objects(frame)?);
    }
    let labels = aggregate(&per_frame);
    let seen = seen(&objects);
    let place = place(&seen, &labels, config.min_score);
    found.tags.extend(label_tags(&labels, config.min_score, config.max_tags));
    found.tags.extend(face_tags(most_faces, &faces_model));
    found.tags.extend(seen_tags(&seen, most_faces, &faces_model));
    found.tags.extend(place.clone());
    found.sentences.push(video_sentence(info.duration_ms, &labels, config.min_score));
    found.sentences.extend(people_sentence(&seen, true));
    found.sentences.extend(faces_sentence(most_faces, &faces_model, true));
    found.sentences.extend(place.as_ref().map(place_sentence));
    read(&(0..frames).collect::<Vec<_>>(), found);
    Ok(())
}

/// The printed text of `frames` as the answer's text, with a sentence and a `text` tag when there is some.
/// A failure to read is logged, not the step's failure: the rest of the analysis stands without text.
fn read(frames: &[u32], found: &mut AnalysisResult) {
    let mut texts: Vec<Text> = Vec::new();
    for &frame in frames {
        match vision::read_text(frame) {
            Ok(text) => texts.push(text),
            Err(error) => {
                log::warn(format!("no text read: {error}"));
                return;
            }
        }
    }
    if let Some(text) = text_finding(&texts) {
        found.tags.push(Finding { text: "text".into(), model: text.model.clone() });
        found.sentences.push(text_sentence(&text));
        found.text = Some(text);
    }
}

fn listen(info: &MediaInfo, found: &mut AnalysisResult) -> Result<()> {
    let transcript = speech::transcribe()?;
    let video = info.kind == MediaKind::Video;
    found.sentences.push(sound_sentence(info.duration_ms, &transcript, video));
    found.transcript = transcript_finding(&transcript);
    if found.transcript.is_some() {
        found.tags.push(Finding::from_model("speech", &transcript.model));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
