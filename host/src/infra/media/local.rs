//! Objects as files under one folder, opened through `cap-std` so that no name can reach outside it.
//!
//! Layout: `tmp/<uuid>` while an object is being written, `objects/<kind>/<uuid>` once complete,
//! `uploading/<uuid>` for a resumable upload until it is finished (then renamed into `objects/`).
//! A write goes to the temporary file, is flushed with `fsync`, then renamed into place and the
//! folder synced, so a crash leaves either the whole object or nothing visible (plus, at worst, a
//! temporary file that [`LocalStore::remove_stale_temporaries`] clears). A writer holds an advisory
//! lock (`flock`) on its temporary file until it closes it; the lock, not the file's age, tells a
//! running write from one a crash left, since a slow client's writes can be further apart than any grace.

use std::collections::HashSet;
use std::io::{self, Seek, SeekFrom};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use anyhow::Context;
use cap_std::ambient_authority;
use cap_std::fs::Dir;
use futures::StreamExt;
use tokio::io::AsyncSeekExt;
use tokio_util::io::ReaderStream;

use super::appender::{self, Appender};
use super::{ByteStream, MediaError, MediaStore, Object, Progress, Resumable, StorageKey};

const TMP: &str = "tmp";
const OBJECTS: &str = "objects";
const UPLOADING: &str = "uploading";
/// A resumable upload is synced and its progress recorded at least this often.
const RECORD_EVERY: u64 = 16 * 1024 * 1024;
/// The state of every resumable upload here: the file's name follows from the key, its length
/// past the recorded progress is cut off before the next write.
const STATE: &str = "local";
/// An object up to this size is received whole before its one write; a larger one is written as it comes.
const WRITE_BUFFER: usize = 1024 * 1024;
const READ_CHUNK: usize = 256 * 1024;

pub struct LocalStore {
    root: Arc<Dir>,
    /// For messages only.
    path: PathBuf,
}

impl LocalStore {
    /// Opens (creating when needed) the folder `path`.
    pub fn open(path: &Path) -> anyhow::Result<Self> {
        crate::infra::private_files::private_dir(path)
            .with_context(|| format!("creating the media folder {}", path.display()))?;
        let root = Dir::open_ambient_dir(path, ambient_authority())
            .with_context(|| format!("opening the media folder {}", path.display()))?;
        root.create_dir_all(TMP)?;
        root.create_dir_all(OBJECTS)?;
        root.create_dir_all(UPLOADING)?;
        Ok(Self { root: Arc::new(root), path: path.to_owned() })
    }

    /// The object's path relative to the root. Keys are validated when parsed, and `cap-std` refuses
    /// any path that would leave the root anyway.
    fn relative(key: &StorageKey) -> PathBuf {
        Path::new(OBJECTS).join(key.as_str())
    }

    /// Where a resumable upload's bytes wait: `uploading/<the key's uuid>`.
    fn uploading(key: &StorageKey) -> PathBuf {
        let name = key.as_str().rsplit('/').next().unwrap_or_default();
        Path::new(UPLOADING).join(name)
    }

    /// Removes temporary files older than `grace` that no writer holds (in this process or another
    /// sharing the folder): writes that a crash interrupted. The grace covers the instant between a
    /// file's creation and its writer's lock.
    pub async fn remove_stale_temporaries(&self, grace: Duration) -> io::Result<usize> {
        let root = self.root.clone();
        blocking(move || {
            let tmp = root.open_dir(TMP)?;
            let now = SystemTime::now();
            let mut removed = 0;
            for entry in tmp.entries()? {
                let entry = entry?;
                let name = entry.file_name();
                let modified = entry.metadata()?.modified()?.into_std();
                if now.duration_since(modified).unwrap_or_default() < grace {
                    continue;
                }
                let file = match tmp.open(&name) {
                    Ok(file) => file.into_std(),
                    // Placed or removed by its writer since it was listed.
                    Err(error) if error.kind() == io::ErrorKind::NotFound => continue,
                    Err(error) => return Err(error),
                };
                match file.try_lock() {
                    // Removed while this holds the lock, so no writer can have taken it since.
                    Ok(()) => match tmp.remove_file(&name) {
                        Ok(()) => removed += 1,
                        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
                        Err(error) => return Err(error),
                    },
                    Err(std::fs::TryLockError::WouldBlock) => {}
                    Err(std::fs::TryLockError::Error(error)) => return Err(error),
                }
            }
            Ok(removed)
        })
        .await
    }

    /// Every complete object's key (for tests and audits; the sweeper works from the database).
    pub async fn list(&self) -> io::Result<Vec<StorageKey>> {
        let root = self.root.clone();
        blocking(move || {
            let objects = root.open_dir(OBJECTS)?;
            let mut keys = Vec::new();
            for kind in objects.entries()? {
                let kind = kind?;
                let kind_name = kind.file_name().to_string_lossy().into_owned();
                for object in objects.open_dir(&kind_name)?.entries()? {
                    let name = object?.file_name().to_string_lossy().into_owned();
                    keys.extend(StorageKey::parse(&format!("{kind_name}/{name}")));
                }
            }
            Ok(keys)
        })
        .await
    }

    fn unavailable(&self, error: io::Error) -> MediaError {
        tracing::error!(folder = %self.path.display(), error = %error, "local media store failed");
        MediaError::Unavailable(error.to_string())
    }

    /// Writes `body` after the `from` bytes the upload holds, hashing it on the way, and records
    /// each durable step.
    async fn append(
        &self,
        appender: &mut Appender,
        from: u64,
        mut body: ByteStream,
        progress: &mut dyn Progress,
    ) -> Result<(), MediaError> {
        let (mut received, mut unrecorded) = (from, 0u64);
        let failure = loop {
            match body.next().await {
                Some(Ok(chunk)) => {
                    progress.wrote(&chunk);
                    received += chunk.len() as u64;
                    unrecorded += chunk.len() as u64;
                    appender.write(chunk).await.map_err(|e| self.unavailable(e))?;
                    if unrecorded >= RECORD_EVERY {
                        self.make_durable(appender, progress, received).await?;
                        unrecorded = 0;
                    }
                }
                Some(Err(error)) => break Some(error),
                None => break None,
            }
        };
        // What arrived before the body ended (or failed) is kept: the client resumes after it.
        if unrecorded > 0 {
            self.make_durable(appender, progress, received).await?;
        }
        match failure {
            Some(error) => Err(MediaError::Body(error)),
            None => Ok(()),
        }
    }

    /// Syncs what a resumable append wrote, then records that the upload holds `received` bytes:
    /// a record never runs ahead of the disk.
    async fn make_durable(
        &self,
        appender: &mut Appender,
        progress: &mut dyn Progress,
        received: u64,
    ) -> Result<(), MediaError> {
        appender.sync().await.map_err(|e| self.unavailable(e))?;
        progress.record(received, STATE).await
    }
}

#[async_trait::async_trait]
impl MediaStore for LocalStore {
    /// An object that arrives whole within [`WRITE_BUFFER`] is written, synced and put in place by one
    /// blocking task (each hand-off to the blocking pool costs two thread switches, and a small upload
    /// made five); a larger one streams through an [`Appender`], written while the rest arrives.
    async fn put(&self, key: &StorageKey, mut body: ByteStream) -> Result<u64, MediaError> {
        let temporary = Path::new(TMP).join(uuid::Uuid::new_v4().to_string());
        let target = Self::relative(key);
        let (mut held, mut length) = (Vec::new(), 0u64);
        while length < WRITE_BUFFER as u64 {
            match body.next().await {
                Some(Ok(chunk)) => {
                    length += chunk.len() as u64;
                    held.push(chunk);
                }
                Some(Err(error)) => return Err(MediaError::Body(error)),
                None => {
                    let root = self.root.clone();
                    blocking(move || {
                        let file = create_locked(&root, &temporary)?;
                        let stored = appender::write_all(&file, &held).and_then(|()| file.sync_data());
                        drop(file);
                        stored.and_then(|()| place(&root, &temporary, &target)).inspect_err(|_| {
                            let _ = root.remove_file(&temporary);
                        })
                    })
                    .await
                    .map_err(|e| self.unavailable(e))?;
                    return Ok(length);
                }
            }
        }
        let root = self.root.clone();
        let path = temporary.clone();
        let file = blocking(move || create_locked(&root, &path)).await.map_err(|e| self.unavailable(e))?;
        let mut appender = Appender::new(file, 0);
        let written = async {
            for chunk in held {
                appender.write(chunk).await.map_err(|e| self.unavailable(e))?;
            }
            while let Some(chunk) = body.next().await {
                let chunk = chunk.map_err(MediaError::Body)?;
                length += chunk.len() as u64;
                appender.write(chunk).await.map_err(|e| self.unavailable(e))?;
            }
            appender.sync().await.map_err(|e| self.unavailable(e))
        }
        .await;
        // The writer ends before the file is placed or removed, whatever happened.
        let closed = appender.close().await.map_err(|e| self.unavailable(e));
        let root = self.root.clone();
        let placed = match written.and(closed) {
            Ok(()) => blocking(move || place(&root, &temporary, &target)).await.map_err(|e| self.unavailable(e)),
            Err(error) => {
                let _ = blocking(move || root.remove_file(&temporary)).await;
                return Err(error);
            }
        };
        placed.map(|()| length)
    }

    async fn get(&self, key: &StorageKey, range: Option<Range<u64>>) -> Result<Object, MediaError> {
        let root = self.root.clone();
        let path = Self::relative(key);
        let file = match blocking(move || root.open(&path)).await {
            Ok(file) => file,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Err(MediaError::NotFound),
            Err(error) => return Err(self.unavailable(error)),
        };
        let mut file = tokio::fs::File::from_std(file.into_std());
        let size = file.metadata().await.map_err(|e| self.unavailable(e))?.len();
        let range = range.unwrap_or(0..size);
        if range.end > size {
            // The row says more bytes than the file holds: the object is damaged.
            return Err(MediaError::NotFound);
        }
        file.seek(SeekFrom::Start(range.start)).await.map_err(|e| self.unavailable(e))?;
        let length = range.end - range.start;
        let reader = tokio::io::AsyncReadExt::take(file, length);
        Ok(Object { length, body: Box::pin(ReaderStream::with_capacity(reader, READ_CHUNK)) })
    }

    async fn delete(&self, key: &StorageKey) -> Result<(), MediaError> {
        let root = self.root.clone();
        let path = Self::relative(key);
        match blocking(move || root.remove_file(&path)).await {
            Err(error) if error.kind() != io::ErrorKind::NotFound => Err(self.unavailable(error)),
            _ => Ok(()),
        }
    }

    /// A running upload holds its temporary file's lock, so it never looks stale here however slow it is.
    async fn remove_stale(&self, grace: Duration, _live: &HashSet<String>) -> Result<usize, MediaError> {
        self.remove_stale_temporaries(grace).await.map_err(|e| self.unavailable(e))
    }

    async fn check(&self) -> Result<(), MediaError> {
        let root = self.root.clone();
        blocking(move || root.dir_metadata().map(|_| ())).await.map_err(|e| self.unavailable(e))
    }

    async fn resumable_begin(&self, _key: &StorageKey) -> Result<String, MediaError> {
        Ok(STATE.to_owned())
    }

    async fn resumable_append(
        &self,
        at: Resumable<'_>,
        body: ByteStream,
        progress: &mut dyn Progress,
    ) -> Result<(), MediaError> {
        let root = self.root.clone();
        let path = Self::uploading(at.key);
        let from = at.received;
        let file = blocking(move || {
            let mut options = cap_std::fs::OpenOptions::new();
            options.create(true).write(true);
            let mut file = root.open_with(&path, &options)?.into_std();
            if file.metadata()?.len() < from {
                return Err(io::Error::other("a resumable upload's file is shorter than recorded"));
            }
            // Bytes past the recorded progress were never acknowledged (a crash cut their write short).
            file.set_len(from)?;
            file.seek(SeekFrom::Start(from))?;
            Ok(file)
        })
        .await
        .map_err(|e| self.unavailable(e))?;
        let mut appender = Appender::new(file, from);
        let appended = self.append(&mut appender, from, body, progress).await;
        // The writer ends before this returns, whatever happened: the next append cuts the file back.
        let closed = appender.close().await;
        appended?;
        closed.map_err(|e| self.unavailable(e))
    }

    async fn resumable_finish(&self, at: Resumable<'_>) -> Result<String, MediaError> {
        let root = self.root.clone();
        let (from, target) = (Self::uploading(at.key), Self::relative(at.key));
        blocking(move || {
            let folder = target.parent().unwrap_or(Path::new(OBJECTS));
            root.create_dir_all(folder)?;
            match root.rename(&from, &root, &target) {
                Ok(()) => {}
                // A finish that got through before a crash: the object is already in place.
                Err(error) if error.kind() == io::ErrorKind::NotFound && root.exists(&target) => return Ok(()),
                Err(error) => return Err(error),
            }
            root.open_dir(folder)?.open(".")?.sync_all()
        })
        .await
        .map_err(|e| self.unavailable(e))?;
        Ok(STATE.to_owned())
    }

    async fn resumable_abort(&self, key: &StorageKey, _state: &str) -> Result<(), MediaError> {
        let root = self.root.clone();
        let path = Self::uploading(key);
        match blocking(move || root.remove_file(&path)).await {
            Err(error) if error.kind() != io::ErrorKind::NotFound => Err(self.unavailable(error)),
            _ => Ok(()),
        }
    }
}

/// Creates a temporary file and takes its lock, which the writer holds until it closes the file.
fn create_locked(root: &Dir, temporary: &Path) -> io::Result<std::fs::File> {
    let file = root.create(temporary)?.into_std();
    file.lock()?;
    Ok(file)
}

/// Renames a synced temporary file to `target` and syncs the folder: the rename is durable only once
/// the folder itself is on disk. The folder is made when the rename finds it missing.
fn place(root: &Dir, temporary: &Path, target: &Path) -> io::Result<()> {
    let folder = target.parent().unwrap_or(Path::new(OBJECTS));
    if let Err(error) = root.rename(temporary, root, target) {
        if error.kind() != io::ErrorKind::NotFound {
            return Err(error);
        }
        root.create_dir_all(folder)?;
        root.rename(temporary, root, target)?;
    }
    root.open_dir(folder)?.open(".")?.sync_all()
}

async fn blocking<T: Send + 'static>(work: impl FnOnce() -> io::Result<T> + Send + 'static) -> io::Result<T> {
    tokio::task::spawn_blocking(work).await.map_err(io::Error::other)?
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use futures::stream;

    use super::*;

    fn body(parts: Vec<io::Result<Bytes>>) -> ByteStream {
        Box::pin(stream::iter(parts))
    }

    async fn read_all(object: Object) -> Vec<u8> {
        let chunks: Vec<Bytes> = object.body.map(Result::unwrap).collect().await;
        chunks.concat()
    }

    #[tokio::test]
    async fn round_trip_with_ranges() {
        let dir = tempfile::tempdir().unwrap();
        let store = LocalStore::open(dir.path()).unwrap();
        let key = StorageKey::generate("forms");
        let data: Vec<u8> = (0..=255u8).cycle().take(300_000).collect();
        let parts = data.chunks(70_000).map(|c| Ok(Bytes::copy_from_slice(c))).collect();
        assert_eq!(store.put(&key, body(parts)).await.unwrap(), 300_000);
        assert_eq!(read_all(store.get(&key, None).await.unwrap()).await, data);
        let part = store.get(&key, Some(1000..2000)).await.unwrap();
        assert_eq!(part.length, 1000);
        assert_eq!(read_all(part).await, &data[1000..2000]);
        assert_eq!(store.list().await.unwrap(), vec![key.clone()]);
        store.delete(&key).await.unwrap();
        assert!(matches!(store.get(&key, None).await, Err(MediaError::NotFound)));
        store.delete(&key).await.unwrap();
    }

    #[tokio::test]
    async fn a_failed_stream_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = LocalStore::open(dir.path()).unwrap();
        let key = StorageKey::generate("forms");
        let parts = vec![Ok(Bytes::from_static(b"abc")), Err(io::Error::other("client went away"))];
        assert!(matches!(store.put(&key, body(parts)).await, Err(MediaError::Body(_))));
        assert!(matches!(store.get(&key, None).await, Err(MediaError::NotFound)));
        assert!(store.list().await.unwrap().is_empty());
        assert_eq!(std::fs::read_dir(dir.path().join(TMP)).unwrap().count(), 0);
    }

    #[tokio::test]
    async fn stale_temporaries_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let store = LocalStore::open(dir.path()).unwrap();
        std::fs::write(dir.path().join(TMP).join("left-by-a-crash"), b"half").unwrap();
        assert_eq!(store.remove_stale_temporaries(Duration::from_secs(3600)).await.unwrap(), 0);
        assert_eq!(store.remove_stale_temporaries(Duration::ZERO).await.unwrap(), 1);
    }

    #[tokio::test]
    async fn a_temporary_file_whose_writer_holds_it_is_kept_however_old() {
        let dir = tempfile::tempdir().unwrap();
        let store = LocalStore::open(dir.path()).unwrap();
        let root = Dir::open_ambient_dir(dir.path(), ambient_authority()).unwrap();
        let writing = create_locked(&root, &Path::new(TMP).join("a-slow-upload")).unwrap();
        assert_eq!(store.remove_stale_temporaries(Duration::ZERO).await.unwrap(), 0);
        drop(writing);
        assert_eq!(store.remove_stale_temporaries(Duration::ZERO).await.unwrap(), 1);
    }

    #[test]
    fn keys_are_checked_when_parsed() {
        assert!(StorageKey::parse("forms/0190-abc").is_some());
        for bad in ["../etc/passwd", "forms/../../x", "forms", "/forms/x", "forms/x/y", "Forms/x", "forms/"] {
            assert!(StorageKey::parse(bad).is_none(), "{bad}");
        }
    }
}
