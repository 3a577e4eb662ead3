//! Prints, for each fixture photo, the top-3 labels, the faces, the people and things the object detector
//! found, the printed text read, the main colours and the time each call took: the accuracy table of
//! docs/performance.md. Run through `bench/vision-accuracy.sh`.

use std::{path::PathBuf, time::Instant};

use trellis_inference::media::DecodeBounds;
use trellis_inference::vision::{self, ObjectDetector, Vision};

fn cache(var: &str, leaf: &str) -> PathBuf {
    std::env::var_os(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache/trellis").join(leaf))
}

fn main() -> anyhow::Result<()> {
    let started = Instant::now();
    let model = Vision::load(&cache("TRELLIS_MODELS_DIR", "models"))?;
    println!("label model: {} (loaded in {} ms)", model.label_model(), started.elapsed().as_millis());
    println!("face model: {}", vision::FACE_MODEL);
    let detector = ObjectDetector::load(&cache("TRELLIS_MODELS_DIR", "models"))?;
    println!("object model: {}", vision::OBJECT_MODEL);
    let text_model = trellis_inference::text::model().unwrap_or("tesseract: not installed");
    println!("text model: {text_model}");
    let bounds = DecodeBounds::new(std::time::Duration::from_secs(60));
    let dir = cache("TRELLIS_FIXTURES", "fixtures");
    let mut photos: Vec<PathBuf> =
        std::fs::read_dir(&dir)?.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect();
    photos.sort();
    println!(
        "| photo | size | top-3 labels | faces | people, things | text (lines: first) | colours | decode / labels / \
         faces / objects / text / facts ms |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for path in photos {
        let bytes = std::fs::read(&path)?;
        let t = Instant::now();
        let Ok(image) = vision::decode_image(&bytes, 50_000_000, 2048) else { continue };
        let decode = t.elapsed();
        let t = Instant::now();
        let labels = model.classify(&image, 3)?;
        let classify = t.elapsed();
        let t = Instant::now();
        let faces = vision::detect_faces(&image);
        let detect = t.elapsed();
        let t = Instant::now();
        let objects = detector.detect(&image)?;
        let detect_objects = t.elapsed();
        let t = Instant::now();
        let text = trellis_inference::text::read_text(&image, &bounds).unwrap_or_default();
        let read = t.elapsed();
        let t = Instant::now();
        let facts = vision::facts(&image);
        let describe = t.elapsed();
        let people = objects.iter().filter(|o| o.name == "person").count();
        let mut things: Vec<String> = Vec::new();
        for o in objects.iter().filter(|o| o.name != "person") {
            if !things.contains(&o.name) {
                things.push(o.name.clone());
            }
        }
        let seen = format!("{people} people{}", things.iter().take(4).map(|t| format!(", {t}")).collect::<String>());
        let text = match text.first() {
            Some(first) => format!("{}: {}", text.len(), first.chars().take(40).collect::<String>()),
            None => "none".to_owned(),
        };
        let labels: Vec<String> = labels.iter().map(|l| format!("{} {:.2}", l.name, l.score)).collect();
        let colours: Vec<String> =
            facts.colours.iter().map(|c| format!("{} {:.0}%", c.name, c.share * 100.0)).collect();
        println!(
            "| {} | {}×{} {} | {} | {} | {} | {} | {} | {} / {} / {} / {} / {} / {} |",
            path.file_name().unwrap_or_default().to_string_lossy(),
            facts.width,
            facts.height,
            facts.orientation,
            labels.join(", "),
            faces.len(),
            seen,
            text,
            colours.join(", "),
            decode.as_millis(),
            classify.as_millis(),
            detect.as_millis(),
            detect_objects.as_millis(),
            read.as_millis(),
            describe.as_millis(),
        );
    }
    Ok(())
}
