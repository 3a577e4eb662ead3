//! The marketplace (conventions 4, 6, 12 and 13): a space's listing preparation and its states, the
//! operator's decision, and registrations with the membership policy that governs them.
//!
//! A listing has two faces: the *preparation* the owner edits (`title`, `summary`, `categories`) and
//! the *listed* text the operator approved last, which is what the marketplace shows. A change to the
//! text of an APPROVED listing goes back through approval while the approved text stays listed; the
//! membership policy and the owner's registration rules are the owner's alone and apply at once.

use serde_json::{Map, Value};

use super::problems::{FromBody, Problems, member_pointer};
use super::text::{Blank, Rule};

/// Longest listing title, in characters.
pub const MAX_TITLE_CHARS: usize = 100;
/// Longest listing summary, in characters.
pub const MAX_SUMMARY_CHARS: usize = 2_000;
/// Most categories per listing.
pub const MAX_CATEGORIES: usize = 10;
/// Longest category, in characters.
pub const MAX_CATEGORY_CHARS: usize = 40;
/// Longest operator's reason, in characters.
pub const MAX_REASON_CHARS: usize = 2_000;
/// Longest registration note, in characters.
pub const MAX_NOTE_CHARS: usize = 1_000;
/// Largest owner's registration rules (`rules`) as JSON text, in bytes.
pub const MAX_RULES_BYTES: usize = 64 * 1024;

/// The free texts of a listing and of the decisions about it, each one rule (the OpenAPI document
/// publishes the same).
pub const TITLE: Rule = Rule::line(MAX_TITLE_CHARS, Blank::Allowed);
pub const SUMMARY: Rule = Rule::block(MAX_SUMMARY_CHARS, Blank::Allowed);
pub const CATEGORY: Rule = Rule::line(MAX_CATEGORY_CHARS, Blank::Refused);
pub const REASON: Rule = Rule::block(MAX_REASON_CHARS, Blank::Allowed);
pub const NOTE: Rule = Rule::block(MAX_NOTE_CHARS, Blank::Allowed);

/// Where a listing preparation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ListingState {
    Draft,
    Submitted,
    Approved,
    Rejected,
}

impl ListingState {
    pub const ALL: [ListingState; 4] = [Self::Draft, Self::Submitted, Self::Approved, Self::Rejected];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "DRAFT",
            Self::Submitted => "SUBMITTED",
            Self::Approved => "APPROVED",
            Self::Rejected => "REJECTED",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// The state after the owner saves the preparation: `submit` sends it to the operator; a
    /// change of the text of an APPROVED listing needs approval again (DRAFT until submitted);
    /// anything else keeps the state (an unchanged APPROVED listing stays APPROVED, a SUBMITTED one
    /// stays in the queue with its new text).
    pub fn after_save(self, text_changed: bool, submit: bool) -> ListingState {
        match (self, text_changed, submit) {
            (Self::Approved, false, _) => Self::Approved,
            (_, _, true) => Self::Submitted,
            (Self::Approved, true, false) => Self::Draft,
            (state, _, false) => state,
        }
    }
}

/// Who may join a listed space, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Membership {
    /// Registrations are approved at once.
    Open,
    /// The owner (or the owner's rules) decides each registration.
    #[default]
    Approval,
    /// No registrations are taken.
    Closed,
}

impl Membership {
    pub const ALL: [Membership; 3] = [Self::Open, Self::Approval, Self::Closed];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Open => "OPEN",
            Self::Approval => "APPROVAL",
            Self::Closed => "CLOSED",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// Where a registration is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegistrationState {
    Pending,
    Approved,
    Rejected,
}

impl RegistrationState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "PENDING",
            Self::Approved => "APPROVED",
            Self::Rejected => "REJECTED",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [Self::Pending, Self::Approved, Self::Rejected].into_iter().find(|s| s.as_str() == text)
    }
}

/// A `states` filter such as `SUBMITTED,DRAFT`; unknown names are problems at `states`.
pub fn parse_states(raw: &str, problems: &mut Problems) -> Vec<ListingState> {
    let mut states = Vec::new();
    for name in raw.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        match ListingState::parse(name) {
            Some(state) if !states.contains(&state) => states.push(state),
            Some(_) => {}
            None => problems.push(
                "states",
                "INVALID_STATE",
                format!("{name:?} is not one of {}", ListingState::ALL.map(ListingState::as_str).join(", ")),
            ),
        }
    }
    states
}

/// The public text of a listing.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ListingText {
    pub title: String,
    pub summary: String,
    pub categories: Vec<String>,
}

/// What a `PUT .../settings/marketplace` asks for: each member given, checked; absent members keep
/// their value.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SettingsChange {
    pub title: Option<String>,
    pub summary: Option<String>,
    pub categories: Option<Vec<String>>,
    pub membership: Option<Membership>,
    /// The owner's registration rules for the deployment's rule module, as given (its schema is
    /// the module's, checked by the use case).
    pub rules: Option<Map<String, Value>>,
    pub submit: bool,
}

impl SettingsChange {
    /// The preparation's text after this change.
    pub fn apply_to(&self, text: &ListingText) -> ListingText {
        ListingText {
            title: self.title.clone().unwrap_or_else(|| text.title.clone()),
            summary: self.summary.clone().unwrap_or_else(|| text.summary.clone()),
            categories: self.categories.clone().unwrap_or_else(|| text.categories.clone()),
        }
    }
}

/// Checks `{title, summary, categories, membership, rules, submit}`; every problem is listed.
pub fn parse_settings(body: &Map<String, Value>) -> Result<SettingsChange, Problems> {
    let mut problems = Problems::new();
    let mut change = SettingsChange::default();
    for (key, value) in body {
        let path = member_pointer(key);
        match key.as_str() {
            "title" => change.title = problems.string(&path, value).and_then(|t| TITLE.check(&mut problems, &path, t)),
            "summary" => change.summary = problems.string(&path, value).and_then(|s| summary(&mut problems, &path, s)),
            "categories" => change.categories = categories(&mut problems, &path, value),
            "membership" => {
                if let Some(text) = problems.string(&path, value) {
                    change.membership = Membership::parse(text);
                    if change.membership.is_none() {
                        problems.push(path, "INVALID_VALUE", "must be OPEN, APPROVAL or CLOSED");
                    }
                }
            }
            "rules" => match value {
                Value::Object(rules) if value.to_string().len() <= MAX_RULES_BYTES => {
                    change.rules = Some(rules.clone())
                }
                Value::Object(_) => problems.push(path, "TOO_LONG", format!("must be at most {MAX_RULES_BYTES} bytes")),
                _ => problems.push(path, "INVALID_TYPE", "must be an object"),
            },
            "submit" => match value {
                Value::Bool(submit) => change.submit = *submit,
                _ => problems.push(path, "INVALID_TYPE", "must be true or false"),
            },
            "state" | "reason" | "listed" | "listedAt" | "submittedAt" | "decidedAt" | "updatedAt" => {
                problems.push(path, "READ_ONLY", "cannot be set")
            }
            _ => problems.push(path, "UNKNOWN_FIELD", "is not a marketplace setting"),
        }
    }
    problems.finish(change)
}

/// What the operator reviews must be complete: a title and a summary.
pub fn check_submittable(text: &ListingText) -> Result<(), Problems> {
    let mut problems = Problems::new();
    if text.title.is_empty() {
        problems.push("/title", "REQUIRED", "a listing needs a title before it is submitted");
    }
    if text.summary.is_empty() {
        problems.push("/summary", "REQUIRED", "a listing needs a summary before it is submitted");
    }
    problems.finish(())
}

/// The operator's decision on a SUBMITTED listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListingDecision {
    pub approved: bool,
    /// Why, for the owner; required when not approved.
    pub reason: Option<String>,
}

impl FromBody for ListingDecision {
    fn from_body(body: &Map<String, Value>) -> Result<Self, Problems> {
        parse_decision(body)
    }
}

/// A registration's note to the owner (empty when none was given).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegistrationNote(pub String);

impl FromBody for RegistrationNote {
    fn from_body(body: &Map<String, Value>) -> Result<Self, Problems> {
        parse_registration(body).map(RegistrationNote)
    }
}

/// The owner's decision on a PENDING registration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerDecision {
    pub registration_id: String,
    pub approved: bool,
}

impl FromBody for OwnerDecision {
    fn from_body(body: &Map<String, Value>) -> Result<Self, Problems> {
        parse_owner_decision(body)
    }
}

/// The operator's `{approved: "YES" | "NO", reason}`: a rejection must say why.
pub fn parse_decision(body: &Map<String, Value>) -> Result<ListingDecision, Problems> {
    let mut problems = Problems::new();
    let approved = yes_no(&mut problems, body, "approved");
    let mut reason = None;
    for (key, value) in body {
        let path = member_pointer(key);
        match key.as_str() {
            "approved" => {}
            "reason" => match value {
                Value::Null => {}
                _ => reason = problems.string(&path, value).and_then(|r| REASON.check(&mut problems, &path, r)),
            },
            _ => problems.push(path, "UNKNOWN_FIELD", "only approved and reason may be sent"),
        }
    }
    let reason = reason.filter(|r| !r.is_empty());
    if approved == Some(false) && reason.is_none() && !problems.has_code("TOO_LONG") {
        problems.push("/reason", "REQUIRED", "a rejection must give the owner a reason");
    }
    match approved {
        Some(approved) if problems.is_empty() => Ok(ListingDecision { approved, reason }),
        _ => Err(problems),
    }
}

/// A registration's `{}` or `{note}`.
pub fn parse_registration(body: &Map<String, Value>) -> Result<String, Problems> {
    let mut problems = Problems::new();
    let mut note = String::new();
    for (key, value) in body {
        let path = member_pointer(key);
        match (key.as_str(), value) {
            ("note", Value::Null) => {}
            ("note", _) => {
                if let Some(text) = problems.string(&path, value).and_then(|n| NOTE.check(&mut problems, &path, n)) {
                    note = text;
                }
            }
            _ => problems.push(path, "UNKNOWN_FIELD", "only note may be sent"),
        }
    }
    problems.finish(note)
}

/// The owner's `{registrationId, approved: "YES" | "NO"}`.
pub fn parse_owner_decision(body: &Map<String, Value>) -> Result<OwnerDecision, Problems> {
    let mut problems = Problems::new();
    let approved = yes_no(&mut problems, body, "approved");
    let mut registration_id = None;
    for (key, value) in body {
        let path = member_pointer(key);
        match key.as_str() {
            "approved" => {}
            "registrationId" => {
                if let Some(id) = problems.string(&path, value) {
                    match uuid::Uuid::try_parse(id) {
                        Ok(id) => registration_id = Some(id.to_string()),
                        Err(_) => problems.push(path, "INVALID_UUID", "must be a UUID"),
                    }
                }
            }
            _ => problems.push(path, "UNKNOWN_FIELD", "only registrationId and approved may be sent"),
        }
    }
    if !body.contains_key("registrationId") {
        problems.push("/registrationId", "REQUIRED", "is required");
    }
    match (registration_id, approved) {
        (Some(registration_id), Some(approved)) if problems.is_empty() => {
            Ok(OwnerDecision { registration_id, approved })
        }
        _ => Err(problems),
    }
}

/// `"YES"` or `"NO"` (a JSON boolean is accepted too) at `/{key}`, which is required.
fn yes_no(problems: &mut Problems, body: &Map<String, Value>, key: &str) -> Option<bool> {
    let path = format!("/{key}");
    match body.get(key) {
        None | Some(Value::Null) => {
            problems.push(path, "REQUIRED", "is required: YES or NO");
            None
        }
        Some(Value::String(text)) if text == "YES" => Some(true),
        Some(Value::String(text)) if text == "NO" => Some(false),
        Some(Value::Bool(flag)) => Some(*flag),
        Some(_) => {
            problems.push(path, "INVALID_VALUE", "must be YES or NO");
            None
        }
    }
}

fn summary(problems: &mut Problems, path: &str, text: &str) -> Option<String> {
    SUMMARY.check(problems, path, text)
}

/// Up to [`MAX_CATEGORIES`] distinct non-blank one-line names; stored as given (trimmed), compared
/// without regard to letter case.
fn categories(problems: &mut Problems, path: &str, value: &Value) -> Option<Vec<String>> {
    let Value::Array(items) = value else {
        problems.push(path, "INVALID_TYPE", "must be an array of strings");
        return None;
    };
    if items.len() > MAX_CATEGORIES {
        problems.push(path, "TOO_MANY", format!("must hold at most {MAX_CATEGORIES} categories"));
        return None;
    }
    let before = problems.len();
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let item_path = format!("{path}/{i}");
        let Some(name) = problems.string(&item_path, item).and_then(|c| CATEGORY.check(problems, &item_path, c)) else {
            continue;
        };
        if seen.contains(&name.to_lowercase()) {
            problems.push(item_path, "DUPLICATE", "is listed twice");
        } else {
            seen.push(name.to_lowercase());
            out.push(name);
        }
    }
    (problems.len() == before).then_some(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    fn paths(problems: Problems) -> Vec<String> {
        problems.into_vec().into_iter().map(|p| p.path).collect()
    }

    #[test]
    fn saving_moves_the_state_as_documented() {
        use ListingState::*;
        assert_eq!(Draft.after_save(true, false), Draft);
        assert_eq!(Draft.after_save(true, true), Submitted);
        assert_eq!(Rejected.after_save(false, true), Submitted);
        assert_eq!(Rejected.after_save(true, false), Rejected);
        assert_eq!(Submitted.after_save(true, false), Submitted);
        assert_eq!(Approved.after_save(false, true), Approved);
        assert_eq!(Approved.after_save(false, false), Approved);
        assert_eq!(Approved.after_save(true, false), Draft);
        assert_eq!(Approved.after_save(true, true), Submitted);
    }

    #[test]
    fn every_settings_problem_is_listed() {
        let body = object(json!({
            "title": "x".repeat(101),
            "summary": 3,
            "categories": ["Art", "art", " ", 4],
            "membership": "SOMETIMES",
            "submit": "yes",
            "state": "APPROVED",
            "colour": "red",
            "rules": [],
        }));
        let mut found = paths(parse_settings(&body).unwrap_err());
        found.sort();
        assert_eq!(
            found,
            [
                "/categories/1",
                "/categories/2",
                "/categories/3",
                "/colour",
                "/membership",
                "/rules",
                "/state",
                "/submit",
                "/summary",
                "/title"
            ]
        );
    }

    #[test]
    fn settings_keep_what_is_not_sent() {
        let change = parse_settings(&object(json!({"summary": "  Roses  ", "membership": "OPEN"}))).unwrap();
        let before = ListingText { title: "Garden".into(), summary: "old".into(), categories: vec!["plants".into()] };
        let after = change.apply_to(&before);
        assert_eq!(after, ListingText { summary: "Roses".into(), ..before });
        assert_eq!(change.membership, Some(Membership::Open));
        assert!(!change.submit);
    }

    #[test]
    fn a_submission_needs_a_title_and_summary() {
        let problems = check_submittable(&ListingText::default()).unwrap_err();
        assert_eq!(paths(problems), ["/title", "/summary"]);
    }

    #[test]
    fn a_rejection_needs_a_reason() {
        assert_eq!(
            parse_decision(&object(json!({"approved": "YES"}))).unwrap(),
            ListingDecision { approved: true, reason: None }
        );
        assert_eq!(paths(parse_decision(&object(json!({"approved": "NO"}))).unwrap_err()), ["/reason"]);
        assert_eq!(paths(parse_decision(&object(json!({"approved": "MAYBE"}))).unwrap_err()), ["/approved"]);
        assert_eq!(
            parse_decision(&object(json!({"approved": "NO", "reason": " spam "}))).unwrap(),
            ListingDecision { approved: false, reason: Some("spam".into()) }
        );
    }

    #[test]
    fn the_owners_decision_names_a_registration() {
        let id = uuid::Uuid::new_v4().to_string();
        assert_eq!(
            parse_owner_decision(&object(json!({"registrationId": id, "approved": "NO"}))).unwrap(),
            OwnerDecision { registration_id: id, approved: false }
        );
        let mut found = paths(parse_owner_decision(&object(json!({"registrationId": "x", "extra": 1}))).unwrap_err());
        found.sort();
        assert_eq!(found, ["/approved", "/extra", "/registrationId"]);
    }

    #[test]
    fn a_note_is_optional_and_bounded() {
        assert_eq!(parse_registration(&Map::new()).unwrap(), "");
        assert_eq!(parse_registration(&object(json!({"note": " hi "}))).unwrap(), "hi");
        assert_eq!(paths(parse_registration(&object(json!({"note": "x".repeat(1001)}))).unwrap_err()), ["/note"]);
    }
}
