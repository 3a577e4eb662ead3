//! Space rules: the general settings (`name`, `displayName`, `summary`) and the roles of members.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use super::account;
use super::problems::{FromBody, Problems, member_pointer};
use super::text::{Blank, Rule, Words};

/// A space name (a slug), as a pattern both Rust's `regex` and JSON Schema read alike.
pub const NAME_PATTERN: &str = "^[a-z0-9-]{3,64}$";

static NAME: LazyLock<Regex> = LazyLock::new(|| Regex::new(NAME_PATTERN).expect("valid regex"));

/// Spaces one user may own (beyond: CONFLICT); a bound on what one account can make the server keep.
pub const MAX_OWNED_SPACES: i64 = 1_000;

/// Longest accepted summary, in characters.
pub const MAX_SUMMARY_CHARS: usize = 1000;

/// What a user may do in a space. The creator is the owner; members joined it; a reader is a
/// member of a channel the space is connected to, and reads what a member reads without writing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Owner,
    Member,
    Reader,
}

impl Role {
    /// A stored membership's role (readers are never stored: they read through a channel).
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "owner" => Some(Self::Owner),
            "member" => Some(Self::Member),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Owner => "owner",
            Self::Member => "member",
            Self::Reader => "reader",
        }
    }

    /// Whether the role writes to the space (comments, assets, module routes, form instances).
    pub fn may_write(self) -> bool {
        self != Self::Reader
    }
}

/// The general settings of a new space, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewSpace {
    pub name: String,
    pub display_name: String,
    pub summary: String,
}

/// A sparse change of the general settings: `None` leaves a value as it is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GeneralChange {
    pub name: Option<String>,
    pub display_name: Option<String>,
    pub summary: Option<String>,
}

impl GeneralChange {
    pub fn is_empty(&self) -> bool {
        self.name.is_none() && self.display_name.is_none() && self.summary.is_none()
    }
}

/// Properties a client may read but not write.
const READ_ONLY: [&str; 5] = ["spaceId", "role", "ownerId", "createdAt", "updatedAt"];

impl FromBody for NewSpace {
    fn from_body(body: &Map<String, Value>) -> Result<Self, Problems> {
        parse_new(body)
    }
}

impl FromBody for GeneralChange {
    fn from_body(body: &Map<String, Value>) -> Result<Self, Problems> {
        parse_change(body)
    }
}

/// Checks a create body `{name, displayName, summary?}`; every problem is listed.
pub fn parse_new(body: &Map<String, Value>) -> Result<NewSpace, Problems> {
    let mut problems = Problems::new();
    let change = read_settings(body, &mut problems);
    if !body.contains_key("name") {
        problems.push("/name", "REQUIRED", "is required");
    }
    if !body.contains_key("displayName") {
        problems.push("/displayName", "REQUIRED", "is required");
    }
    let (Some(name), Some(display_name)) = (change.name, change.display_name) else {
        return Err(problems);
    };
    problems.finish(NewSpace { name, display_name, summary: change.summary.unwrap_or_default() })
}

/// Checks a PATCH body: any of `name`, `displayName`, `summary`; every problem is listed.
pub fn parse_change(body: &Map<String, Value>) -> Result<GeneralChange, Problems> {
    let mut problems = Problems::new();
    let change = read_settings(body, &mut problems);
    problems.finish(change)
}

fn read_settings(body: &Map<String, Value>, problems: &mut Problems) -> GeneralChange {
    let mut change = GeneralChange::default();
    for (key, value) in body {
        let path = member_pointer(key);
        match key.as_str() {
            "name" => change.name = problems.string(&path, value).and_then(|v| check_name(problems, &path, v)),
            "displayName" => {
                change.display_name = problems.string(&path, value).and_then(|v| DISPLAY_NAME.check(problems, &path, v))
            }
            "summary" => change.summary = summary(problems, &path, value),
            key if READ_ONLY.contains(&key) => problems.push(path, "READ_ONLY", "cannot be changed"),
            _ => problems.push(path, "UNKNOWN_FIELD", "is not a space setting"),
        }
    }
    change
}

/// A space name: a slug of 3 to 64 characters of a-z, 0-9 and `-`, unique per deployment.
pub fn check_name(problems: &mut Problems, path: &str, name: &str) -> Option<String> {
    if NAME.is_match(name) {
        Some(name.to_owned())
    } else {
        problems.push(path, "INVALID_NAME", "must be 3 to 64 characters of a-z, 0-9 and -");
        None
    }
}

/// A display name: the rule of a person's name.
pub const DISPLAY_NAME: Rule = account::NAME;

/// A summary: free text of at most [`MAX_SUMMARY_CHARS`], line breaks allowed; may be empty.
pub const SUMMARY: Rule = Rule::block(MAX_SUMMARY_CHARS, Blank::Allowed).worded(Words::SETTINGS);

/// A summary by [`SUMMARY`]; `null` clears it.
fn summary(problems: &mut Problems, path: &str, value: &Value) -> Option<String> {
    match value {
        Value::Null => Some(String::new()),
        Value::String(s) => SUMMARY.check(problems, path, s),
        _ => {
            problems.push(path, "INVALID_TYPE", "must be a string");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn paths(problems: Problems) -> Vec<(String, String)> {
        let mut found: Vec<_> = problems.into_vec().into_iter().map(|p| (p.path, p.code)).collect();
        found.sort();
        found
    }

    fn map(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn a_new_space_needs_a_slug_name_and_a_display_name() {
        let new = parse_new(&map(json!({"name": "team-42", "displayName": " Team 42 "}))).unwrap();
        assert_eq!(new, NewSpace { name: "team-42".into(), display_name: "Team 42".into(), summary: String::new() });
        assert_eq!(
            paths(parse_new(&map(json!({}))).unwrap_err()),
            [("/displayName".into(), "REQUIRED".into()), ("/name".into(), "REQUIRED".into())]
        );
    }

    #[test]
    fn every_broken_rule_is_listed_with_its_pointer() {
        let body =
            json!({"name": "No Caps", "displayName": "", "summary": "x".repeat(1001), "role": "owner", "colour": 1});
        assert_eq!(
            paths(parse_new(&map(body)).unwrap_err()),
            [
                ("/colour".into(), "UNKNOWN_FIELD".into()),
                ("/displayName".into(), "REQUIRED".into()),
                ("/name".into(), "INVALID_NAME".into()),
                ("/role".into(), "READ_ONLY".into()),
                ("/summary".into(), "TOO_LONG".into()),
            ]
        );
    }

    #[test]
    fn names_are_slugs_of_three_to_sixty_four_characters() {
        for good in ["abc", "a-b-c", "x".repeat(64).as_str(), "42-team"] {
            assert!(check_name(&mut Problems::new(), "/name", good).is_some(), "{good}");
        }
        for bad in ["ab", "x".repeat(65).as_str(), "a_b", "Abc", "a b", "ä-b-c"] {
            assert!(check_name(&mut Problems::new(), "/name", bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn a_change_may_name_any_subset_and_null_clears_the_summary() {
        let change = parse_change(&map(json!({"summary": null}))).unwrap();
        assert_eq!(change.summary.as_deref(), Some(""));
        assert!(parse_change(&map(json!({}))).unwrap().is_empty());
        assert_eq!(
            paths(parse_change(&map(json!({"name": 7}))).unwrap_err()),
            [("/name".into(), "INVALID_TYPE".into())]
        );
    }
}
