//! OpenAPI `links`: from an answer that carries an id to the operations that take that id, so a
//! client (or the contract fuzzer's stateful phase) can follow "create a space, then post in it".
//!
//! Derived from the document itself rather than written by hand: an answer's member `spaceId`
//! fills every path or required query parameter named `spaceId`; an answer's `id` fills the
//! parameter that follows the creating path (`POST /v0/forms/configurations` answers the `id`
//! of `/v0/forms/configurations/{configurationId}`). The target's other parameters come from the
//! source request's own path, else no link is made. Pages link nowhere: a page may be empty, and
//! a link that names an id no answer holds only sends a client (or the fuzzer) nowhere.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

/// One operation as links see it.
struct Operation {
    path: String,
    method: String,
    id: String,
    /// Path parameters and required query parameters: `(in, name)`.
    needs: Vec<(String, String)>,
}

pub fn complete(document: &mut Value) {
    let operations = operations(document);
    let schemas = document.pointer("/components/schemas").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut found: Vec<(String, String, String, Map<String, Value>)> = Vec::new();
    for source in &operations {
        let Some(responses) = document
            .pointer(&format!("/paths/{}/{}/responses", escape(&source.path), source.method))
            .and_then(Value::as_object)
        else {
            continue;
        };
        for (status, response) in responses.iter().filter(|(status, _)| status.starts_with('2')) {
            let Some(members) = answer_members(response, &schemas) else { continue };
            let mut links = Map::new();
            for target in operations.iter().filter(|t| t.id != source.id && !t.needs.is_empty()) {
                if let Some(parameters) = fill(source, target, &members) {
                    links.insert(target.id.clone(), json!({ "operationId": target.id, "parameters": parameters }));
                }
            }
            if !links.is_empty() {
                found.push((source.path.clone(), source.method.clone(), status.clone(), links));
            }
        }
    }
    for (path, method, status, links) in found {
        let pointer = format!("/paths/{}/{method}/responses/{status}", escape(&path));
        if let Some(response) = document.pointer_mut(&pointer).and_then(Value::as_object_mut) {
            response.insert("links".into(), Value::Object(links));
        }
    }
}

/// The parameters of a link from `source`'s answer to `target`, or `None` when the answer holds
/// none of the ids `target` takes, or `target` needs one that neither answer nor request holds.
fn fill(source: &Operation, target: &Operation, members: &[String]) -> Option<Map<String, Value>> {
    let mut parameters = Map::new();
    let mut from_answer = false;
    let source_path_parameters: Vec<&str> =
        source.needs.iter().filter(|(place, _)| place == "path").map(|(_, name)| name.as_str()).collect();
    for (place, name) in &target.needs {
        let expression = if members.iter().any(|m| m == name) {
            from_answer = true;
            format!("$response.body#/{name}")
        } else if members.iter().any(|m| m == "id") && follows(&source.path, &target.path, name) {
            from_answer = true;
            "$response.body#/id".to_owned()
        } else if place == "path" && source_path_parameters.contains(&name.as_str()) {
            format!("$request.path.{name}")
        } else {
            return None;
        };
        parameters.insert(format!("{place}.{name}"), Value::String(expression));
    }
    from_answer.then_some(parameters)
}

/// Whether `target` is a path under `source` whose next segment is the parameter `name`
/// (`/v0/spaces` then `/v0/spaces/{spaceId}`), so `source`'s answer `id` is that parameter.
fn follows(source: &str, target: &str, name: &str) -> bool {
    let parameter = format!("{{{name}}}");
    target.strip_prefix(source).and_then(|rest| rest.strip_prefix('/')).and_then(|rest| rest.split('/').next())
        == Some(parameter.as_str())
}

/// The top-level member names of an answer's JSON object; `None` for a page of a list.
fn answer_members(response: &Value, schemas: &Map<String, Value>) -> Option<Vec<String>> {
    let schema = resolve(response.pointer("/content/application~1json/schema")?, schemas)?;
    let properties = schema.get("properties")?.as_object()?;
    (!properties.contains_key("nextCursor")).then(|| properties.keys().cloned().collect())
}

fn resolve<'a>(schema: &'a Value, schemas: &'a Map<String, Value>) -> Option<&'a Value> {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => schemas.get(reference.strip_prefix("#/components/schemas/")?),
        None => Some(schema),
    }
}

fn operations(document: &Value) -> Vec<Operation> {
    let mut found = Vec::new();
    let Some(paths) = document.get("paths").and_then(Value::as_object) else { return found };
    for (path, item) in paths {
        let shared = item.get("parameters").and_then(Value::as_array).cloned().unwrap_or_default();
        for (method, operation) in item.as_object().into_iter().flatten() {
            let Some(id) = operation.get("operationId").and_then(Value::as_str) else { continue };
            let own = operation.get("parameters").and_then(Value::as_array).cloned().unwrap_or_default();
            // Parameters by place and name, an operation's own over its path's.
            let mut needs = BTreeMap::new();
            for parameter in shared.iter().chain(own.iter()) {
                let place = parameter.get("in").and_then(Value::as_str).unwrap_or_default();
                let name = parameter.get("name").and_then(Value::as_str).unwrap_or_default();
                let required = parameter.get("required").and_then(Value::as_bool).unwrap_or(false);
                if place == "path" || (place == "query" && required) {
                    needs.insert((place.to_owned(), name.to_owned()), ());
                }
            }
            found.push(Operation {
                path: path.clone(),
                method: method.clone(),
                id: id.to_owned(),
                needs: needs.into_keys().collect(),
            });
        }
    }
    found
}

/// A path as one JSON Pointer segment.
fn escape(path: &str) -> String {
    path.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(schema: Value) -> Value {
        json!({ "201": { "description": "made", "content": { "application/json": { "schema": schema } } } })
    }

    #[test]
    fn answers_link_to_the_operations_that_take_their_ids() {
        let path_parameter = |name: &str| json!({ "in": "path", "name": name, "required": true });
        let mut document = json!({
            "components": { "schemas": {
                "Space": { "type": "object", "properties": { "spaceId": {}, "name": {} } },
                "Asset": { "type": "object", "properties": { "assetId": {} } },
                "Config": { "type": "object", "properties": { "id": {} } },
                "ListEnvelope_Space": { "type": "object", "properties": {
                    "items": { "type": "array", "items": { "$ref": "#/components/schemas/Space" } }, "nextCursor": {} } }
            } },
            "paths": {
                "/v0/spaces": {
                    "post": { "operationId": "create_space", "responses": answer(json!({ "$ref": "#/components/schemas/Space" })) },
                    "get": { "operationId": "list_spaces", "responses": { "200": { "description": "page", "content": {
                        "application/json": { "schema": { "$ref": "#/components/schemas/ListEnvelope_Space" } } } } } }
                },
                "/v0/spaces/{spaceId}": { "get": { "operationId": "get_space", "parameters": [path_parameter("spaceId")], "responses": {} } },
                "/v0/spaces/{spaceId}/assets": { "post": { "operationId": "create_asset", "parameters": [path_parameter("spaceId")],
                    "responses": answer(json!({ "$ref": "#/components/schemas/Asset" })) } },
                "/v0/spaces/{spaceId}/assets/{assetId}": { "get": { "operationId": "get_asset",
                    "parameters": [path_parameter("spaceId"), path_parameter("assetId")], "responses": {} } },
                "/v0/configurations": { "post": { "operationId": "create_config", "responses": answer(json!({ "$ref": "#/components/schemas/Config" })) } },
                "/v0/configurations/{configurationId}": { "get": { "operationId": "get_config",
                    "parameters": [path_parameter("configurationId")], "responses": {} } },
                "/v0/items": { "get": { "operationId": "list_items", "parameters": [
                    { "in": "query", "name": "configurationId", "required": true }], "responses": {} } }
            }
        });
        complete(&mut document);
        let links = |path: &str, method: &str, status: &str| {
            let mut names: Vec<String> = document["paths"][path][method]["responses"][status]["links"]
                .as_object()
                .map(|l| l.keys().cloned().collect())
                .unwrap_or_default();
            names.sort();
            names
        };
        assert_eq!(links("/v0/spaces", "post", "201"), ["create_asset", "get_space"]);
        assert_eq!(
            document["paths"]["/v0/spaces"]["post"]["responses"]["201"]["links"]["get_space"]["parameters"],
            json!({ "path.spaceId": "$response.body#/spaceId" })
        );
        assert!(links("/v0/spaces", "get", "200").is_empty());
        assert_eq!(links("/v0/spaces/{spaceId}/assets", "post", "201"), ["get_asset"]);
        assert_eq!(
            document["paths"]["/v0/spaces/{spaceId}/assets"]["post"]["responses"]["201"]["links"]["get_asset"]["parameters"],
            json!({ "path.spaceId": "$request.path.spaceId", "path.assetId": "$response.body#/assetId" })
        );
        // `id` names the parameter under the creating path only, not an unrelated query parameter.
        assert_eq!(links("/v0/configurations", "post", "201"), ["get_config"]);
    }
}
