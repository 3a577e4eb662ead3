//! The key-value backend is the host's: its slowness uses up the module's budget, its errors are the host's.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use trellis_modules::{
    CommitRefused, EventKind, KeyValueBackend, KvScope, KvWrite, ModuleEvent, ModuleFailure, ModuleHost, ModulesConfig,
};

use crate::support::{TAGS, bundled, invocation, tags_only};

/// Sleeps `delay` on every call, then fails or answers empty.
struct SlowOrFailingKv {
    delay: Duration,
    fail: bool,
}

impl SlowOrFailingKv {
    async fn wait(&self) -> anyhow::Result<()> {
        tokio::time::sleep(self.delay).await;
        if self.fail { anyhow::bail!("database is down") } else { Ok(()) }
    }
}

#[async_trait]
impl KeyValueBackend for SlowOrFailingKv {
    async fn get(&self, _: &KvScope, _: &str) -> anyhow::Result<Option<Vec<u8>>> {
        self.wait().await.map(|()| None)
    }
    async fn set(&self, _: &KvScope, _: &str, _: &[u8]) -> anyhow::Result<()> {
        self.wait().await
    }
    async fn delete(&self, _: &KvScope, _: &str) -> anyhow::Result<()> {
        self.wait().await
    }
    async fn list_keys(&self, _: &KvScope, _: &str, _: Option<&str>, _: u32) -> anyhow::Result<Vec<String>> {
        self.wait().await.map(|()| Vec::new())
    }
    async fn compare_and_swap(
        &self,
        _: &KvScope,
        _: &str,
        _: Option<&[u8]>,
        _: Option<&[u8]>,
    ) -> anyhow::Result<Result<bool, String>> {
        self.wait().await.map(|()| Ok(false))
    }
    async fn increment(&self, _: &KvScope, _: &str, _: i64) -> anyhow::Result<Result<i64, String>> {
        self.wait().await.map(|()| Ok(0))
    }
    async fn commit(&self, _: &KvScope, _: &[KvWrite]) -> anyhow::Result<Result<(), CommitRefused>> {
        self.wait().await.map(|()| Ok(()))
    }
}

fn tags_with(kv: SlowOrFailingKv) -> ModuleHost {
    let settings = ModulesConfig { event_deadline_ms: 100, max_call_wait_ms: 300, ..tags_only() };
    ModuleHost::new(settings, bundled(), Arc::new(kv)).unwrap()
}

fn tagged_item() -> ModuleEvent {
    ModuleEvent {
        kind: EventKind::FormInstanceCreated,
        item_id: "item-1".into(),
        item_json: Some(
            r#"{"formId":"f","configurationId":"c","state":"s","payload":{"metadata":{"tags":["a"]}}}"#.into(),
        ),
    }
}

#[tokio::test]
async fn slow_backend_ends_the_invocation_at_its_wall_clock_bound() {
    // Arrange
    let host = tags_with(SlowOrFailingKv { delay: Duration::from_secs(5), fail: false });
    let started = Instant::now();

    // Act
    let failure = host.dispatch_event(TAGS, invocation("s"), tagged_item()).await.unwrap_err();

    // Assert: waiting for the backend is not the guest's time, but the call ends 300 ms past its deadline.
    assert_eq!(failure, ModuleFailure::WallClock);
    assert!(started.elapsed() >= Duration::from_millis(400), "{:?}", started.elapsed());
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    assert_eq!(host.failure_counts()[TAGS].deadline, 1);
}

#[tokio::test]
async fn backend_error_is_a_host_failure_not_the_module_s() {
    let host = tags_with(SlowOrFailingKv { delay: Duration::ZERO, fail: true });

    let failure = host.dispatch_event(TAGS, invocation("s"), tagged_item()).await.unwrap_err();

    assert_eq!(failure, ModuleFailure::Host("database is down".into()));
    assert_eq!(host.failure_counts()[TAGS].host, 1);
}
