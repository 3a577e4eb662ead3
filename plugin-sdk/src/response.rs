//! Answers from a space module's routes.

use serde::Serialize;

/// An answer to a [`Request`](crate::Request): a status from 200 to 599 and a JSON body (or none).
///
/// ```
/// use trellis_plugin_sdk::{Detail, Response};
///
/// let ok = Response::ok(&serde_json::json!({"counts": {}}));
/// assert_eq!((ok.status(), ok.body()), (200, r#"{"counts":{}}"#));
///
/// let bad = Response::validation_failed(vec![Detail::new("/tags/0", "NOT_IN_VOCABULARY", "not in the vocabulary")]);
/// assert_eq!(bad.status(), 400);
/// let body: serde_json::Value = bad.json_body().unwrap();
/// assert_eq!(body["error"]["code"], "VALIDATION_FAILED");
/// assert_eq!(body["error"]["details"][0]["path"], "/tags/0");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    status: u16,
    body: String,
}

impl Response {
    /// `status` with `value` serialized as the body. A value that cannot be serialized (a map with
    /// non-string keys, say) answers 500 instead, since that is a bug in the module.
    pub fn json<T: Serialize + ?Sized>(status: u16, value: &T) -> Self {
        match serde_json::to_string(value) {
            Ok(body) => Self { status, body },
            Err(error) => Self::error(500, "INTERNAL", &format!("response not serializable: {error}")),
        }
    }

    /// 200 with `value` as the body.
    pub fn ok<T: Serialize + ?Sized>(value: &T) -> Self {
        Self::json(200, value)
    }

    /// `status` with no body.
    pub fn empty(status: u16) -> Self {
        Self { status, body: String::new() }
    }

    /// `status` with the error body of the Trellis API: `{"error": {"code", "message"}}`.
    pub fn error(status: u16, code: &str, message: &str) -> Self {
        Self::json(status, &serde_json::json!({"error": {"code": code, "message": message}}))
    }

    /// 400 VALIDATION_FAILED listing every problem found:
    /// `{"error": {"code": "VALIDATION_FAILED", "message", "details": [{"path", "code", "message"}]}}`.
    /// The top-level message is the first detail's.
    pub fn validation_failed(details: Vec<Detail>) -> Self {
        let message = details.first().map_or("invalid request", |detail| detail.message.as_str()).to_owned();
        Self::json(
            400,
            &serde_json::json!({"error": {"code": "VALIDATION_FAILED", "message": message, "details": details}}),
        )
    }

    /// 404 NOT_FOUND, for an unknown route or a missing resource.
    pub fn not_found() -> Self {
        Self::error(404, "NOT_FOUND", "no such route or resource")
    }

    /// The status.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The body text (JSON, or empty).
    pub fn body(&self) -> &str {
        &self.body
    }

    /// The body deserialized, for tests.
    pub fn json_body<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(&self.body)
    }

    /// `status` with this body text as it is. For modules that build JSON themselves; the host passes it on.
    pub fn raw(status: u16, body: impl Into<String>) -> Self {
        Self { status, body: body.into() }
    }

    pub(crate) fn into_parts(self) -> (u16, String) {
        (self.status, self.body)
    }
}

/// One problem in a request, as [`Response::validation_failed`] lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Detail {
    /// A JSON Pointer into the request body (`/tags/0`), or `query.<name>` for a query parameter.
    pub path: String,
    /// A stable, upper-case code for the problem (`NOT_IN_VOCABULARY`).
    pub code: String,
    /// What is wrong, for people.
    pub message: String,
}

impl Detail {
    /// A problem at `path`.
    pub fn new(path: impl Into<String>, code: impl Into<String>, message: impl Into<String>) -> Self {
        Self { path: path.into(), code: code.into(), message: message.into() }
    }
}
