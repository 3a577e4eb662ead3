//! Configuration validation against each module's JSON Schema.

use serde_json::json;
use trellis_modules::ConfigError;

use crate::support::{TAGS, shared};

#[test]
fn valid_config_is_accepted() {
    let host = &shared().host;

    assert_eq!(host.validate_config(TAGS, &json!({"maxPerItem": 3, "vocabulary": ["a"]})), Ok(()));
}

#[test]
fn every_problem_is_listed_with_its_path() {
    // Arrange
    let host = &shared().host;
    let config = json!({"maxPerItem": 0, "vocabulary": ["a", 3], "normalise": {"case": "upper"}, "extra": true});

    // Act
    let Err(ConfigError::Invalid(problems)) = host.validate_config(TAGS, &config) else {
        panic!("config should be invalid")
    };

    // Assert
    let mut paths: Vec<&str> = problems.iter().map(|p| p.path.as_str()).collect();
    paths.sort_unstable();
    assert_eq!(paths, ["", "/maxPerItem", "/normalise/case", "/vocabulary/1"], "{problems:#?}");
    assert!(problems.iter().all(|p| !p.message.is_empty()));
}

#[test]
fn unknown_module_is_reported() {
    assert_eq!(shared().host.validate_config("nope", &json!({})), Err(ConfigError::UnknownModule));
}

#[test]
fn catalogue_lists_enabled_modules_with_schema_and_granted_permissions() {
    let shared = shared();

    let catalogue = shared.host.catalogue();

    let ids: Vec<&str> = catalogue.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, [TAGS, &shared.hostile_id, &shared.word_count_id]);
    let tags = serde_json::to_value(&catalogue[0]).unwrap();
    assert_eq!(tags["kind"], "space");
    assert!(tags["configSchema"].is_object(), "{tags}");
    assert!(tags["permissions"].as_array().unwrap().contains(&json!("key-value")), "{tags}");
}
