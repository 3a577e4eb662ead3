//! The tus 1.0.0 headers of resumable uploads written into their operations, so a generated client can
//! send and read them: without them a generated `create_upload` is 412 (no `Tus-Resumable`), and a `PATCH`
//! body must be bytes (`application/offset+octet-stream`, a binary string), not a list of numbers.

use serde_json::{Value, json};

const UPLOADS: &str = "/v0/media/uploads";
const UPLOAD: &str = "/v0/media/uploads/{uploadId}";

pub fn complete(document: &mut Value) {
    answer_headers(
        operation(document, "options", UPLOADS),
        "204",
        &[
            ("Tus-Version", "The tus versions the server speaks: 1.0.0", string()),
            ("Tus-Extension", "creation, creation-with-upload, expiration, termination", string()),
            ("Tus-Max-Size", "The largest upload in bytes (`media.max_file_bytes`)", integer()),
        ],
    );
    complete_create(operation(document, "post", UPLOADS));
    let status = operation(document, "head", UPLOAD);
    params(status, [tus_resumable()]);
    answer_headers(
        status,
        "200",
        &[
            ("Upload-Offset", "Bytes received so far", integer()),
            ("Upload-Length", "The upload's whole length in bytes", integer()),
            ("Upload-Metadata", "As given at creation", string()),
            ("Upload-Expires", "When an unfinished upload is removed (HTTP date)", string()),
        ],
    );

    complete_append(operation(document, "patch", UPLOAD));
    params(operation(document, "delete", UPLOAD), [tus_resumable()]);
}

/// The version every tus request but `OPTIONS` names.
fn tus_resumable() -> Value {
    header_param(
        "Tus-Resumable",
        true,
        json!({"type": "string", "enum": ["1.0.0"]}),
        "The tus version the client speaks: 1.0.0",
    )
}

/// `POST`: creation, with the first bytes or none.
fn complete_create(create: &mut Value) {
    params(
        create,
        [
            tus_resumable(),
            header_param(
                "Upload-Length",
                true,
                json!({"type": "integer", "minimum": 1}),
                "The upload's whole length in bytes",
            ),
            header_param(
                "Upload-Metadata",
                false,
                string(),
                "Comma-separated `key base64value` pairs: `filename` and `contentType`",
            ),
        ],
    );
    create["requestBody"] = json!({
        "required": false,
        "description": "The first bytes of the upload (creation-with-upload); none is an empty upload to PATCH into",
        "content": { "application/offset+octet-stream": { "schema": binary() } },
    });
    answer_headers(
        create,
        "201",
        &[
            ("Location", "The upload's URL, `/v0/media/uploads/{uploadId}`", string()),
            ("Upload-Offset", "Bytes received so far", integer()),
            ("Upload-Expires", "When an unfinished upload is removed (HTTP date)", string()),
        ],
    );
}

/// `PATCH`: bytes at the offset the upload stands at.
fn complete_append(append: &mut Value) {
    params(
        append,
        [
            tus_resumable(),
            header_param(
                "Upload-Offset",
                true,
                json!({"type": "integer", "minimum": 0}),
                "Where the body's bytes go: the upload's offset now (HEAD tells it after an interruption)",
            ),
        ],
    );
    append["requestBody"] = json!({
        "required": true,
        "content": { "application/offset+octet-stream": { "schema": binary() } },
    });
    answer_headers(
        append,
        "204",
        &[
            ("Upload-Offset", "Bytes received so far", integer()),
            ("Upload-Expires", "When an unfinished upload is removed (HTTP date)", string()),
        ],
    );
}

fn operation<'a>(document: &'a mut Value, method: &str, path: &str) -> &'a mut Value {
    super::operation_mut(document, method, path, "tus")
}

fn header_param(name: &str, required: bool, schema: Value, description: &str) -> Value {
    json!({ "name": name, "in": "header", "required": required, "description": description, "schema": schema })
}

fn params<const N: usize>(operation: &mut Value, added: [Value; N]) {
    let parameters = operation.as_object_mut().expect("an operation").entry("parameters").or_insert_with(|| json!([]));
    let parameters = parameters.as_array_mut().expect("a parameter list");
    for parameter in added {
        parameters.retain(|p| !(p["in"] == "header" && p["name"] == parameter["name"]));
        parameters.push(parameter);
    }
}

fn answer_headers(operation: &mut Value, status: &str, headers: &[(&str, &str, Value)]) {
    let answer = operation.pointer_mut(&format!("/responses/{status}")).and_then(Value::as_object_mut);
    let answer = answer.unwrap_or_else(|| panic!("a tus answer is undocumented: {status}"));
    let map = answer.entry("headers").or_insert_with(|| json!({}));
    map["Tus-Resumable"] = json!({ "description": "1.0.0", "schema": string() });
    for (name, description, schema) in headers {
        map[*name] = json!({ "description": description, "schema": schema });
    }
}

fn string() -> Value {
    json!({ "type": "string" })
}

fn integer() -> Value {
    json!({ "type": "integer", "format": "int64", "minimum": 0 })
}

fn binary() -> Value {
    json!({ "type": "string", "format": "binary" })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_tus_operations_name_their_headers_and_take_bytes() {
        let document = super::super::DOCUMENT.clone();
        let create = &document["paths"]["/v0/media/uploads"]["post"];
        let names: Vec<&str> =
            create["parameters"].as_array().unwrap().iter().filter_map(|p| p["name"].as_str()).collect();
        assert!(names.contains(&"Tus-Resumable") && names.contains(&"Upload-Length"), "{names:?}");
        assert!(create["responses"]["201"]["headers"]["Location"].is_object());
        let append = &document["paths"]["/v0/media/uploads/{uploadId}"]["patch"];
        let body = &append["requestBody"]["content"]["application/offset+octet-stream"]["schema"];
        assert_eq!(body["format"], "binary", "{append}");
        let options = &document["paths"]["/v0/media/uploads"]["options"];
        assert!(options["responses"]["204"]["headers"]["Tus-Max-Size"].is_object());
    }
}
