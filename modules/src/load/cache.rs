//! Compiled code on disk, so a restart does not run Cranelift again.
//!
//! An entry is `<cache_dir>/<sha256 of the component>-<hash of the engine's compile settings>.cwasm`. It is
//! written to a temporary file in the same directory, synced, then renamed, so a reader sees either nothing or
//! a whole file. An entry that fails to load (other wasmtime, corrupt file) is compiled again and replaced.
//! A compile holds an exclusive lock on `.<entry name>.lock` beside it (kept afterwards: removing it could
//! let a waiter and a newcomer each hold a lock), so processes sharing the directory compile an entry once.

use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;
use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

/// Where a module's machine code came from at start-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CodeOrigin {
    /// Compiled with Cranelift (no cache, or nothing usable in it).
    Compiled,
    /// Loaded from the on-disk cache.
    Cache,
}

/// How a module's code was obtained and how long it took.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CodeLoad {
    /// Compiled or loaded from the cache.
    pub origin: CodeOrigin,
    /// Time spent compiling or loading (including writing the cache entry).
    pub duration: Duration,
}

pub(crate) fn load_component(
    engine: &Engine,
    bytes: &[u8],
    cache_dir: Option<&Path>,
) -> anyhow::Result<(Component, CodeLoad)> {
    let started = Instant::now();
    let Some(dir) = cache_dir else {
        let component = Component::new(engine, bytes).map_err(anyhow::Error::from)?;
        return Ok((component, CodeLoad { origin: CodeOrigin::Compiled, duration: started.elapsed() }));
    };
    let path = entry_path(engine, bytes, dir);
    if let Some(component) = cached(engine, &path) {
        return Ok((component, CodeLoad { origin: CodeOrigin::Cache, duration: started.elapsed() }));
    }
    // One compiler per entry across processes (servers sharing the directory, test processes): the
    // others wait for its entry instead of compiling the same code at the same time. Without a lock
    // (it cannot be made), everyone compiles, as before.
    let _turn = compile_turn(dir, &path);
    if let Some(component) = cached(engine, &path) {
        return Ok((component, CodeLoad { origin: CodeOrigin::Cache, duration: started.elapsed() }));
    }
    let component = Component::new(engine, bytes).map_err(anyhow::Error::from)?;
    if let Err(err) = write_entry(dir, &path, &component) {
        // A read-only or full disk costs a recompile at the next start, nothing more.
        tracing::warn!(dir = %dir.display(), error = %format!("{err:#}"), "could not write module cache entry");
    }
    Ok((component, CodeLoad { origin: CodeOrigin::Compiled, duration: started.elapsed() }))
}

/// The entry at `path`, when there is a usable one.
fn cached(engine: &Engine, path: &Path) -> Option<Component> {
    if !path.exists() {
        return None;
    }
    match deserialize_own_entry(engine, path) {
        Ok(component) => Some(component),
        Err(err) => {
            tracing::warn!(path = %path.display(), error = %err, "unusable cache entry, recompiling");
            None
        }
    }
}

/// Waits for the exclusive lock on the entry's lock file and holds it until dropped; `None` when the
/// file cannot be made or locked.
fn compile_turn(dir: &Path, path: &Path) -> Option<std::fs::File> {
    create_private_dir(dir).ok()?;
    let name = path.file_name()?.to_str()?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(format!(".{name}.lock")))
        .ok()?;
    file.lock().ok()?;
    Some(file)
}

/// Loads machine code from our own cache.
///
/// SAFETY: `Component::deserialize_file` maps the file and runs its code as trusted output of Cranelift; it
/// is unsafe because wasmtime cannot tell such output from arbitrary bytes. Only this module writes into the
/// cache directory (created owner-only), and only from `Component::serialize` of code we compiled; a name
/// holds the SHA-256 of the component and the hash of the engine's compile settings (which include the
/// wasmtime version), and wasmtime still checks its own header and settings when loading. Files appear by
/// atomic rename after a sync, so a crash cannot leave a half-written entry under a real name, and entries
/// are never modified in place while mapped. Whoever can write this directory can already replace the
/// host's binary or its data, so trusting it adds no new authority.
#[allow(unsafe_code)]
fn deserialize_own_entry(engine: &Engine, path: &Path) -> anyhow::Result<Component> {
    // SAFETY: see above; the path is an entry of our own cache directory, written by `write_entry`.
    unsafe { Component::deserialize_file(engine, path) }.map_err(anyhow::Error::from)
}

fn write_entry(dir: &Path, path: &Path, component: &Component) -> anyhow::Result<()> {
    create_private_dir(dir)?;
    let bytes = component.serialize().map_err(anyhow::Error::from)?;
    let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("entry");
    // Unique per writer: two threads (or processes) may fill the same entry at once.
    let tmp = dir.join(format!(".{file_name}.{}.tmp", uuid::Uuid::new_v4().simple()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    Ok(result?)
}

pub(crate) fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

fn entry_path(engine: &Engine, bytes: &[u8], dir: &Path) -> PathBuf {
    let module = hex(&Sha256::digest(bytes)[..]);
    let mut settings = Sha256Hasher(Sha256::new());
    engine.precompile_compatibility_hash().hash(&mut settings);
    let settings = hex(&settings.0.finalize()[..8]);
    dir.join(format!("{module}-{settings}.cwasm"))
}

/// Feeds `Hash` output into SHA-256, which unlike `DefaultHasher` is stable across Rust releases.
struct Sha256Hasher(Sha256);

impl Hasher for Sha256Hasher {
    fn finish(&self) -> u64 {
        let digest = self.0.clone().finalize();
        u64::from_le_bytes(digest[..8].try_into().expect("8 bytes"))
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
