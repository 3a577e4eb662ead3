//! Outbound HTTP for modules: only to the host names the module asked for and the deployment allowed, on the
//! ports the deployment allows, to public addresses (checked after resolving, and connected to as checked;
//! see `addresses.rs`), within the invocation's remaining budget, with capped bodies and no redirects
//! followed on the module's behalf.

mod addresses;

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use reqwest::Url;
use wasmtime::component::Linker;

use crate::capabilities::{Capability, Data, data};
use crate::config::ModulesConfig;
use crate::invoke::state::{HostVerdict, StoreState};
use crate::load::manifest::ModuleKind;
use crate::wit::latest::outbound_http::{self, IncomingResponse, OutgoingRequest};
use crate::wit::{WitVersion, v0_1, v0_2, v0_3};
use addresses::{GuardedResolver, NameLookup, SystemLookup};

/// The `outbound-http` permission.
pub(crate) const CAPABILITY: Capability = Capability {
    name: "outbound-http",
    interface: "outbound-http",
    since: WitVersion::V0_1,
    kinds: &[ModuleKind::Space, ModuleKind::AnalysisStep],
    carried_over: true,
    link,
};

fn link(linker: &mut Linker<StoreState>, version: WitVersion) -> anyhow::Result<()> {
    match version {
        WitVersion::V0_1 => v0_1::outbound_http::add_to_linker::<_, Data>(linker, data)?,
        // Under both names: a 0.2.0 analysis step from an older SDK imports it at 0.1.x (see
        // `WitVersion::accepts`); the check refuses such imports for the other kinds.
        WitVersion::V0_2 => {
            v0_2::outbound_http::add_to_linker::<_, Data>(linker, data)?;
            v0_1::outbound_http::add_to_linker::<_, Data>(linker, data)?;
        }
        WitVersion::V0_3 => v0_3::outbound_http::add_to_linker::<_, Data>(linker, data)?,
    }
    Ok(())
}

/// Largest request body a module may send, in bytes.
const MAX_REQUEST_BODY_BYTES: usize = 1024 * 1024;
/// Most headers a request may carry.
const MAX_HEADERS: usize = 64;

/// One module's outbound HTTP access.
pub(crate) struct HttpAccess {
    client: reqwest::Client,
    allowed_hosts: Vec<String>,
    timeout: Duration,
    max_response_bytes: usize,
    /// Ports requests may go to; empty allows any.
    allowed_ports: Vec<u16>,
    /// Whether loopback, private, link-local and unique-local addresses may be reached.
    allow_private: bool,
}

impl HttpAccess {
    pub fn new(client: reqwest::Client, allowed_hosts: Vec<String>, settings: &ModulesConfig) -> Self {
        Self {
            client,
            allowed_hosts,
            timeout: Duration::from_millis(settings.http_timeout_ms),
            max_response_bytes: usize::try_from(settings.http_max_response_bytes).unwrap_or(usize::MAX),
            allowed_ports: settings.http_allowed_ports.clone(),
            allow_private: settings.http_allow_private_addresses,
        }
    }

    /// The exact host names this module may reach.
    pub fn allowed_hosts(&self) -> &[String] {
        &self.allowed_hosts
    }

    /// A client that neither follows redirects (a redirect could leave the allowed hosts) nor uses a proxy from
    /// the environment, and resolves names through the address guard.
    pub fn client(settings: &ModulesConfig) -> anyhow::Result<reqwest::Client> {
        Self::client_with(Arc::new(SystemLookup), settings.http_allow_private_addresses)
    }

    fn client_with(lookup: Arc<dyn NameLookup>, allow_private: bool) -> anyhow::Result<reqwest::Client> {
        Ok(reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .dns_resolver(Arc::new(GuardedResolver { lookup, allow_private }))
            .build()?)
    }

    /// Checks the request against the allowed hosts before any traffic.
    fn permit(&self, request: &OutgoingRequest) -> Result<(reqwest::Method, Url), String> {
        let url = Url::parse(&request.url).map_err(|err| format!("invalid url: {err}"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("scheme {:?} is not allowed", url.scheme()));
        }
        let host = url.host_str().ok_or("url has no host")?.to_ascii_lowercase();
        if !self.allowed_hosts.contains(&host) {
            return Err(format!("host {host:?} is not allowed for this module"));
        }
        let port = url.port_or_known_default().ok_or("url has no port")?;
        if !self.allowed_ports.is_empty() && !self.allowed_ports.contains(&port) {
            return Err(format!("port {port} is not allowed"));
        }
        // A name is checked when it is resolved; an address written into the url, here.
        if let Some(ip) = literal_address(&url)
            && !addresses::allowed(ip, self.allow_private)
        {
            return Err(format!("address {ip} may not be reached by modules"));
        }
        let method = reqwest::Method::from_bytes(request.method.to_ascii_uppercase().as_bytes())
            .map_err(|_| format!("invalid method {:?}", request.method))?;
        if request.headers.len() > MAX_HEADERS {
            return Err(format!("more than {MAX_HEADERS} headers"));
        }
        if request.body.len() > MAX_REQUEST_BODY_BYTES {
            return Err(format!("request body is larger than {MAX_REQUEST_BODY_BYTES} bytes"));
        }
        Ok((method, url))
    }

    async fn fetch(&self, request: OutgoingRequest, left: Duration) -> Result<IncomingResponse, String> {
        let (method, url) = self.permit(&request)?;
        let mut builder = self.client.request(method, url).timeout(left.min(self.timeout));
        for (name, value) in request.headers {
            builder = builder.header(name, value);
        }
        let mut response = builder.body(request.body).send().await.map_err(|err| describe(&err))?;
        if response.content_length().is_some_and(|len| len > self.max_response_bytes as u64) {
            return Err(format!("response body is larger than {} bytes", self.max_response_bytes));
        }
        let status = response.status().as_u16();
        let headers = response
            .headers()
            .iter()
            .filter_map(|(name, value)| Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned())))
            .collect();
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|err| describe(&err))? {
            if body.len() + chunk.len() > self.max_response_bytes {
                return Err(format!("response body is larger than {} bytes", self.max_response_bytes));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(IncomingResponse { status, headers, body })
    }
}

/// The address a url names directly (`http://10.0.0.1/`, `http://[::1]/`), if it names one.
fn literal_address(url: &Url) -> Option<IpAddr> {
    url.host_str()?.trim_start_matches('[').trim_end_matches(']').parse().ok()
}

/// The error with its causes, so that a module learns why (e.g. the address guard's refusal).
fn describe(err: &reqwest::Error) -> String {
    if err.is_timeout() {
        return "request timed out".to_owned();
    }
    let mut text = format!("request failed: {err}");
    let mut cause = std::error::Error::source(err);
    while let Some(inner) = cause {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        cause = inner.source();
    }
    text
}

impl outbound_http::Host for StoreState {
    async fn fetch(&mut self, request: OutgoingRequest) -> wasmtime::Result<Result<IncomingResponse, String>> {
        let left = self.remaining()?;
        let caps = self.caps.clone();
        let Some(http) = caps.http.as_ref() else {
            return Err(self.fail(HostVerdict::Host("outbound-http called without the outbound-http grant".into())));
        };
        // Waiting for the server is not the guest's time, but the call's wall-clock bound still holds.
        match tokio::time::timeout(left, http.fetch(request, left)).await {
            Ok(answer) => Ok(answer),
            Err(_) => Err(self.fail(HostVerdict::WallClock)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Access to `hosts` on any port, loopback allowed (the tests' servers run on 127.0.0.1).
    fn access(hosts: &[&str]) -> HttpAccess {
        let settings = ModulesConfig {
            http_timeout_ms: 1_000,
            http_max_response_bytes: 1024,
            http_allowed_ports: Vec::new(),
            http_allow_private_addresses: true,
            ..ModulesConfig::default()
        };
        let hosts = hosts.iter().map(|h| h.to_string()).collect();
        HttpAccess::new(HttpAccess::client(&settings).unwrap(), hosts, &settings)
    }

    /// Access to `service.test`, which a fixed table resolves to 127.0.0.1, on any port.
    fn access_by_name(allow_private: bool) -> HttpAccess {
        let settings = ModulesConfig {
            http_allowed_ports: Vec::new(),
            http_allow_private_addresses: allow_private,
            ..ModulesConfig::default()
        };
        let table = std::collections::HashMap::from([("service.test".to_owned(), vec!["127.0.0.1".parse().unwrap()])]);
        let client = HttpAccess::client_with(Arc::new(addresses::TableLookup(table)), allow_private).unwrap();
        HttpAccess::new(client, vec!["service.test".into()], &settings)
    }

    #[tokio::test]
    async fn an_allowed_name_that_resolves_to_loopback_is_refused_unless_the_deployment_allows_it() {
        let addr = serve_once("inside".into(), Duration::ZERO).await;
        let url = format!("http://service.test:{}/", addr.port());

        let refused = access_by_name(false).fetch(request(&url), Duration::from_secs(2)).await.unwrap_err();
        let allowed = access_by_name(true).fetch(request(&url), Duration::from_secs(2)).await.unwrap();

        assert!(refused.contains("may not reach"), "{refused}");
        assert_eq!(allowed.body, b"inside");
    }

    #[tokio::test]
    async fn private_address_literals_and_other_ports_are_refused_by_default() {
        let settings = ModulesConfig::default();
        let hosts = vec!["127.0.0.1".into(), "169.254.169.254".into(), "example.org".into()];
        let http = HttpAccess::new(HttpAccess::client(&settings).unwrap(), hosts, &settings);

        for url in ["http://127.0.0.1/", "http://169.254.169.254/latest/meta-data/", "http://example.org:8080/"] {
            let err = http.fetch(request(url), Duration::from_secs(1)).await.unwrap_err();
            assert!(err.contains("may not be reached") || err.contains("port 8080"), "{url}: {err}");
        }
    }

    fn request(url: &str) -> OutgoingRequest {
        OutgoingRequest { method: "GET".into(), url: url.into(), headers: Vec::new(), body: Vec::new() }
    }

    #[test]
    fn allowed_host_is_permitted_case_insensitively() {
        let http = access(&["api.example.com"]);

        assert!(http.permit(&request("https://API.example.com/v1?q=1")).is_ok());
    }

    #[test]
    fn other_hosts_schemes_and_lookalikes_are_refused() {
        let http = access(&["api.example.com"]);

        for url in [
            "https://example.com/",
            "https://api.example.com.evil.test/",
            "https://evil.test/?api.example.com",
            "https://api.example.com@evil.test/",
            "file:///etc/passwd",
            "ftp://api.example.com/",
            "not a url",
        ] {
            assert!(http.permit(&request(url)).is_err(), "{url} was permitted");
        }
    }

    /// Serves one canned HTTP response on loopback after `delay`, and returns its address.
    async fn serve_once(body: String, delay: Duration) -> std::net::SocketAddr {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut request = [0u8; 4096];
            let _ = socket.read(&mut request).await;
            tokio::time::sleep(delay).await;
            let head = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\nx-test: yes\r\n\r\n", body.len());
            let _ = socket.write_all(format!("{head}{body}").as_bytes()).await;
        });
        addr
    }

    #[tokio::test]
    async fn allowed_host_is_fetched_with_status_headers_and_body() {
        let addr = serve_once("hello".into(), Duration::ZERO).await;
        let http = access(&["127.0.0.1"]);

        let answer = http.fetch(request(&format!("http://{addr}/x")), Duration::from_secs(2)).await.unwrap();

        assert_eq!((answer.status, answer.body.as_slice()), (200, b"hello".as_slice()));
        assert!(answer.headers.contains(&("x-test".into(), "yes".into())));
    }

    #[tokio::test]
    async fn response_body_over_the_cap_is_refused() {
        let addr = serve_once("x".repeat(2048), Duration::ZERO).await;
        let http = access(&["127.0.0.1"]);

        let err = http.fetch(request(&format!("http://{addr}/")), Duration::from_secs(2)).await.unwrap_err();

        assert!(err.contains("larger than 1024"), "{err}");
    }

    #[tokio::test]
    async fn slow_server_times_out_within_the_remaining_budget() {
        let addr = serve_once("late".into(), Duration::from_secs(5)).await;
        let http = access(&["127.0.0.1"]);
        let started = std::time::Instant::now();

        let err = http.fetch(request(&format!("http://{addr}/")), Duration::from_millis(100)).await.unwrap_err();

        assert_eq!(err, "request timed out");
        assert!(started.elapsed() < Duration::from_secs(1));
    }

    #[tokio::test]
    async fn refused_host_fails_without_traffic() {
        // 127.0.0.1:9 would refuse a connection; the error must be the allow-list's, not the network's.
        let http = access(&["api.example.com"]);

        let err = http.fetch(request("http://127.0.0.1:9/"), Duration::from_secs(1)).await.unwrap_err();

        assert!(err.contains("not allowed"), "{err}");
    }
}
