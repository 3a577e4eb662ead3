//! The claims on writing an upload: a write's claim in the database, renewed while it runs, and this
//! server's in-process claim, which refuses a second writer here without a query.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use time::OffsetDateTime;

use crate::store::Store;

/// How long a write's claim on an upload lasts unless renewed; a claim whose server died blocks
/// the upload this long at most.
pub(super) const CLAIM: Duration = Duration::from_secs(6);
/// How often a running write renews its claim: a renewal that fails stops the write with two
/// thirds of the claim still to run.
const CLAIM_RENEWAL: Duration = Duration::from_secs(2);

/// A write's claim on its upload in the database, across servers.
pub(super) struct Claim {
    pub(super) store: Store,
    pub(super) upload_id: String,
    pub(super) writer: String,
}

impl Claim {
    /// Renews the claim every [`CLAIM_RENEWAL`]; returns only when a renewal fails (the claim was
    /// taken over, or the database did not answer), which must end the write.
    pub(super) async fn kept(&self) {
        loop {
            tokio::time::sleep(CLAIM_RENEWAL).await;
            let until = OffsetDateTime::now_utc() + CLAIM;
            match self.store.uploads.renew(&self.upload_id, &self.writer, until).await {
                Ok(true) => continue,
                Ok(false) => tracing::warn!(upload_id = %self.upload_id, "a write lost its claim on the upload"),
                Err(error) => tracing::warn!(upload_id = %self.upload_id, %error, "renewing a write's claim failed"),
            }
            return;
        }
    }

    /// Ends the claim (a finished upload's ended with its last advance); where that fails, it
    /// lapses within [`CLAIM`].
    pub(super) async fn release(&self) {
        if let Err(error) = self.store.uploads.release(&self.upload_id, &self.writer).await {
            tracing::warn!(upload_id = %self.upload_id, %error, "releasing a write's claim failed; it lapses");
        }
    }
}

/// This server's claim on writing one upload, released when dropped.
pub(super) struct Writing {
    set: Arc<Mutex<HashSet<String>>>,
    upload_id: String,
}

impl Writing {
    pub(super) fn claim(set: &Arc<Mutex<HashSet<String>>>, upload_id: &str) -> Option<Self> {
        let fresh = set.lock().unwrap_or_else(|e| e.into_inner()).insert(upload_id.to_owned());
        fresh.then(|| Self { set: set.clone(), upload_id: upload_id.to_owned() })
    }
}

impl Drop for Writing {
    fn drop(&mut self) {
        self.set.lock().unwrap_or_else(|e| e.into_inner()).remove(&self.upload_id);
    }
}
