//! Closed sets of words as `enum`, so generators make them types.
//!
//! Requests carry these members as text (each handler names a wrong word at its pointer with its
//! own problem) and answers build them from the domain's states, so the types' annotations state
//! the set as a pattern (`^(ACCEPT|DECLINE)$`, `^(DRAFT|SUBMITTED)$`); this pass rewrites every
//! such pattern, anywhere in the document, into the `enum` it means (or that enum or `null`, for
//! a nullable member).

use serde_json::{Map, Value, json};

pub fn complete(document: &mut Value) {
    walk(document);
}

fn walk(value: &mut Value) {
    match value {
        Value::Object(map) => {
            enumerate(map);
            map.values_mut().for_each(walk);
        }
        Value::Array(items) => items.iter_mut().for_each(walk),
        _ => {}
    }
}

fn enumerate(schema: &mut Map<String, Value>) {
    let Some(words) = schema.get("pattern").and_then(Value::as_str).and_then(words_of) else { return };
    let values: Vec<Value> = words.into_iter().map(Value::from).collect();
    let nullable = matches!(schema.get("type"), Some(Value::Array(types)) if types.iter().any(|t| t == "null"));
    schema.remove("pattern");
    if nullable {
        // The words or null, as OpenAPI 3.1 says it: generators make an optional enum type of
        // this, where `type: [string, null]` with `null` among the values gives them a union of
        // look-alike types.
        schema.remove("type");
        schema.insert("anyOf".into(), json!([{ "type": "string", "enum": values }, { "type": "null" }]));
    } else {
        schema.insert("enum".into(), Value::Array(values));
    }
}

/// The words of a pattern that matches exactly one of a few words, such as `^(YES|NO)$` or
/// `^FORM$`; `None` for any other pattern.
fn words_of(pattern: &str) -> Option<Vec<&str>> {
    let inner = pattern.strip_prefix('^')?.strip_suffix('$')?;
    let inner = inner.strip_prefix('(').and_then(|i| i.strip_suffix(')')).unwrap_or(inner);
    let words: Vec<&str> = inner.split('|').collect();
    let is_word = |w: &&str| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    words.iter().all(is_word).then_some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_that_name_a_few_words_become_enums_and_others_stay() {
        let mut document = json!({
            "a": { "type": "string", "pattern": "^(ACCEPT|DECLINE)$" },
            "b": { "type": ["string", "null"], "pattern": "^(OPEN|CLOSED)$" },
            "c": [{ "in": "query", "schema": { "type": "string", "pattern": "^FORM$" } }],
            "d": { "type": "string", "pattern": "^[A-Za-z0-9_-]+$" },
            "e": { "type": "string", "pattern": "^\\s*(?:(?:DRAFT|SUBMITTED)\\s*)?$" },
        });
        complete(&mut document);
        assert_eq!(document["a"], json!({ "type": "string", "enum": ["ACCEPT", "DECLINE"] }));
        assert_eq!(
            document["b"],
            json!({ "anyOf": [{ "type": "string", "enum": ["OPEN", "CLOSED"] }, { "type": "null" }] })
        );
        assert_eq!(document["c"][0]["schema"]["enum"], json!(["FORM"]));
        assert!(document["d"]["pattern"].is_string());
        assert!(document["e"]["pattern"].is_string());
    }
}
