use std::time::Duration;

use super::*;
use crate::invoke::clock::GuestClock;
use crate::invoke::state::Capabilities;

fn scope(space: &str) -> KvScope {
    KvScope { space_id: space.into(), module_id: "m".into() }
}

#[tokio::test]
async fn memory_kv_lists_by_prefix_within_one_scope_in_byte_order() {
    // Arrange
    let kv = MemoryKv::new();
    for key in ["tag:b", "tag:a", "tag:c", "other", "tag;"] {
        kv.set(&scope("s1"), key, b"1").await.unwrap();
    }
    kv.set(&scope("s2"), "tag:z", b"1").await.unwrap();

    // Act
    let all = kv.list_keys(&scope("s1"), "tag:", None, 10).await.unwrap();
    let page = kv.list_keys(&scope("s1"), "tag:", Some("tag:a"), 1).await.unwrap();
    let before_prefix = kv.list_keys(&scope("s1"), "tag:", Some("a"), 10).await.unwrap();

    // Assert
    assert_eq!(all, ["tag:a", "tag:b", "tag:c"]);
    assert_eq!(page, ["tag:b"]);
    assert_eq!(before_prefix, all);
}

#[tokio::test]
async fn memory_kv_delete_removes_only_that_scope() {
    let kv = MemoryKv::new();
    kv.set(&scope("s1"), "k", b"1").await.unwrap();
    kv.set(&scope("s2"), "k", b"2").await.unwrap();

    kv.delete(&scope("s1"), "k").await.unwrap();

    assert_eq!(kv.get(&scope("s1"), "k").await.unwrap(), None);
    assert_eq!(kv.get(&scope("s2"), "k").await.unwrap(), Some(b"2".to_vec()));
}

fn state(budget: Duration) -> StoreState {
    let caps = Capabilities { key_value: Some(Arc::new(MemoryKv::new())), ..Capabilities::none("m") };
    StoreState::new(Arc::new(caps), "space".into(), GuestClock::new(budget, Duration::ZERO), 1 << 20)
}

#[tokio::test]
async fn key_and_value_limits_are_the_module_s_errors_not_traps() {
    // Arrange
    let mut state = state(Duration::from_secs(5));
    let long_key = "k".repeat(MAX_KEY_BYTES + 1);
    let big_value = vec![0; MAX_VALUE_BYTES + 1];

    // Act
    let too_long = key_value::Host::set(&mut state, long_key.clone(), Vec::new()).await.unwrap();
    let too_big = key_value::Host::set(&mut state, "k".into(), big_value).await.unwrap();
    let fits = key_value::Host::set(&mut state, "k".repeat(MAX_KEY_BYTES), vec![0; MAX_VALUE_BYTES]).await;

    // Assert
    assert!(too_long.unwrap_err().contains("512"));
    assert!(too_big.unwrap_err().contains("1048576"));
    assert_eq!(fits.unwrap(), Ok(()));
    assert_eq!(key_value::Host::get(&mut state, long_key).await.unwrap(), None);
    assert_eq!(state.verdict, None);
}

#[tokio::test]
async fn keys_holding_a_nul_character_are_the_module_s_errors_and_reach_no_backend() {
    // Arrange: a backend that counts every call would fail a real database with NUL keys.
    let mut state = state(Duration::from_secs(5));
    key_value::Host::set(&mut state, "a".into(), b"1".to_vec()).await.unwrap().unwrap();
    key_value::Host::set(&mut state, "a\u{1}".into(), b"2".to_vec()).await.unwrap().unwrap();
    // Act
    let refused = key_value::Host::set(&mut state, "a\0b".into(), b"x".to_vec()).await.unwrap();
    let read = key_value::Host::get(&mut state, "a\0b".into()).await.unwrap();
    key_value::Host::delete(&mut state, "a\0".into()).await.unwrap();
    let by_prefix = key_value::Host::list_keys(&mut state, "a\0".into(), None, 10).await.unwrap();
    let after = key_value::Host::list_keys(&mut state, "a".into(), Some("a\0z".into()), 10).await.unwrap();
    // Assert
    assert!(refused.unwrap_err().contains("NUL"));
    assert_eq!(read, None);
    assert!(by_prefix.is_empty());
    assert_eq!(after, ["a\u{1}"]);
    assert_eq!(state.verdict, None);
}

#[tokio::test]
async fn list_limit_is_capped_at_1000() {
    let mut state = state(Duration::from_secs(5));
    for i in 0..1005 {
        key_value::Host::set(&mut state, format!("k{i:04}"), Vec::new()).await.unwrap().unwrap();
    }

    let keys = key_value::Host::list_keys(&mut state, "k".into(), None, u32::MAX).await.unwrap();

    assert_eq!(keys.len(), MAX_LIST_LIMIT as usize);
}

#[tokio::test]
async fn call_after_the_deadline_traps_and_is_noted_as_a_deadline() {
    let mut state = state(Duration::ZERO);

    assert!(key_value::Host::get(&mut state, "k".into()).await.is_err());

    assert_eq!(state.verdict, Some(HostVerdict::Deadline));
}
