//! The key-value store modules see (`trellis_modules::KeyValueBackend`), over the `module_kv` table.
//!
//! Values are bytes (`blob` on SQLite, `bytea` on PostgreSQL; the `Any` driver maps both to
//! `Vec<u8>`). Keys compare in byte order on both engines (PostgreSQL declares the column
//! `collate "C"`), so a prefix is the key range `[prefix, successor(prefix))`. Writes go through
//! [`Db::write`], so on SQLite they share commits with other waiting writes.

use std::sync::Arc;

use async_trait::async_trait;
use sqlx::Row;
use trellis_modules::{
    CommitRefused, KeyValueBackend, KvRoom, KvScope, KvWrite, QuotaExceeded, add_to_counter, apply_writes, usage_change,
};

use super::{Db, StoreError, StoreResult};

/// The module host's key-value backend: the repository of modules' key-value data, each
/// (space, module) within its quota of keys and bytes (keys plus values), kept in
/// `module_kv_usage` by the same transaction as every write.
#[derive(Clone, Debug)]
pub struct ModuleKv {
    db: Db,
    quota: KvQuota,
}

/// What one module may store in one space.
#[derive(Clone, Copy, Debug)]
pub struct KvQuota {
    pub max_keys: i64,
    pub max_bytes: i64,
}

impl Default for KvQuota {
    fn default() -> Self {
        Self { max_keys: 100_000, max_bytes: 64 << 20 }
    }
}

impl KvQuota {
    /// Whether growing a usage of `(keys, bytes)` by the deltas passes the quota (shrinking never does).
    fn exceeded_by(&self, keys: i64, bytes: i64, key_delta: i64, byte_delta: i64) -> bool {
        (key_delta > 0 && keys + key_delta > self.max_keys) || (byte_delta > 0 && bytes + byte_delta > self.max_bytes)
    }

    /// What a refused write is told.
    fn refusal(&self) -> String {
        format!("a module stores at most {} keys and {} bytes in a space", self.max_keys, self.max_bytes)
    }
}

impl ModuleKv {
    pub fn new(db: Db) -> Self {
        Self { db, quota: KvQuota::default() }
    }

    /// The same store under another quota.
    pub fn with_quota(&self, quota: KvQuota) -> Self {
        Self { db: self.db.clone(), quota }
    }
}

/// A write of one key.
#[derive(Debug)]
enum KvOp {
    Set(Vec<u8>),
    Delete,
    CompareAndSwap { expected: Option<Vec<u8>>, new: Option<Vec<u8>> },
    Increment(i64),
}

/// What a write did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KvDone {
    Written,
    /// A compare-and-swap that found another value.
    Unchanged,
    Counted(i64),
}

impl KvOp {
    /// The key's new value (`None`: absent) and what to answer, or `Ok(None)` when nothing is to change,
    /// or the module's error.
    #[allow(clippy::type_complexity)]
    fn apply(&self, old: Option<&[u8]>) -> Result<Option<(Option<Vec<u8>>, KvDone)>, String> {
        Ok(Some(match self {
            Self::Set(value) => (Some(value.clone()), KvDone::Written),
            Self::Delete if old.is_none() => return Ok(None),
            Self::Delete => (None, KvDone::Written),
            Self::CompareAndSwap { expected, .. } if expected.as_deref() != old => return Ok(None),
            Self::CompareAndSwap { new, .. } => (new.clone(), KvDone::Written),
            Self::Increment(delta) => {
                let value = add_to_counter(old, *delta)?;
                (Some(value.to_string().into_bytes()), KvDone::Counted(value))
            }
        }))
    }
}

/// The least string greater than every string that starts with `prefix` (in code point order,
/// which is UTF-8 byte order), or `None` when no such bound exists (empty prefix).
fn prefix_end(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let next = (u32::from(last) + 1..=u32::from(char::MAX)).find_map(char::from_u32);
        if let Some(next) = next {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

impl ModuleKv {
    #[tracing::instrument(skip_all, fields(space_id = scope.space_id, module_id = scope.module_id))]
    pub async fn module_kv_get(&self, scope: &KvScope, key: &str) -> StoreResult<Option<Vec<u8>>> {
        let row = sqlx::query("select value from module_kv where space_id = $1 and module_id = $2 and key = $3")
            .bind(scope.space_id.clone())
            .bind(scope.module_id.clone())
            .bind(key.to_owned())
            .fetch_optional(&self.db.pool)
            .await?;
        Ok(row.map(|row| row.try_get("value")).transpose()?)
    }

    /// Stores `value` under `key`, unless that would take the (space, module) past its quota: then
    /// nothing changes and the answer says why (the module's error, not the host's).
    #[tracing::instrument(skip_all, fields(space_id = scope.space_id, module_id = scope.module_id))]
    pub async fn module_kv_set(&self, scope: &KvScope, key: &str, value: &[u8]) -> StoreResult<Result<(), String>> {
        let done = self.module_kv_write(scope, key, KvOp::Set(value.to_vec())).await?;
        Ok(done.map(drop))
    }

    #[tracing::instrument(skip_all, fields(space_id = scope.space_id, module_id = scope.module_id))]
    pub async fn module_kv_delete(&self, scope: &KvScope, key: &str) -> StoreResult<()> {
        // Removing never needs quota, so it cannot be refused.
        self.module_kv_write(scope, key, KvOp::Delete)
            .await?
            .map(drop)
            .map_err(|why| StoreError::Other(anyhow::Error::msg(why)))
    }

    /// One write of `key`, atomic on both engines: the transaction first takes the row of
    /// `module_kv_usage` of the (space, module) (an upsert, which PostgreSQL locks until commit, so the
    /// scope's writes run one after another; SQLite runs every write alone anyway), then reads the key,
    /// decides, writes it and moves the usage by exactly what changed. A refusal (quota, a counter that
    /// is not one) changes nothing.
    async fn module_kv_write(&self, scope: &KvScope, key: &str, op: KvOp) -> StoreResult<Result<KvDone, String>> {
        let entry = Arc::new((scope.clone(), key.to_owned(), op, self.quota));
        self.db
            .write(move |conn| {
                let entry = entry.clone();
                Box::pin(async move {
                    let (scope, key, op, quota) = &*entry;
                    let (keys, bytes) = take_usage(conn, scope).await?;
                    let old = read_value(conn, scope, key).await?;
                    let (new, done) = match op.apply(old.as_deref()) {
                        Ok(Some(decided)) => decided,
                        Ok(None) => return Ok(Ok(KvDone::Unchanged)),
                        Err(why) => return Ok(Err(why)),
                    };
                    let (key_delta, byte_delta) = usage_change(key, old.as_deref(), new.as_deref());
                    if quota.exceeded_by(keys, bytes, key_delta, byte_delta) {
                        return Ok(Err(format!("quota exceeded: {}", quota.refusal())));
                    }
                    if new.is_some() || old.is_some() {
                        store_value(conn, scope, key, new).await?;
                    }
                    move_usage(conn, scope, key_delta, byte_delta).await?;
                    Ok(Ok(done))
                })
            })
            .await
    }

    /// One module call's writes, all or none, in one transaction: the usage row of the (space, module) is
    /// taken first (as in [`Self::module_kv_write`], so commits and writes of a scope run one after another),
    /// then every key written is read, the writes are decided together ([`apply_writes`]: a
    /// compare-and-swap that no longer holds refuses them all), checked against the quota, and stored.
    #[tracing::instrument(skip_all, fields(space_id = scope.space_id, module_id = scope.module_id, writes = writes.len()))]
    pub async fn module_kv_commit(
        &self,
        scope: &KvScope,
        writes: &[KvWrite],
    ) -> StoreResult<Result<(), CommitRefused>> {
        let entry = Arc::new((scope.clone(), writes.to_vec(), self.quota));
        self.db
            .write(move |conn| {
                let entry = entry.clone();
                Box::pin(async move {
                    let (scope, writes, quota) = &*entry;
                    let (keys, bytes) = take_usage(conn, scope).await?;
                    let mut old: std::collections::HashMap<String, Option<Vec<u8>>> = Default::default();
                    for write in writes {
                        if !old.contains_key(write.key()) {
                            old.insert(write.key().to_owned(), read_value(conn, scope, write.key()).await?);
                        }
                    }
                    let new = match apply_writes(writes, |key| old.get(key).cloned().flatten()) {
                        Ok(new) => new,
                        Err(refused) => return Ok(Err(refused)),
                    };
                    let changed: Vec<(&String, &Option<Vec<u8>>)> =
                        new.iter().filter(|(key, value)| old.get(*key) != Some(*value)).collect();
                    let (mut key_delta, mut byte_delta) = (0, 0);
                    for (key, value) in &changed {
                        let before = old.get(*key).and_then(Option::as_deref);
                        let (k, b) = usage_change(key, before, value.as_deref());
                        (key_delta, byte_delta) = (key_delta + k, byte_delta + b);
                    }
                    if quota.exceeded_by(keys, bytes, key_delta, byte_delta) {
                        return Ok(Err(CommitRefused::Quota(quota.refusal())));
                    }
                    for (key, value) in changed {
                        store_value(conn, scope, key, value.clone()).await?;
                    }
                    move_usage(conn, scope, key_delta, byte_delta).await?;
                    Ok(Ok(()))
                })
            })
            .await
    }

    /// Keys starting with `prefix`, in byte order, strictly after `start_after` when given.
    #[tracing::instrument(skip_all, fields(space_id = scope.space_id, module_id = scope.module_id))]
    pub async fn module_kv_keys(
        &self,
        scope: &KvScope,
        prefix: &str,
        start_after: Option<&str>,
        limit: u32,
    ) -> StoreResult<Vec<String>> {
        let rows = sqlx::query(
            "select key from module_kv where space_id = $1 and module_id = $2 \
             and key >= $3 and ($4 = '' or key < $4) and key > $5 order by key limit $6",
        )
        .bind(scope.space_id.clone())
        .bind(scope.module_id.clone())
        .bind(prefix.to_owned())
        .bind(prefix_end(prefix).unwrap_or_default())
        .bind(start_after.unwrap_or_default().to_owned())
        .bind(i64::from(limit))
        .fetch_all(&self.db.pool)
        .await?;
        rows.iter().map(|row| Ok(row.try_get("key")?)).collect()
    }
}

#[async_trait]
impl KeyValueBackend for ModuleKv {
    async fn get(&self, scope: &KvScope, key: &str) -> anyhow::Result<Option<Vec<u8>>> {
        Ok(self.module_kv_get(scope, key).await?)
    }

    async fn set(&self, scope: &KvScope, key: &str, value: &[u8]) -> anyhow::Result<()> {
        match self.module_kv_set(scope, key, value).await? {
            Ok(()) => Ok(()),
            Err(why) => Err(QuotaExceeded(why).into()),
        }
    }

    async fn delete(&self, scope: &KvScope, key: &str) -> anyhow::Result<()> {
        Ok(self.module_kv_delete(scope, key).await?)
    }

    async fn list_keys(
        &self,
        scope: &KvScope,
        prefix: &str,
        start_after: Option<&str>,
        limit: u32,
    ) -> anyhow::Result<Vec<String>> {
        Ok(self.module_kv_keys(scope, prefix, start_after, limit).await?)
    }

    async fn compare_and_swap(
        &self,
        scope: &KvScope,
        key: &str,
        expected: Option<&[u8]>,
        new: Option<&[u8]>,
    ) -> anyhow::Result<Result<bool, String>> {
        let op = KvOp::CompareAndSwap { expected: expected.map(<[u8]>::to_vec), new: new.map(<[u8]>::to_vec) };
        let done = self.module_kv_write(scope, key, op).await?;
        Ok(done.map(|done| done == KvDone::Written))
    }

    async fn room(&self, scope: &KvScope) -> anyhow::Result<Option<KvRoom>> {
        let usage = sqlx::query("select keys, bytes from module_kv_usage where space_id = $1 and module_id = $2")
            .bind(scope.space_id.clone())
            .bind(scope.module_id.clone())
            .fetch_optional(&self.db.pool)
            .await?;
        let (keys, bytes) = match usage {
            Some(row) => (row.try_get("keys")?, row.try_get("bytes")?),
            None => (0, 0),
        };
        Ok(Some(KvRoom { keys, bytes, max_keys: self.quota.max_keys, max_bytes: self.quota.max_bytes }))
    }

    async fn commit(&self, scope: &KvScope, writes: &[KvWrite]) -> anyhow::Result<Result<(), CommitRefused>> {
        Ok(self.module_kv_commit(scope, writes).await?)
    }

    async fn increment(&self, scope: &KvScope, key: &str, delta: i64) -> anyhow::Result<Result<i64, String>> {
        let done = self.module_kv_write(scope, key, KvOp::Increment(delta)).await?;
        match done {
            Ok(KvDone::Counted(value)) => Ok(Ok(value)),
            Ok(other) => anyhow::bail!("an increment answered {other:?}"),
            Err(why) => Ok(Err(why)),
        }
    }
}

/// Takes the usage row of the scope (an upsert, which PostgreSQL locks until commit, so a scope's writes
/// run one after another) and answers its `(keys, bytes)`.
async fn take_usage(conn: &mut sqlx::AnyConnection, scope: &KvScope) -> Result<(i64, i64), sqlx::Error> {
    let usage = sqlx::query(
        "insert into module_kv_usage (space_id, module_id, keys, bytes) values ($1, $2, 0, 0) \
         on conflict (space_id, module_id) do update set keys = module_kv_usage.keys \
         returning keys, bytes",
    )
    .bind(scope.space_id.clone())
    .bind(scope.module_id.clone())
    .fetch_one(&mut *conn)
    .await?;
    Ok((usage.try_get("keys")?, usage.try_get("bytes")?))
}

async fn read_value(
    conn: &mut sqlx::AnyConnection,
    scope: &KvScope,
    key: &str,
) -> Result<Option<Vec<u8>>, sqlx::Error> {
    sqlx::query("select value from module_kv where space_id = $1 and module_id = $2 and key = $3")
        .bind(scope.space_id.clone())
        .bind(scope.module_id.clone())
        .bind(key.to_owned())
        .fetch_optional(&mut *conn)
        .await?
        .map(|row| row.try_get("value"))
        .transpose()
}

/// Writes `value` under `key`, or removes the key (`None`).
async fn store_value(
    conn: &mut sqlx::AnyConnection,
    scope: &KvScope,
    key: &str,
    value: Option<Vec<u8>>,
) -> Result<(), sqlx::Error> {
    let statement = match value {
        Some(value) => sqlx::query(
            "insert into module_kv (space_id, module_id, key, value) values ($1, $2, $3, $4) \
             on conflict (space_id, module_id, key) do update set value = excluded.value",
        )
        .bind(scope.space_id.clone())
        .bind(scope.module_id.clone())
        .bind(key.to_owned())
        .bind(value),
        None => sqlx::query("delete from module_kv where space_id = $1 and module_id = $2 and key = $3")
            .bind(scope.space_id.clone())
            .bind(scope.module_id.clone())
            .bind(key.to_owned()),
    };
    statement.execute(&mut *conn).await?;
    Ok(())
}

/// Moves the scope's usage by exactly what changed (nothing to write when nothing did).
async fn move_usage(
    conn: &mut sqlx::AnyConnection,
    scope: &KvScope,
    key_delta: i64,
    byte_delta: i64,
) -> Result<(), sqlx::Error> {
    if key_delta == 0 && byte_delta == 0 {
        return Ok(());
    }
    sqlx::query(
        "update module_kv_usage set keys = keys + $3, bytes = bytes + $4 where space_id = $1 and module_id = $2",
    )
    .bind(scope.space_id.clone())
    .bind(scope.module_id.clone())
    .bind(key_delta)
    .bind(byte_delta)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_ends_at_its_successor() {
        assert_eq!(prefix_end("tag/"), Some("tag0".to_owned()));
        assert_eq!(prefix_end("a\u{10FFFF}"), Some("b".to_owned()));
        assert_eq!(prefix_end("\u{D7FF}"), Some("\u{E000}".to_owned()));
        assert_eq!(prefix_end(""), None);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn keys_list_by_prefix_in_byte_order_within_one_scope() {
        // Arrange
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.path().join("t.db").display());
        let store = crate::store::Store::connect(&url, 2).await.unwrap();
        store.migrate().await.unwrap();
        let now = time::OffsetDateTime::now_utc();
        let user = crate::store::NewUser {
            email: "a@example.org",
            handle: "ann",
            full_name: "A",
            display_name: "A",
            password_hash: "x",
        };
        let user = store.users.insert_user(&user, now).await.unwrap();
        for space_id in ["s1", "s2"] {
            let new = crate::store::NewSpaceRow {
                space_id,
                owner_id: &user.user_id,
                name: space_id,
                display_name: "S",
                summary: "",
            };
            store.spaces.insert_space(&new, 2, now).await.unwrap().unwrap();
        }
        let kv = store.module_kv.clone();
        let scope = |space: &str| KvScope { space_id: space.into(), module_id: "m".into() };
        for key in ["tag/b", "tag/a", "tag/é", "tag0", "other", "tag/"] {
            kv.set(&scope("s1"), key, key.as_bytes()).await.unwrap();
        }
        kv.set(&scope("s2"), "tag/z", b"\x00\xff").await.unwrap();
        // Act
        let all = kv.list_keys(&scope("s1"), "tag/", None, 10).await.unwrap();
        let page = kv.list_keys(&scope("s1"), "tag/", Some("tag/a"), 1).await.unwrap();
        kv.delete(&scope("s1"), "tag/b").await.unwrap();
        kv.set(&scope("s1"), "tag/a", b"again").await.unwrap();
        // Assert
        assert_eq!(all, ["tag/", "tag/a", "tag/b", "tag/é"]);
        assert_eq!(page, ["tag/b"]);
        assert_eq!(kv.get(&scope("s1"), "tag/b").await.unwrap(), None);
        assert_eq!(kv.get(&scope("s1"), "tag/a").await.unwrap().as_deref(), Some(&b"again"[..]));
        assert_eq!(kv.get(&scope("s2"), "tag/z").await.unwrap().as_deref(), Some(&b"\x00\xff"[..]));
    }
}
