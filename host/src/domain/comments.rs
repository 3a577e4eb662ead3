//! Comment rules, the same wherever a comment is made (a space, a channel).

use serde_json::{Map, Value};

use super::problems::{FromBody, Problems, member_pointer};
use super::text::{Blank, Rule};

/// Longest accepted comment, in characters.
pub const MAX_BODY_CHARS: usize = 4000;
/// A comment's body: a block, not blank.
pub const BODY: Rule = Rule::block(MAX_BODY_CHARS, Blank::Refused);

/// Where a comment is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope<'a> {
    Space(&'a str),
    Channel(&'a str),
}

impl<'a> Scope<'a> {
    /// The kind of place, as the store records it.
    pub fn kind(self) -> &'static str {
        match self {
            Self::Space(_) => "space",
            Self::Channel(_) => "channel",
        }
    }

    /// The id of the place.
    pub fn id(self) -> &'a str {
        match self {
            Self::Space(id) | Self::Channel(id) => id,
        }
    }
}

/// Checks a comment body `{body}`: required, not blank, at most [`MAX_BODY_CHARS`] characters, no
/// control characters but line breaks and tabs. Returns the text trimmed; every problem is listed.
pub fn parse_new(request: &Map<String, Value>) -> Result<String, Problems> {
    let mut problems = Problems::new();
    let mut text = None;
    for (key, value) in request {
        let path = member_pointer(key);
        match key.as_str() {
            "body" => text = problems.string(&path, value).and_then(|body| check_body(&mut problems, &path, body)),
            "commentId" | "author" | "createdAt" => problems.push(path, "READ_ONLY", "cannot be set"),
            _ => problems.push(path, "UNKNOWN_FIELD", "is not a property of a comment"),
        }
    }
    if !request.contains_key("body") {
        problems.push("/body", "REQUIRED", "is required");
    }
    match text {
        Some(text) if problems.is_empty() => Ok(text),
        _ => Err(problems),
    }
}

/// The body of a new comment, checked: its text, trimmed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommentText(pub String);

impl FromBody for CommentText {
    fn from_body(body: &Map<String, Value>) -> Result<Self, Problems> {
        parse_new(body).map(CommentText)
    }
}

fn check_body(problems: &mut Problems, path: &str, body: &str) -> Option<String> {
    BODY.check(problems, path, body)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn codes(value: Value) -> Vec<(String, String)> {
        let mut found: Vec<_> = parse_new(value.as_object().unwrap())
            .unwrap_err()
            .into_vec()
            .into_iter()
            .map(|p| (p.path, p.code))
            .collect();
        found.sort();
        found
    }

    #[test]
    fn a_comment_is_its_trimmed_body() {
        assert_eq!(parse_new(json!({"body": "  Hello\nthere  "}).as_object().unwrap()).unwrap(), "Hello\nthere");
        let longest = "é".repeat(MAX_BODY_CHARS);
        assert_eq!(parse_new(json!({"body": longest}).as_object().unwrap()).unwrap().chars().count(), 4000);
    }

    #[test]
    fn every_broken_rule_is_listed() {
        assert_eq!(codes(json!({})), [("/body".to_owned(), "REQUIRED".to_owned())]);
        assert_eq!(codes(json!({"body": " \n "})), [("/body".to_owned(), "BLANK".to_owned())]);
        assert_eq!(codes(json!({"body": "x".repeat(4001)})), [("/body".to_owned(), "TOO_LONG".to_owned())]);
        assert_eq!(
            codes(json!({"body": "a\u{7}b", "commentId": "x", "colour": 1})),
            [
                ("/body".to_owned(), "INVALID_CHARACTERS".to_owned()),
                ("/colour".to_owned(), "UNKNOWN_FIELD".to_owned()),
                ("/commentId".to_owned(), "READ_ONLY".to_owned()),
            ]
        );
        assert_eq!(codes(json!({"body": 3})), [("/body".to_owned(), "INVALID_TYPE".to_owned())]);
    }
}
