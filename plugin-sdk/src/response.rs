//! Answers from a space module's routes.

use serde::Serialize;

/// An answer to a [`Request`](crate::Request): a status from 200 to 599 and a JSON body (or none).
///
/// A client's mistake is answered with an error response ([`bad_request`](Self::bad_request),
/// [`validation_failed`](Self::validation_failed), [`error`](Self::error)): the host passes its code, message
/// and details on to the client in the contract's envelope. An `Err` from a hook is a failure of the module
/// instead, which the client sees as 502 MODULE_FAILED.
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
            Err(error) => Self::error(500, "INTERNAL", format!("response not serializable: {error}")),
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

    /// `status` with the error body of the Trellis API: `{"error": {"code", "message"}}`, which the host
    /// passes on to the client. `code` is the contract's code for `status` (`VALIDATION_FAILED` 400,
    /// `FORBIDDEN` 403, `NOT_FOUND` 404, `CONFLICT` 409, ...); the host replaces any other by the status's
    /// own code, keeping the message.
    ///
    /// ```
    /// use trellis_plugin_sdk::Response;
    ///
    /// let taken = Response::error(409, "CONFLICT", "you voted already");
    /// let body: serde_json::Value = taken.json_body().unwrap();
    /// assert_eq!(body, serde_json::json!({"error": {"code": "CONFLICT", "message": "you voted already"}}));
    /// ```
    pub fn error(status: u16, code: &str, message: impl AsRef<str>) -> Self {
        Self::error_with_details(status, code, message, Vec::new())
    }

    /// [`error`](Self::error) listing the problems behind it as `details` (left out when empty).
    ///
    /// ```
    /// use trellis_plugin_sdk::{Detail, Response};
    ///
    /// let closed = Response::error_with_details(
    ///     409,
    ///     "INVALID_TRANSITION",
    ///     "the poll is closed",
    ///     vec![Detail::new("/choice", "POLL_CLOSED", "votes are no longer taken")],
    /// );
    /// let body: serde_json::Value = closed.json_body().unwrap();
    /// assert_eq!(body["error"]["details"][0]["code"], "POLL_CLOSED");
    /// ```
    pub fn error_with_details(status: u16, code: &str, message: impl AsRef<str>, details: Vec<Detail>) -> Self {
        let mut error = serde_json::json!({"code": code, "message": message.as_ref()});
        if !details.is_empty() {
            error["details"] = serde_json::json!(details);
        }
        Self::json(status, &serde_json::json!({ "error": error }))
    }

    /// 400 VALIDATION_FAILED with `message` and the problems behind it.
    ///
    /// ```
    /// use trellis_plugin_sdk::{Detail, Response};
    ///
    /// let problem = Detail::new("/choice", "NOT_AN_OPTION", "not one of a, b");
    /// let bad = Response::bad_request("choice must be one of the options", vec![problem]);
    /// assert_eq!(bad.status(), 400);
    /// let body: serde_json::Value = bad.json_body().unwrap();
    /// assert_eq!(body["error"]["message"], "choice must be one of the options");
    /// // A message made with `format!` is taken as it is.
    /// let options = ["a", "b"].join(", ");
    /// let named = Response::bad_request(format!("choice must be one of: {options}"), vec![]);
    /// assert_eq!(named.json_body::<serde_json::Value>().unwrap()["error"]["message"], "choice must be one of: a, b");
    /// ```
    pub fn bad_request(message: impl AsRef<str>, details: Vec<Detail>) -> Self {
        Self::error_with_details(400, "VALIDATION_FAILED", message, details)
    }

    /// 400 VALIDATION_FAILED listing every problem found:
    /// `{"error": {"code": "VALIDATION_FAILED", "message", "details": [{"path", "code", "message"}]}}`.
    /// The top-level message is the first detail's.
    pub fn validation_failed(details: Vec<Detail>) -> Self {
        let message = details.first().map_or("invalid request", |detail| detail.message.as_str()).to_owned();
        Self::bad_request(message, details)
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

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn body(response: &Response) -> Value {
        response.json_body().unwrap()
    }

    /// The host keeps a module's error only in this shape (host/src/http/spaces/modules.rs, `error_body`).
    #[test]
    fn error_answers_are_the_contract_s_envelope() {
        let detail = Detail::new("/choice", "NOT_AN_OPTION", "not one of a, b");
        let details = json!([{"path": "/choice", "code": "NOT_AN_OPTION", "message": "not one of a, b"}]);
        let bad = Response::bad_request("choice is not an option", vec![detail.clone()]);
        assert_eq!(bad.status(), 400);
        assert_eq!(
            body(&bad),
            json!({"error": {"code": "VALIDATION_FAILED", "message": "choice is not an option", "details": details}})
        );
        let first = Response::validation_failed(vec![detail]);
        assert_eq!(body(&first)["error"]["message"], "not one of a, b");
        assert_eq!(
            body(&Response::bad_request("empty", vec![])),
            json!({"error": {"code": "VALIDATION_FAILED", "message": "empty"}})
        );
        let taken = Response::error(409, "CONFLICT", "taken");
        assert_eq!((taken.status(), body(&taken)), (409, json!({"error": {"code": "CONFLICT", "message": "taken"}})));
    }
}
