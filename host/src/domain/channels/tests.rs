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

fn owned(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(p, c)| ((*p).to_owned(), (*c).to_owned())).collect()
}

#[test]
fn a_new_channel_needs_a_name_and_may_have_a_description() {
    let new = parse_new(&map(json!({"name": " Garden talk ", "description": null}))).unwrap();
    assert_eq!(new, NewChannel { name: "Garden talk".into(), description: String::new() });
    let new = parse_new(&map(json!({"name": "x".repeat(100), "description": "line\nline"}))).unwrap();
    assert_eq!(new.description, "line\nline");
    assert_eq!(paths(parse_new(&map(json!({}))).unwrap_err()), owned(&[("/name", "REQUIRED")]));
}

#[test]
fn every_broken_rule_of_a_new_channel_is_listed() {
    let body = json!({"name": "a\u{7}b", "description": "x".repeat(1001), "role": "owner", "colour": 1});
    assert_eq!(
        paths(parse_new(&map(body)).unwrap_err()),
        owned(&[
            ("/colour", "UNKNOWN_FIELD"),
            ("/description", "TOO_LONG"),
            ("/name", "INVALID_CHARACTERS"),
            ("/role", "READ_ONLY"),
        ])
    );
    let body = json!({"name": "  ", "description": 3});
    assert_eq!(
        paths(parse_new(&map(body)).unwrap_err()),
        owned(&[("/description", "INVALID_TYPE"), ("/name", "REQUIRED")])
    );
    assert_eq!(paths(parse_new(&map(json!({"name": "x".repeat(101)}))).unwrap_err()), owned(&[("/name", "TOO_LONG")]));
}

fn space_ids(body: Value) -> Result<Vec<SpaceEntry>, Problems> {
    let mut problems = Problems::new();
    let entries = parse_space_ids(&map(body), &mut problems);
    problems.finish(entries)
}

fn handles(body: Value) -> Result<Vec<(usize, String)>, Problems> {
    let mut problems = Problems::new();
    let handles = parse_invite_handles(&map(body), &mut problems);
    problems.finish(handles)
}

#[test]
fn space_ids_are_at_most_a_hundred_without_repeats() {
    let id = "6F1C6A3E-2B7D-4C1E-9F0A-3D2B1C4E5F60";
    let entries = space_ids(json!({"spaceIds": [id, "nope"]})).unwrap();
    assert_eq!(entries[0].space_id.as_deref(), Some("6f1c6a3e-2b7d-4c1e-9f0a-3d2b1c4e5f60"));
    assert_eq!(entries[1], SpaceEntry { index: 1, space_id: None });
    assert!(space_ids(json!({"spaceIds": []})).unwrap().is_empty());
    let twice = json!({"spaceIds": [id, id.to_lowercase(), 7], "x": 1});
    assert_eq!(
        paths(space_ids(twice).unwrap_err()),
        owned(&[("/spaceIds/1", "DUPLICATE_SPACE"), ("/spaceIds/2", "INVALID_TYPE"), ("/x", "UNKNOWN_FIELD")])
    );
    let many: Vec<String> = (0..101).map(|_| uuid::Uuid::new_v4().to_string()).collect();
    assert_eq!(paths(space_ids(json!({"spaceIds": many})).unwrap_err()), owned(&[("/spaceIds", "TOO_MANY")]));
    assert_eq!(paths(space_ids(json!({})).unwrap_err()), owned(&[("/spaceIds", "REQUIRED")]));
}

#[test]
fn invites_name_one_to_fifty_distinct_handles() {
    assert_eq!(handles(json!({"users": ["bob", "cat"]})).unwrap(), [(0, "bob".into()), (1, "cat".into())]);
    assert_eq!(
        paths(handles(json!({"users": ["bob", "bob", "No", 4]})).unwrap_err()),
        owned(&[("/users/1", "DUPLICATE_USER"), ("/users/2", "INVALID_HANDLE"), ("/users/3", "INVALID_TYPE")])
    );
    assert_eq!(paths(handles(json!({"users": []})).unwrap_err()), owned(&[("/users", "REQUIRED")]));
    let many: Vec<String> = (0..51).map(|i| format!("user_{i}")).collect();
    assert_eq!(paths(handles(json!({"users": many})).unwrap_err()), owned(&[("/users", "TOO_MANY")]));
    let fifty: Vec<String> = (0..50).map(|i| format!("user_{i}")).collect();
    assert_eq!(handles(json!({"users": fifty})).unwrap().len(), 50);
}

#[test]
fn a_response_names_an_invite_and_accept_or_decline() {
    let id = uuid::Uuid::new_v4().to_string();
    let (invite, response) = parse_response(&map(json!({"inviteId": id, "response": "DECLINE"}))).unwrap();
    assert_eq!((invite.as_deref(), response), (Some(id.as_str()), Response::Decline));
    let (invite, _) = parse_response(&map(json!({"inviteId": "x", "response": "ACCEPT"}))).unwrap();
    assert_eq!(invite, None);
    assert_eq!(
        paths(parse_response(&map(json!({"response": "accept", "extra": true}))).unwrap_err()),
        owned(&[("/extra", "UNKNOWN_FIELD"), ("/inviteId", "REQUIRED"), ("/response", "INVALID_VALUE")])
    );
}

#[test]
fn a_role_change_gives_or_takes_the_inviter_role_only() {
    assert_eq!(parse_role_change(&map(json!({"role": "inviter"}))).unwrap(), Role::Inviter);
    assert_eq!(parse_role_change(&map(json!({"role": "member"}))).unwrap(), Role::Member);
    assert_eq!(
        paths(parse_role_change(&map(json!({"role": "owner"}))).unwrap_err()),
        owned(&[("/role", "INVALID_VALUE")])
    );
    assert_eq!(paths(parse_role_change(&map(json!({}))).unwrap_err()), owned(&[("/role", "REQUIRED")]));
}

#[test]
fn ids_are_hyphenated_uuids_in_lower_case() {
    assert_eq!(
        canonical_id("6F1C6A3E-2B7D-4C1E-9F0A-3D2B1C4E5F60").as_deref(),
        Some("6f1c6a3e-2b7d-4c1e-9f0a-3d2b1c4e5f60")
    );
    for bad in ["invites", "6f1c6a3e2b7d4c1e9f0a3d2b1c4e5f60", "", "{6f1c6a3e-2b7d-4c1e-9f0a-3d2b1c4e5f60}"] {
        assert_eq!(canonical_id(bad), None, "{bad}");
    }
}
