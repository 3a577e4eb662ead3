//! People, things and the place, from the host's object detector (and the labels, for places the
//! detector cannot name). Pure functions, like `compose`.
//!
//! No registry ships a scene model that runs offline, so the place is read from what is in the picture:
//! the things that mark a room or a street (an oven, a bed, cars and traffic lights), else an ImageNet
//! label that names a place (seashore, library, valley).

use std::collections::BTreeMap;

use trellis_plugin_sdk::analysis::Finding;
use trellis_plugin_sdk::vision::{Labels, Objects};

use crate::english::{capitalised, number, with_article};

/// Things scoring at least this become tags and may name the place.
const SURE_THING: f32 = 0.5;
/// The most thing tags (people aside).
const MAX_THING_TAGS: usize = 5;

/// What the detector saw over one picture or a video's frames.
#[derive(Debug, Default, PartialEq)]
pub struct Seen {
    /// The most people in one frame.
    pub people: usize,
    /// Every other thing, with its best score over the frames, best first.
    pub things: Vec<(String, f32)>,
    /// The detector.
    pub model: String,
}

/// The frames' objects as one [`Seen`].
pub fn seen(frames: &[Objects]) -> Seen {
    let mut best: BTreeMap<&str, f32> = BTreeMap::new();
    let mut people = 0;
    for frame in frames {
        people = people.max(frame.objects.iter().filter(|o| o.name == "person").count());
        for object in frame.objects.iter().filter(|o| o.name != "person" && !o.name.trim().is_empty()) {
            let score = best.entry(object.name.trim()).or_insert(object.score);
            *score = score.max(object.score);
        }
    }
    let mut things: Vec<(String, f32)> = best.into_iter().map(|(name, score)| (name.to_owned(), score)).collect();
    things.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Seen { people, things, model: frames.first().map(|f| f.model.clone()).unwrap_or_default() }
}

impl Seen {
    fn sure_things(&self) -> impl Iterator<Item = &str> {
        self.things.iter().filter(|(_, score)| *score >= SURE_THING).map(|(name, _)| name.as_str())
    }
}

/// `person` or `people` when the detector found any (else from the faces: a face is a person too), then
/// the things it is sure of (at most five, best first).
pub fn seen_tags(seen: &Seen, faces: usize, faces_model: &str) -> Vec<Finding> {
    let mut tags = Vec::new();
    let (people, model) = if seen.people > 0 { (seen.people, seen.model.as_str()) } else { (faces, faces_model) };
    match people {
        0 => {}
        1 => tags.push(Finding::from_model("person", model)),
        _ => tags.push(Finding::from_model("people", model)),
    }
    let things = seen.sure_things().filter(|t| t.chars().count() <= 100).take(MAX_THING_TAGS);
    tags.extend(things.map(|t| Finding::from_model(t, &seen.model)));
    tags
}

/// "Three people are in the picture." / "Up to three people appear at once in its frames."; nothing
/// without people.
pub fn people_sentence(seen: &Seen, video: bool) -> Option<Finding> {
    let text = match (seen.people, video) {
        (0, _) => return None,
        (1, false) => "A person is in the picture.".to_owned(),
        (n, false) => format!("{} people are in the picture.", capitalised(&number(n))),
        (1, true) => "A person appears in its frames.".to_owned(),
        (n, true) => format!("Up to {} people appear at once in its frames.", number(n)),
    };
    Some(Finding::from_model(text, &seen.model))
}

/// Places the things in a picture mark, most telling first: a place and the things that mark it.
const ROOMS: &[(&str, &[&str])] = &[
    ("kitchen", &["oven", "microwave", "refrigerator", "toaster"]),
    ("bathroom", &["toilet", "toothbrush", "hair drier"]),
    ("bedroom", &["bed"]),
    ("office", &["laptop", "keyboard", "mouse"]),
    ("living room", &["couch", "tv", "remote"]),
    ("street", &["car", "bus", "truck", "traffic light", "stop sign", "motorcycle", "parking meter", "fire hydrant"]),
    ("dining room", &["dining table", "wine glass"]),
    ("beach", &["surfboard"]),
];

/// ImageNet labels that name a place, and the place.
const PLACE_LABELS: &[(&str, &str)] = &[
    ("beach", "beach"),
    ("seashore", "beach"),
    ("sandbar", "beach"),
    ("promontory", "coast"),
    ("lakeshore", "lakeside"),
    ("lakeside", "lakeside"),
    ("mountain", "mountains"),
    ("alp", "mountains"),
    ("valley", "valley"),
    ("cliff", "cliff"),
    ("volcano", "volcano"),
    ("geyser", "geyser"),
    ("coral reef", "coral reef"),
    ("library", "library"),
    ("restaurant", "restaurant"),
    ("movie theater", "cinema"),
    ("home theater", "living room"),
    ("church", "church"),
    ("mosque", "mosque"),
    ("monastery", "monastery"),
    ("palace", "palace"),
    ("castle", "castle"),
    ("barn", "barn"),
    ("lighthouse", "lighthouse"),
    ("bookstore", "bookshop"),
    ("grocery store", "grocery store"),
    ("bakery", "bakery"),
    ("barbershop", "barbershop"),
    ("butcher shop", "butcher's shop"),
    ("candy store", "sweet shop"),
    ("shoe store", "shoe shop"),
    ("toy store", "toy shop"),
    ("tobacco shop", "tobacconist's"),
    ("boathouse", "boathouse"),
    ("greenhouse", "greenhouse"),
    ("pier", "pier"),
    ("dock", "dock"),
    ("patio", "patio"),
    ("planetarium", "planetarium"),
    ("prison", "prison"),
];

/// Where the picture was taken, when the things in it or a label say: the place as a tag (`street`,
/// `kitchen`, `beach`...) with the model it rests on.
pub fn place(seen: &Seen, labels: &Labels, min_score: f32) -> Option<Finding> {
    let sure: Vec<&str> = seen.sure_things().collect();
    let by_things = ROOMS
        .iter()
        .map(|(place, marks)| (*place, marks.iter().filter(|m| sure.contains(m)).count()))
        .filter(|(_, count)| *count > 0)
        // The most marks wins; among equals the more telling place (earlier in the list).
        .min_by_key(|(_, count)| std::cmp::Reverse(*count));
    if let Some((place, _)) = by_things {
        return Some(Finding::from_model(place, &seen.model));
    }
    labels.labels.iter().filter(|l| l.score >= min_score).find_map(|label| {
        let name = label.name.split(',').next().unwrap_or_default().replace('_', " ").trim().to_lowercase();
        PLACE_LABELS.iter().find(|(l, _)| *l == name).map(|(_, place)| Finding::from_model(*place, &labels.model))
    })
}

/// "It looks like a street." for the place tag `street`.
pub fn place_sentence(place: &Finding) -> Finding {
    let where_ = match place.text.as_str() {
        "mountains" => "the mountains".to_owned(),
        other => with_article(other),
    };
    Finding { text: format!("It looks like {where_}."), model: place.model.clone() }
}

#[cfg(test)]
mod tests {
    use trellis_plugin_sdk::vision::{Label, Object};

    use super::*;

    const YOLOX: &str = "yolox-nano (coco)";

    fn objects(found: &[(&str, f32)]) -> Objects {
        let object = |(name, score): &(&str, f32)| Object { name: (*name).into(), score: *score, ..Object::default() };
        Objects { objects: found.iter().map(object).collect(), model: YOLOX.into() }
    }

    fn no_labels() -> Labels {
        Labels { labels: Vec::new(), model: "labels".into() }
    }

    #[test]
    fn people_are_counted_per_frame_and_things_keep_their_best_score() {
        let frames =
            [objects(&[("person", 0.9), ("person", 0.8), ("car", 0.4)]), objects(&[("person", 0.7), ("car", 0.8)])];

        let seen = seen(&frames);

        assert_eq!(seen.people, 2);
        assert_eq!(seen.things, [("car".to_owned(), 0.8)]);
        let tags: Vec<String> = seen_tags(&seen, 0, "faces").into_iter().map(|t| t.text).collect();
        assert_eq!(tags, ["people", "car"]);
    }

    #[test]
    fn faces_stand_for_people_the_detector_missed() {
        let seen = seen(&[objects(&[])]);
        let tags = seen_tags(&seen, 1, "rustface 0.1");
        assert_eq!(tags, [Finding::from_model("person", "rustface 0.1")]);
        assert_eq!(people_sentence(&seen, false), None);
    }

    #[test]
    fn people_are_said_in_english() {
        let three = seen(&[objects(&[("person", 0.9); 3])]);
        assert_eq!(people_sentence(&three, false).unwrap().text, "Three people are in the picture.");
        assert_eq!(people_sentence(&three, true).unwrap().text, "Up to three people appear at once in its frames.");
    }

    #[test]
    fn the_place_comes_from_the_things_that_mark_it_else_from_a_label() {
        let street = seen(&[objects(&[("car", 0.9), ("traffic light", 0.7), ("person", 0.8)])]);
        let kitchen = seen(&[objects(&[("oven", 0.8), ("dining table", 0.6), ("refrigerator", 0.7)])]);
        let beach = Labels { labels: vec![Label::new("seashore, coast", 0.6)], model: "labels".into() };

        assert_eq!(place(&street, &no_labels(), 0.2).map(|p| p.text), Some("street".into()));
        assert_eq!(place(&kitchen, &no_labels(), 0.2).map(|p| p.text), Some("kitchen".into()));
        assert_eq!(place(&seen(&[objects(&[])]), &beach, 0.2), Some(Finding::from_model("beach", "labels")));
        assert_eq!(place(&seen(&[objects(&[("car", 0.3)])]), &no_labels(), 0.2), None);
        assert_eq!(place_sentence(&Finding::new("street")).text, "It looks like a street.");
        assert_eq!(place_sentence(&Finding::new("mountains")).text, "It looks like the mountains.");
    }
}
