//! Frontal faces with rustface (the SeetaFace funnel cascade), on a bounded grey copy of the picture.

use std::sync::OnceLock;

use image::{RgbImage, imageops};
use rustface::{ImageData, Model};

use crate::Face;

/// The detector and its model, for provenance.
pub const FACE_MODEL: &str = concat!("rustface ", env!("RUSTFACE_VERSION"), " (SeetaFace frontal v1.0)");

/// The SeetaFace model that ships inside the rustface crate (copied by `build.rs`).
static MODEL_BYTES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/seeta_fd_frontal_v1.0.bin"));
/// At most this many faces are reported (the surest first).
pub const MAX_FACES: usize = 100;
/// Faces are searched on a copy whose long side is at most this: the cascade's cost grows with the area,
/// and a face smaller than `MIN_FACE` pixels there is too small to mention.
const DETECT_SIDE: u32 = 800;
const MIN_FACE: u32 = 20;
/// The cascade's score threshold (the library's default is 3.85; its docs name 0.95, 2.8 and 4.5 as typical):
/// 2.8 finds the astronaut's face and nothing on the animal, food and rocket photos of the crate's tests.
const SCORE_THRESHOLD: f64 = 2.8;

fn model() -> &'static Model {
    static MODEL: OnceLock<Model> = OnceLock::new();
    // The bytes are part of this binary and were read by the tests, so a failure here is a build bug.
    MODEL.get_or_init(|| rustface::read_model(MODEL_BYTES).expect("the embedded SeetaFace model"))
}

/// Faces found (at most [`MAX_FACES`], surest first), in pixels of `image`.
pub fn detect_faces(image: &RgbImage) -> Vec<Face> {
    let (width, height) = image.dimensions();
    if width < MIN_FACE || height < MIN_FACE {
        return Vec::new();
    }
    let long = width.max(height);
    let scale = if long > DETECT_SIDE { f64::from(DETECT_SIDE) / f64::from(long) } else { 1.0 };
    let grey = imageops::grayscale(image);
    let grey = if scale < 1.0 {
        let w = ((f64::from(width) * scale).round() as u32).max(MIN_FACE);
        let h = ((f64::from(height) * scale).round() as u32).max(MIN_FACE);
        imageops::thumbnail(&grey, w, h)
    } else {
        grey
    };
    // The detector keeps scratch buffers, so each call gets its own (the model clone is a memory copy).
    let mut detector = rustface::create_detector_with_model(model().clone());
    detector.set_min_face_size(MIN_FACE);
    detector.set_score_thresh(SCORE_THRESHOLD);
    detector.set_pyramid_scale_factor(0.8);
    detector.set_slide_window_step(4, 4);
    let found = detector.detect(&ImageData::new(grey.as_raw(), grey.width(), grey.height()));
    let back = 1.0 / scale;
    let mut faces: Vec<Face> = found
        .iter()
        .map(|f| {
            let b = f.bbox();
            let x = (f64::from(b.x().max(0)) * back).round() as u32;
            let y = (f64::from(b.y().max(0)) * back).round() as u32;
            let x = x.min(width - 1);
            let y = y.min(height - 1);
            Face {
                x,
                y,
                width: ((f64::from(b.width()) * back).round() as u32).clamp(1, width - x),
                height: ((f64::from(b.height()) * back).round() as u32).clamp(1, height - y),
                score: f.score() as f32,
            }
        })
        .collect();
    faces.sort_by(|a, b| b.score.total_cmp(&a.score));
    faces.truncate(MAX_FACES);
    faces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_model_loads_and_names_its_version() {
        assert!(model().get_hierarchy_count() > 0);
        assert!(FACE_MODEL.starts_with("rustface 0.1."), "{FACE_MODEL}");
    }

    #[test]
    fn a_flat_or_tiny_picture_has_no_faces() {
        assert!(detect_faces(&RgbImage::from_pixel(640, 480, image::Rgb([120, 160, 200]))).is_empty());
        assert!(detect_faces(&RgbImage::new(10, 300)).is_empty());
    }
}
