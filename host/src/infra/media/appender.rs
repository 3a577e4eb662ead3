//! A file appended to with its writes off the receiving task. The task that receives the bytes
//! (and hashes them) hands each MiB to the blocking pool and goes on receiving while it is
//! written, and each MiB's writeback to the disk starts as soon as it is written, so the sync that
//! makes an append durable waits only for the last of it. A resumable (tus) upload syncs once per
//! PATCH: without this, each PATCH spent its receive, its writes and its whole sync one after
//! another (docs/performance.md). A blocking thread is held only while a write or a sync runs,
//! never while the client is slow to send.

use std::fs::File;
use std::io::{self, IoSlice, Write};
use std::num::NonZeroU64;
use std::sync::Arc;

use bytes::Bytes;
use tokio::task::JoinHandle;

/// Bytes written in one piece, and whose writeback starts together. With the batch being
/// gathered, an append holds about twice this.
const BATCH: usize = 1024 * 1024;

pub struct Appender {
    file: Arc<File>,
    /// Where the next batch goes.
    offset: u64,
    batch: Vec<Bytes>,
    batched: usize,
    /// The write under way, if any: one at a time, so batches land in order.
    writing: Option<JoinHandle<io::Result<()>>>,
}

impl Appender {
    /// Appends to `file`, whose position is `offset`.
    pub fn new(file: File, offset: u64) -> Self {
        Self { file: Arc::new(file), offset, batch: Vec::new(), batched: 0, writing: None }
    }

    /// Queues `bytes` after those before; an error is the failure of an earlier write.
    pub async fn write(&mut self, bytes: Bytes) -> io::Result<()> {
        if bytes.is_empty() {
            // A slow client's body comes in many pieces, some empty (the multipart parser yields
            // them); a batch of 1,024 empty ones was one `writev` that wrote nothing.
            return Ok(());
        }
        self.batched += bytes.len();
        self.batch.push(bytes);
        if self.batched >= BATCH {
            self.start_batch().await?;
        }
        Ok(())
    }

    /// Returns once every byte written so far is on the disk (`fdatasync`).
    pub async fn sync(&mut self) -> io::Result<()> {
        self.start_batch().await?;
        self.finish_write().await?;
        let file = self.file.clone();
        tokio::task::spawn_blocking(move || file.sync_data()).await.map_err(io::Error::other)?
    }

    /// Waits for the write under way, so that nothing of this appender is written after this
    /// returns (the next append to the file may cut it back). Bytes queued since the last
    /// [`Appender::sync`] may or may not have been written. Call it on every path: a dropped
    /// appender's last write may still land after the drop.
    pub async fn close(mut self) -> io::Result<()> {
        self.finish_write().await
    }

    /// Hands the gathered batch to the blocking pool once the write before it has finished.
    async fn start_batch(&mut self) -> io::Result<()> {
        if self.batch.is_empty() {
            return Ok(());
        }
        self.finish_write().await?;
        let (batch, length) = (std::mem::take(&mut self.batch), std::mem::take(&mut self.batched) as u64);
        let (file, offset) = (self.file.clone(), self.offset);
        self.offset += length;
        self.writing = Some(tokio::task::spawn_blocking(move || {
            write_all(&file, &batch)?;
            start_writeback(&file, offset, length);
            Ok(())
        }));
        Ok(())
    }

    async fn finish_write(&mut self) -> io::Result<()> {
        match self.writing.take() {
            Some(write) => write.await.map_err(io::Error::other)?,
            None => Ok(()),
        }
    }
}

/// Writes the chunks with as few system calls as the kernel allows (no copy into a buffer). Empty
/// chunks are left out: `writev` takes at most 1,024 slices a call, and a call given only empty
/// ones writes nothing, which would read as a full disk.
pub(super) fn write_all(mut file: &File, batch: &[Bytes]) -> io::Result<()> {
    let mut slices: Vec<IoSlice<'_>> =
        batch.iter().filter(|chunk| !chunk.is_empty()).map(|chunk| IoSlice::new(chunk)).collect();
    let mut rest = &mut slices[..];
    while !rest.is_empty() {
        match file.write_vectored(rest) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(written) => IoSlice::advance_slices(&mut rest, written),
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

/// Starts writing the range back to the disk without waiting for it: on Linux, `POSIX_FADV_DONTNEED`
/// starts the writeback of a range's dirty pages before it drops its clean ones (an upload's bytes
/// are not read again soon). Advice only: where it does nothing, the sync does it all.
fn start_writeback(file: &File, offset: u64, length: u64) {
    if let Some(length) = NonZeroU64::new(length) {
        let _ = rustix::fs::fadvise(file, offset, Some(length), rustix::fs::Advice::DontNeed);
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    #[tokio::test]
    async fn bytes_arrive_in_order_and_are_synced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        let file = std::fs::OpenOptions::new().create(true).truncate(true).write(true).open(&path).unwrap();
        let mut appender = Appender::new(file, 0);
        let data: Vec<u8> = (0..3_000_000u32).map(|n| (n % 251) as u8).collect();
        for (n, piece) in data.chunks(70_001).enumerate() {
            appender.write(Bytes::copy_from_slice(piece)).await.unwrap();
            if n == 20 {
                appender.sync().await.unwrap();
                assert_eq!(std::fs::metadata(&path).unwrap().len(), 21 * 70_001, "synced bytes are written");
            }
        }
        appender.sync().await.unwrap();
        appender.close().await.unwrap();
        let mut read = Vec::new();
        std::fs::File::open(&path).unwrap().read_to_end(&mut read).unwrap();
        assert!(read == data, "the file holds the bytes in order");
    }

    #[test]
    fn a_batch_with_more_empty_chunks_than_writev_takes_is_written_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        let file = std::fs::File::create(&path).unwrap();
        let mut batch = vec![Bytes::new(); 3000];
        batch.push(Bytes::from_static(b"after the empty ones"));
        batch.extend(vec![Bytes::new(); 10]);

        write_all(&file, &batch).unwrap();

        assert_eq!(std::fs::read(&path).unwrap(), b"after the empty ones");
    }

    #[tokio::test]
    async fn empty_pieces_are_skipped_and_the_rest_lands_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        let mut appender = Appender::new(std::fs::File::create(&path).unwrap(), 0);
        for n in 0..5000u32 {
            appender.write(Bytes::new()).await.unwrap();
            if n % 1000 == 0 {
                appender.write(Bytes::from(n.to_string())).await.unwrap();
            }
        }
        appender.sync().await.unwrap();
        appender.close().await.unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "01000200030004000");
    }

    #[tokio::test]
    async fn a_failed_write_is_the_error_of_the_next_call() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        std::fs::write(&path, b"").unwrap();
        // Opened for reading only: every write fails.
        let mut appender = Appender::new(File::open(&path).unwrap(), 0);
        appender.write(Bytes::from(vec![1u8; BATCH])).await.unwrap();
        assert!(appender.sync().await.is_err(), "the write's failure comes back");
        assert!(appender.close().await.is_ok(), "the failure was reported once, by the sync");
    }
}
