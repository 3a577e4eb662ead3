//! Channel rules: the body of a new channel, the roles of members, the states of invites, and the
//! bodies of the connected-space, invite, response and role routes, each checked with every
//! problem listed at its JSON Pointer.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::account;
use super::document::ids::parse_hyphenated_uuid;
use super::problems::{FromBody, Problems};
use super::text::{Blank, Rule, Words};

/// Longest accepted channel name, in characters.
pub const MAX_NAME_CHARS: usize = account::MAX_NAME_CHARS;
/// Longest accepted description, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 1000;
/// Handles one invite request may name.
pub const MAX_INVITES_PER_REQUEST: usize = 50;
/// Spaces one channel may have connected.
pub const MAX_SPACES: usize = 100;
/// Invites of one channel that may wait for an answer at once.
pub const MAX_PENDING_INVITES: i64 = 1_000;
/// Channels one user may own.
pub const MAX_OWNED_CHANNELS: i64 = 1_000;

/// What a member may do in a channel. The creator is the owner; the owner may give members the
/// `inviter` role; owners and inviters may invite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Owner,
    Inviter,
    Member,
}

impl Role {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "owner" => Some(Self::Owner),
            "inviter" => Some(Self::Inviter),
            "member" => Some(Self::Member),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Owner => "owner",
            Self::Inviter => "inviter",
            Self::Member => "member",
        }
    }

    pub fn may_invite(self) -> bool {
        matches!(self, Self::Owner | Self::Inviter)
    }
}

/// The states of an invite (conventions section 4). Only a PENDING invite moves: to ACCEPTED or
/// DECLINED by its invitee, to CANCELLED by its inviter or the channel's owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InviteState {
    Pending,
    Accepted,
    Declined,
    Cancelled,
}

impl InviteState {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "PENDING" => Some(Self::Pending),
            "ACCEPTED" => Some(Self::Accepted),
            "DECLINED" => Some(Self::Declined),
            "CANCELLED" => Some(Self::Cancelled),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "PENDING",
            Self::Accepted => "ACCEPTED",
            Self::Declined => "DECLINED",
            Self::Cancelled => "CANCELLED",
        }
    }
}

/// An id from a path or a body in canonical (lower-case, hyphenated) form; `None` when it is no
/// UUID and so cannot name a channel, invite, user or space.
pub fn canonical_id(text: &str) -> Option<String> {
    parse_hyphenated_uuid(text).map(|id| id.to_string())
}

/// A new channel, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewChannel {
    pub name: String,
    pub description: String,
}

/// Properties of a channel view a client may read but not write.
const READ_ONLY: [&str; 5] = ["channelId", "role", "ownerId", "createdAt", "updatedAt"];

impl FromBody for NewChannel {
    fn from_body(body: &Map<String, Value>) -> Result<Self, Problems> {
        parse_new(body)
    }
}

/// Checks a create body `{name, description?}`; every problem is listed.
pub fn parse_new(body: &Map<String, Value>) -> Result<NewChannel, Problems> {
    let mut problems = Problems::new();
    let (mut name, mut description) = (None, String::new());
    for (key, value) in body {
        let path = pointer(key);
        match key.as_str() {
            "name" => name = text(&mut problems, &path, value).and_then(|v| check_name(&mut problems, &path, v)),
            "description" => description = check_description(&mut problems, &path, value).unwrap_or_default(),
            key if READ_ONLY.contains(&key) => problems.push(path, "READ_ONLY", "cannot be changed"),
            _ => problems.push(path, "UNKNOWN_FIELD", "is not a property of a channel"),
        }
    }
    if !body.contains_key("name") {
        problems.push("/name", "REQUIRED", "is required");
    }
    match name {
        Some(name) => problems.finish(NewChannel { name, description }),
        None => Err(problems),
    }
}

/// A channel name: non-blank, trimmed, at most [`MAX_NAME_CHARS`], no control characters (a
/// channel is named as a person is).
pub const NAME: Rule = account::NAME;

fn check_name(problems: &mut Problems, path: &str, name: &str) -> Option<String> {
    NAME.check(problems, path, name)
}

/// A description: free text of at most [`MAX_DESCRIPTION_CHARS`], line breaks allowed; may be empty.
pub const DESCRIPTION: Rule = Rule::block(MAX_DESCRIPTION_CHARS, Blank::Allowed).worded(Words::SETTINGS);

/// A description by [`DESCRIPTION`]; missing or `null` is empty.
fn check_description(problems: &mut Problems, path: &str, value: &Value) -> Option<String> {
    match value {
        Value::Null => Some(String::new()),
        Value::String(s) => DESCRIPTION.check(problems, path, s),
        _ => {
            problems.push(path, "INVALID_TYPE", "must be a string");
            None
        }
    }
}

/// One entry of `spaceIds`: its index, and the canonical id when it is a UUID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpaceEntry {
    pub index: usize,
    pub space_id: Option<String>,
}

/// Checks `{spaceIds: [..]}`: an array of at most [`MAX_SPACES`] strings, none twice. Answers
/// the entries that pass, for the caller to look up and add its own problems to the same list;
/// an entry that is no UUID is among them, so the caller reports it like any space it cannot see.
pub fn parse_space_ids(body: &Map<String, Value>, problems: &mut Problems) -> Vec<SpaceEntry> {
    unknown_keys(body, &["spaceIds"], problems);
    let entries = array(body, "spaceIds", MAX_SPACES, problems);
    let mut seen = HashSet::new();
    let mut found = Vec::with_capacity(entries.len());
    for (index, entry) in entries.iter().enumerate() {
        let path = format!("/spaceIds/{index}");
        let Some(text) = entry.as_str() else {
            problems.push(path, "INVALID_TYPE", "must be a string");
            continue;
        };
        let space_id = canonical_id(text);
        if !seen.insert(space_id.clone().unwrap_or_else(|| text.to_owned())) {
            problems.push(path, "DUPLICATE_SPACE", "is named more than once");
            continue;
        }
        found.push(SpaceEntry { index, space_id });
    }
    found
}

/// Checks `{users: [handle, ..]}`: 1 to [`MAX_INVITES_PER_REQUEST`] handles, none twice.
/// Answers the `(index, handle)` of each entry that passes, for the caller to look up and add its
/// own problems to the same list.
pub fn parse_invite_handles(body: &Map<String, Value>, problems: &mut Problems) -> Vec<(usize, String)> {
    unknown_keys(body, &["users"], problems);
    let entries = array(body, "users", MAX_INVITES_PER_REQUEST, problems);
    if body.get("users").and_then(Value::as_array).is_some_and(Vec::is_empty) {
        problems.push("/users", "REQUIRED", "must name at least one handle");
    }
    let mut seen = HashSet::new();
    let mut handles = Vec::with_capacity(entries.len());
    for (index, entry) in entries.iter().enumerate() {
        let path = format!("/users/{index}");
        let Some(text) = entry.as_str() else {
            problems.push(path, "INVALID_TYPE", "must be a string");
            continue;
        };
        let Some(handle) = account::check_handle(problems, &path, Some(text)) else { continue };
        if !seen.insert(handle.clone()) {
            problems.push(path, "DUPLICATE_USER", "is named more than once");
            continue;
        }
        handles.push((index, handle));
    }
    handles
}

/// The body of `PUT /channels/{id}/spaces`: the entries of `spaceIds` that pass, and the problems
/// found in the body, for the use case to add those of its look-ups to (so every problem is listed
/// at once).
#[derive(Debug)]
pub struct SpaceIds {
    pub entries: Vec<SpaceEntry>,
    pub problems: Problems,
}

impl FromBody for SpaceIds {
    fn from_body(body: &Map<String, Value>) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let entries = parse_space_ids(body, &mut problems);
        Ok(Self { entries, problems })
    }
}

/// The body of an invite request: the `(index, handle)` of each entry of `users` that passes, and
/// the problems found in the body, for the use case to add those of its look-ups to.
#[derive(Debug)]
pub struct InviteHandles {
    pub handles: Vec<(usize, String)>,
    pub problems: Problems,
}

impl FromBody for InviteHandles {
    fn from_body(body: &Map<String, Value>) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let handles = parse_invite_handles(body, &mut problems);
        Ok(Self { handles, problems })
    }
}

/// What an invitee answers an invite with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Response {
    Accept,
    Decline,
}

impl Response {
    /// The state the invite moves to.
    pub fn state(self) -> InviteState {
        match self {
            Self::Accept => InviteState::Accepted,
            Self::Decline => InviteState::Declined,
        }
    }
}

/// An invitee's answer: the invite (`None` when the id is no UUID) and the response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InviteAnswer {
    pub invite_id: Option<String>,
    pub response: Response,
}

impl FromBody for InviteAnswer {
    fn from_body(body: &Map<String, Value>) -> Result<Self, Problems> {
        parse_response(body).map(|(invite_id, response)| Self { invite_id, response })
    }
}

/// Checks `{inviteId, response: "ACCEPT" | "DECLINE"}`. An `inviteId` that is no UUID is `None`:
/// it names no invite, which the caller answers like any invite it cannot see.
pub fn parse_response(body: &Map<String, Value>) -> Result<(Option<String>, Response), Problems> {
    let mut problems = Problems::new();
    unknown_keys(body, &["inviteId", "response"], &mut problems);
    let invite_id = required_text(body, "inviteId", &mut problems).map(canonical_id);
    let response = match required_text(body, "response", &mut problems) {
        Some("ACCEPT") => Some(Response::Accept),
        Some("DECLINE") => Some(Response::Decline),
        Some(_) => {
            problems.push("/response", "INVALID_VALUE", "must be ACCEPT or DECLINE");
            None
        }
        None => None,
    };
    match (invite_id, response) {
        (Some(invite_id), Some(response)) => problems.finish((invite_id, response)),
        _ => Err(problems),
    }
}

/// A member's new role, from `{role}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoleChange(pub Role);

impl FromBody for RoleChange {
    fn from_body(body: &Map<String, Value>) -> Result<Self, Problems> {
        parse_role_change(body).map(RoleChange)
    }
}

/// Checks `{role}` of a member change: `inviter` or `member` (ownership does not move).
pub fn parse_role_change(body: &Map<String, Value>) -> Result<Role, Problems> {
    let mut problems = Problems::new();
    unknown_keys(body, &["role"], &mut problems);
    let role = match required_text(body, "role", &mut problems) {
        Some("inviter") => Some(Role::Inviter),
        Some("member") => Some(Role::Member),
        Some(_) => {
            problems.push("/role", "INVALID_VALUE", "must be inviter or member");
            None
        }
        None => None,
    };
    match role {
        Some(role) => problems.finish(role),
        None => Err(problems),
    }
}

fn pointer(key: &str) -> String {
    format!("/{}", key.replace('~', "~0").replace('/', "~1"))
}

fn unknown_keys(body: &Map<String, Value>, known: &[&str], problems: &mut Problems) {
    for key in body.keys().filter(|key| !known.contains(&key.as_str())) {
        problems.push(pointer(key), "UNKNOWN_FIELD", "is not a property of this body");
    }
}

/// The array at `key`, or nothing (with a problem) when it is missing, no array or longer than `max`.
fn array<'a>(body: &'a Map<String, Value>, key: &str, max: usize, problems: &mut Problems) -> &'a [Value] {
    let path = pointer(key);
    match body.get(key) {
        Some(Value::Array(entries)) if entries.len() > max => {
            problems.push(path, "TOO_MANY", format!("must have at most {max} entries"));
            &[]
        }
        Some(Value::Array(entries)) => entries,
        Some(Value::Null) | None => {
            problems.push(path, "REQUIRED", "is required");
            &[]
        }
        Some(_) => {
            problems.push(path, "INVALID_TYPE", "must be an array");
            &[]
        }
    }
}

fn required_text<'a>(body: &'a Map<String, Value>, key: &str, problems: &mut Problems) -> Option<&'a str> {
    text(problems, &pointer(key), body.get(key).unwrap_or(&Value::Null))
}

fn text<'a>(problems: &mut Problems, path: &str, value: &'a Value) -> Option<&'a str> {
    match value {
        Value::String(s) => Some(s),
        Value::Null => {
            problems.push(path, "REQUIRED", "is required");
            None
        }
        _ => {
            problems.push(path, "INVALID_TYPE", "must be a string");
            None
        }
    }
}

#[cfg(test)]
mod tests;
