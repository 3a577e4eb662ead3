//! Size limits of any document or payload, checked before any other rule so an absurd one costs
//! little and no input can hang a request. Limits of one kind of document are beside its rules.

use serde_json::Value;

use super::report::join;

/// Longest string (or object key), in bytes, anywhere in a document or payload.
pub const MAX_STRING_BYTES: usize = 64 * 1024;
/// Deepest nesting of a configuration document; its own structure needs about ten levels.
pub const MAX_CONFIG_DEPTH: usize = 32;
/// Most JSON values (objects, arrays, scalars) in a configuration document.
pub const MAX_CONFIG_NODES: usize = 250_000;
/// Most string bytes (values and keys) in a configuration document.
pub const MAX_CONFIG_TEXT_BYTES: usize = 8 * 1024 * 1024;
/// Deepest nesting of an instance body.
pub const MAX_PAYLOAD_DEPTH: usize = 16;
/// Most JSON values in an instance body.
pub const MAX_PAYLOAD_NODES: usize = 20_000;
/// Most string bytes in an instance body.
pub const MAX_PAYLOAD_TEXT_BYTES: usize = 4 * 1024 * 1024;
/// Most language bundles in `translations`.
pub const MAX_LANGUAGES: usize = 100;
/// Most problems listed in one answer.
pub const MAX_PROBLEMS: usize = 1_000;

pub(crate) struct Bounds {
    pub(crate) depth: usize,
    pub(crate) nodes: usize,
    pub(crate) text_bytes: usize,
}

pub(crate) const CONFIG_BOUNDS: Bounds =
    Bounds { depth: MAX_CONFIG_DEPTH, nodes: MAX_CONFIG_NODES, text_bytes: MAX_CONFIG_TEXT_BYTES };
pub(crate) const PAYLOAD_BOUNDS: Bounds =
    Bounds { depth: MAX_PAYLOAD_DEPTH, nodes: MAX_PAYLOAD_NODES, text_bytes: MAX_PAYLOAD_TEXT_BYTES };

/// A limit that was passed: where (a pointer under the caller's base) and which.
#[derive(Debug)]
pub(crate) struct Exceeded {
    pub(crate) path: String,
    pub(crate) message: String,
}

/// Walks `value` once, stopping at the first limit passed. Recursion never goes deeper than
/// `bounds.depth + 1`, whatever the input.
pub(crate) fn check_size(value: &Value, base: &str, bounds: &Bounds) -> Result<(), Exceeded> {
    let mut tally = Tally::default();
    walk(value, 0, bounds, &mut tally).map_err(|failure| {
        let path = failure.tokens.iter().rev().fold(base.to_owned(), |path, token| join(&path, token));
        Exceeded { path, message: failure.message }
    })
}

#[derive(Default)]
struct Tally {
    nodes: usize,
    text_bytes: usize,
}

struct Failure {
    tokens: Vec<String>,
    message: String,
}

impl Failure {
    fn new(message: String) -> Self {
        Self { tokens: Vec::new(), message }
    }

    fn under(mut self, token: String) -> Self {
        self.tokens.push(token);
        self
    }
}

fn walk(value: &Value, depth: usize, bounds: &Bounds, tally: &mut Tally) -> Result<(), Failure> {
    tally.nodes += 1;
    if tally.nodes > bounds.nodes {
        return Err(Failure::new(format!("has more than {} values", bounds.nodes)));
    }
    if depth > bounds.depth {
        return Err(Failure::new(format!("nests deeper than {} levels", bounds.depth)));
    }
    match value {
        Value::String(text) => count_text(text, tally, bounds),
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                walk(item, depth + 1, bounds, tally).map_err(|f| f.under(index.to_string()))?;
            }
            Ok(())
        }
        Value::Object(map) => {
            for (key, item) in map {
                count_text(key, tally, bounds).map_err(|f| f.under(key.chars().take(64).collect()))?;
                walk(item, depth + 1, bounds, tally).map_err(|f| f.under(key.clone()))?;
            }
            Ok(())
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => Ok(()),
    }
}

fn count_text(text: &str, tally: &mut Tally, bounds: &Bounds) -> Result<(), Failure> {
    if text.len() > MAX_STRING_BYTES {
        return Err(Failure::new(format!("a string is longer than {MAX_STRING_BYTES} bytes")));
    }
    tally.text_bytes += text.len();
    if tally.text_bytes > bounds.text_bytes {
        return Err(Failure::new(format!("holds more than {} bytes of text", bounds.text_bytes)));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_small_document_passes() {
        assert!(check_size(&json!({"a": [1, "x", {"b": null}]}), "/config", &CONFIG_BOUNDS).is_ok());
    }

    #[test]
    fn a_long_string_is_reported_at_its_path() {
        let doc = json!({"pages": [{"key": "x".repeat(MAX_STRING_BYTES + 1)}]});
        let err = check_size(&doc, "/config", &CONFIG_BOUNDS).unwrap_err();
        assert_eq!(err.path, "/config/pages/0/key");
    }

    #[test]
    fn deep_nesting_stops_at_the_limit() {
        let mut doc = json!(1);
        for _ in 0..100 {
            doc = json!([doc]);
        }
        let err = check_size(&doc, "/payload", &PAYLOAD_BOUNDS).unwrap_err();
        assert!(err.message.contains("deeper"));
        assert_eq!(err.path.matches('/').count(), MAX_PAYLOAD_DEPTH + 2);
    }

    #[test]
    fn too_many_values_are_refused() {
        let doc = Value::Array(vec![json!(0); MAX_PAYLOAD_NODES + 1]);
        assert!(check_size(&doc, "/payload", &PAYLOAD_BOUNDS).unwrap_err().message.contains("values"));
    }
}
