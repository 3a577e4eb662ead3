//! Property tests: random and hostile documents and patches never panic and stay fast.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::{Value, json};
use uuid::Uuid;

use super::*;
use crate::domain::forms::InstanceState;
use crate::domain::workflows::check_item_patch;

/// Bounded work takes milliseconds; what the bounds guard against (a pattern that backtracks, a
/// walk without a size limit) takes far longer. Three seconds holds on a loaded 2-core machine
/// running a debug build beside other tests.
const BUDGET: Duration = Duration::from_secs(3);

#[track_caller]
fn timed<T>(run: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let out = run();
    let spent = started.elapsed();
    assert!(spent < BUDGET, "took {spent:?}");
    out
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_filter("finite", |n| n.is_finite()).prop_map(|n| json!(n)),
        ".{0,24}".prop_map(Value::String),
        prop_oneof![
            Just(INTAKE),
            Just(REVIEW),
            Just(APPROVED),
            Just(FORM_ID),
            Just("$.workbaskets.intake.label"),
            Just("1.0.0"),
            Just("p1_full_name"),
        ]
        .prop_map(|s| json!(s)),
        (0usize..5_000).prop_map(|n| json!("a".repeat(n))),
    ];
    leaf.prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("id".to_owned()),
                    Just("label".to_owned()),
                    Just("transitions".to_owned()),
                    Just("terminal".to_owned()),
                    Just("workbasketIds".to_owned()),
                    Just("overrides".to_owned()),
                    Just(FORM_ID.to_owned()),
                    ".{0,8}"
                ],
                inner,
                0..8
            )
            .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// Every JSON Pointer into `value`.
fn pointers(value: &Value, base: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                let path = format!("{base}/{}", key.replace('~', "~0").replace('/', "~1"));
                out.push(path.clone());
                pointers(item, path, out);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let path = format!("{base}/{index}");
                out.push(path.clone());
                pointers(item, path, out);
            }
        }
        _ => {}
    }
}

fn validate(doc: &Value) -> Result<crate::domain::workflows::WorkflowConfig, crate::domain::problems::Problems> {
    timed(|| validate_workflow(None, doc, Uuid::new_v4(), &known_forms))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_documents_never_panic(doc in arb_json()) {
        let _ = validate(&doc);
        let _ = validate(&json!({"version": "1.0.0", "translations": {"defaultLanguage": "en", "en": {}}, "network": doc}));
    }

    #[test]
    fn mutated_samples_never_panic_and_problems_have_paths(
        edits in prop::collection::vec((any::<prop::sample::Index>(), arb_json()), 1..4)
    ) {
        let mut doc = sample_doc();
        for (index, value) in edits {
            let mut all = Vec::new();
            pointers(&doc, String::new(), &mut all);
            let pointer = index.get(&all).clone();
            if let Some(slot) = doc.pointer_mut(&pointer) {
                *slot = value;
            }
        }
        if let Err(problems) = validate(&doc) {
            let problems = problems.into_vec();
            prop_assert!(!problems.is_empty());
            for problem in problems {
                prop_assert!(problem.path.is_empty() || problem.path.starts_with('/'), "{problem:?}");
            }
        }
    }

    #[test]
    fn random_item_patches_never_panic(fields in arb_json(), metadata in arb_json(), submitted in any::<bool>()) {
        let config = sample();
        let form = sample_form();
        let state = if submitted { InstanceState::Submitted } else { InstanceState::Draft };
        for view in config.views() {
            let body = json!({"payload": {"fields": fields.clone(), "metadata": metadata.clone()}});
            let _ = timed(|| check_item_patch(view, &form, &body, state));
            let _ = timed(|| check_item_patch(view, &form, &fields, state));
        }
    }
}

#[test]
fn a_dense_network_of_the_largest_size_stays_fast() {
    use crate::domain::workflows::limits::{MAX_TRANSITIONS, MAX_WORKBASKETS};
    let ids: Vec<String> = (0..MAX_WORKBASKETS).map(|_| Uuid::new_v4().to_string()).collect();
    let per = MAX_TRANSITIONS / MAX_WORKBASKETS;
    let workbaskets: Vec<Value> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let transitions: Vec<Value> = (1..=per)
                .map(|k| {
                    json!({"id": Uuid::new_v4().to_string(), "targetWorkbasketId": ids[(i + k * 7) % ids.len()],
                                "label": "$.transitions.go.label"})
                })
                .collect();
            json!({"id": id, "label": "$.workbaskets.w.label", "order": i, "transitions": transitions})
        })
        .collect();
    let doc = json!({
        "version": "1.0.0",
        "translations": {"defaultLanguage": "en", "en": {"workbaskets": {"w": {"label": "W"}}, "transitions": {"go": {"label": "Go"}}}},
        "network": {"entryWorkbasketId": ids[0], "workbaskets": workbaskets}
    });
    // No terminal at all: one problem, found quickly.
    let found = pairs(validate(&doc).unwrap_err());
    assert_only(&found, &[(WB, "NO_TERMINAL")]);
}

#[test]
fn hostile_views_stay_fast() {
    use crate::domain::workflows::limits::{MAX_FORMS_PER_VIEW, MAX_VIEWS};
    let forms: serde_json::Map<String, Value> =
        (0..MAX_FORMS_PER_VIEW).map(|_| (Uuid::new_v4().to_string(), json!({"listFields": vec!["nope"; 5]}))).collect();
    let views: Vec<Value> = (0..MAX_VIEWS)
        .map(|_| {
            json!({"id": Uuid::new_v4().to_string(), "label": "$.views.intake.label", "workbasketIds": [INTAKE],
                        "permissionSlot": 1, "forms": forms.clone()})
        })
        .collect();
    let mut doc = sample_doc();
    doc["views"] = Value::Array(views);
    let found = validate(&doc).unwrap_err().into_vec();
    assert_eq!(found.last().map(|p| p.code.as_str()), Some("TOO_MANY_PROBLEMS"));
}
