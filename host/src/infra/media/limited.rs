//! A size cap applied while bytes stream, so an oversized upload is cut off at the limit instead of
//! being stored first and measured afterwards.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use futures::StreamExt;

use super::ByteStream;

/// Tells whether a [`limited`] stream was cut off, whatever became of the error it yielded on the
/// way (parsers wrap and rewrap stream errors), and lets its owner tighten the limit or bound a
/// stretch of the stream (a multipart header block) while it flows.
#[derive(Clone, Debug)]
pub struct Tripwire(Arc<Shared>);

#[derive(Debug)]
struct Shared {
    limit: AtomicU64,
    seen: AtomicU64,
    /// Bytes the stream may reach before the open window ends; `u64::MAX` when no window is open.
    window_end: AtomicU64,
    tripped: AtomicBool,
    window_tripped: AtomicBool,
}

impl Tripwire {
    /// Whether the stream went past its whole limit.
    pub fn tripped(&self) -> bool {
        self.0.tripped.load(Ordering::Relaxed)
    }

    /// Whether the stream went past the end of a window.
    pub fn window_tripped(&self) -> bool {
        self.0.window_tripped.load(Ordering::Relaxed)
    }

    /// The whole limit now.
    pub fn limit(&self) -> u64 {
        self.0.limit.load(Ordering::Relaxed)
    }

    /// Lowers the whole limit (never raises it).
    pub fn tighten(&self, limit: u64) {
        self.0.limit.fetch_min(limit, Ordering::Relaxed);
    }

    /// From here on at most `bytes` more may pass until [`Self::close_window`].
    pub fn open_window(&self, bytes: u64) {
        let seen = self.0.seen.load(Ordering::Relaxed);
        self.0.window_end.store(seen.saturating_add(bytes), Ordering::Relaxed);
    }

    pub fn close_window(&self) {
        self.0.window_end.store(u64::MAX, Ordering::Relaxed);
    }
}

/// Passes `body` through until more than `limit` bytes (or more than an open window allows) have
/// gone by, then yields one error and ends.
pub fn limited(body: ByteStream, limit: u64) -> (ByteStream, Tripwire) {
    let tripwire = Tripwire(Arc::new(Shared {
        limit: AtomicU64::new(limit),
        seen: AtomicU64::new(0),
        window_end: AtomicU64::new(u64::MAX),
        tripped: AtomicBool::new(false),
        window_tripped: AtomicBool::new(false),
    }));
    let shared = tripwire.0.clone();
    let stream = body.scan(false, move |ended, chunk| {
        if *ended {
            return futures::future::ready(None);
        }
        futures::future::ready(Some(match chunk {
            Ok(bytes) => {
                let seen = shared.seen.fetch_add(bytes.len() as u64, Ordering::Relaxed) + bytes.len() as u64;
                let limit = shared.limit.load(Ordering::Relaxed);
                if seen > limit {
                    *ended = true;
                    shared.tripped.store(true, Ordering::Relaxed);
                    Err(io::Error::other(format!("more than {limit} bytes")))
                } else if seen > shared.window_end.load(Ordering::Relaxed) {
                    *ended = true;
                    shared.window_tripped.store(true, Ordering::Relaxed);
                    Err(io::Error::other("a bounded stretch of the body is too long"))
                } else {
                    Ok(bytes)
                }
            }
            Err(error) => {
                *ended = true;
                Err(error)
            }
        }))
    });
    (Box::pin(stream), tripwire)
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use futures::stream;

    use super::*;

    fn chunks(sizes: &[usize]) -> ByteStream {
        let items: Vec<io::Result<Bytes>> = sizes.iter().map(|&n| Ok(Bytes::from(vec![7u8; n]))).collect();
        Box::pin(stream::iter(items))
    }

    #[tokio::test]
    async fn passes_up_to_the_limit() {
        let (body, tripwire) = limited(chunks(&[3, 3, 4]), 10);
        let out: Vec<_> = body.collect().await;
        assert!(out.iter().all(Result::is_ok));
        assert!(!tripwire.tripped());
    }

    #[tokio::test]
    async fn a_tightened_limit_and_an_open_window_cut_off_too() {
        let (body, tripwire) = limited(chunks(&[3, 3, 3]), 100);
        tripwire.tighten(5);
        let out: Vec<_> = body.collect().await;
        assert_eq!(out.len(), 2);
        assert!(tripwire.tripped());
        let (mut body, tripwire) = limited(chunks(&[3, 3, 3, 3]), 100);
        assert!(body.next().await.unwrap().is_ok());
        tripwire.open_window(4);
        assert!(body.next().await.unwrap().is_ok());
        assert!(body.next().await.unwrap().is_err());
        assert!(tripwire.window_tripped() && !tripwire.tripped());
    }

    #[tokio::test]
    async fn cuts_off_after_the_limit() {
        let (body, tripwire) = limited(chunks(&[3, 3, 5, 100]), 10);
        let out: Vec<_> = body.collect().await;
        assert_eq!(out.len(), 3);
        assert!(out[2].is_err());
        assert!(tripwire.tripped());
    }
}
