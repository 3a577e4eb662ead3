//! Outbound HTTP, only to the host names the deployment allows. Needs
//! [`Permission::OutboundHttp`](crate::Permission) listing those names.
//!
//! ```
//! use trellis_plugin_sdk::{http, testing::TestHost};
//!
//! let host = TestHost::new();
//! host.stub_http("https://api.example.com/v1/labels", http::IncomingResponse::new(200, br#"["a"]"#.to_vec()));
//! let response = http::fetch(http::OutgoingRequest::get("https://api.example.com/v1/labels"))?;
//! assert_eq!(response.json::<Vec<String>>()?, ["a"]);
//! assert!(http::fetch(http::OutgoingRequest::get("https://elsewhere.example/")).is_err());
//! assert_eq!(host.http_requests().len(), 2);
//! # Ok::<(), trellis_plugin_sdk::Error>(())
//! ```

use std::fmt;

use serde::de::DeserializeOwned;

/// A request to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingRequest {
    /// `GET`, `POST`, ...
    pub method: String,
    /// An absolute `http` or `https` URL.
    pub url: String,
    /// Header names and values.
    pub headers: Vec<(String, String)>,
    /// The body bytes.
    pub body: Vec<u8>,
}

impl OutgoingRequest {
    /// A request with no headers and no body.
    pub fn new(method: impl Into<String>, url: impl Into<String>) -> Self {
        Self { method: method.into(), url: url.into(), headers: Vec::new(), body: Vec::new() }
    }

    /// A `GET` of `url`.
    pub fn get(url: impl Into<String>) -> Self {
        Self::new("GET", url)
    }

    /// A `POST` to `url`.
    pub fn post(url: impl Into<String>) -> Self {
        Self::new("POST", url)
    }

    /// The same request with one more header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The same request with these body bytes.
    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = body.into();
        self
    }

    /// The same request with `value` as a JSON body and its content type.
    pub fn json(self, value: &serde_json::Value) -> Self {
        self.header("content-type", "application/json").body(value.to_string())
    }
}

/// A response received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncomingResponse {
    /// The status code.
    pub status: u16,
    /// Header names and values.
    pub headers: Vec<(String, String)>,
    /// The body bytes.
    pub body: Vec<u8>,
}

impl IncomingResponse {
    /// A response with no headers (also how tests stub one).
    pub fn new(status: u16, body: Vec<u8>) -> Self {
        Self { status, headers: Vec::new(), body }
    }

    /// The body deserialized from JSON.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_slice(&self.body)
    }
}

/// Why no response came: the host is not allowed (nothing was sent), or the exchange failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpError(pub String);

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "outbound http failed: {}", self.0)
    }
}

impl std::error::Error for HttpError {}

/// Sends `request` and waits for the response. A 4xx or 5xx status is a response, not an error.
pub fn fetch(request: OutgoingRequest) -> Result<IncomingResponse, HttpError> {
    imp::fetch(request).map_err(HttpError)
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::{IncomingResponse, OutgoingRequest};
    use crate::wit::imports::trellis::module::outbound_http as host;

    pub(super) fn fetch(request: OutgoingRequest) -> Result<IncomingResponse, String> {
        let request = host::OutgoingRequest {
            method: request.method,
            url: request.url,
            headers: request.headers,
            body: request.body,
        };
        host::fetch(&request).map(|response| IncomingResponse {
            status: response.status,
            headers: response.headers,
            body: response.body,
        })
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::{IncomingResponse, OutgoingRequest};

    pub(super) fn fetch(request: OutgoingRequest) -> Result<IncomingResponse, String> {
        crate::testing::with_host(|host| host.http_fetch(request))
    }
}
