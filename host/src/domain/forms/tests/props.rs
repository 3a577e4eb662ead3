//! Property tests: random and hostile documents and answers never panic and stay fast.

use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use uuid::Uuid;

use super::*;
use crate::domain::document::limits::{MAX_PAYLOAD_NODES, MAX_PROBLEMS, MAX_STRING_BYTES};
use crate::domain::forms::{InstanceState, limits};

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
            Just("$.pages.p1.title"),
            Just("1.0.0"),
            Just("text"),
            Just("dropdown"),
            Just("YYYY-MM-DD"),
            Just("(a+)+$")
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
                    Just("key".to_owned()),
                    Just("pages".to_owned()),
                    Just("fields".to_owned()),
                    Just("value".to_owned()),
                    ".{0,8}"
                ],
                inner,
                0..8
            )
            .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

/// Every JSON Pointer inside `value`.
fn pointers(value: &Value, base: String, out: &mut Vec<String>) {
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                pointers(item, format!("{base}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                pointers(item, format!("{base}/{}", key.replace('~', "~0").replace('/', "~1")), out);
            }
        }
        _ => {}
    }
    out.push(base);
}

fn mutate(mut document: Value, pick: prop::sample::Index, replacement: Value) -> Value {
    let mut all = Vec::new();
    pointers(&document, String::new(), &mut all);
    let pointer = pick.get(&all).clone();
    if let Some(slot) = document.pointer_mut(&pointer) {
        *slot = replacement;
    }
    document
}

fn regex_source() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("a"),
            Just("+"),
            Just("*"),
            Just("?"),
            Just("("),
            Just(")"),
            Just("|"),
            Just("{"),
            Just("}"),
            Just("{1,1000}"),
            Just("\\w"),
            Just("\\d"),
            Just("["),
            Just("]"),
            Just("."),
            Just("$"),
            Just("^"),
            Just("\\"),
            Just("(?i)"),
            Just("(?x)#"),
            Just("\\p{L}"),
            Just("-"),
            Just(","),
            Just("9"),
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn random_json_never_panics_as_a_configuration(doc in arb_json(), wrapper in prop::option::of(".{0,40}")) {
        timed(|| validate_config(wrapper.as_deref(), &doc, Uuid::new_v4()).map(|_| ()).ok());
    }

    #[test]
    fn mutated_samples_never_panic_and_list_their_problems(pick in any::<prop::sample::Index>(), replacement in arb_json()) {
        let doc = mutate(sample_config(), pick, replacement);
        let outcome = timed(|| validate_config(None, &doc, Uuid::new_v4()));
        if let Err(problems) = outcome {
            for problem in problems.into_vec() {
                prop_assert!(problem.path.is_empty() || problem.path.starts_with('/'), "{problem:?}");
                prop_assert!(!problem.code.is_empty());
            }
        }
    }

    #[test]
    fn random_patterns_compile_or_are_refused_and_match_in_linear_time(source in regex_source(), n in 0usize..60_000) {
        let mut doc = sample_config();
        doc["pages"][0]["fields"][2]["validation"] = json!(source);
        let config = timed(|| validate_config(None, &doc, Uuid::new_v4()));
        if let Ok(config) = config {
            let mut body = sample_payload();
            body["payload"]["fields"][field_id(&config, "p1_phone")] = json!("a".repeat(n) + "!");
            timed(|| check_payload(&config, &body, Mode::Create).map(|_| ()).ok());
        }
    }

    #[test]
    fn random_bodies_never_panic(body in arb_json(), state in prop::sample::select(vec![InstanceState::Draft, InstanceState::Submitted])) {
        let config = sample();
        timed(|| check_payload(&config, &body, Mode::Create).map(|_| ()).ok());
        let wrapped = json!({"payload": body});
        timed(|| check_payload(&config, &wrapped, Mode::Patch { current: state }).map(|_| ()).ok());
    }

    #[test]
    fn random_answers_never_panic(answers in prop::collection::vec((0usize..20, arb_json()), 0..20)) {
        let config = sample();
        let ids: Vec<String> = config.fields().map(|f| f.id.to_string()).collect();
        let mut body = sample_payload();
        for (index, answer) in answers {
            body["payload"]["fields"][&ids[index]] = answer;
        }
        let outcome = timed(|| check_payload(&config, &body, Mode::Create));
        if let Ok(checked) = outcome {
            prop_assert!(checked.fields.values().all(Value::is_string));
        }
    }
}

#[test]
fn deep_nesting_is_refused_quickly() {
    // Deeper than serde_json's parser allows (128), far deeper than the limits.
    let mut deep = json!("bottom");
    for _ in 0..300 {
        deep = json!({"x": [deep]});
    }
    let mut doc = sample_config();
    doc["translations"]["en"]["details"]["extra"] = deep.clone();
    let found = pairs(timed(|| validate_config(None, &doc, Uuid::new_v4())).unwrap_err());
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].1, "TOO_LARGE");

    let config = sample();
    let mut body = sample_payload();
    body["payload"]["metadata"]["location"] = deep;
    let found = pairs(timed(|| check_payload(&config, &body, Mode::Create)).unwrap_err());
    assert_eq!(found[0].1, "TOO_LARGE");
}

#[test]
fn huge_strings_and_many_keys_are_refused_quickly() {
    let config = sample();
    let body = sample_payload();
    let mut huge = body.clone();
    huge["payload"]["fields"][field_id(&config, "p1_bio")] = json!("x".repeat(MAX_STRING_BYTES + 1));
    assert_eq!(pairs(timed(|| check_payload(&config, &huge, Mode::Create)).unwrap_err())[0].1, "TOO_LARGE");

    let mut many = body;
    let fields: Map<String, Value> = (0..MAX_PAYLOAD_NODES).map(|i| (format!("k{i}"), json!(i))).collect();
    many["payload"]["fields"] = Value::Object(fields);
    assert_eq!(pairs(timed(|| check_payload(&config, &many, Mode::Create)).unwrap_err())[0].1, "TOO_LARGE");
}

#[test]
fn many_unknown_answers_are_capped_in_the_report() {
    let config = sample();
    let mut body = sample_payload();
    let fields = body["payload"]["fields"].as_object_mut().unwrap();
    for _ in 0..5_000 {
        fields.insert(Uuid::new_v4().to_string(), json!("x"));
    }
    let found = pairs(timed(|| check_payload(&config, &body, Mode::Create)).unwrap_err());
    assert_eq!(found.len(), MAX_PROBLEMS + 1);
    assert_eq!(found.last().unwrap().1, "TOO_MANY_PROBLEMS");
}

#[test]
fn evil_patterns_with_long_answers_stay_fast() {
    let config_doc = {
        let mut doc = sample_config();
        doc["pages"][0]["fields"][5]["validation"] = json!("(a+)+$");
        doc["pages"][0]["fields"][5]["maxLength"] = json!(65_536);
        doc["pages"][1]["fields"][5]["validation"] = json!(r"(\w|\s)*x(\w|\s){10}y");
        doc["pages"][1]["fields"][5]["maxLength"] = json!(65_536);
        doc
    };
    let config = valid_config(&config_doc);
    let mut body = sample_payload();
    body["payload"]["fields"][field_id(&config, "p1_bio")] = json!("a".repeat(60_000) + "!");
    body["payload"]["fields"][field_id(&config, "p2_comments")] = json!("a b ".repeat(15_000));
    let found = pairs(timed(|| check_payload(&config, &body, Mode::Create)).unwrap_err());
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found.iter().all(|(_, code)| code == "PATTERN_MISMATCH"));
}

#[test]
fn a_maximal_document_validates_within_budget() {
    // Arrange: 2,000 fields, each with its own reference and pattern.
    let mut doc = sample_config();
    let template = doc["pages"][0]["fields"][2].clone();
    let fields: Vec<Value> = (0..limits::MAX_FIELDS)
        .map(|i| {
            let mut field = template.clone();
            field["id"] = json!(Uuid::new_v4().to_string());
            field["key"] = json!(format!("f{i}"));
            field["validation"] = json!(format!("[0-9]{{{}}}", i % 50 + 1));
            field
        })
        .collect();
    doc["pages"] = json!([{"id": Uuid::new_v4().to_string(), "key": "p1", "order": 1, "fields": fields}]);

    // Act
    let config = timed(|| validate_config(None, &doc, Uuid::new_v4()));

    // Assert
    assert_eq!(config.unwrap().fields().count(), limits::MAX_FIELDS);
}
