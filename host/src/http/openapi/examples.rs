//! Request and response examples of the main routes, for `/docs` (a client starts from them) and
//! for the fuzzer's examples phase (it sends them as they are). The form examples are the
//! documents the tests use, so an example that stops being valid fails a test.

use serde_json::{Value, json};

const SAMPLE_CONFIG: &str = include_str!("../../domain/forms/testdata/sample_config.json");
const SAMPLE_PAYLOAD: &str = include_str!("../../domain/forms/testdata/sample_payload.json");

const USER_ID: &str = "0d9a3c52-5a8e-4a43-9f0e-0b6a1f0c2d71";
const SPACE_ID: &str = "3f1e2d4c-8b7a-4c6d-9e0f-1a2b3c4d5e6f";
const AT: &str = "2026-11-25T09:30:00Z";

/// One operation's examples: `(method, path, request body, (status, response body))`.
type Example = (&'static str, &'static str, Option<Value>, Option<(&'static str, Value)>);

fn examples() -> Vec<Example> {
    let config: Value = serde_json::from_str(SAMPLE_CONFIG).expect("the sample configuration is JSON");
    let payload: Value = serde_json::from_str(SAMPLE_PAYLOAD).expect("the sample payload is JSON");
    let profile = json!({
        "userId": USER_ID, "handle": "ann", "email": "ann@example.org", "displayName": "Ann",
        "fullName": "Ann Example", "avatar": null, "createdAt": AT, "updatedAt": AT,
    });
    let space = json!({
        "spaceId": SPACE_ID, "name": "field-notes", "displayName": "Field notes",
        "summary": "What we saw on the site visits", "role": "owner", "createdAt": AT, "updatedAt": AT,
    });
    vec![
        (
            "post",
            "/v0/auth/sign-up/start",
            Some(json!({"email": "ann@example.org", "handle": "ann", "fullName": "Ann Example", "displayName": "Ann"})),
            Some(("202", json!({"signupToken": "su_4fQ2xk9mT1bV7cR8wZ3yL0aP6sE5nH2j"}))),
        ),
        (
            "post",
            "/v0/auth/login",
            Some(json!({"login": "ann", "password": "correct horse 42"})),
            Some((
                "200",
                json!({"sessionToken": "se_9Jd2Lq7Vb1Xn4Rt8Kc3Mw6Pz0Hy5Ga1S", "expiresAt": "2026-12-25T09:30:00Z", "user": profile}),
            )),
        ),
        ("get", "/v0/users/me", None, Some(("200", profile.clone()))),
        (
            "post",
            "/v0/spaces",
            Some(
                json!({"name": "field-notes", "displayName": "Field notes", "summary": "What we saw on the site visits"}),
            ),
            Some(("201", space)),
        ),
        ("post", "/v0/forms/configurations/validate", Some(json!({ "config": config.clone() })), None),
        ("post", "/v0/forms/configurations", Some(json!({ "config": config })), None),
        ("post", "/v0/forms", Some(payload), None),
        ("post", "/v0/spaces/{spaceId}/comments", Some(json!({"body": "The north wall needs a second look."})), None),
        (
            "post",
            "/v0/spaces/{spaceId}/assets",
            Some(json!({"title": "North wall", "filename": "north-wall.png", "contentType": "image/png"})),
            None,
        ),
        ("post", "/v0/channels", Some(json!({"name": "Site visits", "description": "Notes and photos"})), None),
        (
            "post",
            "/v0/messages",
            Some(json!({"to": "bob", "subject": "Friday", "body": "Shall we go through the photos on Friday?"})),
            None,
        ),
    ]
}

/// Writes each example into its operation: the request body's and the response's `example`.
pub fn complete(document: &mut Value) {
    for (method, path, request, response) in examples() {
        let Some(operation) = document.pointer_mut(&format!("/paths/{}/{method}", escape(path))) else {
            panic!("an example names an undocumented operation: {method} {path}");
        };
        if let Some(request) = request {
            let media = operation.pointer_mut("/requestBody/content/application~1json").expect("a JSON request body");
            media["example"] = request;
        }
        if let Some((status, body)) = response {
            let media = operation
                .pointer_mut(&format!("/responses/{status}/content/application~1json"))
                .expect("a JSON response of that status");
            media["example"] = body;
        }
    }
}

/// A path as one JSON Pointer segment.
fn escape(path: &str) -> String {
    path.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_example_lands_on_a_documented_operation_and_obeys_its_schema() {
        let document = super::super::DOCUMENT.clone();
        let validator_for = |schema: &serde_json::Value| {
            let root =
                serde_json::json!({ "$ref": "#/schema", "components": document["components"], "schema": schema });
            jsonschema::options().with_draft(jsonschema::Draft::Draft202012).build(&root).expect("the schema compiles")
        };
        for (method, path, request, response) in super::examples() {
            let operation = &document["paths"][path][method];
            if let Some(request) = request {
                let media = &operation["requestBody"]["content"]["application/json"];
                assert_eq!(media["example"], request, "{method} {path}");
                let validator = validator_for(&media["schema"]);
                let errors: Vec<String> = validator.iter_errors(&request).map(|e| e.to_string()).collect();
                assert!(errors.is_empty(), "{method} {path}: {errors:?}");
            }
            if let Some((status, body)) = response {
                let media = &operation["responses"][status]["content"]["application/json"];
                let validator = validator_for(&media["schema"]);
                let errors: Vec<String> = validator.iter_errors(&body).map(|e| e.to_string()).collect();
                assert!(errors.is_empty(), "{method} {path} {status}: {errors:?}");
            }
        }
    }
}
