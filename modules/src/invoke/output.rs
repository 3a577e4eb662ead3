//! What a guest writes to stdout and stderr, kept in a small bounded buffer per invocation and handed to the
//! host's logs after the call (a Rust guest's panic message arrives this way, just before its trap).
//!
//! Writes past the cap are dropped, not refused: a chatty guest must not fail because of its prints. Nothing
//! is allocated until the guest writes, and an empty buffer costs the call nothing but a lock.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use bytes::Bytes;
use tokio::io::AsyncWrite;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};
use wasmtime_wasi::p2::{OutputStream, Pollable, StreamResult};

/// Bytes kept per stream and invocation; the rest is counted and dropped.
pub const OUTPUT_CAP_BYTES: usize = 16 << 10;
/// Lines of one stream written to the host's logs per invocation.
const MAX_LINES: usize = 20;
/// Longest line written to the host's logs, in bytes.
const MAX_LINE_BYTES: usize = 512;

#[derive(Default)]
struct Captured {
    bytes: Vec<u8>,
    dropped: usize,
}

/// One captured stream (stdout or stderr) of one invocation. Clones share the buffer.
#[derive(Clone, Default)]
pub(crate) struct GuestOutput(Arc<Mutex<Captured>>);

impl GuestOutput {
    fn lock(&self) -> MutexGuard<'_, Captured> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn push(&self, bytes: &[u8]) {
        let mut captured = self.lock();
        let room = OUTPUT_CAP_BYTES - captured.bytes.len();
        let kept = bytes.len().min(room);
        captured.bytes.extend_from_slice(&bytes[..kept]);
        captured.dropped += bytes.len() - kept;
    }

    /// What was written so far, as text (lossy), and how many bytes were dropped past the cap.
    pub fn take(&self) -> Option<(String, usize)> {
        let mut captured = self.lock();
        if captured.bytes.is_empty() {
            return None;
        }
        let text = String::from_utf8_lossy(&captured.bytes).into_owned();
        captured.bytes.clear();
        Some((text, std::mem::take(&mut captured.dropped)))
    }
}

impl IsTerminal for GuestOutput {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for GuestOutput {
    fn p2_stream(&self) -> Box<dyn OutputStream> {
        Box::new(self.clone())
    }

    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

impl OutputStream for GuestOutput {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        self.push(&bytes);
        Ok(())
    }

    fn flush(&mut self) -> StreamResult<()> {
        Ok(())
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        // Always room: what does not fit is dropped silently.
        Ok(OUTPUT_CAP_BYTES)
    }
}

#[async_trait::async_trait]
impl Pollable for GuestOutput {
    async fn ready(&mut self) {}
}

impl AsyncWrite for GuestOutput {
    fn poll_write(self: Pin<&mut Self>, _cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.push(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// Which stream a captured text came from.
#[derive(Clone, Copy)]
pub(crate) enum Stream {
    Stdout,
    Stderr,
}

/// Writes one captured stream to the host's logs under `trellis_modules::guest`, line by line (escaped,
/// cut, at most [`MAX_LINES`]), each line taken from the space's log budget.
pub(crate) fn emit(
    stream: Stream,
    text: &str,
    dropped: usize,
    module: &str,
    space: &str,
    budget: &crate::capabilities::logging::LogBudget,
) {
    let name = match stream {
        Stream::Stdout => "stdout",
        Stream::Stderr => "stderr",
    };
    let lines: Vec<&str> = text.lines().filter(|line| !line.trim().is_empty()).collect();
    for line in lines.iter().take(MAX_LINES) {
        if !budget.take(space) {
            return;
        }
        let line = crate::invoke::failure::truncate((*line).to_owned(), MAX_LINE_BYTES);
        let line = line.escape_debug();
        match stream {
            Stream::Stdout => tracing::info!(target: "trellis_modules::guest", module, space, stream = name, "{line}"),
            Stream::Stderr => tracing::warn!(target: "trellis_modules::guest", module, space, stream = name, "{line}"),
        }
    }
    let skipped = lines.len().saturating_sub(MAX_LINES);
    if (skipped > 0 || dropped > 0) && budget.take(space) {
        tracing::warn!(
            target: "trellis_modules::guest",
            module,
            space,
            stream = name,
            lines_skipped = skipped,
            bytes_dropped = dropped,
            "guest output cut"
        );
    }
}

/// The panic message in a Rust guest's stderr (std's hook writes `thread '…' panicked at FILE:LINE:COL:` and
/// the message on the next line), as one line: `panicked at FILE:LINE:COL: message`.
pub(crate) fn panic_message(stderr: &str) -> Option<String> {
    let mut lines = stderr.lines();
    while let Some(line) = lines.next() {
        if let Some(at) = line.find("panicked at ") {
            let place = line[at..].trim_end_matches(':').trim_end();
            return Some(match lines.next().map(str::trim).filter(|m| !m.is_empty()) {
                Some(message) => format!("{place}: {message}"),
                None => place.to_owned(),
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_one_line_with_its_place_and_message() {
        let stderr =
            "\nthread '<unnamed>' panicked at src/lib.rs:51:40:\ntrap requested\nnote: run with `RUST_BACKTRACE=1`\n";
        assert_eq!(panic_message(stderr).as_deref(), Some("panicked at src/lib.rs:51:40: trap requested"));
        assert_eq!(panic_message("just a line\n"), None);
    }

    #[test]
    fn output_past_the_cap_is_counted_and_dropped() {
        let output = GuestOutput::default();
        output.push(&vec![b'a'; OUTPUT_CAP_BYTES - 1]);
        output.push(b"bcd");
        let (text, dropped) = output.take().unwrap();
        assert_eq!(text.len(), OUTPUT_CAP_BYTES);
        assert!(text.ends_with('b'));
        assert_eq!(dropped, 2);
        assert!(output.take().is_none(), "taken once");
    }
}
