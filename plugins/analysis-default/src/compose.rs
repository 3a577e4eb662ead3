//! Composing tags and English sentences from what the capabilities found. Pure functions, so every
//! phrasing is tested without a host; each finding carries the model it rests on.

use std::collections::BTreeMap;

use trellis_plugin_sdk::analysis::Finding;
use trellis_plugin_sdk::speech::Transcript;
use trellis_plugin_sdk::vision::{Label, Labels, MAX_TEXT_BYTES, PictureFacts, Text};

use crate::english::{capitalised, duration, list, number, with_article};

/// A label this sure is named "most likely"; below it, "probably".
const SURE: f32 = 0.5;
/// Below this brightness a picture is dark, above `BRIGHT` bright.
const DARK: f32 = 0.3;
const BRIGHT: f32 = 0.65;
/// A colour covering less of the picture than this is not worth naming.
const NOTABLE_COLOUR: f32 = 0.2;

/// A label's name as a reader would write it: ImageNet-style synonyms (`tabby, tabby cat`) keep the first.
fn clean(name: &str) -> String {
    name.split(',').next().unwrap_or_default().replace('_', " ").trim().to_owned()
}

/// The labels of several frames as one list: each name with its best score, best first.
pub fn aggregate(frames: &[Labels]) -> Labels {
    let mut best: BTreeMap<String, f32> = BTreeMap::new();
    for label in frames.iter().flat_map(|f| &f.labels) {
        let name = clean(&label.name);
        let score = best.entry(name).or_insert(label.score);
        *score = score.max(label.score);
    }
    let mut labels: Vec<Label> = best.into_iter().map(|(name, score)| Label { name, score }).collect();
    labels.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.name.cmp(&b.name)));
    let model = frames.iter().map(|f| f.model.clone()).next().unwrap_or_default();
    Labels { labels, model }
}

/// Labels scoring at least `min_score`, best first, at most `max_tags`, as lowercase tags.
pub fn label_tags(labels: &Labels, min_score: f32, max_tags: u32) -> Vec<Finding> {
    let mut tags: Vec<Finding> = Vec::new();
    for label in labels.labels.iter().filter(|l| l.score >= min_score) {
        let tag = clean(&label.name).to_lowercase();
        if tags.len() >= max_tags as usize {
            break;
        }
        if !tag.is_empty() && tag.chars().count() <= 100 && !tags.iter().any(|t| t.text == tag) {
            tags.push(Finding::from_model(tag, &labels.model));
        }
    }
    tags
}

/// `face` for one face, `faces` for more (`person`/`people` come with [`crate::scene::seen_tags`]).
pub fn face_tags(faces: usize, model: &str) -> Vec<Finding> {
    match faces {
        0 => Vec::new(),
        1 => vec![Finding::from_model("face", model)],
        _ => vec![Finding::from_model("faces", model)],
    }
}

/// How sure the labels are and what they name: `("most likely", "a golden retriever")`,
/// `("probably", "a kite, or possibly a bald eagle")`, or `None` when nothing reaches `min_score`.
fn what_it_shows(labels: &Labels, min_score: f32) -> Option<(&'static str, String)> {
    let mut names = labels.labels.iter().filter(|l| l.score >= min_score).map(|l| (clean(&l.name), l.score));
    let (best, score) = names.next().filter(|(name, _)| !name.is_empty())?;
    if score >= SURE {
        return Some(("most likely", with_article(&best)));
    }
    let object = match names.find(|(name, _)| !name.is_empty() && *name != best) {
        Some((second, _)) => format!("{}, or possibly {}", with_article(&best), with_article(&second)),
        None => with_article(&best),
    };
    Some(("probably", object))
}

/// "The picture most likely shows a golden retriever." or "No object could be recognised with confidence."
pub fn picture_sentence(labels: &Labels, min_score: f32) -> Finding {
    match what_it_shows(labels, min_score) {
        Some((how, what)) => Finding::from_model(format!("The picture {how} shows {what}."), &labels.model),
        None => Finding::from_model("No object could be recognised with confidence.", &labels.model),
    }
}

/// "A 12-second video; its frames most likely show a seashore."
pub fn video_sentence(duration_ms: u64, labels: &Labels, min_score: f32) -> Finding {
    let video = capitalised(
        &duration(duration_ms).map_or_else(|| "a video".to_owned(), |d| with_article(&format!("{d} video"))),
    );
    let text = match what_it_shows(labels, min_score) {
        Some((how, what)) => format!("{video}; its frames {how} show {what}."),
        None => format!("{video}; no object could be recognised in its frames with confidence."),
    };
    Finding::from_model(text, &labels.model)
}

/// "Two faces are visible." for a picture, "Up to three faces appear at once in its frames." for a video;
/// nothing when there are none.
pub fn faces_sentence(faces: usize, model: &str, video: bool) -> Option<Finding> {
    let text = match (faces, video) {
        (0, _) => return None,
        (1, false) => "One face is visible.".to_owned(),
        (n, false) => format!("{} faces are visible.", capitalised(&number(n))),
        (1, true) => "A face appears in its frames.".to_owned(),
        (n, true) => format!("Up to {} faces appear at once in its frames.", number(n)),
    };
    Some(Finding::from_model(text, model))
}

/// "It is a bright landscape picture, mostly blue and white." (no model: these are measured).
pub fn facts_sentence(facts: &PictureFacts) -> Finding {
    let tone = match facts.brightness {
        b if b < DARK => "dark ",
        b if b > BRIGHT => "bright ",
        _ => "",
    };
    let shape = match facts.orientation.as_str() {
        o @ ("landscape" | "portrait" | "square") => format!("{o} "),
        _ => String::new(),
    };
    let picture = with_article(&format!("{tone}{shape}picture"));
    let colours: Vec<&str> = facts
        .colours
        .iter()
        .filter(|c| c.share >= NOTABLE_COLOUR && !c.name.trim().is_empty())
        .take(3)
        .map(|c| c.name.trim())
        .collect();
    Finding::new(match colours.as_slice() {
        [] => format!("It is {picture}."),
        colours => format!("It is {picture}, mostly {}.", list(colours)),
    })
}

/// "A 45-second recording of speech." for audio; "Its soundtrack contains speech." for a video.
pub fn sound_sentence(duration_ms: u64, transcript: &Transcript, video: bool) -> Finding {
    let speech = !transcript.text().is_empty();
    let text = if video {
        if speech { "Its soundtrack contains speech." } else { "Its soundtrack has no recognisable speech." }.to_owned()
    } else {
        let recording =
            duration(duration_ms).map_or_else(|| "a recording".to_owned(), |d| with_article(&format!("{d} recording")));
        let of = if speech { "of speech" } else { "with no recognisable speech" };
        format!("{} {of}.", capitalised(&recording))
    };
    Finding::from_model(text, &transcript.model)
}

/// The transcript as one finding, or none when no words were recognised.
pub fn transcript_finding(transcript: &Transcript) -> Option<Finding> {
    let text = transcript.text();
    (!text.is_empty()).then(|| Finding::from_model(text, &transcript.model))
}

/// The printed lines of one or more frames as one text: each line once, in the order first read, within
/// [`MAX_TEXT_BYTES`] (whole lines); `None` when no frame showed any.
pub fn text_finding(frames: &[Text]) -> Option<Finding> {
    let mut lines: Vec<&str> = Vec::new();
    let mut bytes = 0;
    for line in frames.iter().flat_map(|f| &f.lines).map(|l| l.trim()).filter(|l| !l.is_empty()) {
        if lines.contains(&line) {
            continue;
        }
        bytes += line.len() + usize::from(!lines.is_empty());
        if bytes > MAX_TEXT_BYTES {
            break;
        }
        lines.push(line);
    }
    let model = frames.iter().find(|f| !f.lines.is_empty()).map(|f| f.model.as_str())?;
    (!lines.is_empty()).then(|| Finding::from_model(lines.join("\n"), model))
}

/// Most characters of the text quoted in the description.
const QUOTED_CHARS: usize = 60;

/// "It carries printed text, beginning “…”." for a text; the quote is the first line, cut at a word.
pub fn text_sentence(text: &Finding) -> Finding {
    let first = text.text.lines().next().unwrap_or_default();
    let quote = if first.chars().count() <= QUOTED_CHARS {
        first.to_owned()
    } else {
        let cut: String = first.chars().take(QUOTED_CHARS).collect();
        let at_word = cut.rsplit_once(' ').map_or(cut.as_str(), |(head, _)| head);
        format!("{}…", at_word.trim_end())
    };
    let sentence = match text.text.lines().count() {
        1 => format!("It carries printed text: “{quote}”."),
        _ => format!("It carries printed text, beginning “{quote}”."),
    };
    Finding { text: sentence, model: text.model.clone() }
}
