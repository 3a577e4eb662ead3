//! The test kit: on native targets the capability functions ([`kv`](crate::kv), [`log`](crate::log),
//! [`item`](crate::item), [`http`](crate::http), [`asset`](crate::asset), and an analysis step's
//! [`media`](crate::media), [`vision`](crate::vision), [`speech`](crate::speech)) talk to an in-memory host
//! installed on the current thread, so a module's logic runs under plain `cargo test`, without wasm.
//!
//! ```
//! use trellis_plugin_sdk::{kv, log, testing::TestHost};
//!
//! let host = TestHost::new();
//! kv::set("greeting", "hi")?;
//! log::info("said hi");
//! assert_eq!(host.kv("greeting").as_deref(), Some(&b"hi"[..]));
//! assert_eq!(host.logs()[0].1, "said hi");
//! assert_eq!(host.kv_calls().sets, 1);
//! # Ok::<(), trellis_plugin_sdk::Error>(())
//! ```

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::marker::PhantomData;

use serde::de::DeserializeOwned;

use crate::http::{IncomingResponse, OutgoingRequest};
use crate::log::Level;
use crate::{Context, Event, Request, Response, SpaceModule};

mod inference;

// The same limits as the real host, so a module that passes here does not fail there for size.
const MAX_KEY_BYTES: usize = 512;
const MAX_VALUE_BYTES: usize = 1 << 20;
const MAX_LIST_LIMIT: u32 = 1000;

thread_local! {
    static HOST: RefCell<Option<HostState>> = const { RefCell::new(None) };
}

/// How often each key-value function was called since the host was installed (or since
/// [`TestHost::reset_kv_calls`]). Lets a test pin down how much storage work a route does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KvCalls {
    /// Calls of [`kv::get`](crate::kv::get).
    pub gets: usize,
    /// Calls of [`kv::set`](crate::kv::set), failed ones included.
    pub sets: usize,
    /// Calls of [`kv::delete`](crate::kv::delete).
    pub deletes: usize,
    /// Calls of [`kv::list_keys`](crate::kv::list_keys).
    pub lists: usize,
    /// Calls of [`kv::compare_and_swap`](crate::kv::compare_and_swap), failed and lost ones included.
    pub swaps: usize,
    /// Calls of [`kv::increment`](crate::kv::increment), failed ones included.
    pub increments: usize,
}

#[derive(Default)]
pub(crate) struct HostState {
    pub(crate) kv: BTreeMap<String, Vec<u8>>,
    pub(crate) logs: Vec<(Level, String)>,
    pub(crate) item: Option<String>,
    pub(crate) asset: Vec<u8>,
    kv_calls: KvCalls,
    kv_write_failure: Option<String>,
    http_stubs: HashMap<String, IncomingResponse>,
    http_requests: Vec<OutgoingRequest>,
    pub(crate) inference: inference::InferenceState,
    /// The permissions of the manifest the last [`TestHost::context`] was made from; `None` before one.
    granted: Option<Vec<crate::Permission>>,
}

impl HostState {
    /// Refuses a capability the manifest did not ask for, as the host does: it does not load a module
    /// that imports an interface without its permission. Checked once a context was made from a manifest.
    pub(crate) fn require(&self, permission: crate::Permission, function: &str) {
        let Some(granted) = &self.granted else { return };
        let wanted = std::mem::discriminant(&permission);
        assert!(
            granted.iter().any(|p| std::mem::discriminant(p) == wanted),
            "{function} needs Permission::{permission:?} in the manifest: the host does not load a module that \
             imports it without asking"
        );
    }

    pub(crate) fn kv_get(&mut self, key: &str) -> Option<Vec<u8>> {
        self.kv_calls.gets += 1;
        self.kv.get(key).cloned()
    }

    pub(crate) fn kv_set(&mut self, key: &str, value: &[u8]) -> Result<(), String> {
        self.kv_calls.sets += 1;
        if let Some(message) = &self.kv_write_failure {
            return Err(message.clone());
        }
        check_write(key, value)?;
        self.kv.insert(key.to_owned(), value.to_vec());
        Ok(())
    }

    /// The host's `compare-and-swap`: writes (or, with `new` none, removes) only over `expected`.
    pub(crate) fn kv_compare_and_swap(
        &mut self,
        key: &str,
        expected: Option<&[u8]>,
        new: Option<&[u8]>,
    ) -> Result<bool, String> {
        self.kv_calls.swaps += 1;
        if let Some(message) = &self.kv_write_failure {
            return Err(message.clone());
        }
        check_write(key, new.unwrap_or_default())?;
        if self.kv.get(key).map(Vec::as_slice) != expected {
            return Ok(false);
        }
        match new {
            Some(value) => self.kv.insert(key.to_owned(), value.to_vec()),
            None => self.kv.remove(key),
        };
        Ok(true)
    }

    /// The host's `increment`: decimal ASCII text, an absent key counting as 0; a value that is not a
    /// decimal 64-bit integer, or an overflow, is an error and changes nothing.
    pub(crate) fn kv_increment(&mut self, key: &str, delta: i64) -> Result<i64, String> {
        self.kv_calls.increments += 1;
        if let Some(message) = &self.kv_write_failure {
            return Err(message.clone());
        }
        check_write(key, b"")?;
        let old = match self.kv.get(key) {
            None => 0,
            Some(bytes) => {
                let digits = bytes.strip_prefix(b"-").unwrap_or(bytes);
                let decimal = !digits.is_empty() && digits.iter().all(u8::is_ascii_digit);
                let parsed = std::str::from_utf8(bytes).ok().filter(|_| decimal).and_then(|t| t.parse::<i64>().ok());
                parsed.ok_or_else(|| "the value is not a decimal 64-bit integer".to_owned())?
            }
        };
        let value = old.checked_add(delta).ok_or_else(|| format!("{old} + {delta} overflows a 64-bit integer"))?;
        self.kv.insert(key.to_owned(), value.to_string().into_bytes());
        Ok(value)
    }

    pub(crate) fn kv_delete(&mut self, key: &str) {
        self.kv_calls.deletes += 1;
        self.kv.remove(key);
    }

    pub(crate) fn kv_list(&mut self, prefix: &str, start_after: Option<&str>, limit: u32) -> Vec<String> {
        self.kv_calls.lists += 1;
        let limit = limit.min(MAX_LIST_LIMIT) as usize;
        self.kv
            .range(prefix.to_owned()..)
            .map(|(key, _)| key)
            .take_while(|key| key.starts_with(prefix))
            .filter(|key| start_after.is_none_or(|after| key.as_str() > after))
            .take(limit)
            .cloned()
            .collect()
    }

    pub(crate) fn http_fetch(&mut self, request: OutgoingRequest) -> Result<IncomingResponse, String> {
        let stub = self.http_stubs.get(&request.url).cloned();
        let url = request.url.clone();
        self.http_requests.push(request);
        stub.ok_or_else(|| format!("no stubbed response for {url} (TestHost::stub_http)"))
    }
}

/// Runs `f` on this thread's test host. Capability functions call it on native targets.
/// The host's limits on a written key and value.
fn check_write(key: &str, value: &[u8]) -> Result<(), String> {
    if key.len() > MAX_KEY_BYTES {
        return Err(format!("key is {} bytes, more than {MAX_KEY_BYTES}", key.len()));
    }
    if value.len() > MAX_VALUE_BYTES {
        return Err(format!("value is {} bytes, more than {MAX_VALUE_BYTES}", value.len()));
    }
    Ok(())
}

pub(crate) fn with_host<R>(f: impl FnOnce(&mut HostState) -> R) -> R {
    HOST.with_borrow_mut(|host| {
        let host = host.as_mut().expect(
            "a Trellis capability was called outside a module test: \
             create trellis_plugin_sdk::testing::TestHost::new() first (on this thread)",
        );
        f(host)
    })
}

/// An in-memory host for one test: empty key-value store, no item, no asset, no HTTP stubs.
///
/// Creating it installs it on the current thread (replacing any earlier one); dropping it uninstalls it.
/// `cargo test` runs each test on its own thread, so tests do not see each other's state.
pub struct TestHost {
    // The state is thread-local, so the handle must stay on its thread.
    _not_send: PhantomData<*const ()>,
}

impl TestHost {
    /// Installs a fresh host on this thread.
    #[allow(clippy::new_without_default)] // installing global state is not a default value
    pub fn new() -> Self {
        HOST.with_borrow_mut(|host| *host = Some(HostState::default()));
        Self { _not_send: PhantomData }
    }

    /// A context for `space_id` with `config`, as the host would build it when a space connects the module:
    /// a configuration that breaks the manifest's schema is refused with every problem listed.
    ///
    /// ```
    /// use trellis_plugin_sdk::{Manifest, testing::TestHost};
    ///
    /// let host = TestHost::new();
    /// let manifest = Manifest::new("poll", "Poll", "1.0.0")
    ///     .config_schema(serde_json::json!({"type": "object", "properties": {"max": {"type": "integer"}}}));
    /// assert!(host.context(&manifest, "space-1", &serde_json::json!({"max": 3})).is_ok());
    /// assert!(host.context(&manifest, "space-1", &serde_json::json!({"max": "3"})).is_err());
    /// ```
    pub fn context(
        &self,
        manifest: &crate::Manifest,
        space_id: &str,
        config: &serde_json::Value,
    ) -> crate::Result<crate::Context> {
        manifest.check_config(config)?;
        with_host(|host| host.granted = Some(manifest.permissions().to_vec()));
        Ok(crate::Context::with_config(space_id, config))
    }

    /// Makes `item` (serialized) the triggering item that [`item::current`](crate::item::current) returns.
    pub fn set_item(&self, item: &serde_json::Value) {
        self.set_item_text(Some(item.to_string()));
    }

    /// Sets the triggering item's raw JSON text, or `None` for an invocation without an item.
    pub fn set_item_text(&self, item: Option<String>) {
        with_host(|host| host.item = item);
    }

    /// Sets the bytes that [`asset`](crate::asset) reads.
    pub fn set_asset(&self, bytes: Vec<u8>) {
        with_host(|host| host.asset = bytes);
    }

    /// Answers [`http::fetch`](crate::http::fetch) of exactly `url` with `response`. Other URLs fail as a
    /// host that is not allowed would.
    pub fn stub_http(&self, url: impl Into<String>, response: IncomingResponse) {
        with_host(|host| host.http_stubs.insert(url.into(), response));
    }

    /// Every request [`http::fetch`](crate::http::fetch) sent, stubbed or not, in order.
    pub fn http_requests(&self) -> Vec<OutgoingRequest> {
        with_host(|host| host.http_requests.clone())
    }

    /// Every message logged, in order.
    pub fn logs(&self) -> Vec<(Level, String)> {
        with_host(|host| host.logs.clone())
    }

    /// The value under `key`, without counting as a module's read.
    pub fn kv(&self, key: &str) -> Option<Vec<u8>> {
        with_host(|host| host.kv.get(key).cloned())
    }

    /// The value under `key` deserialized from JSON; panics if it is not that JSON.
    pub fn kv_json<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        self.kv(key).map(|bytes| serde_json::from_slice(&bytes).expect("stored value is not the expected JSON"))
    }

    /// Every stored key, in byte order.
    pub fn kv_keys(&self) -> Vec<String> {
        with_host(|host| host.kv.keys().cloned().collect())
    }

    /// How often the module called each key-value function.
    pub fn kv_calls(&self) -> KvCalls {
        with_host(|host| host.kv_calls)
    }

    /// Starts counting key-value calls from zero, e.g. after seeding the store.
    pub fn reset_kv_calls(&self) {
        with_host(|host| host.kv_calls = KvCalls::default());
    }

    /// Makes every later [`kv::set`](crate::kv::set) fail with `message` (as a used-up quota would), or
    /// succeed again with `None`.
    pub fn fail_kv_writes(&self, message: Option<&str>) {
        with_host(|host| host.kv_write_failure = message.map(str::to_owned));
    }

    /// Runs `handler` (a call of the module's hook or route) as the real host runs a call: when it
    /// fails, by returning `Err` or by panicking as a trap would, its key-value writes are dropped
    /// and the store is as it was before the call. Logs and HTTP requests stay, as they do there.
    ///
    /// ```
    /// use trellis_plugin_sdk::{kv, testing::TestHost};
    ///
    /// let host = TestHost::new();
    /// let failed: Result<(), &str> = host.call(|| {
    ///     kv::set("half", "written").map_err(|_| "kv")?;
    ///     Err("then it fails")
    /// });
    /// assert!(failed.is_err());
    /// assert_eq!(host.kv("half"), None);
    /// ```
    pub fn call<T, E>(&self, handler: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
        let before = with_host(|host| host.kv.clone());
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(handler));
        if !matches!(outcome, Ok(Ok(_))) {
            with_host(|host| host.kv = before);
        }
        match outcome {
            Ok(answer) => answer,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

impl TestHost {
    /// Calls module `M`'s route handler as the host does, through [`call`](Self::call): a call that fails
    /// keeps none of its key-value writes.
    /// `let answer = host.handle_request::<Module>(&ctx, &Request::get("/count"))?;`
    pub fn handle_request<M: SpaceModule>(&self, ctx: &Context, request: &Request) -> crate::Result<Response> {
        self.call(|| M::handle_request(ctx, request))
    }

    /// Delivers `event` to module `M` as the host does, through [`call`](Self::call).
    pub fn on_event<M: SpaceModule>(&self, ctx: &Context, event: &Event) -> crate::Result<()> {
        self.call(|| M::on_event(ctx, event))
    }
}

impl Drop for TestHost {
    fn drop(&mut self) {
        // `try_with`: the thread-local may already be gone when a host is dropped during thread exit.
        let _ = HOST.try_with(|host| host.borrow_mut().take());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{http, kv};

    #[test]
    fn a_failed_call_leaves_the_store_as_it_was_and_a_good_one_keeps_its_writes() {
        let host = TestHost::new();
        kv::set("kept", b"before").unwrap();
        let failed: Result<(), String> = host.call(|| {
            kv::set("kept", b"changed").unwrap();
            kv::set("new", b"x").unwrap();
            Err("failed".into())
        });
        assert!(failed.is_err());
        assert_eq!((host.kv("kept").as_deref(), host.kv("new")), (Some(&b"before"[..]), None));
        let trapped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            host.call(|| -> Result<(), String> {
                kv::delete("kept");
                panic!("a trap")
            })
        }));
        assert!(trapped.is_err());
        assert_eq!(host.kv("kept").as_deref(), Some(&b"before"[..]));
        host.call(|| kv::set("new", b"y")).unwrap();
        assert_eq!(host.kv("new").as_deref(), Some(&b"y"[..]));
    }

    /// Writes, then fails: what a module does when a later step of its call goes wrong.
    struct HalfWrites;

    impl SpaceModule for HalfWrites {
        fn manifest() -> crate::Manifest {
            crate::Manifest::new("half", "Half", "1.0.0").permission(crate::Permission::KeyValue)
        }

        fn on_event(_ctx: &Context, _event: &Event) -> crate::Result<()> {
            kv::set("heard", b"1")?;
            Err(crate::Error::new("then it fails"))
        }

        fn handle_request(_ctx: &Context, _request: &Request) -> crate::Result<Response> {
            kv::set("asked", b"1")?;
            panic!("then it traps")
        }
    }

    #[test]
    fn a_module_called_through_the_host_keeps_no_writes_of_a_failed_call() {
        let host = TestHost::new();
        let ctx = host.context(&HalfWrites::manifest(), "space-1", &serde_json::json!({})).unwrap();
        let event = Event::new(crate::EventKind::FormInstanceCreated, "i1");
        assert!(host.on_event::<HalfWrites>(&ctx, &event).is_err());
        let trapped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            host.handle_request::<HalfWrites>(&ctx, &Request::get("/"))
        }));
        assert!(trapped.is_err());
        assert_eq!(host.kv_keys(), Vec::<String>::new());
    }

    #[test]
    fn kv_refuses_what_the_real_host_refuses() {
        let host = TestHost::new();
        assert!(kv::set("k".repeat(MAX_KEY_BYTES + 1), b"").is_err());
        assert!(kv::set("k", vec![0u8; MAX_VALUE_BYTES + 1]).is_err());
        host.fail_kv_writes(Some("quota used up"));
        assert_eq!(kv::set("k", b"v").unwrap_err(), kv::KvError("quota used up".into()));
        host.fail_kv_writes(None);
        assert!(kv::set("k", b"v").is_ok());
        assert_eq!(host.kv_calls().sets, 4);
    }

    #[test]
    fn list_keys_pages_by_prefix_in_byte_order() {
        let _host = TestHost::new();
        for key in ["b/2", "a/1", "b/1", "b/10", "c"] {
            kv::set(key, b"").unwrap();
        }
        assert_eq!(kv::list_keys("b/", None, 2), ["b/1", "b/10"]);
        assert_eq!(kv::list_keys("b/", Some("b/10"), 2), ["b/2"]);
        assert_eq!(kv::list_keys("", None, 5000).len(), 5);
    }

    #[test]
    fn http_answers_only_stubbed_urls_and_records_every_request() {
        let host = TestHost::new();
        host.stub_http("https://a.example/", http::IncomingResponse::new(204, Vec::new()));
        assert_eq!(http::fetch(http::OutgoingRequest::post("https://a.example/")).unwrap().status, 204);
        assert!(http::fetch(http::OutgoingRequest::get("https://b.example/")).is_err());
        assert_eq!(host.http_requests().iter().map(|r| r.method.as_str()).collect::<Vec<_>>(), ["POST", "GET"]);
    }

    #[test]
    #[should_panic(expected = "item::current needs Permission::ItemRead in the manifest")]
    fn a_capability_the_manifest_did_not_ask_for_is_refused_as_the_host_refuses_it() {
        let host = TestHost::new();
        let manifest = crate::Manifest::new("m", "M", "1.0.0").permission(crate::Permission::KeyValue);
        host.set_item(&serde_json::json!({"formId": "f"}));
        host.context(&manifest, "space-1", &serde_json::json!({})).unwrap();
        crate::kv::set("k", "v").unwrap();
        let _ = crate::item::current();
    }

    #[test]
    fn dropping_the_host_uninstalls_it() {
        drop(TestHost::new());
        let outcome = std::panic::catch_unwind(|| kv::get("k"));
        assert!(outcome.is_err());
    }
}
