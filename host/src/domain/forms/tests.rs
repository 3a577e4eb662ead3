//! Tests of the form rules, over the sample configuration and payload in `testdata/`, which the
//! HTTP tests and the benchmark reuse.

mod config;
mod payload;
mod props;

use serde_json::Value;
use uuid::Uuid;

use super::{CheckedPayload, FormConfig, Mode, check_payload, validate_config};
use crate::domain::problems::Problems;

pub(super) const SAMPLE_CONFIG: &str = include_str!("testdata/sample_config.json");
pub(super) const SAMPLE_PAYLOAD: &str = include_str!("testdata/sample_payload.json");

pub(super) fn sample_config() -> Value {
    serde_json::from_str(SAMPLE_CONFIG).expect("the sample configuration is JSON")
}

pub(super) fn sample_payload() -> Value {
    serde_json::from_str(SAMPLE_PAYLOAD).expect("the sample payload is JSON")
}

pub(super) fn valid_config(config: &Value) -> FormConfig {
    validate_config(None, config, Uuid::new_v4()).unwrap_or_else(|problems| panic!("{:#?}", problems.into_vec()))
}

pub(super) fn sample() -> FormConfig {
    valid_config(&sample_config())
}

/// (path, code) of each problem.
pub(super) fn pairs(problems: Problems) -> Vec<(String, String)> {
    problems.into_vec().into_iter().map(|p| (p.path, p.code)).collect()
}

pub(super) fn config_problems(config: &Value) -> Vec<(String, String)> {
    match validate_config(None, config, Uuid::new_v4()) {
        Ok(_) => Vec::new(),
        Err(problems) => pairs(problems),
    }
}

pub(super) fn payload_problems(config: &FormConfig, body: &Value, mode: Mode) -> Vec<(String, String)> {
    match check_payload(config, body, mode) {
        Ok(_) => Vec::new(),
        Err(problems) => pairs(problems),
    }
}

pub(super) fn checked(config: &FormConfig, body: &Value, mode: Mode) -> CheckedPayload {
    check_payload(config, body, mode).unwrap_or_else(|problems| panic!("{:#?}", problems.into_vec()))
}

#[track_caller]
pub(super) fn assert_has(found: &[(String, String)], path: &str, code: &str) {
    assert!(found.iter().any(|(p, c)| p == path && c == code), "expected {code} at {path} in {found:#?}");
}

/// The pointer of field `f` of page `p` inside the wrapper.
pub(super) fn field_path(p: usize, f: usize) -> String {
    format!("/config/pages/{p}/fields/{f}")
}

/// The id of the sample field with this key.
pub(super) fn field_id(config: &FormConfig, key: &str) -> String {
    config.field_by_key(key).unwrap_or_else(|| panic!("no field {key}")).id.to_string()
}
