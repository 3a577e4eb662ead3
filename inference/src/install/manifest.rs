//! The manifest of an install: which pinned sources it came from and which files it wrote (size and
//! sha256). Written last and removed first, so its presence means a finished install.

use std::fs;
use std::io::Write;
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::Wheel;

const FILE: &str = "manifest.json";
/// Temporary files carry this in their name until renamed into place.
const PARTIAL: &str = ".partial";

#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
struct Source {
    package: String,
    version: String,
    sha256: String,
}

#[derive(Debug, Serialize, Deserialize)]
struct File {
    name: String,
    bytes: u64,
    sha256: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Manifest {
    sources: Vec<Source>,
    files: Vec<File>,
}

impl Manifest {
    /// Describes `wheels` and every file now in `dir` (but temporary files and the manifest).
    pub(crate) fn new(wheels: &[Wheel], dir: &Path) -> anyhow::Result<Manifest> {
        let mut files = Vec::new();
        for entry in fs::read_dir(dir)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == FILE || name.contains(PARTIAL) || !entry.file_type()?.is_file() {
                continue;
            }
            let bytes = fs::read(entry.path())?;
            files.push(File { name, bytes: bytes.len() as u64, sha256: sha256_hex(&bytes) });
        }
        files.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Manifest { sources: wheels.iter().map(source).collect(), files })
    }

    /// The manifest in `dir`, if there is a readable one.
    pub(crate) fn read(dir: &Path) -> Option<Manifest> {
        serde_json::from_slice(&fs::read(dir.join(FILE)).ok()?).ok()
    }

    pub(crate) fn write(&self, dir: &Path) -> anyhow::Result<()> {
        write_atomically(&dir.join(FILE), &serde_json::to_vec_pretty(self)?)
    }

    pub(crate) fn remove(dir: &Path) -> anyhow::Result<()> {
        match fs::remove_file(dir.join(FILE)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.into()),
            _ => Ok(()),
        }
    }

    pub(crate) fn sources_are(&self, wheels: &[Wheel]) -> bool {
        self.sources == wheels.iter().map(source).collect::<Vec<_>>()
    }

    /// Every listed file exists with its size.
    pub(crate) fn files_present(&self, dir: &Path) -> bool {
        !self.files.is_empty()
            && self.files.iter().all(|f| fs::metadata(dir.join(&f.name)).is_ok_and(|m| m.len() == f.bytes))
    }

    /// Whether the manifest lists a file of this name.
    pub(crate) fn lists(&self, name: &str) -> bool {
        self.files.iter().any(|f| f.name == name)
    }

    /// Every listed file exists with its size and sha256.
    pub(crate) fn files_intact(&self, dir: &Path) -> bool {
        self.files_present(dir)
            && self.files.iter().all(|f| fs::read(dir.join(&f.name)).is_ok_and(|b| sha256_hex(&b) == f.sha256))
    }
}

fn source(w: &Wheel) -> Source {
    Source { package: w.package.to_owned(), version: w.version.to_owned(), sha256: w.sha256.to_owned() }
}

pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Writes `bytes` to a temporary file beside `path`, flushes it to disk and renames it into place, so
/// readers see the old file or the whole new one.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let name = path.file_name().context("a file name")?.to_string_lossy();
    let temporary = path.with_file_name(format!("{name}{PARTIAL}"));
    let mut file = fs::File::create(&temporary).with_context(|| format!("creating {}", temporary.display()))?;
    file.write_all(bytes)?;
    file.sync_all()?;
    fs::rename(&temporary, path).with_context(|| format!("renaming into {}", path.display()))?;
    Ok(())
}
