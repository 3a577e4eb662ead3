//! Requests to a space module's own routes.

use serde::de::DeserializeOwned;

use crate::wit::space::exports::trellis::module::space_hooks as wit;

/// The HTTP method of a [`Request`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// `GET`
    Get,
    /// `POST`
    Post,
    /// `PUT`
    Put,
    /// `PATCH`
    Patch,
    /// `DELETE`
    Delete,
}

/// The caller's role in the space; the host admits only owners and members.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CallerRole {
    /// The space's owner.
    Owner,
    /// A member of the space.
    Member,
}

/// A request to `/v0/spaces/{spaceId}/modules/{moduleId}/...`, already authenticated by the host.
///
/// Tests build one with [`Request::get`] and friends:
///
/// ```
/// use trellis_plugin_sdk::{CallerRole, Method, Request};
///
/// let request = Request::post("/items/a%20b/tags")
///     .with_json(&serde_json::json!({"tags": ["x"]}))
///     .with_query("limit=2&cursor=tag%2Fx")
///     .with_caller("user-1", "ada", CallerRole::Owner);
/// assert_eq!(request.method(), Method::Post);
/// assert_eq!(request.segments(), ["items", "a%20b", "tags"]);
/// assert_eq!(request.segment(1).as_deref(), Some("a b"));
/// assert_eq!(request.query_param("cursor").as_deref(), Some("tag/x"));
/// let body: serde_json::Value = request.json().unwrap();
/// assert_eq!(body["tags"][0], "x");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    method: Method,
    path: String,
    query: String,
    body: Vec<u8>,
    caller_user_id: String,
    caller_handle: String,
    caller_role: CallerRole,
}

impl Request {
    /// A request with an empty body and query, from a member with empty ids.
    pub fn new(method: Method, path: impl Into<String>) -> Self {
        Self {
            method,
            path: path.into(),
            query: String::new(),
            body: Vec::new(),
            caller_user_id: String::new(),
            caller_handle: String::new(),
            caller_role: CallerRole::Member,
        }
    }

    /// A `GET` of `path`.
    pub fn get(path: impl Into<String>) -> Self {
        Self::new(Method::Get, path)
    }

    /// A `POST` to `path`.
    pub fn post(path: impl Into<String>) -> Self {
        Self::new(Method::Post, path)
    }

    /// A `PUT` to `path`.
    pub fn put(path: impl Into<String>) -> Self {
        Self::new(Method::Put, path)
    }

    /// A `DELETE` of `path`.
    pub fn delete(path: impl Into<String>) -> Self {
        Self::new(Method::Delete, path)
    }

    /// The same request with this raw query string (no `?`).
    pub fn with_query(mut self, query: impl Into<String>) -> Self {
        self.query = query.into();
        self
    }

    /// The same request with these body bytes.
    pub fn with_body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = body.into();
        self
    }

    /// The same request with `value` serialized as its JSON body.
    pub fn with_json(self, value: &serde_json::Value) -> Self {
        self.with_body(value.to_string())
    }

    /// The same request from another caller.
    pub fn with_caller(mut self, user_id: impl Into<String>, handle: impl Into<String>, role: CallerRole) -> Self {
        self.caller_user_id = user_id.into();
        self.caller_handle = handle.into();
        self.caller_role = role;
        self
    }

    /// The method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The path after the module id, starting with `/`, still percent-encoded.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The non-empty path segments, still percent-encoded, ready for slice patterns:
    /// `match (request.method(), request.segments().as_slice()) { (Method::Get, ["items", id]) => .. }`.
    pub fn segments(&self) -> Vec<&str> {
        self.path.split('/').filter(|segment| !segment.is_empty()).collect()
    }

    /// The path segment at `index`, percent-decoded.
    pub fn segment(&self, index: usize) -> Option<String> {
        self.segments().get(index).map(|segment| percent_decode(segment))
    }

    /// The raw query string without `?`, possibly empty.
    pub fn query(&self) -> &str {
        &self.query
    }

    /// The first value of query parameter `name`, decoded (`+` is a space).
    pub fn query_param(&self, name: &str) -> Option<String> {
        self.query.split('&').find_map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (form_decode(key) == name).then(|| form_decode(value))
        })
    }

    /// The body bytes.
    pub fn body(&self) -> &[u8] {
        &self.body
    }

    /// The body deserialized from JSON. Answer its error with a 400 rather than `?`, which would be a 502.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_slice(&self.body)
    }

    /// The caller's user id.
    pub fn caller_user_id(&self) -> &str {
        &self.caller_user_id
    }

    /// The caller's handle.
    pub fn caller_handle(&self) -> &str {
        &self.caller_handle
    }

    /// The caller's role in the space.
    pub fn caller_role(&self) -> CallerRole {
        self.caller_role
    }
}

impl From<wit::Request> for Request {
    fn from(request: wit::Request) -> Self {
        let method = match request.method {
            wit::Method::Get => Method::Get,
            wit::Method::Post => Method::Post,
            wit::Method::Put => Method::Put,
            wit::Method::Patch => Method::Patch,
            wit::Method::Delete => Method::Delete,
        };
        let caller_role = match request.caller_role {
            wit::CallerRole::Owner => CallerRole::Owner,
            wit::CallerRole::Member => CallerRole::Member,
        };
        Self {
            method,
            path: request.path,
            query: request.query,
            body: request.body,
            caller_user_id: request.caller_user_id,
            caller_handle: request.caller_handle,
            caller_role,
        }
    }
}

/// Decodes `%XX` escapes (a malformed escape stays as it is; invalid UTF-8 becomes U+FFFD).
///
/// ```
/// assert_eq!(trellis_plugin_sdk::percent_decode("caf%C3%A9%2Fbar%zz"), "café/bar%zz");
/// ```
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            // `from_str_radix` alone would also take a sign, as in `%+1`.
            .filter(|hex| hex.iter().all(u8::is_ascii_hexdigit))
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn form_decode(text: &str) -> String {
    percent_decode(&text.replace('+', " "))
}
