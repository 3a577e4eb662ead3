//! Content addresses: the SHA-256 that names stored bytes (conventions section 14, "Stored
//! bytes"), computed while the bytes stream to the store, and resumable across the requests (and
//! crashes) of a resumable upload.

use std::sync::{Arc, Mutex};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD_NO_PAD;
use futures::StreamExt;
use sha2::digest::common::hazmat::{SerializableState, SerializedState};
use sha2::{Digest, Sha256};

use crate::infra::media::{ByteStream, MediaError, MediaStore, StorageKey};

/// A SHA-256 over bytes arriving in order.
#[derive(Clone, Default)]
pub struct ContentHasher(Sha256);

impl ContentHasher {
    /// Goes on from a state saved by [`ContentHasher::state`] (`None`: from the first byte).
    pub fn resume(state: Option<&str>) -> Result<Self, MediaError> {
        let Some(state) = state else { return Ok(Self::default()) };
        let corrupt = || MediaError::Unavailable("an upload's saved hash state is corrupt".into());
        let raw = STANDARD_NO_PAD.decode(state).map_err(|_| corrupt())?;
        let serialized = SerializedState::<Sha256>::try_from(raw.as_slice()).map_err(|_| corrupt())?;
        Sha256::deserialize(&serialized).map(Self).map_err(|_| corrupt())
    }

    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The state to resume from, as text for a database column.
    pub fn state(&self) -> String {
        STANDARD_NO_PAD.encode(self.0.serialize())
    }

    /// The digest as lowercase hex: the content's address.
    pub fn digest(self) -> String {
        self.0.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Passes `body` through, hashing it on the way; the digest is ready once the stream has ended.
pub fn hashing(body: ByteStream) -> (ByteStream, HashedBody) {
    let hasher = Arc::new(Mutex::new(ContentHasher::default()));
    let feed = hasher.clone();
    let body = Box::pin(body.inspect(move |chunk| {
        if let Ok(chunk) = chunk {
            feed.lock().unwrap_or_else(|e| e.into_inner()).update(chunk);
        }
    }));
    (body, HashedBody(hasher))
}

/// The hash of a body passed through [`hashing`].
pub struct HashedBody(Arc<Mutex<ContentHasher>>);

impl HashedBody {
    /// The digest of every byte that went through.
    pub fn digest(self) -> String {
        let hasher = std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()));
        hasher.digest()
    }
}

/// The address and length of a stored object, read whole: for bytes stored before content
/// addressing (and uploads begun before uploads were hashed).
pub async fn digest_of(store: &dyn MediaStore, key: &StorageKey) -> Result<(String, u64), MediaError> {
    let object = store.get(key, None).await?;
    let mut body = object.body;
    let (mut hasher, mut length) = (ContentHasher::default(), 0u64);
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| MediaError::Unavailable(format!("reading an object to hash it: {e}")))?;
        hasher.update(&chunk);
        length += chunk.len() as u64;
    }
    Ok((hasher.digest(), length))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resumed_hash_equals_one_over_all_the_bytes() {
        let bytes: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut whole = ContentHasher::default();
        whole.update(&bytes);
        for cut in [0, 1, 63, 64, 65, 100_000, 199_999] {
            let mut first = ContentHasher::default();
            first.update(&bytes[..cut]);
            let mut resumed = ContentHasher::resume(Some(&first.state())).expect("a saved state resumes");
            resumed.update(&bytes[cut..]);
            assert_eq!(resumed.digest(), whole.clone().digest(), "cut at {cut}");
        }
    }

    #[test]
    fn the_empty_content_has_the_well_known_address() {
        let empty = ContentHasher::resume(None).unwrap().digest();
        assert_eq!(empty, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }

    #[test]
    fn a_corrupt_state_is_refused() {
        assert!(ContentHasher::resume(Some("not a state")).is_err());
        assert!(ContentHasher::resume(Some("AAAA")).is_err());
    }
}
