//! A file appended to on a blocking thread of its own. The task that receives the bytes (and
//! hashes them) hands them over without waiting for each write, and each MiB's writeback to the
//! disk starts as soon as it is written, so the sync that makes an append durable waits only for
//! the last of it. A resumable (tus) upload syncs once per PATCH: without this, each PATCH spent
//! its receive, its writes and its whole sync one after another (docs/performance.md).

use std::fs::File;
use std::io::{self, IoSlice, Write};
use std::num::NonZeroU64;

use bytes::Bytes;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// Bytes handed to the thread in one piece, and whose writeback starts together.
const BATCH: usize = 1024 * 1024;
/// Batches waiting for the thread: how far the receiver may run ahead of the writes (with the
/// batch being written and the one being gathered, about 4 MiB an append).
const QUEUED: usize = 2;

enum Command {
    Write(Vec<Bytes>),
    Sync(oneshot::Sender<io::Result<()>>),
}

pub struct Appender {
    batch: Vec<Bytes>,
    batched: usize,
    commands: Option<mpsc::Sender<Command>>,
    thread: Option<JoinHandle<io::Result<()>>>,
}

impl Appender {
    /// Appends to `file`, whose position is `offset`.
    pub fn new(file: File, offset: u64) -> Self {
        let (commands, queue) = mpsc::channel(QUEUED);
        let thread = tokio::task::spawn_blocking(move || write_queue(file, offset, queue));
        Self { batch: Vec::new(), batched: 0, commands: Some(commands), thread: Some(thread) }
    }

    /// Queues `bytes` after those before; an error is the failure of an earlier write.
    pub async fn write(&mut self, bytes: Bytes) -> io::Result<()> {
        self.batched += bytes.len();
        self.batch.push(bytes);
        if self.batched >= BATCH {
            self.send_batch().await?;
        }
        Ok(())
    }

    /// Returns once every byte written so far is on the disk (`fdatasync`).
    pub async fn sync(&mut self) -> io::Result<()> {
        self.send_batch().await?;
        let (done, answer) = oneshot::channel();
        self.send(Command::Sync(done)).await?;
        match answer.await {
            Ok(synced) => synced,
            Err(_) => Err(self.failure().await),
        }
    }

    /// Ends the thread and waits for it, so that nothing of this appender is written after this
    /// returns (the next append to the file may cut it back). Bytes queued since the last
    /// [`Appender::sync`] may or may not have been written.
    pub async fn close(mut self) -> io::Result<()> {
        self.commands = None;
        match self.thread.take() {
            Some(thread) => thread.await.map_err(io::Error::other)?,
            None => Ok(()),
        }
    }

    async fn send_batch(&mut self) -> io::Result<()> {
        if self.batch.is_empty() {
            return Ok(());
        }
        self.batched = 0;
        let batch = std::mem::take(&mut self.batch);
        self.send(Command::Write(batch)).await
    }

    async fn send(&mut self, command: Command) -> io::Result<()> {
        let sent = match &self.commands {
            Some(commands) => commands.send(command).await.is_ok(),
            None => false,
        };
        if sent { Ok(()) } else { Err(self.failure().await) }
    }

    /// The error that ended the thread.
    async fn failure(&mut self) -> io::Error {
        self.commands = None;
        match self.thread.take() {
            Some(thread) => match thread.await {
                Ok(Err(error)) => error,
                Ok(Ok(())) => io::Error::other("the file's writer ended early"),
                Err(error) => io::Error::other(error),
            },
            None => io::Error::other("the file's writer failed before"),
        }
    }
}

/// The thread: runs the commands in order until the appender is closed or a write fails.
fn write_queue(mut file: File, mut offset: u64, mut queue: mpsc::Receiver<Command>) -> io::Result<()> {
    while let Some(command) = queue.blocking_recv() {
        match command {
            Command::Write(batch) => {
                let length = write_all(&mut file, &batch)?;
                start_writeback(&file, offset, length);
                offset += length;
            }
            Command::Sync(done) => {
                let _ = done.send(file.sync_data());
            }
        }
    }
    Ok(())
}

/// Writes the chunks with as few system calls as the kernel allows (no copy into a buffer).
fn write_all(file: &mut File, batch: &[Bytes]) -> io::Result<u64> {
    let mut slices: Vec<IoSlice<'_>> = batch.iter().map(|chunk| IoSlice::new(chunk)).collect();
    let mut rest = &mut slices[..];
    let mut length = 0u64;
    while !rest.is_empty() {
        match file.write_vectored(rest) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(written) => {
                length += written as u64;
                IoSlice::advance_slices(&mut rest, written);
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(length)
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

    #[tokio::test]
    async fn a_failed_write_is_the_error_of_the_next_call() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("file");
        std::fs::write(&path, b"").unwrap();
        // Opened for reading only: every write fails.
        let mut appender = Appender::new(File::open(&path).unwrap(), 0);
        appender.write(Bytes::from(vec![1u8; BATCH])).await.unwrap();
        assert!(appender.sync().await.is_err(), "the write's failure comes back");
        assert!(appender.close().await.is_ok(), "closing after a failure reported it once");
    }
}
