//! Cranelift's incremental compilation cache on disk, for the author's tools (`module check`, `module dev`).
//!
//! Rebuilding a JavaScript or Python module changes a few of its functions; the tens of thousands of the
//! language runtime it embeds stay as they were. With this store, Cranelift compiles a function only when its
//! body is new and reads every other one back, so a reload costs seconds instead of a full compile.
//!
//! An entry is `<dir>/<sha256 of the key>`, holding the SHA-256 of the value, then the value. A read checks
//! the digest (a torn or damaged file is a miss, never wrong code); a write goes to a temporary file renamed
//! into place. The folder is kept under [`MAX_BYTES`] by [`prune`], oldest entries first.

use std::borrow::Cow;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use wasmtime::CacheStore;

/// What the folder may hold before [`prune`] removes its oldest entries.
pub const MAX_BYTES: u64 = 1 << 30;

/// One folder of compiled functions, by the hash of Cranelift's key.
#[derive(Debug)]
pub(crate) struct FunctionCache {
    dir: PathBuf,
}

impl FunctionCache {
    pub(crate) fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    fn path(&self, key: &[u8]) -> PathBuf {
        self.dir.join(hex(&Sha256::digest(key)))
    }
}

impl CacheStore for FunctionCache {
    fn get(&self, key: &[u8]) -> Option<Cow<'_, [u8]>> {
        let bytes = std::fs::read(self.path(key)).ok()?;
        let (digest, value) = bytes.split_at_checked(32)?;
        (Sha256::digest(value).as_slice() == digest).then(|| Cow::Owned(value.to_vec()))
    }

    fn insert(&self, key: &[u8], value: Vec<u8>) -> bool {
        let path = self.path(key);
        let tmp = self.dir.join(format!(".{}.tmp", uuid::Uuid::new_v4().simple()));
        let written = (|| {
            super::cache::create_private_dir(&self.dir)?;
            let mut file = std::fs::File::create(&tmp)?;
            file.write_all(&Sha256::digest(&value))?;
            file.write_all(&value)?;
            // No sync: a lost or torn entry is a miss (the digest), and the compile is redone.
            std::fs::rename(&tmp, &path)
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
        written.is_ok()
    }
}

/// Removes the oldest files of `dir` until the rest hold at most `max_bytes`. Files are compiled code of
/// this cache (or of the whole-component cache beside it); a file removed while another process maps it
/// stays readable to that process, so pruning never breaks a running server.
pub fn prune(dir: &Path, max_bytes: u64) -> std::io::Result<()> {
    let mut files = Vec::new();
    let mut total = 0u64;
    for entry in std::fs::read_dir(dir)?.filter_map(Result::ok) {
        let Ok(meta) = entry.metadata() else { continue };
        if meta.is_file() {
            total += meta.len();
            files.push((meta.modified().ok(), meta.len(), entry.path()));
        }
    }
    files.sort();
    for (_, len, path) in files {
        if total <= max_bytes {
            break;
        }
        if std::fs::remove_file(&path).is_ok() {
            total -= len;
        }
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_comes_back_and_a_damaged_one_is_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let cache = FunctionCache::new(dir.path().join("functions"));
        assert!(cache.get(b"key").is_none());
        assert!(cache.insert(b"key", b"compiled".to_vec()));
        assert_eq!(cache.get(b"key").as_deref(), Some(&b"compiled"[..]));

        let path = cache.path(b"key");
        let mut bytes = std::fs::read(&path).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(cache.get(b"key").is_none());
        std::fs::write(&path, b"short").unwrap();
        assert!(cache.get(b"key").is_none());
    }

    #[test]
    fn pruning_removes_the_oldest_files_down_to_the_bound() {
        let dir = tempfile::tempdir().unwrap();
        for (i, name) in ["old", "mid", "new"].iter().enumerate() {
            let path = dir.path().join(name);
            std::fs::write(&path, [0u8; 100]).unwrap();
            let time = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000 + i as u64);
            std::fs::File::options().write(true).open(&path).unwrap().set_modified(time).unwrap();
        }
        prune(dir.path(), 250).unwrap();
        let mut left: Vec<_> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        left.sort();
        assert_eq!(left, ["mid", "new"]);
    }
}
