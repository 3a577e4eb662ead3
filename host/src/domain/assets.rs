//! Published assets of a space (conventions 4, 12 and 13): their metadata, their states and the
//! moves between them, who sees which, and when a move starts the background analysis.

use serde_json::{Map, Value};

use super::file_names;
use super::problems::{FromBody, Problems, member_pointer};
use super::spaces::Role;
use super::text::{Blank, Rule};

/// Longest title, in characters.
pub const MAX_TITLE_CHARS: usize = 200;
/// A title: one line, not blank.
pub const TITLE: Rule = Rule::line(MAX_TITLE_CHARS, Blank::Refused);
/// Longest file name, in characters.
pub const MAX_FILENAME_CHARS: usize = 255;
/// Longest content type (RFC 6838 allows 127 characters on each side of the `/`).
pub const MAX_CONTENT_TYPE_CHARS: usize = 255;
/// Longest type or subtype of a content type (RFC 6838).
pub const MAX_CONTENT_TYPE_PART_CHARS: usize = 127;

/// Where an asset is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AssetState {
    AwaitingUpload,
    AwaitingApproval,
    Approved,
    Rejected,
    Enabled,
    Disabled,
}

impl AssetState {
    pub const ALL: [AssetState; 6] =
        [Self::AwaitingUpload, Self::AwaitingApproval, Self::Approved, Self::Rejected, Self::Enabled, Self::Disabled];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::AwaitingUpload => "AWAITING_UPLOAD",
            Self::AwaitingApproval => "AWAITING_APPROVAL",
            Self::Approved => "APPROVED",
            Self::Rejected => "REJECTED",
            Self::Enabled => "ENABLED",
            Self::Disabled => "DISABLED",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// The moves the space's owner may make: AWAITING_UPLOAD to REJECTED (an announcement refused
    /// before its upload); AWAITING_APPROVAL to APPROVED or REJECTED; APPROVED to ENABLED or
    /// DISABLED; ENABLED and DISABLED to each other. Otherwise only the upload moves an asset out
    /// of AWAITING_UPLOAD (and the server, once the upload window has passed).
    pub fn may_move_to(self, next: AssetState) -> bool {
        matches!(
            (self, next),
            (Self::AwaitingUpload, Self::Rejected)
                | (Self::AwaitingApproval, Self::Approved | Self::Rejected)
                | (Self::Approved, Self::Enabled | Self::Disabled)
                | (Self::Enabled, Self::Disabled)
                | (Self::Disabled, Self::Enabled)
        )
    }

    /// Whether members see an asset in this state (besides their own proposals).
    pub fn is_published(self) -> bool {
        PUBLISHED.contains(&self)
    }

    /// Whether arriving in this state starts the background analysis (once per asset's bytes).
    pub fn starts_analysis(self) -> bool {
        self.is_published()
    }
}

/// Whether a caller with `role` who `proposed` the asset (or not) may see it in `state`: the owner
/// sees every asset, everybody else the published ones and their own proposals.
pub fn visible_to(role: Role, proposed: bool, state: AssetState) -> bool {
    role == Role::Owner || proposed || state.is_published()
}

/// Assets one proposer (the owner included) may hold in a space awaiting their upload or a
/// decision (conventions section 12): no member can fill a space's queue.
pub const MAX_WAITING_PER_PROPOSER: i64 = 100;

/// The states in which members see other people's assets.
pub const PUBLISHED: [AssetState; 2] = [AssetState::Approved, AssetState::Enabled];

/// The metadata of a new asset, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewAsset {
    pub title: String,
    pub filename: String,
    /// Lowercase `type/subtype`, without parameters.
    pub content_type: String,
}

impl FromBody for NewAsset {
    fn from_body(body: &Map<String, Value>) -> Result<Self, Problems> {
        parse_new(body)
    }
}

/// The owner's decision on an asset, checked: which asset (its id as given) and the state asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateChange {
    pub asset_id: String,
    pub state: AssetState,
}

impl FromBody for StateChange {
    fn from_body(body: &Map<String, Value>) -> Result<Self, Problems> {
        parse_change(body).map(|(asset_id, state)| StateChange { asset_id, state })
    }
}

/// Checks a create body `{title, filename, contentType}`; every problem is listed.
pub fn parse_new(body: &Map<String, Value>) -> Result<NewAsset, Problems> {
    let mut problems = Problems::new();
    let (mut title, mut filename, mut content_type) = (None, None, None);
    for (key, value) in body {
        let path = member_pointer(key);
        match key.as_str() {
            "title" => title = problems.string(&path, value).and_then(|t| check_title(&mut problems, &path, t)),
            "filename" => {
                filename = problems.string(&path, value).and_then(|f| check_filename(&mut problems, &path, f))
            }
            "contentType" => {
                content_type = problems.string(&path, value).and_then(|t| check_content_type(&mut problems, &path, t))
            }
            "assetId" | "state" | "bytes" | "analysis" | "createdAt" | "updatedAt" | "proposedBy" => {
                problems.push(path, "READ_ONLY", "cannot be set")
            }
            _ => problems.push(path, "UNKNOWN_FIELD", "is not a property of an asset"),
        }
    }
    for required in ["title", "filename", "contentType"] {
        if !body.contains_key(required) {
            problems.push(format!("/{required}"), "REQUIRED", "is required");
        }
    }
    match (title, filename, content_type) {
        (Some(title), Some(filename), Some(content_type)) if problems.is_empty() => {
            Ok(NewAsset { title, filename, content_type })
        }
        _ => Err(problems),
    }
}

/// Checks a state change `{assetId, state}`: the asset's id as given and the state asked for.
pub fn parse_change(body: &Map<String, Value>) -> Result<(String, AssetState), Problems> {
    let mut problems = Problems::new();
    let (mut asset_id, mut state) = (None, None);
    for (key, value) in body {
        let path = member_pointer(key);
        match key.as_str() {
            "assetId" => match problems.string(&path, value) {
                Some(id) if crate::domain::document::ids::parse_hyphenated_uuid(id).is_some() => {
                    asset_id = Some(id.to_ascii_lowercase())
                }
                Some(_) => problems.push(path, "INVALID_UUID", "must be a UUID"),
                None => {}
            },
            "state" => {
                if let Some(text) = problems.string(&path, value) {
                    match AssetState::parse(text) {
                        Some(next) => state = Some(next),
                        None => problems.push(path, "INVALID_STATE", format!("must be one of {}", state_names())),
                    }
                }
            }
            _ => problems.push(path, "UNKNOWN_FIELD", "only assetId and state may be sent"),
        }
    }
    for required in ["assetId", "state"] {
        if !body.contains_key(required) {
            problems.push(format!("/{required}"), "REQUIRED", "is required");
        }
    }
    match (asset_id, state) {
        (Some(id), Some(state)) if problems.is_empty() => Ok((id, state)),
        _ => Err(problems),
    }
}

/// A `states` filter: comma-separated state names; problems at `states`.
pub fn parse_states(raw: &str, problems: &mut Problems) -> Vec<AssetState> {
    let mut states = Vec::new();
    for name in raw.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        match AssetState::parse(name) {
            Some(state) if !states.contains(&state) => states.push(state),
            Some(_) => {}
            None => problems.push("states", "INVALID_STATE", format!("{name:?} is not one of {}", state_names())),
        }
    }
    states
}

fn state_names() -> String {
    AssetState::ALL.map(AssetState::as_str).join(", ")
}

fn check_title(problems: &mut Problems, path: &str, title: &str) -> Option<String> {
    TITLE.check(problems, path, title)
}

/// A plain file name: no folders, nothing that disguises it (control, bidirectional or
/// zero-width characters), not `.` or `..`. Refused rather than
/// cleaned, so the name a client gave is the name downloads carry.
fn check_filename(problems: &mut Problems, path: &str, name: &str) -> Option<String> {
    if name.trim().is_empty() {
        problems.push(path, "BLANK", "must not be blank");
    } else if name.chars().count() > MAX_FILENAME_CHARS {
        problems.push(path, "TOO_LONG", format!("must be at most {MAX_FILENAME_CHARS} characters"));
    } else if name.contains(['/', '\\']) || name == "." || name == ".." {
        problems.push(path, file_names::CODE, "must be a file name without folders");
    } else if file_names::disguises(name) {
        problems.push(path, file_names::CODE, file_names::MESSAGE);
    } else if name.trim() != name {
        problems.push(path, "INVALID_FILENAME", "must not begin or end with spaces");
    } else {
        return Some(name.to_owned());
    }
    None
}

/// `type/subtype` of RFC 6838 restricted-name characters, compared in lowercase.
fn check_content_type(problems: &mut Problems, path: &str, text: &str) -> Option<String> {
    let restricted = |part: &str| {
        !part.is_empty()
            && part.len() <= MAX_CONTENT_TYPE_PART_CHARS
            && part.as_bytes()[0].is_ascii_alphanumeric()
            && part.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+".contains(&b))
    };
    let lower = text.trim().to_ascii_lowercase();
    match lower.split_once('/') {
        Some((kind, sub)) if lower.len() <= MAX_CONTENT_TYPE_CHARS && restricted(kind) && restricted(sub) => {
            Some(lower)
        }
        _ => {
            problems.push(path, "INVALID_CONTENT_TYPE", "must be a MIME type such as image/png, without parameters");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn codes(result: Result<impl std::fmt::Debug, Problems>) -> Vec<(String, String)> {
        let mut found: Vec<_> = result.unwrap_err().into_vec().into_iter().map(|p| (p.path, p.code)).collect();
        found.sort();
        found
    }

    fn map(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn only_the_contract_moves_are_allowed() {
        use AssetState::*;
        let allowed = [
            (AwaitingUpload, Rejected),
            (AwaitingApproval, Approved),
            (AwaitingApproval, Rejected),
            (Approved, Enabled),
            (Approved, Disabled),
            (Enabled, Disabled),
            (Disabled, Enabled),
        ];
        for from in AssetState::ALL {
            for to in AssetState::ALL {
                assert_eq!(from.may_move_to(to), allowed.contains(&(from, to)), "{from:?} -> {to:?}");
            }
        }
    }

    #[test]
    fn members_see_published_assets_and_their_own() {
        use AssetState::*;
        assert!(visible_to(Role::Owner, false, AwaitingUpload));
        assert!(visible_to(Role::Member, true, Rejected));
        assert!(visible_to(Role::Member, false, Enabled));
        assert!(!visible_to(Role::Member, false, Disabled));
        assert!(!visible_to(Role::Member, false, AwaitingApproval));
    }

    #[test]
    fn metadata_is_checked_whole() {
        let new = parse_new(&map(json!({"title": " Logo ", "filename": "logo.png", "contentType": "Image/PNG"})));
        assert_eq!(
            new.unwrap(),
            NewAsset { title: "Logo".into(), filename: "logo.png".into(), content_type: "image/png".into() }
        );
        assert_eq!(
            codes(parse_new(&map(
                json!({"title": "", "filename": "../x", "contentType": "png", "state": "X", "y": 1})
            ))),
            [
                ("/contentType".into(), "INVALID_CONTENT_TYPE".into()),
                ("/filename".into(), "INVALID_FILENAME".into()),
                ("/state".into(), "READ_ONLY".into()),
                ("/title".into(), "BLANK".into()),
                ("/y".into(), "UNKNOWN_FIELD".into()),
            ]
        );
        assert_eq!(
            codes(parse_new(&map(json!({"title": 1})))),
            [
                ("/contentType".into(), "REQUIRED".into()),
                ("/filename".into(), "REQUIRED".into()),
                ("/title".into(), "INVALID_TYPE".into()),
            ]
        );
        for bad in ["image/png; charset=x", "image/", "/png", "a b/c", "image/png/x"] {
            assert!(parse_new(&map(json!({"title": "t", "filename": "f", "contentType": bad}))).is_err(), "{bad}");
        }
        for bad in [".", "..", "a\\b", "a\nb", " a"] {
            assert!(parse_new(&map(json!({"title": "t", "filename": bad, "contentType": "a/b"}))).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_state_change_names_an_asset_and_a_state() {
        let id = "8d3c4a0e-6a43-4e44-9d1c-2f0a8f1b7c55";
        assert_eq!(
            parse_change(&map(json!({"assetId": id.to_uppercase(), "state": "APPROVED"}))).unwrap(),
            (id.to_owned(), AssetState::Approved)
        );
        assert_eq!(
            codes(parse_change(&map(json!({"assetId": "x", "state": "approved", "why": 1})))),
            [
                ("/assetId".into(), "INVALID_UUID".into()),
                ("/state".into(), "INVALID_STATE".into()),
                ("/why".into(), "UNKNOWN_FIELD".into()),
            ]
        );
        assert_eq!(
            codes(parse_change(&map(json!({})))),
            [("/assetId".into(), "REQUIRED".into()), ("/state".into(), "REQUIRED".into())]
        );
    }

    #[test]
    fn state_filters_name_known_states() {
        let mut problems = Problems::new();
        assert_eq!(
            parse_states("APPROVED, ENABLED,APPROVED", &mut problems),
            [AssetState::Approved, AssetState::Enabled]
        );
        assert!(problems.is_empty());
        parse_states("APPROVED,NOPE", &mut problems);
        assert_eq!(problems.into_vec()[0].path, "states");
    }
}
