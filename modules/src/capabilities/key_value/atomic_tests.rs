use std::time::Duration;

use super::*;
use crate::invoke::clock::GuestClock;
use crate::invoke::state::Capabilities;

fn state() -> StoreState {
    let caps = Capabilities { key_value: Some(Arc::new(MemoryKv::new())), ..Capabilities::none("m") };
    StoreState::new(Arc::new(caps), "space".into(), GuestClock::new(Duration::from_secs(5), Duration::ZERO), 1 << 20)
}

#[test]
fn counters_are_decimal_text_and_overflow_is_an_error() {
    assert_eq!(add_to_counter(None, 5), Ok(5));
    assert_eq!(add_to_counter(Some(b"-12"), 2), Ok(-10));
    assert_eq!(add_to_counter(Some(b"9223372036854775807"), 0), Ok(i64::MAX));
    assert!(add_to_counter(Some(b"9223372036854775807"), 1).unwrap_err().contains("overflows"));
    assert!(add_to_counter(Some(b"-9223372036854775808"), -1).is_err());
    for bad in [&b""[..], b"-", b"+1", b" 1", b"1.5", b"\"1\"", b"99999999999999999999", b"\xff"] {
        assert!(add_to_counter(Some(bad), 1).unwrap_err().contains("not a decimal"), "{bad:?}");
    }
}

#[tokio::test]
async fn compare_and_swap_writes_only_over_the_expected_value() {
    // Arrange
    let mut state = state();
    let cas = |expected: Option<&[u8]>, new: Option<&[u8]>| (expected.map(<[u8]>::to_vec), new.map(<[u8]>::to_vec));

    // Act
    let (e, n) = cas(None, Some(b"a"));
    let created = key_value::Host::compare_and_swap(&mut state, "k".into(), e, n).await.unwrap();
    let (e, n) = cas(None, Some(b"b"));
    let exists = key_value::Host::compare_and_swap(&mut state, "k".into(), e, n).await.unwrap();
    let (e, n) = cas(Some(b"x"), Some(b"b"));
    let stale = key_value::Host::compare_and_swap(&mut state, "k".into(), e, n).await.unwrap();
    let (e, n) = cas(Some(b"a"), Some(b"b"));
    let swapped = key_value::Host::compare_and_swap(&mut state, "k".into(), e, n).await.unwrap();
    let value = key_value::Host::get(&mut state, "k".into()).await.unwrap();
    let (e, n) = cas(Some(b"b"), None);
    let removed = key_value::Host::compare_and_swap(&mut state, "k".into(), e, n).await.unwrap();
    let big = Some(vec![0; MAX_VALUE_BYTES + 1]);
    let too_big = key_value::Host::compare_and_swap(&mut state, "k".into(), None, big).await.unwrap();

    // Assert
    assert_eq!((created, exists, stale, swapped, removed), (Ok(true), Ok(false), Ok(false), Ok(true), Ok(true)));
    assert_eq!(value.as_deref(), Some(&b"b"[..]));
    assert_eq!(key_value::Host::get(&mut state, "k".into()).await.unwrap(), None);
    assert!(too_big.unwrap_err().contains("larger"));
}

#[tokio::test]
async fn increment_counts_from_zero_and_refuses_non_integers_changing_nothing() {
    // Arrange
    let mut state = state();
    key_value::Host::set(&mut state, "text".into(), b"seven".to_vec()).await.unwrap().unwrap();

    // Act
    let first = key_value::Host::increment(&mut state, "n".into(), 3).await.unwrap();
    let second = key_value::Host::increment(&mut state, "n".into(), -5).await.unwrap();
    let refused = key_value::Host::increment(&mut state, "text".into(), 1).await.unwrap();
    let long_key = key_value::Host::increment(&mut state, "k".repeat(MAX_KEY_BYTES + 1), 1).await.unwrap();

    // Assert
    assert_eq!((first, second), (Ok(3), Ok(-2)));
    assert_eq!(key_value::Host::get(&mut state, "n".into()).await.unwrap().as_deref(), Some(&b"-2"[..]));
    assert!(refused.unwrap_err().contains("not a decimal"));
    assert_eq!(key_value::Host::get(&mut state, "text".into()).await.unwrap().as_deref(), Some(&b"seven"[..]));
    assert!(long_key.is_err());
    assert_eq!(state.verdict, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_increments_and_swaps_lose_no_update() {
    // Arrange
    let kv = Arc::new(MemoryKv::new());
    let scope = KvScope { space_id: "s".into(), module_id: "m".into() };

    // Act: 50 tasks, each one increment and one compare-and-swap loop on a JSON-free counter.
    let tasks: Vec<_> = (0..50)
        .map(|_| {
            let (kv, scope) = (kv.clone(), scope.clone());
            tokio::spawn(async move {
                kv.increment(&scope, "inc", 2).await.unwrap().unwrap();
                loop {
                    let old = kv.get(&scope, "cas").await.unwrap();
                    let n = add_to_counter(old.as_deref(), 1).unwrap().to_string();
                    if kv
                        .compare_and_swap(&scope, "cas", old.as_deref(), Some(n.as_bytes()))
                        .await
                        .unwrap()
                        .unwrap()
                    {
                        break;
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }

    // Assert
    assert_eq!(kv.get(&scope, "inc").await.unwrap().as_deref(), Some(&b"100"[..]));
    assert_eq!(kv.get(&scope, "cas").await.unwrap().as_deref(), Some(&b"50"[..]));
}
