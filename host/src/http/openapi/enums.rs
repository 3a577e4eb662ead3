//! Closed sets of words as `enum`, so generators make them types.
//!
//! Requests carry these members as text (each handler names a wrong word at its pointer with its
//! own problem) and answers build them from the domain's states, so the types' annotations state
//! the set as a pattern (`^(ACCEPT|DECLINE)$`, `^(DRAFT|SUBMITTED)$`); this pass rewrites every
//! such pattern, anywhere in the document, into the `enum` it means (or that enum or `null`, for
//! a nullable member). A query parameter that is a comma-separated list of such words (`states`, whose
//! pattern reads `DRAFT,SUBMITTED`) becomes an array of that enum, written comma-separated
//! (`style: form, explode: false`); the server reads the key repeated too, as generators send lists.

use serde_json::{Map, Value, json};

pub fn complete(document: &mut Value) {
    walk(document);
}

fn walk(value: &mut Value) {
    match value {
        Value::Object(map) => {
            list_parameter(map);
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

/// A query parameter whose pattern is a comma-separated list of words, as an array of their enum.
fn list_parameter(parameter: &mut Map<String, Value>) {
    if parameter.get("in").and_then(Value::as_str) != Some("query") {
        return;
    }
    let Some(schema) = parameter.get("schema").and_then(Value::as_object) else { return };
    let Some(words) = schema.get("pattern").and_then(Value::as_str).and_then(list_words_of) else { return };
    let values: Vec<Value> = words.into_iter().map(Value::from).collect();
    parameter.insert("schema".into(), json!({ "type": "array", "items": { "type": "string", "enum": values } }));
    parameter.insert("style".into(), json!("form"));
    parameter.insert("explode".into(), json!(false));
}

/// The words of a pattern that matches a comma-separated list of a few words (blanks and empty entries
/// allowed), `^\s*(?:(?:A|B)\s*)?(?:,\s*(?:(?:A|B)\s*)?)*$`; `None` for any other pattern.
fn list_words_of(pattern: &str) -> Option<Vec<&str>> {
    let rest = pattern.strip_prefix(r"^\s*(?:(?:")?;
    let (words, rest) = rest.split_once(r")\s*)?(?:,\s*(?:(?:")?;
    (rest == format!(r"{words})\s*)?)*$")).then_some(())?;
    alternatives(words)
}

/// The words of a pattern that matches exactly one of a few words, such as `^(YES|NO)$` or
/// `^FORM$`; `None` for any other pattern.
fn words_of(pattern: &str) -> Option<Vec<&str>> {
    let inner = pattern.strip_prefix('^')?.strip_suffix('$')?;
    let inner = inner.strip_prefix('(').and_then(|i| i.strip_suffix(')')).unwrap_or(inner);
    alternatives(inner)
}

/// `A|B|C` as its words, when each is a word.
fn alternatives(inner: &str) -> Option<Vec<&str>> {
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

    #[test]
    fn a_query_parameter_listing_words_becomes_an_array_of_their_enum_written_with_commas() {
        let pattern = "^\\s*(?:(?:DRAFT|SUBMITTED)\\s*)?(?:,\\s*(?:(?:DRAFT|SUBMITTED)\\s*)?)*$";
        let mut document = json!({
            "parameters": [
                { "in": "query", "name": "states", "schema": { "type": "string", "pattern": pattern } },
                { "in": "query", "name": "other", "schema": { "type": "string", "pattern": "^\\s*[a-z]*\\s*$" } },
            ],
            "notAParameter": { "type": "string", "pattern": pattern },
        });
        complete(&mut document);
        assert_eq!(
            document["parameters"][0],
            json!({
                "in": "query", "name": "states", "style": "form", "explode": false,
                "schema": { "type": "array", "items": { "type": "string", "enum": ["DRAFT", "SUBMITTED"] } },
            })
        );
        assert!(document["parameters"][1]["schema"]["pattern"].is_string());
        assert_eq!(document["notAParameter"]["pattern"], pattern);
    }
}
