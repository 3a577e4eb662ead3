//! Modules' key-value store under concurrent writers, against the real database of the run (SQLite, or
//! PostgreSQL with `TEST_DATABASE=postgres`): increments and compare-and-swap loops from many tasks lose
//! no update, and writers racing for the last keys of a quota never take it past its bound.

use crate::support::database;

use std::sync::Arc;

use database::TestDatabase;
use trellis::store::{KvQuota, NewSpaceRow, NewUser, Store};
use trellis_modules::{KeyValueBackend, KvScope};

const WRITERS: i64 = 200;

/// A user and a space to scope the module's data to.
async fn scope(store: &Store) -> KvScope {
    let now = time::OffsetDateTime::now_utc();
    let user = NewUser { email: "a@example.org", handle: "ann", full_name: "A", display_name: "A", password_hash: "x" };
    let user = store.users.insert_user(&user, now).await.unwrap();
    let space = NewSpaceRow { space_id: "s1", owner_id: &user.user_id, name: "s1", display_name: "S", summary: "" };
    store.spaces.insert_space(&space, 2, now).await.unwrap().unwrap();
    KvScope { space_id: "s1".into(), module_id: "poll".into() }
}

/// Runs `op` from `WRITERS` tasks at once and collects their answers.
async fn at_once<T, F>(
    kv: &Arc<dyn KeyValueBackend>,
    scope: &KvScope,
    op: impl Fn(Arc<dyn KeyValueBackend>, KvScope, i64) -> F,
) -> Vec<T>
where
    T: Send + 'static,
    F: Future<Output = T> + Send + 'static,
{
    let tasks: Vec<_> = (0..WRITERS).map(|n| tokio::spawn(op(kv.clone(), scope.clone(), n))).collect();
    let mut answers = Vec::new();
    for task in tasks {
        answers.push(task.await.expect("writer task"));
    }
    answers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_increments_of_one_counter_each_count_once() {
    // Arrange
    let db = TestDatabase::new().await;
    let store = db.store().await;
    let scope = scope(&store).await;
    let kv: Arc<dyn KeyValueBackend> = Arc::new(store.module_kv.clone());

    // Act
    let mut totals = at_once(&kv, &scope, |kv, scope, _| async move {
        kv.increment(&scope, "votes", 1).await.expect("store").expect("a counter")
    })
    .await;

    // Assert: every writer saw another total, and none was lost
    totals.sort_unstable();
    assert_eq!(totals, (1..=WRITERS).collect::<Vec<_>>());
    assert_eq!(kv.get(&scope, "votes").await.unwrap(), Some(WRITERS.to_string().into_bytes()));
    db.remove().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_compare_and_swap_loops_lose_no_update() {
    // Arrange: a JSON list every writer appends itself to, read-modify-write guarded by compare-and-swap
    let db = TestDatabase::new().await;
    let store = db.store().await;
    let scope = scope(&store).await;
    let kv: Arc<dyn KeyValueBackend> = Arc::new(store.module_kv.clone());

    // Act
    at_once(&kv, &scope, |kv, scope, n| async move {
        loop {
            let old = kv.get(&scope, "voters").await.expect("store");
            let mut voters: Vec<i64> = old.as_deref().map_or_else(Vec::new, |v| serde_json::from_slice(v).unwrap());
            voters.push(n);
            let new = serde_json::to_vec(&voters).unwrap();
            if kv.compare_and_swap(&scope, "voters", old.as_deref(), Some(&new)).await.expect("store").expect("fits") {
                break;
            }
        }
    })
    .await;

    // Assert
    let stored = kv.get(&scope, "voters").await.unwrap().expect("the list");
    let mut voters: Vec<i64> = serde_json::from_slice(&stored).unwrap();
    voters.sort_unstable();
    assert_eq!(voters, (0..WRITERS).collect::<Vec<_>>());
    db.remove().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn writers_racing_for_the_last_keys_of_a_quota_never_pass_it() {
    // Arrange: room for 10 keys, 200 writers of distinct keys
    let db = TestDatabase::new().await;
    let store = db.store().await;
    let scope = scope(&store).await;
    let kv: Arc<dyn KeyValueBackend> =
        Arc::new(store.module_kv.with_quota(KvQuota { max_keys: 10, ..KvQuota::default() }));

    // Act
    let written =
        at_once(&kv, &scope, |kv, scope, n| async move { kv.set(&scope, &format!("key/{n:03}"), b"x").await.is_ok() })
            .await;

    // Assert: exactly the quota's worth went in, and the keys say the same
    assert_eq!(written.iter().filter(|ok| **ok).count(), 10);
    assert_eq!(kv.list_keys(&scope, "key/", None, 100).await.unwrap().len(), 10);
    db.remove().await;
}
