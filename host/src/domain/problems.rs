//! A list of validation problems, gathered so a client sees all of them at once.

use serde::Serialize;
use serde_json::{Map, Value};

/// The JSON Pointer of a member of the body's top-level object (RFC 6901: `~` and `/` escaped).
pub fn member_pointer(key: &str) -> String {
    format!("/{}", key.replace('~', "~0").replace('/', "~1"))
}

/// A request body as the domain reads it from the body's JSON object: the typed request, or every
/// problem at its JSON Pointer. The HTTP edge parses it and the use case answers the problems where
/// it checks the body, after its access checks, so a stranger is still told NOT_FOUND first.
pub trait FromBody: Sized {
    fn from_body(body: &Map<String, Value>) -> Result<Self, Problems>;
}

/// A request body as the domain read it: the typed request or its problems.
pub type Parsed<T> = Result<T, Problems>;

/// One broken rule: where (a JSON Pointer into the body, or a parameter name that the HTTP edge
/// answers as `query.<name>`; the edge also writes `header.<name>`),
/// a machine code and a human message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Problem {
    pub path: String,
    pub code: String,
    pub message: String,
}

#[derive(Clone, Debug, Default)]
pub struct Problems(Vec<Problem>);

impl Problems {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, path: impl Into<String>, code: &str, message: impl Into<String>) {
        self.0.push(Problem { path: path.into(), code: code.to_owned(), message: message.into() });
    }

    pub fn has_code(&self, code: &str) -> bool {
        self.0.iter().any(|p| p.code == code)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Adds every problem of `other`.
    pub fn extend(&mut self, other: Problems) {
        self.0.extend(other.0);
    }

    /// How many problems were found so far (a checker compares before and after its part).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn into_vec(self) -> Vec<Problem> {
        self.0
    }

    /// `Ok(value)` when nothing was found, else the problems.
    pub fn finish<T>(self, value: T) -> Result<T, Problems> {
        if self.0.is_empty() { Ok(value) } else { Err(self) }
    }

    /// A member that must hold a string: `null` is REQUIRED, any other non-string INVALID_TYPE.
    pub fn string<'a>(&mut self, path: &str, value: &'a Value) -> Option<&'a str> {
        match value {
            Value::String(s) => Some(s),
            Value::Null => {
                self.push(path, "REQUIRED", "is required");
                None
            }
            _ => {
                self.push(path, "INVALID_TYPE", "must be a string");
                None
            }
        }
    }

    /// Checks that a required string is present and non-blank; returns it trimmed.
    pub fn required<'a>(&mut self, path: &str, value: Option<&'a str>) -> Option<&'a str> {
        match value.map(str::trim) {
            Some(v) if !v.is_empty() => Some(v),
            _ => {
                self.push(path, "REQUIRED", "is required");
                None
            }
        }
    }
}
