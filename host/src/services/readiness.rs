//! Readiness: whether the database and the media store answer (`GET /readyz`).
//!
//! The probe is anonymous, so a client must not be able to turn it into a database round trip and
//! a media store listing per request. One check (the database ping and the media store check, run
//! together, each bounded by [`CHECK_TIMEOUT`]) answers every caller for [`FRESH_FOR`]; callers
//! that arrive while a check runs wait for that check instead of starting their own. The check
//! runs in a task of its own that holds the answer's lock, so a caller that goes away cannot cut
//! it short and let the next caller start another beside it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::sync::Mutex;

use crate::error::{DATABASE_RETRY_AFTER_SECONDS, Error, Result};
use crate::infra::media::objects::MediaObjects;
use crate::store::Store;

/// How long one check's answer is given to every caller.
pub const FRESH_FOR: Duration = Duration::from_secs(1);

/// How long the database ping, and the media store check, may each take before the server is
/// answered not ready.
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(2);

/// What a check found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Answer {
    Ready,
    DatabaseAway,
    MediaAway,
}

struct Inner {
    store: Store,
    media: MediaObjects,
    media_retry_after_seconds: u64,
    checks: AtomicU64,
}

pub struct Readiness {
    inner: Arc<Inner>,
    /// The last answer and when its check ended.
    last: Arc<Mutex<Option<(Instant, Answer)>>>,
}

impl Readiness {
    pub fn new(store: Store, media: MediaObjects, media_retry_after_seconds: u64) -> Self {
        let inner = Inner { store, media, media_retry_after_seconds, checks: AtomicU64::new(0) };
        Self { inner: Arc::new(inner), last: Arc::new(Mutex::new(None)) }
    }

    /// Ok when the database and the media store answered the last check (at most [`FRESH_FOR`]
    /// old); SERVICE_UNAVAILABLE when the database did not, MEDIA_UNAVAILABLE when the media store
    /// did not.
    pub async fn check(&self) -> Result<()> {
        let mut last = self.last.clone().lock_owned().await;
        let fresh = match *last {
            Some((ended, answer)) if ended.elapsed() < FRESH_FOR => Some(answer),
            _ => None,
        };
        let answer = match fresh {
            Some(answer) => answer,
            None => {
                let inner = self.inner.clone();
                let check = tokio::spawn(async move {
                    let answer = inner.run().await;
                    *last = Some((Instant::now(), answer));
                    answer
                });
                check.await.map_err(|e| Error::internal(anyhow::anyhow!("the readiness check ended: {e}")))?
            }
        };
        match answer {
            Answer::Ready => Ok(()),
            Answer::DatabaseAway => {
                Err(Error::ServiceUnavailable { retry_after_seconds: DATABASE_RETRY_AFTER_SECONDS })
            }
            Answer::MediaAway => {
                Err(Error::MediaUnavailable { retry_after_seconds: self.inner.media_retry_after_seconds })
            }
        }
    }

    /// Checks run since the server started (`trellis_readiness_checks_total`).
    pub fn checks(&self) -> u64 {
        self.inner.checks.load(Ordering::Relaxed)
    }
}

impl Inner {
    async fn run(&self) -> Answer {
        self.checks.fetch_add(1, Ordering::Relaxed);
        let (database, media) = tokio::join!(
            tokio::time::timeout(CHECK_TIMEOUT, self.store.ping()),
            tokio::time::timeout(CHECK_TIMEOUT, self.media.check()),
        );
        match database {
            Ok(Ok(())) => {}
            Ok(Err(error)) => {
                tracing::warn!(error = %error, "readiness check: the database did not answer");
                return Answer::DatabaseAway;
            }
            Err(_) => {
                tracing::warn!(timeout = ?CHECK_TIMEOUT, "readiness check: the database did not answer in time");
                return Answer::DatabaseAway;
            }
        }
        match media {
            Ok(Ok(())) => Answer::Ready,
            // `MediaObjects::check` logged and counted why.
            Ok(Err(_)) => Answer::MediaAway,
            Err(_) => {
                tracing::warn!(timeout = ?CHECK_TIMEOUT, "readiness check: the media store did not answer in time");
                Answer::MediaAway
            }
        }
    }
}
