//! Moves bytes stored before content addressing (migration 0019) to it, as a start-up step: each
//! object that rows name without a SHA-256 is read and hashed, then its rows get the address in
//! one transaction, and when identical bytes were stored already the rows name those and this
//! copy goes (`store::BlobRepo::address`). Work left by a crash is what still has no address, so
//! the next start goes on from there; two servers doing it at once agree (a row is addressed once).

use crate::infra::media::content::digest_of;
use crate::infra::media::objects::MediaObjects;
use crate::infra::media::{MediaError, StorageKey};
use crate::store::Store;

/// Objects read per round.
const BATCH: i64 = 100;

/// What a run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Addressed {
    /// Objects given their address.
    pub addressed: usize,
    /// Of those, copies of bytes stored already, now removed.
    pub merged: usize,
    /// Objects rows name that the store does not hold (left as they are).
    pub missing: usize,
}

/// Addresses every object stored before content addressing.
pub async fn address_stored(store: &Store, objects: &MediaObjects) -> anyhow::Result<Addressed> {
    let backend = objects.backend();
    let (mut after, mut done) = (String::new(), Addressed::default());
    loop {
        let batch = store.blobs.unaddressed(&after, BATCH).await?;
        for object in &batch {
            after.clone_from(&object.storage_key);
            let Some(key) = StorageKey::parse(&object.storage_key) else { continue };
            let (sha256, length) = match digest_of(backend.as_ref(), &key).await {
                Ok(digest) => digest,
                Err(MediaError::NotFound) => {
                    tracing::warn!(key = object.storage_key, "rows name media the store does not hold");
                    done.missing += 1;
                    continue;
                }
                Err(error) => return Err(anyhow::anyhow!("reading media to address it: {error}")),
            };
            let length = i64::try_from(length).unwrap_or(i64::MAX);
            if let Some(freed) = store.blobs.address(&object.storage_key, &sha256, length).await? {
                objects.discard_freed([freed]).await;
                done.merged += 1;
            }
            done.addressed += 1;
        }
        if (batch.len() as i64) < BATCH {
            return Ok(done);
        }
    }
}
