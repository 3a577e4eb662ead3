//! Tests of the workflow rules, over the sample workflow in `testdata/`, which uses the sample
//! form configuration of the forms module.

mod config;
mod items;
mod network;
mod props;

use std::sync::LazyLock;

use serde_json::Value;
use uuid::Uuid;

use super::{WorkflowConfig, validate_workflow};
use crate::domain::forms::{FormConfig, validate_config};
use crate::domain::problems::Problems;

pub(super) const SAMPLE_WORKFLOW: &str = include_str!("testdata/sample_workflow.json");
const SAMPLE_FORM: &str = include_str!("../forms/testdata/sample_config.json");
pub(super) const FORM_ID: &str = "6513270e-269e-4d37-b2a7-4de452e6b438";

pub(super) const INTAKE: &str = "4aa0eaf1-addd-4814-bf5d-7699b21c01d6";
pub(super) const REVIEW: &str = "2d388329-b6d3-4a6c-9f1d-7c9f39e205af";
pub(super) const APPROVED: &str = "6d953184-60f9-4aac-aebb-7b2563bcded8";
pub(super) const REJECTED: &str = "3a8065e4-ddf5-410a-92b6-2e08508e0b53";
pub(super) const RETURN: &str = "bd91282a-4572-4282-9ba2-b5488668d44f";
pub(super) const INTAKE_VIEW: &str = "4583574e-26f7-4c86-a00f-eadb37762e42";
pub(super) const REVIEW_VIEW: &str = "21d5b55a-e96b-4331-9a46-404f2cb3b8b9";

static FORM: LazyLock<FormConfig> = LazyLock::new(|| {
    let config = serde_json::from_str(SAMPLE_FORM).expect("the sample form is JSON");
    validate_config(None, &config, Uuid::new_v4()).expect("the sample form is valid")
});

pub(super) fn uuid(text: &str) -> Uuid {
    Uuid::parse_str(text).expect("a UUID")
}

pub(super) fn sample_form() -> FormConfig {
    FORM.clone()
}

/// The sample form with `edit` applied to its document.
pub(super) fn form_with(edit: impl FnOnce(&mut Value)) -> FormConfig {
    let mut config = FORM.document().clone();
    edit(&mut config);
    validate_config(None, &config, Uuid::new_v4()).expect("the edited form is valid")
}

pub(super) fn sample_doc() -> Value {
    serde_json::from_str(SAMPLE_WORKFLOW).expect("the sample workflow is JSON")
}

/// The sample with the value at each pointer replaced (`Value::Null` removes it).
pub(super) fn edited(edits: &[(&str, Value)]) -> Value {
    let mut doc = sample_doc();
    for (pointer, value) in edits {
        if value.is_null() {
            let (parent, name) = pointer.rsplit_once('/').expect("a pointer");
            match doc.pointer_mut(parent).expect("the parent exists") {
                Value::Object(map) => {
                    map.remove(name);
                }
                Value::Array(items) => {
                    items.remove(name.parse::<usize>().expect("an index"));
                }
                _ => panic!("{parent} holds no children"),
            }
        } else {
            *doc.pointer_mut(pointer).unwrap_or_else(|| panic!("no {pointer}")) = value.clone();
        }
    }
    doc
}

/// The sample form for its own id, nothing for any other.
pub(super) fn known_forms(id: Uuid) -> Option<FormConfig> {
    (id == FORM.id()).then(sample_form)
}

pub(super) fn pairs(problems: Problems) -> Vec<(String, String)> {
    problems.into_vec().into_iter().map(|p| (p.path, p.code)).collect()
}

pub(super) fn problems_with(doc: &Value, forms: &dyn Fn(Uuid) -> Option<FormConfig>) -> Vec<(String, String)> {
    match validate_workflow(None, doc, Uuid::new_v4(), forms) {
        Ok(_) => Vec::new(),
        Err(problems) => pairs(problems),
    }
}

pub(super) fn problems(doc: &Value) -> Vec<(String, String)> {
    problems_with(doc, &known_forms)
}

pub(super) fn valid(doc: &Value) -> WorkflowConfig {
    validate_workflow(None, doc, Uuid::new_v4(), &known_forms)
        .unwrap_or_else(|problems| panic!("{:#?}", problems.into_vec()))
}

pub(super) fn sample() -> WorkflowConfig {
    valid(&sample_doc())
}

#[track_caller]
pub(super) fn assert_has(found: &[(String, String)], path: &str, code: &str) {
    assert!(found.iter().any(|(p, c)| p == path && c == code), "expected {code} at {path} in {found:#?}");
}

#[track_caller]
pub(super) fn assert_only(found: &[(String, String)], expected: &[(&str, &str)]) {
    for (path, code) in expected {
        assert_has(found, path, code);
    }
    assert_eq!(found.len(), expected.len(), "unexpected extra problems in {found:#?}");
}

pub(super) const WB: &str = "/config/network/workbaskets";
