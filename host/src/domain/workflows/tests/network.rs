//! Network rules: entry, targets, terminals and reachability.

use serde_json::{Value, json};
use uuid::Uuid;

use super::*;

/// A document of workbaskets `(terminal, targets by index)`, entering at `entry`.
fn network(workbaskets: &[(bool, &[usize])], entry: usize) -> (Value, Vec<String>) {
    let ids: Vec<String> = workbaskets.iter().map(|_| Uuid::new_v4().to_string()).collect();
    let list: Vec<Value> = workbaskets
        .iter()
        .enumerate()
        .map(|(i, (terminal, targets))| {
            let transitions: Vec<Value> = targets
                .iter()
                .map(|&t| json!({"id": Uuid::new_v4().to_string(), "targetWorkbasketId": ids[t], "label": "$.transitions.go.label"}))
                .collect();
            json!({"id": ids[i], "label": "$.workbaskets.w.label", "order": i, "terminal": terminal, "transitions": transitions})
        })
        .collect();
    let doc = json!({
        "version": "1.0.0",
        "translations": {"defaultLanguage": "en",
                         "en": {"workbaskets": {"w": {"label": "W"}}, "transitions": {"go": {"label": "Go"}}}},
        "network": {"entryWorkbasketId": ids[entry], "workbaskets": list}
    });
    (doc, ids)
}

fn at(index: usize) -> String {
    format!("{WB}/{index}")
}

#[test]
fn a_minimal_network_is_valid() {
    let (doc, ids) = network(&[(false, &[1]), (true, &[])], 0);
    let config = valid(&doc);
    assert_eq!(config.entry_workbasket_id(), uuid(&ids[0]));
    assert!(config.views().is_empty() && config.slots().is_empty());
    // A lone terminal entry is a finished process, and valid.
    valid(&network(&[(true, &[])], 0).0);
}

#[test]
fn the_entry_and_targets_must_name_workbaskets() {
    let (mut doc, _) = network(&[(false, &[1]), (true, &[])], 0);
    doc["network"]["entryWorkbasketId"] = json!(Uuid::new_v4().to_string());
    doc["network"]["workbaskets"][0]["transitions"][0]["targetWorkbasketId"] = json!(Uuid::new_v4().to_string());
    let found = problems(&doc);
    assert_has(&found, "/config/network/entryWorkbasketId", "UNKNOWN_WORKBASKET");
    assert_has(&found, &format!("{}/transitions/0/targetWorkbasketId", at(0)), "UNKNOWN_WORKBASKET");
    // The entry being unknown, reachability from it is not judged.
    assert!(!found.iter().any(|(_, code)| code == "UNREACHABLE"), "{found:#?}");

    doc["network"]["entryWorkbasketId"] = json!("nope");
    assert_has(&problems(&doc), "/config/network/entryWorkbasketId", "INVALID_UUID");
}

#[test]
fn a_terminal_workbasket_has_no_transitions() {
    let (doc, _) = network(&[(false, &[1]), (true, &[0])], 0);
    assert_only(&problems(&doc), &[(&format!("{}/transitions", at(1)), "TERMINAL_HAS_TRANSITIONS")]);
}

#[test]
fn a_network_needs_a_terminal_workbasket() {
    let (doc, _) = network(&[(false, &[1]), (false, &[0])], 0);
    assert_only(&problems(&doc), &[(WB, "NO_TERMINAL")]);
}

#[test]
fn a_cycle_without_a_way_out_is_reported_at_each_of_its_workbaskets() {
    // 0 -> 1 -> 2 -> 1 (cycle), 0 -> 3 (terminal); 1 and 2 never finish.
    let (doc, _) = network(&[(false, &[1, 3]), (false, &[2]), (false, &[1]), (true, &[])], 0);
    assert_only(&problems(&doc), &[(&at(1), "NO_TERMINAL_REACHABLE"), (&at(2), "NO_TERMINAL_REACHABLE")]);
}

#[test]
fn an_unreachable_island_is_reported_at_each_of_its_workbaskets() {
    // 0 -> 1 (terminal); island 2 <-> 3 -> 4 (terminal).
    let (doc, _) = network(&[(false, &[1]), (true, &[]), (false, &[3]), (false, &[2, 4]), (true, &[])], 0);
    assert_only(&problems(&doc), &[(&at(2), "UNREACHABLE"), (&at(3), "UNREACHABLE"), (&at(4), "UNREACHABLE")]);
}

#[test]
fn an_unreachable_cycle_without_terminal_gets_both_problems() {
    let (doc, _) = network(&[(false, &[1]), (true, &[]), (false, &[2])], 0);
    assert_only(&problems(&doc), &[(&at(2), "UNREACHABLE"), (&at(2), "NO_TERMINAL_REACHABLE")]);
}

#[test]
fn back_transitions_are_fine_when_a_terminal_stays_reachable() {
    let (doc, _) = network(&[(false, &[1]), (false, &[0, 2]), (true, &[])], 0);
    valid(&doc);
}

#[test]
fn a_long_chain_of_the_largest_size_is_checked() {
    let max = crate::domain::workflows::limits::MAX_WORKBASKETS;
    let targets: Vec<[usize; 1]> = (0..max).map(|i| [i + 1]).collect();
    let shape: Vec<(bool, &[usize])> =
        (0..max).map(|i| if i + 1 == max { (true, &[][..]) } else { (false, &targets[i][..]) }).collect();
    valid(&network(&shape, 0).0);
}

#[test]
fn the_sample_back_transition_to_intake_is_kept() {
    let config = sample();
    assert!(config.transitions_from(&uuid(REVIEW)).iter().any(|t| t.target_workbasket_id == uuid(INTAKE)));
    // Without the way forward from review, intake and review cannot finish.
    let found = problems(&edited(&[
        ("/network/workbaskets/1/transitions/1", Value::Null),
        ("/network/workbaskets/1/transitions/0", Value::Null),
    ]));
    assert_only(
        &found,
        &[
            (&at(0), "NO_TERMINAL_REACHABLE"),
            (&at(1), "NO_TERMINAL_REACHABLE"),
            (&at(2), "UNREACHABLE"),
            (&at(3), "UNREACHABLE"),
        ],
    );
}
