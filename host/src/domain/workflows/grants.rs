//! A workflow's grants body `{grants: [{handle, slots: [n]}]}`: who is to hold which permission slots.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::domain::account;
use crate::domain::problems::Problems;

/// Most users one grant list may name.
pub const MAX_GRANTS: usize = 500;

/// The entries of a grants body and the slots each handle is to hold (sorted, once each), every problem
/// pushed to `problems`. `known_slots` are the slots the workflow's views use; whether the handles name
/// users is for the caller to check (the entries keep their positions for its problem paths).
pub fn read_grants<'a>(
    body: &'a Value,
    known_slots: &BTreeSet<u32>,
    problems: &mut Problems,
) -> (&'a [Value], BTreeMap<String, Vec<i64>>) {
    let entries = match body.get("grants") {
        Some(Value::Array(entries)) if entries.len() <= MAX_GRANTS => entries.as_slice(),
        Some(Value::Array(_)) => {
            problems.push("/grants", "TOO_LARGE", format!("names at most {MAX_GRANTS} users"));
            &[]
        }
        Some(_) => {
            problems.push("/grants", "INVALID_TYPE", "must be an array");
            &[]
        }
        None => {
            problems.push("/grants", "REQUIRED", "is required");
            &[]
        }
    };
    let mut wanted: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for (i, entry) in entries.iter().enumerate() {
        let handle = account::check_handle(
            problems,
            &format!("/grants/{i}/handle"),
            entry.get("handle").and_then(Value::as_str),
        );
        let slots = read_slots(entry.get("slots"), &format!("/grants/{i}/slots"), known_slots, problems);
        if let Some(handle) = handle {
            let held = wanted.entry(handle).or_default();
            held.extend(slots);
            held.sort_unstable();
            held.dedup();
        }
    }
    (entries, wanted)
}

/// One entry's `slots`: whole numbers that a view of the workflow uses.
fn read_slots(slots: Option<&Value>, path: &str, known_slots: &BTreeSet<u32>, problems: &mut Problems) -> Vec<i64> {
    let Some(Value::Array(list)) = slots else {
        problems.push(path, "REQUIRED", "must be an array of slot numbers");
        return Vec::new();
    };
    let mut found = Vec::new();
    for (j, slot) in list.iter().enumerate() {
        match slot.as_u64().and_then(|s| u32::try_from(s).ok()) {
            Some(s) if known_slots.contains(&s) => found.push(i64::from(s)),
            Some(_) => problems.push(format!("{path}/{j}"), "UNKNOWN_SLOT", "no view of this workflow uses this slot"),
            None => problems.push(format!("{path}/{j}"), "INVALID_TYPE", "must be a whole number"),
        }
    }
    found
}
