//! The {{name}} module: counts the form instances created in each connected space, answers the count at
//! `GET /count` and adds to it at `POST /count` (`{"by": n}`). A starting point; see the `trellis_plugin_sdk`
//! docs for everything a module can do.

use serde::Deserialize;
use serde_json::json;
use trellis_plugin_sdk::{
    Context, Detail, Event, EventKind, Manifest, Method, Permission, Request, Response, Result, SpaceModule, kv, log,
};

/// The module.
pub struct Module;

/// The configuration a space gives the module, checked by the host against the schema in the manifest.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct Config {
    log_each_event: bool,
}

/// The body of `POST /count`.
#[derive(Deserialize)]
struct Add {
    by: i64,
}

impl SpaceModule for Module {
    fn manifest() -> Manifest {
        Manifest::new("{{name}}", "{{name}}", env!("CARGO_PKG_VERSION"))
            .description("Counts the form instances created in the space")
            .config_schema(json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "additionalProperties": false,
                "properties": {"logEachEvent": {"type": "boolean", "default": false}}
            }))
            .permission(Permission::KeyValue)
            .permission(Permission::Logging)
    }

    fn on_event(ctx: &Context, event: &Event) -> Result<()> {
        if event.kind() != EventKind::FormInstanceCreated {
            return Ok(());
        }
        // Atomic: events run concurrently, and a read followed by a write would lose counts.
        kv::increment("count", 1)?;
        if ctx.config::<Config>()?.log_each_event {
            log::info(format!("counted {}", event.item_id()));
        }
        Ok(())
    }

    fn handle_request(_ctx: &Context, request: &Request) -> Result<Response> {
        Ok(match (request.method(), request.segments().as_slice()) {
            (Method::Get, ["count"]) => Response::ok(&json!({"count": kv::get_json::<i64>("count")?.unwrap_or(0)})),
            (Method::Post, ["count"]) => {
                // A client's mistake answers 400 saying what is wrong; an `Err` would be a 502 module failure.
                let Ok(Add { by }) = request.json::<Add>() else {
                    let problem = Detail::new("/by", "NOT_AN_INTEGER", "must be an integer");
                    return Ok(Response::bad_request(r#"the body must be {"by": <integer>}"#, vec![problem]));
                };
                Response::ok(&json!({"count": kv::increment("count", by)?}))
            }
            _ => Response::not_found(),
        })
    }
}

trellis_plugin_sdk::export_space_module!(Module);

// The SDK's test host exists natively only: `cargo test-native` runs these.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use trellis_plugin_sdk::testing::TestHost;

    #[test]
    fn counts_created_instances_adds_on_request_and_answers_a_bad_body_with_400() {
        // Arrange
        let host = TestHost::new();
        // Checked against the manifest's schema, as the host checks a space's configuration.
        let ctx = host.context(&Module::manifest(), "space-1", &json!({"logEachEvent": true})).unwrap();
        // Through the host, as it calls the module: a call that fails keeps none of its key-value writes.
        let add = |body: serde_json::Value| {
            host.handle_request::<Module>(&ctx, &Request::post("/count").with_json(&body))
        };

        // Act
        host.on_event::<Module>(&ctx, &Event::new(EventKind::FormInstanceCreated, "i1")).unwrap();
        host.on_event::<Module>(&ctx, &Event::new(EventKind::FormInstanceUpdated, "i1")).unwrap();
        let counted = host.handle_request::<Module>(&ctx, &Request::get("/count")).unwrap();
        let added = add(json!({"by": 2})).unwrap();
        let refused = add(json!({"by": "two"})).unwrap();

        // Assert
        assert_eq!((counted.status(), counted.body()), (200, r#"{"count":1}"#));
        assert_eq!(host.logs().len(), 1);
        assert_eq!((added.status(), added.body()), (200, r#"{"count":3}"#));
        // A client's mistake is an answer the client reads: 400 VALIDATION_FAILED and where the body is wrong.
        assert_eq!(refused.status(), 400);
        let error = &refused.json_body::<serde_json::Value>().unwrap()["error"];
        assert_eq!((&error["code"], &error["details"][0]["path"]), (&json!("VALIDATION_FAILED"), &json!("/by")));
    }

    #[test]
    fn manifest_is_valid() {
        Module::manifest().check().unwrap();
    }
}
