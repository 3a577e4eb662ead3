//! Speed of each vision call on a real ~1-megapixel photo (darknet's kite.jpg, 1352×900), and of the whole
//! image analysis together, which the issue bounds at 300 ms on 2 cores: decode, then labels + faces +
//! objects + facts on one thread while the text is read on another (as the server does: its OCR program
//! runs from a thread of its own, started once the frames are decoded).
//!
//! `scripts/fixtures` fetches the photo; the label model must be installed (`trellis models install`).
//! Run: `cargo bench -p trellis-inference --bench vision`.

use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use trellis_inference::media::DecodeBounds;
use trellis_inference::vision::{self, ObjectDetector, Vision};

/// Decoding bounds for the bench: refuse above 50 megapixels, scale the long side down to 2048.
const MAX_PIXELS: u64 = 50_000_000;
const MAX_SIDE: u32 = 2048;

fn cache(var: &str, leaf: &str) -> PathBuf {
    std::env::var_os(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache/trellis").join(leaf))
}

fn bench(c: &mut Criterion) {
    let photo = cache("TRELLIS_FIXTURES", "fixtures").join("kite.jpg");
    let bytes = std::fs::read(&photo).unwrap_or_else(|e| panic!("{}: {e}: run scripts/fixtures", photo.display()));
    let model =
        Vision::load(&cache("TRELLIS_MODELS_DIR", "models")).expect("the label model: run `trellis models install`");
    let detector = ObjectDetector::load(&cache("TRELLIS_MODELS_DIR", "models")).expect("the object model");
    let bounds = DecodeBounds::new(std::time::Duration::from_secs(60));
    let image = vision::decode_image(&bytes, MAX_PIXELS, MAX_SIDE).unwrap();
    eprintln!("photo: {} ({}×{})", photo.display(), image.width(), image.height());

    let mut group = c.benchmark_group("vision");
    group.sample_size(20);
    group.bench_function("decode", |b| b.iter(|| vision::decode_image(&bytes, MAX_PIXELS, MAX_SIDE).unwrap()));
    group.bench_function("classify", |b| b.iter(|| model.classify(&image, 5).unwrap()));
    group.bench_function("faces", |b| b.iter(|| vision::detect_faces(&image)));
    group.bench_function("facts", |b| b.iter(|| vision::facts(&image)));
    group.bench_function("objects", |b| b.iter(|| detector.detect(&image).unwrap()));
    group.bench_function("text", |b| b.iter(|| trellis_inference::text::read_text(&image, &bounds).unwrap()));
    group.bench_function("all", |b| {
        b.iter(|| {
            let image = std::sync::Arc::new(vision::decode_image(&bytes, MAX_PIXELS, MAX_SIDE).unwrap());
            let (for_text, bounds) = (image.clone(), bounds.clone());
            let text = std::thread::spawn(move || trellis_inference::text::read_text(&for_text, &bounds).unwrap());
            let seen = (
                model.classify(&image, 5).unwrap(),
                vision::detect_faces(&image),
                detector.detect(&image).unwrap(),
                vision::facts(&image),
            );
            (seen, text.join().unwrap())
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
