//! Resource bounds read off the server's process (issue 11): the server runs in this test binary's
//! own process, one test at a time, so the resident memory read here is the server's.

#[allow(dead_code)]
#[path = "../api/support/forms.rs"]
mod forms;

use serde_json::{Map, Value, json};
use trellis_tests::spawn_app;

use forms::{config_with, created_config, expected, field, post_form, refused};

/// Resident memory of this process, in MiB.
fn resident_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("reading /proc/self/status");
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("a VmRSS line");
    line.split_whitespace().nth(1).and_then(|kb| kb.parse::<u64>().ok()).expect("a number of KiB") / 1024
}

const FIELDS: usize = 200;
const ANSWER_CHARS: usize = 60_000;
const FIELDS_PER_REQUEST: usize = 12;

/// A configuration of 200 text fields, each validated by a distinct pattern whose lazy DFA meets a
/// new state at almost every character of a random `a`/`b` answer (the 19th character from the
/// end must be an `a`: the DFA tracks the last 19 characters).
fn pattern_heavy_config() -> Value {
    let fields = (0..FIELDS)
        .map(|i| {
            let mut text = field(&format!("f{i}"), "text");
            text["validation"] = json!(format!("[ab]*a[ab]{{18}}|z{{{}}}", i + 1));
            text
        })
        .collect();
    config_with(fields)
}

/// `{payload}` answering 12 fields from `first` on with random `a`s and `b`s that fail the pattern.
fn failing_answers(configuration_id: &Value, config: &Value, first: usize, seed: &mut u64) -> Value {
    let all = config["pages"][0]["fields"].as_array().unwrap();
    let mut fields = Map::new();
    for field in all.iter().skip(first).take(FIELDS_PER_REQUEST) {
        let mut answer: Vec<u8> = (0..ANSWER_CHARS)
            .map(|_| {
                *seed ^= *seed << 13;
                *seed ^= *seed >> 7;
                *seed ^= *seed << 17;
                if *seed & 1 == 0 { b'a' } else { b'b' }
            })
            .collect();
        answer[ANSWER_CHARS - 19] = b'b';
        fields.insert(field["id"].as_str().unwrap().to_owned(), json!(String::from_utf8(answer).unwrap()));
    }
    json!({"payload": {"configurationId": configuration_id, "fields": fields}})
}

#[tokio::test]
async fn validation_patterns_do_not_grow_memory_without_bound() {
    // Arrange: two configurations of 200 patterns, as in the issue.
    let app = spawn_app().await;
    let ann = app.sign_up("ann").await;
    let mut configs = Vec::new();
    for _ in 0..2 {
        let config = pattern_heavy_config();
        let view = created_config(&app, &ann.token, config.clone()).await;
        configs.push((view["id"].clone(), config));
    }
    let before = resident_mib();
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    // Act: every pattern of both meets a long answer that fails it (34 requests of ~0.7 MB).
    for (id, config) in &configs {
        for first in (0..FIELDS).step_by(FIELDS_PER_REQUEST) {
            let answers = failing_answers(id, config, first, &mut seed);
            let response = post_form(&app, &ann.token, &answers).await;
            // Each answer was matched against its pattern, and failed it (not refused for another reason).
            let field_ids = answers["payload"]["fields"].as_object().unwrap().keys();
            let paths: Vec<String> = field_ids.map(|id| format!("/payload/fields/{id}")).collect();
            let wanted: Vec<(&str, &str)> = paths.iter().map(|path| (path.as_str(), "PATTERN_MISMATCH")).collect();
            assert_eq!(refused(response).await, expected(&wanted), "fields {first} on");
        }
    }
    // Assert: up to 2 MiB of DFA cache per pattern grew the old server by about 0.5 to 1 GiB here.
    let grown = resident_mib().saturating_sub(before);
    eprintln!("resident memory grew by {grown} MiB");
    assert!(grown < 200, "resident memory grew by {grown} MiB");
    app.stop().await;
}
