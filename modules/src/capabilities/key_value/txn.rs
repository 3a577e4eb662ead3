//! One call's key-value writes, applied together when it ends well.
//!
//! During a call the guest's writes are kept here, not in the backend: reads see them (the call's own
//! view), and the backend gets them in one [`KeyValueBackend::commit`] after the call answered. A call that
//! traps, errs or runs out of time leaves nothing behind. `compare-and-swap` is checked again at commit: when
//! another call changed the key meanwhile the commit is refused and the host runs the call again. `increment`
//! is applied as a delta, so counters stay exact under concurrent calls without conflicts (the value it
//! answered is the counter as the call saw it).

use std::collections::{BTreeMap, HashMap};

use super::{KvRoom, add_to_counter};

/// One write of a call, in the order the guest made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KvWrite {
    /// Stores `value` under `key` (`None`: removes it), whatever the key holds.
    Put {
        /// The key.
        key: String,
        /// The new value, or `None` to remove the key.
        value: Option<Vec<u8>>,
    },
    /// Stores `new` under `key` only if it holds `expected` at this point of the commit; otherwise the
    /// whole commit is refused as a conflict.
    Swap {
        /// The key.
        key: String,
        /// The value the call saw (`None`: absent).
        expected: Option<Vec<u8>>,
        /// The new value, or `None` to remove the key.
        new: Option<Vec<u8>>,
    },
    /// Adds `delta` to the counter at `key` ([`add_to_counter`]); a key that no longer holds a counter, or
    /// a sum that overflows, refuses the commit as a conflict.
    Add {
        /// The key.
        key: String,
        /// What to add.
        delta: i64,
    },
}

impl KvWrite {
    /// The key written.
    pub fn key(&self) -> &str {
        match self {
            Self::Put { key, .. } | Self::Swap { key, .. } | Self::Add { key, .. } => key,
        }
    }
}

/// Why a backend did not apply a commit. Nothing was written either way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommitRefused {
    /// A compare-and-swap or a counter no longer holds: another call changed the key.
    Conflict,
    /// The writes would take the (space, module) past its quota; the text says which.
    Quota(String),
}

/// The final value of every key `writes` touch (`None`: absent), starting from `old` (the values held before
/// the commit, `None` for absent keys), or the conflict that refuses them. Every backend shares these
/// semantics.
pub fn apply_writes(
    writes: &[KvWrite],
    old: impl Fn(&str) -> Option<Vec<u8>>,
) -> Result<BTreeMap<String, Option<Vec<u8>>>, CommitRefused> {
    let mut view: BTreeMap<String, Option<Vec<u8>>> = BTreeMap::new();
    for write in writes {
        let current = view.entry(write.key().to_owned()).or_insert_with(|| old(write.key()));
        *current = match write {
            KvWrite::Put { value, .. } => value.clone(),
            KvWrite::Swap { expected, new, .. } if current == expected => new.clone(),
            KvWrite::Swap { .. } => return Err(CommitRefused::Conflict),
            KvWrite::Add { delta, .. } => {
                let sum = add_to_counter(current.as_deref(), *delta).map_err(|_| CommitRefused::Conflict)?;
                Some(sum.to_string().into_bytes())
            }
        };
    }
    Ok(view)
}

/// Whether the call has asked the backend for its room yet, and what it answered.
pub(crate) type Room = Option<Option<KvRoom>>;

/// The writes of the call under way and the values it has seen.
#[derive(Debug, Default)]
pub(crate) struct KvTxn {
    /// Each key the call read or wrote, as the call sees it now.
    seen: HashMap<String, Option<Vec<u8>>>,
    /// Each key's value in the backend when the call first read it.
    read: HashMap<String, Option<Vec<u8>>>,
    writes: Vec<KvWrite>,
    room: Room,
}

impl KvTxn {
    /// The scope's quota as the backend answered it, once asked.
    pub fn room(&self) -> Room {
        self.room
    }

    pub fn set_room(&mut self, room: Option<KvRoom>) {
        self.room = Some(room);
    }

    /// Why writing `now` under `key` (read before) would take the scope past its quota, if it would: the
    /// call's writes so far count against the room the backend reported.
    pub fn past_quota(&self, key: &str, now: Option<&[u8]>) -> Option<String> {
        let room = self.room.flatten()?;
        let change = |key: &str, value: Option<&[u8]>| {
            usage_change(key, self.read.get(key).cloned().flatten().as_deref(), value)
        };
        let (mut keys, mut bytes) = (room.keys, room.bytes);
        for (other, value) in self.seen.iter().filter(|(other, _)| *other != key) {
            let (k, b) = change(other, value.as_deref());
            (keys, bytes) = (keys + k, bytes + b);
        }
        let before = change(key, self.seen.get(key).cloned().flatten().as_deref());
        let after = change(key, now);
        let grows = |limit: i64, total: i64, before: i64, after: i64| after > before && total + after > limit;
        (grows(room.max_keys, keys, before.0, after.0) || grows(room.max_bytes, bytes, before.1, after.1))
            .then(|| room.refusal())
    }

    /// The value the call sees under `key`, when it has read or written it.
    pub fn seen(&self, key: &str) -> Option<Option<Vec<u8>>> {
        self.seen.get(key).cloned()
    }

    /// Remembers what the backend answered for `key` (the call had not seen it yet).
    pub fn saw(&mut self, key: &str, value: Option<Vec<u8>>) {
        self.read.entry(key.to_owned()).or_insert(value.clone());
        self.seen.entry(key.to_owned()).or_insert(value);
    }

    /// Records a write, which the call's later reads see.
    pub fn write(&mut self, write: KvWrite, now: Option<Vec<u8>>) {
        self.seen.insert(write.key().to_owned(), now);
        self.writes.push(write);
    }

    /// The call's writes, leaving none.
    pub fn take_writes(&mut self) -> Vec<KvWrite> {
        self.seen.clear();
        self.read.clear();
        std::mem::take(&mut self.writes)
    }

    /// Keys the call removed that start with `prefix`: a backend listing must fetch that many more to fill
    /// a page.
    pub fn removed_under(&self, prefix: &str) -> usize {
        self.seen.iter().filter(|(key, value)| value.is_none() && key.starts_with(prefix)).count()
    }

    /// A page of the backend's keys (`listed`, asked for `asked` keys) as the call sees it: its removals
    /// taken out and the keys it stored merged in, in byte order, at most `limit`. When the backend's page
    /// was full, keys past its last one are left for the next page.
    pub fn merge_listing(
        &self,
        mut listed: Vec<String>,
        asked: usize,
        prefix: &str,
        start_after: Option<&str>,
        limit: usize,
    ) -> Vec<String> {
        let full = listed.len() >= asked;
        let last = listed.last().cloned();
        listed.retain(|key| !matches!(self.seen.get(key), Some(None)));
        for (key, value) in &self.seen {
            let in_range = key.starts_with(prefix) && start_after.is_none_or(|after| key.as_str() > after);
            let before_the_end = !full || last.as_ref().is_some_and(|last| key <= last);
            if value.is_some() && in_range && before_the_end && !listed.contains(key) {
                listed.push(key.clone());
            }
        }
        listed.sort();
        listed.truncate(limit);
        listed
    }
}

/// For backends: the change in keys and bytes (keys plus values) of a scope when `old` becomes `new`.
pub fn usage_change(key: &str, old: Option<&[u8]>, new: Option<&[u8]>) -> (i64, i64) {
    let size = |value: Option<&[u8]>| value.map_or(0, |v| (key.len() + v.len()) as i64);
    (i64::from(new.is_some()) - i64::from(old.is_some()), size(new) - size(old))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(key: &str, value: &str) -> KvWrite {
        KvWrite::Put { key: key.into(), value: Some(value.into()) }
    }

    #[test]
    fn writes_apply_in_order_and_a_swap_that_no_longer_holds_refuses_them_all() {
        let old = |key: &str| (key == "n").then(|| b"5".to_vec());
        let writes = [
            KvWrite::Add { key: "n".into(), delta: 2 },
            put("a", "x"),
            KvWrite::Swap { key: "a".into(), expected: Some(b"x".to_vec()), new: None },
        ];
        let applied = apply_writes(&writes, old).unwrap();
        assert_eq!(applied, BTreeMap::from([("a".into(), None), ("n".into(), Some(b"7".to_vec()))]));

        let stale = [KvWrite::Swap { key: "n".into(), expected: Some(b"4".to_vec()), new: None }];
        assert_eq!(apply_writes(&stale, old), Err(CommitRefused::Conflict));
        let not_a_counter = [put("n", "text"), KvWrite::Add { key: "n".into(), delta: 1 }];
        assert_eq!(apply_writes(&not_a_counter, old), Err(CommitRefused::Conflict));
    }

    #[test]
    fn a_listing_shows_the_call_s_own_writes_and_removals() {
        let mut txn = KvTxn::default();
        txn.write(put("t/b", "1"), Some(b"1".to_vec()));
        txn.write(KvWrite::Put { key: "t/c".into(), value: None }, None);
        txn.write(put("t/z", "1"), Some(b"1".to_vec()));
        txn.write(put("u/a", "1"), Some(b"1".to_vec()));
        assert_eq!(txn.removed_under("t/"), 1);

        // The backend's page was not full: the call's keys past it belong to this page.
        let listed = vec!["t/a".to_owned(), "t/c".to_owned()];
        assert_eq!(txn.merge_listing(listed, 3, "t/", None, 2), ["t/a", "t/b"]);
        let listed = vec!["t/a".to_owned(), "t/c".to_owned()];
        assert_eq!(txn.merge_listing(listed, 3, "t/", None, 10), ["t/a", "t/b", "t/z"]);
        // A full page ends at its last key: t/z waits for the next one.
        let listed = vec!["t/c".to_owned(), "t/d".to_owned(), "t/e".to_owned()];
        assert_eq!(txn.merge_listing(listed, 3, "t/", Some("t/a"), 10), ["t/b", "t/d", "t/e"]);
    }
}
