//! `trellis backup` and `trellis restore` for the embedded deployment (SQLite and local media files).
//!
//! A backup folder holds `trellis.db` (a consistent copy taken while the server writes), the media
//! objects that copy names under `media/objects/`, `license.key` when there is one, and
//! `manifest.json`, written last: each file's SHA-256 and size, and the schema version. A folder
//! without a manifest is no backup. Restore checks every file against the manifest before it
//! writes anything, fills a staging folder beside the data directory and moves it into place, so a
//! failure leaves the target as it was. PostgreSQL and S3 have their own tools (docs/operations.md).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::config::Config;
use crate::config::media::MediaBackend;
use crate::infra::media::StorageKey;
use crate::infra::private_files::{private_dir, private_file};
use crate::store::{Store, snapshot_contents};

const MANIFEST: &str = "manifest.json";
const FORMAT: &str = "trellis-backup/1";
const DATABASE: &str = "trellis.db";
const LICENSE: &str = "license.key";
const OBJECTS: &str = "media/objects";
/// Snapshots taken when an object vanished between the copy of the database and the copy of the
/// object (a delete the server committed meanwhile); a snapshot after that names only what exists.
const ATTEMPTS: usize = 3;

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Manifest {
    format: String,
    created_at: String,
    trellis_version: String,
    schema_version: i64,
    files: Vec<Entry>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    path: String,
    bytes: u64,
    sha256: String,
}

/// Copies the deployment into `to`, a new or empty folder, while the server goes on serving.
pub async fn backup(config: &Config, to: &Path) -> anyhow::Result<()> {
    let database = embedded_database(config, "backup")?;
    if !database.is_file() {
        bail!("no database at {}: is --data-dir (or database.url) the deployment's?", database.display());
    }
    let created = prepare_empty(to, "a backup goes into a new or empty folder")?;
    match write_backup(config, to).await {
        Ok(manifest) => {
            let bytes: u64 = manifest.files.iter().map(|f| f.bytes).sum();
            eprintln!(
                "backup of {} written to {}: {} files, {bytes} bytes, schema version {}",
                config.data_dir().display(),
                to.display(),
                manifest.files.len(),
                manifest.schema_version
            );
            Ok(())
        }
        Err(error) => {
            let cleaned = clear(to, created);
            Err(error.context(format!(
                "the backup to {} failed; {}",
                to.display(),
                match cleaned {
                    Ok(()) => "nothing of it was kept".to_owned(),
                    Err(e) => format!("removing what was written failed too ({e}): remove the folder by hand"),
                }
            )))
        }
    }
}

async fn write_backup(config: &Config, to: &Path) -> anyhow::Result<Manifest> {
    let live = Store::connect(&config.database_url(), 2).await?;
    let media = config.data_dir().join("media").join("objects");
    let copy_path = to.join(DATABASE);
    let mut objects: BTreeMap<String, Entry> = BTreeMap::new();
    let mut schema_version = 0;
    for attempt in 1..=ATTEMPTS {
        remove_if_present(&copy_path)?;
        private_file(&copy_path).with_context(|| format!("creating {}", copy_path.display()))?;
        live.snapshot_into(&copy_path).await.context("copying the database")?;
        let (named, version) = snapshot_contents(&copy_path).await.context("reading the copied database")?;
        schema_version = version;

        let mut missing = Vec::new();
        for key in &named {
            if objects.contains_key(key) {
                continue;
            }
            let storage_key =
                StorageKey::parse(key).with_context(|| format!("the database names a malformed media key {key:?}"))?;
            let path = format!("{OBJECTS}/{}", storage_key.as_str());
            let source = media.join(storage_key.as_str());
            let copied = tokio::task::spawn_blocking({
                let target = to.join(&path);
                move || copy_hashed(&source, &target)
            })
            .await?;
            match copied {
                Ok((bytes, sha256)) => {
                    objects.insert(key.clone(), Entry { path, bytes, sha256 });
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => missing.push(key.clone()),
                Err(e) => return Err(e).with_context(|| format!("copying {}", media.join(key).display())),
            }
        }
        if missing.is_empty() {
            // Objects an earlier snapshot named and this one no longer does are not in the backup.
            let named: std::collections::HashSet<&String> = named.iter().collect();
            for (_, entry) in objects.extract_if(.., |key, _| !named.contains(key)) {
                remove_if_present(&to.join(&entry.path))?;
            }
            break;
        }
        if attempt == ATTEMPTS {
            bail!(
                "the database names {} media objects that are not in {}: {}",
                missing.len(),
                media.display(),
                missing.join(", ")
            );
        }
    }
    live.close().await;

    let mut files = vec![hash_entry(to, DATABASE)?];
    let license = config.data_dir().join(LICENSE);
    if license.is_file() {
        let target = to.join(LICENSE);
        let (bytes, sha256) =
            copy_hashed(&license, &target).with_context(|| format!("copying {}", license.display()))?;
        files.push(Entry { path: LICENSE.into(), bytes, sha256 });
    }
    files.extend(objects.into_values());
    let manifest = Manifest {
        format: FORMAT.into(),
        created_at: time::OffsetDateTime::now_utc().format(&time::format_description::well_known::Rfc3339)?,
        trellis_version: env!("CARGO_PKG_VERSION").into(),
        schema_version,
        files,
    };
    write_manifest(to, &manifest)?;
    Ok(manifest)
}

/// Fills the (new or empty) data directory from the backup in `from`.
pub async fn restore(config: &Config, from: &Path) -> anyhow::Result<()> {
    embedded_database(config, "restore")?;
    if !config.database.url.is_empty() {
        bail!("restore fills the embedded default database <data-dir>/{DATABASE}: leave database.url unset");
    }
    let manifest = read_manifest(from)?;
    let known = crate::store::latest_schema_version();
    if manifest.schema_version > known {
        bail!(
            "{} was made by a newer Trellis (schema version {}; this one knows up to {known}): restore it with that \
             release or a later one",
            from.display(),
            manifest.schema_version
        );
    }
    let problems = tokio::task::spawn_blocking({
        let from = from.to_owned();
        let files = manifest.files.clone();
        move || verify(&from, &files)
    })
    .await?;
    if !problems.is_empty() {
        bail!(
            "the backup in {} is damaged, so nothing was restored:\n  {}\nuse another backup",
            from.display(),
            problems.join("\n  ")
        );
    }

    let target = config.data_dir();
    if target.exists() && !is_empty_dir(target)? {
        bail!("the data directory {} is not empty: restore into a new or empty folder (--data-dir)", target.display());
    }
    let staging = staging_dir(target)?;
    let filled = tokio::task::spawn_blocking({
        let (from, staging, files) = (from.to_owned(), staging.clone(), manifest.files.clone());
        move || fill(&from, &staging, &files)
    })
    .await?;
    let placed = filled.and_then(|()| move_into_place(&staging, target));
    if let Err(error) = placed {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(error.context(format!("restoring into {} failed; it is as it was", target.display())));
    }
    eprintln!(
        "restored {} files from {} into {} (schema version {}); `trellis serve` migrates it on start",
        manifest.files.len(),
        from.display(),
        target.display(),
        manifest.schema_version
    );
    Ok(())
}

/// The SQLite file of an embedded deployment; anything else has its own backup tools.
fn embedded_database(config: &Config, what: &str) -> anyhow::Result<PathBuf> {
    let url = config.database_url();
    if !url.starts_with("sqlite:") {
        bail!(
            "`trellis {what}` is for the embedded SQLite database; on PostgreSQL use pg_dump and pg_restore (or \
             continuous archiving), as docs/operations.md shows"
        );
    }
    if config.media.backend != MediaBackend::Local {
        bail!(
            "`trellis {what}` copies local media files; on S3 use the store's bucket versioning or replication, as \
             docs/operations.md shows"
        );
    }
    let path = url.trim_start_matches("sqlite://").trim_start_matches("sqlite:");
    Ok(PathBuf::from(path.split('?').next().unwrap_or_default()))
}

/// Makes sure `dir` exists and is empty; answers whether it was created here.
fn prepare_empty(dir: &Path, why: &str) -> anyhow::Result<bool> {
    if dir.exists() {
        if !dir.is_dir() {
            bail!("{} is a file: {why}", dir.display());
        }
        if !is_empty_dir(dir)? {
            bail!("{} is not empty: {why}", dir.display());
        }
        private_dir(dir).with_context(|| format!("making {} private", dir.display()))?;
        return Ok(false);
    }
    private_dir(dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(true)
}

fn is_empty_dir(dir: &Path) -> anyhow::Result<bool> {
    Ok(std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?.next().is_none())
}

/// Removes what a failed backup wrote: the folder when it was made here, else its contents.
fn clear(dir: &Path, created: bool) -> io::Result<()> {
    if created {
        return std::fs::remove_dir_all(dir);
    }
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() { std::fs::remove_dir_all(&path)? } else { std::fs::remove_file(&path)? }
    }
    Ok(())
}

fn remove_if_present(path: &Path) -> anyhow::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e).with_context(|| format!("removing {}", path.display())),
        _ => Ok(()),
    }
}

/// Copies `source` to the new file `target` (readable by this user only), synced, and answers its
/// size and SHA-256.
fn copy_hashed(source: &Path, target: &Path) -> io::Result<(u64, String)> {
    let mut input = File::open(source)?;
    if let Some(parent) = target.parent() {
        private_dir(parent)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut output = options.open(target)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 256 * 1024];
    let mut bytes = 0;
    loop {
        let read = input.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        hasher.update(&buffer[..read]);
        output.write_all(&buffer[..read])?;
        bytes += read as u64;
    }
    output.sync_all()?;
    Ok((bytes, hex(&hasher.finalize())))
}

fn hash_file(path: &Path) -> io::Result<(u64, String)> {
    let mut input = File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 256 * 1024];
    let mut bytes = 0;
    loop {
        let read = input.read(&mut buffer)?;
        if read == 0 {
            return Ok((bytes, hex(&hasher.finalize())));
        }
        hasher.update(&buffer[..read]);
        bytes += read as u64;
    }
}

fn hash_entry(dir: &Path, path: &str) -> anyhow::Result<Entry> {
    let (bytes, sha256) =
        hash_file(&dir.join(path)).with_context(|| format!("reading {}", dir.join(path).display()))?;
    Ok(Entry { path: path.into(), bytes, sha256 })
}

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The manifest goes in last, through a temporary name: a folder that has one holds a whole backup.
fn write_manifest(dir: &Path, manifest: &Manifest) -> anyhow::Result<()> {
    let temporary = dir.join(format!("{MANIFEST}.partial"));
    let mut file = File::create(&temporary).with_context(|| format!("writing {}", temporary.display()))?;
    file.write_all(&serde_json::to_vec_pretty(manifest)?)?;
    file.sync_all()?;
    std::fs::rename(&temporary, dir.join(MANIFEST)).context("putting the manifest in place")?;
    File::open(dir)?.sync_all().context("syncing the backup folder")?;
    Ok(())
}

fn read_manifest(from: &Path) -> anyhow::Result<Manifest> {
    let path = from.join(MANIFEST);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => bail!(
            "{} holds no {MANIFEST}: it is not a complete backup (a backup that failed leaves none)",
            from.display()
        ),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let manifest: Manifest =
        serde_json::from_str(&text).with_context(|| format!("{} is not a Trellis backup manifest", path.display()))?;
    if manifest.format != FORMAT {
        bail!("{} has the format {:?}; this Trellis reads {FORMAT:?}", path.display(), manifest.format);
    }
    for entry in &manifest.files {
        if !is_backup_path(&entry.path) {
            bail!("{} names a file outside a backup's layout: {:?}", path.display(), entry.path);
        }
    }
    if !manifest.files.iter().any(|f| f.path == DATABASE) {
        bail!("{} names no {DATABASE}", path.display());
    }
    Ok(manifest)
}

/// Only the layout a backup writes: nothing a crafted manifest could use to write elsewhere.
fn is_backup_path(path: &str) -> bool {
    path == DATABASE
        || path == LICENSE
        || path.strip_prefix(OBJECTS).and_then(|rest| rest.strip_prefix('/')).and_then(StorageKey::parse).is_some()
}

/// Every problem of the backup's files against the manifest.
fn verify(from: &Path, files: &[Entry]) -> Vec<String> {
    let mut problems = Vec::new();
    for entry in files {
        match hash_file(&from.join(&entry.path)) {
            Ok((bytes, sha256)) if bytes == entry.bytes && sha256 == entry.sha256 => {}
            Ok((bytes, sha256)) => problems.push(format!(
                "{} changed: {bytes} bytes with SHA-256 {sha256}, the manifest says {} bytes with {}",
                entry.path, entry.bytes, entry.sha256
            )),
            Err(e) if e.kind() == io::ErrorKind::NotFound => problems.push(format!("{} is missing", entry.path)),
            Err(e) => problems.push(format!("{} cannot be read: {e}", entry.path)),
        }
    }
    problems
}

/// A new private folder beside `target`, on the same file system so the final move is a rename.
fn staging_dir(target: &Path) -> anyhow::Result<PathBuf> {
    let absolute = std::path::absolute(target)?;
    let parent = absolute.parent().context("the data directory has no parent folder")?;
    private_dir(parent).with_context(|| format!("creating {}", parent.display()))?;
    let name = absolute.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let staging = parent.join(format!(".{name}.restore-{}", uuid::Uuid::new_v4().simple()));
    private_dir(&staging).with_context(|| format!("creating {}", staging.display()))?;
    Ok(staging)
}

/// Copies every file into `staging`, checking each copy's hash again (the backup may change while
/// it is read).
fn fill(from: &Path, staging: &Path, files: &[Entry]) -> anyhow::Result<()> {
    for entry in files {
        let (bytes, sha256) = copy_hashed(&from.join(&entry.path), &staging.join(&entry.path))
            .with_context(|| format!("copying {}", entry.path))?;
        if bytes != entry.bytes || sha256 != entry.sha256 {
            bail!("{} changed while it was restored", entry.path);
        }
    }
    Ok(())
}

/// Moves the staging folder's contents into `target` (renamed whole when `target` does not exist).
fn move_into_place(staging: &Path, target: &Path) -> anyhow::Result<()> {
    if !target.exists() {
        std::fs::rename(staging, target)
            .with_context(|| format!("moving the restored files to {}", target.display()))?;
        return Ok(());
    }
    let mut moved = Vec::new();
    for entry in std::fs::read_dir(staging)? {
        let entry = entry?;
        let destination = target.join(entry.file_name());
        if let Err(e) = std::fs::rename(entry.path(), &destination) {
            for path in moved {
                let _ = std::fs::rename(&path, staging.join(Path::new(&path).file_name().unwrap_or_default()));
            }
            return Err(e).with_context(|| format!("moving the restored files to {}", target.display()));
        }
        moved.push(destination);
    }
    std::fs::remove_dir(staging).with_context(|| format!("removing {}", staging.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_names_only_the_backup_layout() {
        assert!(is_backup_path("trellis.db"));
        assert!(is_backup_path("license.key"));
        assert!(is_backup_path("media/objects/forms/0190f1c2-7d1a-7000-8000-000000000000"));
        for bad in
            ["../etc/passwd", "media/objects/../../x", "media/objects/forms/../x", "/abs", "media/objects/a/b/c", ""]
        {
            assert!(!is_backup_path(bad), "{bad}");
        }
    }
}
