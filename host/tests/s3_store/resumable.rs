//! Resumable writes (tus uploads) on both backends: appends of every size around S3's 5 MiB part
//! minimum, an append whose stream fails part way (what arrived is kept and recorded), a finish
//! that runs twice, and an abort that leaves nothing behind.

use super::*;
use trellis::infra::media::content::ContentHasher;
use trellis::infra::media::{Progress, Resumable};

/// What the service would write on the upload's row: the last recorded step, with the hash of
/// the bytes so far; and, during an append, the hash of what the backend passed since.
#[derive(Default)]
struct Recorded {
    received: u64,
    state: String,
    hash_state: Option<String>,
    steps: usize,
    hasher: ContentHasher,
    passed: u64,
}

#[async_trait::async_trait]
impl Progress for Recorded {
    fn wrote(&mut self, bytes: &[u8]) {
        self.hasher.update(bytes);
        self.passed += bytes.len() as u64;
    }

    async fn record(&mut self, received: u64, state: &str) -> Result<(), MediaError> {
        assert!(received >= self.received, "progress went back from {} to {received}", self.received);
        assert_eq!(self.passed, received, "every recorded byte passed through `wrote` once, none more");
        self.received = received;
        self.state = state.to_owned();
        self.hash_state = Some(self.hasher.state());
        self.steps += 1;
        Ok(())
    }
}

/// The address of the bytes `range` of the generated object.
fn address_of(range: Range<u64>) -> String {
    let mut hasher = ContentHasher::default();
    hasher.update(&expected(range));
    hasher.digest()
}

/// The bytes `range` of the generated object, in odd chunks, failing after `fail_after` bytes.
fn generated_range(range: Range<u64>, fail_after: Option<u64>) -> ByteStream {
    const CHUNK: u64 = 262_139;
    let end = fail_after.map_or(range.end, |n| (range.start + n).min(range.end));
    let chunks = (range.start..end)
        .step_by(CHUNK as usize)
        .map(move |from| Ok(Bytes::from(expected(from..(from + CHUNK).min(end)))));
    let failure = fail_after.map(|_| Err(io::Error::other(ClientWentAway)));
    Box::pin(futures::stream::iter(chunks).chain(futures::stream::iter(failure)))
}

async fn append(
    store: &dyn MediaStore,
    key: &StorageKey,
    length: u64,
    recorded: &mut Recorded,
    to: u64,
    fail_after: Option<u64>,
) -> Result<(), MediaError> {
    let state = recorded.state.clone();
    // As the service does: each append hashes on from the state recorded last.
    recorded.hasher = ContentHasher::resume(recorded.hash_state.as_deref()).expect("a saved hash state");
    recorded.passed = recorded.received;
    let at = Resumable { key, state: &state, received: recorded.received, length };
    store.resumable_append(at, generated_range(recorded.received..to, fail_after), recorded).await
}

/// Appends in pieces of 3 MiB, 1 MiB + 5, 6 MiB (cut off after 4 MiB), 5 MiB and the rest; each
/// piece is recorded, the cut one as far as it got; the finished object is the bytes in order.
pub async fn pieces_of_every_size_become_one_object(store: &dyn MediaStore) -> StorageKey {
    // Arrange
    let key = StorageKey::generate("uploads");
    let length = 17 * MIB + 12_345;
    let mut recorded = Recorded { state: store.resumable_begin(&key).await.expect("beginning"), ..Recorded::default() };

    // Act
    append(store, &key, length, &mut recorded, 3 * MIB, None).await.expect("the first piece");
    assert_eq!(recorded.received, 3 * MIB);
    append(store, &key, length, &mut recorded, 4 * MIB + 5, None).await.expect("the second piece");
    assert_eq!(recorded.received, 4 * MIB + 5);
    let cut = append(store, &key, length, &mut recorded, 10 * MIB + 5, Some(4 * MIB)).await;
    assert!(matches!(cut, Err(MediaError::Body(_))), "{cut:?}");
    assert_eq!(recorded.received, 8 * MIB + 5, "what arrived before the cut is kept");
    append(store, &key, length, &mut recorded, 13 * MIB + 5, None).await.expect("the fourth piece");
    append(store, &key, length, &mut recorded, length, None).await.expect("the rest");
    assert_eq!(recorded.received, length);
    let whole = Resumable { key: &key, state: &recorded.state, received: length, length };
    let finished = store.resumable_finish(whole).await.expect("finishing");
    // A crash after the finish got through, before its state was recorded: finishing again works.
    store.resumable_finish(whole).await.expect("finishing again");
    store.resumable_finish(Resumable { state: &finished, ..whole }).await.expect("finishing a finished upload");

    // Assert
    let (read_length, bytes) = read_all(store, &key, None).await;
    assert_eq!(read_length, length);
    assert!(bytes == expected(0..length), "the finished object differs from the bytes appended");
    let hashed = ContentHasher::resume(recorded.hash_state.as_deref()).unwrap().digest();
    assert_eq!(hashed, address_of(0..length), "the hash carried across appends is the object's address");
    key
}

/// A crash after bytes were written but before they were recorded: the next append starts from the
/// recorded count and the unrecorded bytes never show.
pub async fn unrecorded_bytes_are_written_over(store: &dyn MediaStore) -> StorageKey {
    let key = StorageKey::generate("uploads");
    let length = 2 * MIB;
    let mut recorded = Recorded { state: store.resumable_begin(&key).await.expect("beginning"), ..Recorded::default() };
    append(store, &key, length, &mut recorded, MIB, None).await.expect("the first piece");
    let before = (recorded.received, recorded.state.clone(), recorded.hash_state.clone());
    // This append's record is lost, as if the process died before its transaction committed.
    append(store, &key, length, &mut recorded, MIB + 300_000, None).await.expect("the lost piece");
    (recorded.received, recorded.state, recorded.hash_state) = before;
    append(store, &key, length, &mut recorded, length, None).await.expect("the rest");
    let whole = Resumable { key: &key, state: &recorded.state, received: length, length };
    store.resumable_finish(whole).await.expect("finishing");
    let (_, bytes) = read_all(store, &key, None).await;
    assert!(bytes == expected(0..length), "bytes of the unrecorded append showed");
    let hashed = ContentHasher::resume(recorded.hash_state.as_deref()).unwrap().digest();
    assert_eq!(hashed, address_of(0..length), "the lost append's bytes are not in the hash");
    key
}

/// An aborted upload holds nothing, and aborting again is fine.
pub async fn aborted_upload_leaves_nothing(store: &dyn MediaStore) -> StorageKey {
    let key = StorageKey::generate("uploads");
    let length = 9 * MIB;
    let mut recorded = Recorded { state: store.resumable_begin(&key).await.expect("beginning"), ..Recorded::default() };
    append(store, &key, length, &mut recorded, 6 * MIB + 7, None).await.expect("a piece");
    store.resumable_abort(&key, &recorded.state).await.expect("aborting");
    store.resumable_abort(&key, &recorded.state).await.expect("aborting again");
    assert!(matches!(store.get(&key, None).await, Err(MediaError::NotFound)));
    key
}

#[tokio::test]
async fn local_resumable_pieces_become_one_object() {
    let (dir, store) = local_store();
    pieces_of_every_size_become_one_object(&store).await;
    unrecorded_bytes_are_written_over(&store).await;
    aborted_upload_leaves_nothing(&store).await;
    let waiting = std::fs::read_dir(dir.path().join("uploading")).unwrap().count();
    assert_eq!(waiting, 0, "a finished or aborted upload left its file behind");
}

#[tokio::test]
async fn s3_resumable_pieces_become_one_object_with_no_upload_or_tail_left() {
    let Some(config) = s3_config() else { return };
    let _shared = BUCKET_USE.read().await;
    let store = S3Store::new(&config).unwrap();
    let bucket = raw_bucket(&config);
    for key in [
        pieces_of_every_size_become_one_object(&store).await,
        unrecorded_bytes_are_written_over(&store).await,
        aborted_upload_leaves_nothing(&store).await,
    ] {
        assert_eq!(pending_uploads(&bucket, &key).await, 0, "a multipart upload was left behind");
        let tail = format!("{}-tail", key.as_str());
        let found = bucket.head_object(&tail).await.map(|(_, status)| status);
        assert!(!matches!(found, Ok(200)), "the tail object was left behind");
        store.delete(&key).await.unwrap();
    }
}
