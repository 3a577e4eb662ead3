//! The asset's bytes in a private scratch file for the length of its analysis: decoders and
//! `ffmpeg` read files, and every store (local or S3) can fill one. Removed when dropped.

use std::io;
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use futures::StreamExt;
use tokio::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};
use trellis_modules::AssetSource;

use crate::infra::media::ByteStream;

/// A scratch file, deleted on drop.
pub struct ScratchFile {
    path: PathBuf,
}

impl ScratchFile {
    /// Writes `body` into a new file under `dir` (created private when missing).
    pub async fn fill(dir: &Path, mut body: ByteStream) -> io::Result<Self> {
        tokio::fs::create_dir_all(dir).await?;
        crate::infra::private_files::private_dir(dir)?;
        let file = Self { path: dir.join(format!("asset-{}", uuid::Uuid::new_v4())) };
        let mut out = tokio::fs::File::create(&file.path).await?;
        while let Some(chunk) = body.next().await {
            out.write_all(&chunk?).await?;
        }
        out.flush().await?;
        Ok(file)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file as the `asset-read` import's source.
    pub fn source(&self) -> FileSource {
        FileSource { path: self.path.clone() }
    }
}

impl Drop for ScratchFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Reads pieces of the scratch file for `asset-read`.
pub struct FileSource {
    path: PathBuf,
}

#[async_trait]
impl AssetSource for FileSource {
    async fn size(&self) -> anyhow::Result<u64> {
        Ok(tokio::fs::metadata(&self.path).await?.len())
    }

    async fn read(&self, offset: u64, length: u32) -> anyhow::Result<Vec<u8>> {
        let mut file = tokio::fs::File::open(&self.path).await?;
        file.seek(io::SeekFrom::Start(offset)).await?;
        let mut bytes = Vec::with_capacity(length as usize);
        file.take(u64::from(length)).read_to_end(&mut bytes).await?;
        Ok(bytes)
    }
}
