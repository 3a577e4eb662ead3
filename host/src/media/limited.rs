//! A size cap applied while bytes stream, so an oversized upload is cut off at the limit instead of
//! being stored first and measured afterwards.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::StreamExt;

use super::ByteStream;

/// Tells whether a [`limited`] stream was cut off, whatever became of the error it yielded on the
/// way (parsers wrap and rewrap stream errors).
#[derive(Clone, Debug, Default)]
pub struct Tripwire(Arc<AtomicBool>);

impl Tripwire {
    pub fn tripped(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Passes `body` through until more than `limit` bytes have gone by, then yields one error and ends.
pub fn limited(body: ByteStream, limit: u64) -> (ByteStream, Tripwire) {
    let tripwire = Tripwire::default();
    let flag = tripwire.0.clone();
    let mut seen: u64 = 0;
    let stream = body.scan(false, move |ended, chunk| {
        if *ended {
            return futures::future::ready(None);
        }
        futures::future::ready(Some(match chunk {
            Ok(bytes) => {
                seen += bytes.len() as u64;
                if seen > limit {
                    *ended = true;
                    flag.store(true, Ordering::Relaxed);
                    Err(io::Error::other(format!("more than {limit} bytes")))
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
    async fn cuts_off_after_the_limit() {
        let (body, tripwire) = limited(chunks(&[3, 3, 5, 100]), 10);
        let out: Vec<_> = body.collect().await;
        assert_eq!(out.len(), 3);
        assert!(out[2].is_err());
        assert!(tripwire.tripped());
    }
}
