//! Message rules (conventions 7): what `POST /v0/messages` may carry, and the `system` sender of
//! the platform's notices.
//!
//! Parsing checks what the body alone can tell; whether the recipient exists, or the sender takes
//! part in the thread, the use case finds out and adds to the same list of problems, so a client
//! sees every problem at once.

use serde_json::{Map, Value};

use super::account;
use super::problems::{Problems, member_pointer};
use super::text::{Blank, Rule};

/// The handle the platform's notices come from. No account has it (sign-up refuses it).
pub const SYSTEM_HANDLE: &str = "system";
/// How the `system` sender is shown.
pub const SYSTEM_DISPLAY_NAME: &str = "Trellis";
/// Longest accepted subject, in characters.
pub const MAX_SUBJECT_CHARS: usize = 200;
/// Longest accepted body, in characters.
pub const MAX_BODY_CHARS: usize = 10_000;
/// A subject: one line, not blank.
pub const SUBJECT: Rule = Rule::line(MAX_SUBJECT_CHARS, Blank::Refused);
/// A body: a block, not blank.
pub const BODY: Rule = Rule::block(MAX_BODY_CHARS, Blank::Refused);

/// A message as its sender asked for it, each part `None` where it was left out or broke a rule
/// (the problems say which).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Draft {
    /// The recipient's handle, checked for shape only.
    pub to: Option<String>,
    pub subject: Option<String>,
    pub body: Option<String>,
    /// The thread a reply goes to: `Some(None)` when the id is no UUID, so it names no thread.
    pub thread_id: Option<Option<String>>,
}

/// Reads `{to, subject, body, threadId?}` of `sender_handle`, adding every problem the body alone
/// shows. A reply (with `threadId`) may leave out `to` and `subject`: the thread's other participant
/// and the thread's subject. `null` counts as left out for `to` and `threadId`.
pub fn parse_new(request: &Map<String, Value>, sender_handle: &str, problems: &mut Problems) -> Draft {
    let mut draft = Draft::default();
    for (key, value) in request {
        let path = member_pointer(key);
        match key.as_str() {
            "to" if value.is_null() => {}
            "to" => {
                let handle = problems.string(&path, value).and_then(|to| check_recipient(problems, &path, to));
                draft.to = handle.filter(|handle| {
                    let own = handle == sender_handle;
                    if own {
                        problems.push(&path, "OWN_HANDLE", "must name someone else: nobody messages themselves");
                    }
                    !own
                });
            }
            "subject" => {
                draft.subject =
                    problems.string(&path, value).and_then(|subject| check_subject(problems, &path, subject))
            }
            "body" => draft.body = problems.string(&path, value).and_then(|body| check_body(problems, &path, body)),
            "threadId" if value.is_null() => {}
            "threadId" => {
                draft.thread_id =
                    problems.string(&path, value).map(|id| uuid::Uuid::try_parse(id).ok().map(|id| id.to_string()))
            }
            "messageId" | "from" | "createdAt" | "readAt" => problems.push(path, "READ_ONLY", "cannot be set"),
            _ => problems.push(path, "UNKNOWN_FIELD", "is not a property of a message"),
        }
    }
    let reply = request.get("threadId").is_some_and(|id| !id.is_null());
    if !reply && request.get("to").is_none_or(Value::is_null) {
        problems.push("/to", "REQUIRED", "is required for a new thread");
    }
    if !reply && !request.contains_key("subject") {
        problems.push("/subject", "REQUIRED", "is required for a new thread");
    }
    if !request.contains_key("body") {
        problems.push("/body", "REQUIRED", "is required");
    }
    draft
}

/// Checks a notice's subject and body as a sender's are checked (problems at `/subject` and
/// `/body`); answers them trimmed.
pub fn parse_notice(subject: &str, body: &str) -> Result<(String, String), Problems> {
    let mut problems = Problems::new();
    let subject = check_subject(&mut problems, "/subject", subject);
    let body = check_body(&mut problems, "/body", body);
    match (subject, body) {
        (Some(subject), Some(body)) if problems.is_empty() => Ok((subject, body)),
        _ => Err(problems),
    }
}

/// A handle as account rules have it, and not the `system` handle, which takes no messages.
fn check_recipient(problems: &mut Problems, path: &str, to: &str) -> Option<String> {
    if to.trim() == SYSTEM_HANDLE {
        problems.push(path, "RESERVED_HANDLE", "is the platform's own handle, which takes no messages");
        return None;
    }
    account::check_handle(problems, path, Some(to.trim()))
}

fn check_subject(problems: &mut Problems, path: &str, subject: &str) -> Option<String> {
    SUBJECT.check(problems, path, subject)
}

fn check_body(problems: &mut Problems, path: &str, body: &str) -> Option<String> {
    BODY.check(problems, path, body)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn parsed(value: Value) -> (Draft, Vec<(String, String)>) {
        let mut problems = Problems::new();
        let draft = parse_new(value.as_object().unwrap(), "ann", &mut problems);
        let mut found: Vec<_> = problems.into_vec().into_iter().map(|p| (p.path, p.code)).collect();
        found.sort();
        (draft, found)
    }

    fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
        expected.iter().map(|(path, code)| ((*path).to_owned(), (*code).to_owned())).collect()
    }

    #[test]
    fn a_new_thread_is_its_trimmed_parts() {
        let (draft, problems) = parsed(json!({"to": " bob ", "subject": " Hi ", "body": " Hello\nthere\t "}));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            draft,
            Draft {
                to: Some("bob".into()),
                subject: Some("Hi".into()),
                body: Some("Hello\nthere".into()),
                thread_id: None
            }
        );
        let longest = json!({"to": "bob", "subject": "é".repeat(200), "body": "é".repeat(10_000)});
        assert!(parsed(longest).1.is_empty());
    }

    #[test]
    fn a_reply_may_leave_out_the_recipient_and_the_subject() {
        let id = uuid::Uuid::new_v4().to_string();
        let (draft, problems) = parsed(json!({"threadId": id, "body": "Sure", "to": null}));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(draft.thread_id, Some(Some(id)));
        assert_eq!((draft.to, draft.subject), (None, None));
        let (draft, problems) = parsed(json!({"threadId": "not-a-uuid", "body": "Sure"}));
        assert!(problems.is_empty());
        assert_eq!(draft.thread_id, Some(None), "an id that is no UUID names no thread");
    }

    #[test]
    fn every_broken_rule_is_listed() {
        assert_eq!(parsed(json!({})).1, pairs(&[("/body", "REQUIRED"), ("/subject", "REQUIRED"), ("/to", "REQUIRED")]));
        assert_eq!(
            parsed(json!({"to": "@bob", "subject": " ", "body": "x".repeat(10_001), "from": "me", "cc": "x"})).1,
            pairs(&[
                ("/body", "TOO_LONG"),
                ("/cc", "UNKNOWN_FIELD"),
                ("/from", "READ_ONLY"),
                ("/subject", "BLANK"),
                ("/to", "INVALID_HANDLE"),
            ])
        );
        assert_eq!(
            parsed(json!({"to": "ann", "subject": "a\nb", "body": "ding\u{7}", "threadId": 7})).1,
            pairs(&[
                ("/body", "INVALID_CHARACTERS"),
                ("/subject", "INVALID_CHARACTERS"),
                ("/threadId", "INVALID_TYPE"),
                ("/to", "OWN_HANDLE"),
            ])
        );
        assert_eq!(
            parsed(json!({"to": "system", "subject": "x".repeat(201), "body": ""})).1,
            pairs(&[("/body", "BLANK"), ("/subject", "TOO_LONG"), ("/to", "RESERVED_HANDLE")])
        );
    }

    #[test]
    fn notices_follow_the_same_rules() {
        assert_eq!(
            parse_notice(" Approved ", "Your listing\nis live. ").unwrap(),
            ("Approved".into(), "Your listing\nis live.".into())
        );
        let problems = parse_notice("", &"x".repeat(10_001)).unwrap_err().into_vec();
        let codes: Vec<_> = problems.iter().map(|p| (p.path.as_str(), p.code.as_str())).collect();
        assert_eq!(codes, [("/subject", "BLANK"), ("/body", "TOO_LONG")]);
    }
}
