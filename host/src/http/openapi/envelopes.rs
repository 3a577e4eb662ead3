//! A list envelope refers to its item's schema instead of holding a copy of it: utoipa writes a
//! generic's argument inline, which gives a client two unrelated types for one resource (the
//! space of a page and the space of `GET /v0/spaces/{id}`).

use serde_json::{Value, json};

/// The prefix utoipa gives the schema of `ListEnvelope<Item>`: `ListEnvelope_Item`.
const ENVELOPE: &str = "ListEnvelope_";

pub fn complete(document: &mut Value) {
    let Some(schemas) = document.pointer_mut("/components/schemas").and_then(Value::as_object_mut) else { return };
    let names: Vec<String> = schemas.keys().filter(|name| name.starts_with(ENVELOPE)).cloned().collect();
    for name in names {
        let item = name[ENVELOPE.len()..].to_owned();
        let reference = json!({ "$ref": format!("#/components/schemas/{item}") });
        let Some(items) = schemas.get_mut(&name).and_then(|s| s.pointer_mut("/properties/items/items")) else {
            continue;
        };
        let copy = std::mem::replace(items, reference);
        // An item no operation answers alone becomes a component of its own.
        schemas.entry(item).or_insert(copy);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelopes_refer_to_their_item() {
        let mut document = json!({ "components": { "schemas": {
            "Space": { "type": "object", "properties": { "spaceId": {} } },
            "ListEnvelope_Space": { "type": "object", "properties": {
                "items": { "type": "array", "items": { "type": "object", "properties": { "spaceId": {} } } } } },
            "ListEnvelope_Alone": { "type": "object", "properties": {
                "items": { "type": "array", "items": { "type": "object", "properties": { "name": {} } } } } }
        } } });
        complete(&mut document);
        let schemas = &document["components"]["schemas"];
        assert_eq!(schemas["ListEnvelope_Space"]["properties"]["items"]["items"]["$ref"], "#/components/schemas/Space");
        assert_eq!(schemas["ListEnvelope_Alone"]["properties"]["items"]["items"]["$ref"], "#/components/schemas/Alone");
        assert!(schemas["Alone"]["properties"]["name"].is_object());
    }
}
