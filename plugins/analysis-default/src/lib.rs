//! The default analysis step (`analysis-default`), first-party and bundled: it asks the host what the asset
//! is and what its pictures and sound contain, and composes tags, an English description and a transcript.
//!
//! - an image: one frame's labels, faces and facts;
//! - a video: `frames` frames' labels (each label with its best score over the frames) and faces;
//! - sound (audio, or a video with a soundtrack): a transcript.
//!
//! A capability that fails for a part the asset needs (e.g. transcription of an audio file, decoding a
//! video without ffmpeg) fails the step with the host's message, which becomes the asset's analysis error.

mod compose;
mod config;
mod english;

use trellis_plugin_sdk::analysis::{AnalysisResult, AnalysisStep, AssetInfo, Finding};
use trellis_plugin_sdk::media::{self, MediaInfo, MediaKind};
use trellis_plugin_sdk::vision::{self, MAX_LABELS};
use trellis_plugin_sdk::{Context, Error, Manifest, Permission, Result, log, speech};

use crate::compose::*;
use crate::config::Config;

/// The module.
pub struct AnalysisDefault;

impl AnalysisStep for AnalysisDefault {
    fn manifest() -> Manifest {
        Manifest::new("analysis-default", "Default analysis", env!("CARGO_PKG_VERSION"))
            .description("Tags, an English description and a transcript from the host's offline models")
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
    let facts = vision::facts(0)?;
    found.tags.extend(label_tags(&labels, config.min_score, config.max_tags));
    found.tags.extend(face_tags(faces.faces.len(), &faces.model));
    found.sentences.push(picture_sentence(&labels, config.min_score));
    found.sentences.extend(faces_sentence(faces.faces.len(), &faces.model, false));
    found.sentences.push(facts_sentence(&facts));
    Ok(())
}

fn look_at_video(config: &Config, info: &MediaInfo, found: &mut AnalysisResult) -> Result<()> {
    let frames = media::frames(config.frames)?;
    if frames == 0 {
        return Err(Error::new("no frame of the video could be decoded"));
    }
    let mut per_frame = Vec::new();
    let (mut most_faces, mut faces_model) = (0, String::new());
    for frame in 0..frames {
        per_frame.push(vision::classify(frame, MAX_LABELS)?);
        let faces = vision::detect_faces(frame)?;
        most_faces = most_faces.max(faces.faces.len());
        faces_model = faces.model;
    }
    let labels = aggregate(&per_frame);
    found.tags.extend(label_tags(&labels, config.min_score, config.max_tags));
    found.tags.extend(face_tags(most_faces, &faces_model));
    found.sentences.push(video_sentence(info.duration_ms, &labels, config.min_score));
    found.sentences.extend(faces_sentence(most_faces, &faces_model, true));
    Ok(())
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
