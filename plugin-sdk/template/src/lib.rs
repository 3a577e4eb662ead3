//! The {{name}} module: counts the form instances created in each connected space, answers the count at
//! `GET /count` and adds to it at `POST /count` (`{"by": n}`), and keeps a poll: `POST /ballot`
//! (`{"option": "..."}`) records the caller's vote, replacing their earlier one, and `GET /ballot/results`
//! answers the counts. A starting point; see the `trellis_plugin_sdk` docs for everything a module can do.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::json;
use trellis_plugin_sdk::{
    Context, Detail, Event, EventKind, Manifest, Method, Permission, Request, Response, Result, SpaceModule, kv, log,
};

/// The module.
pub struct Module;

/// The configuration a space gives the module, checked by the host against the schema in the manifest.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Config {
    log_each_event: bool,
    /// The poll's options.
    options: Vec<String>,
}

/// The poll's options when the configuration names none (the schema's default).
const OPTIONS: [&str; 3] = ["red", "green", "blue"];

impl Default for Config {
    fn default() -> Self {
        Self { log_each_event: false, options: OPTIONS.map(String::from).to_vec() }
    }
}

/// The body of `POST /ballot`.
#[derive(Deserialize)]
struct Vote {
    option: String,
}

/// The key of the poll's one shared document: every voter's option, by user id.
const BALLOT: &str = "ballot";

/// The body of `POST /count`.
#[derive(Deserialize)]
struct Add {
    by: i64,
}

impl SpaceModule for Module {
    fn manifest() -> Manifest {
        Manifest::new("{{name}}", "{{name}}", env!("CARGO_PKG_VERSION"))
            .description("Counts the form instances created in the space and keeps a poll")
            .config_schema(json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "logEachEvent": {"type": "boolean", "default": false},
                    "options": {
                        "type": "array", "items": {"type": "string", "minLength": 1},
                        "minItems": 2, "uniqueItems": true, "default": OPTIONS
                    }
                }
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

    fn handle_request(ctx: &Context, request: &Request) -> Result<Response> {
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
            (Method::Post, ["ballot"]) => vote(&ctx.config::<Config>()?.options, request)?,
            (Method::Get, ["ballot", "results"]) => results(&ctx.config::<Config>()?.options)?,
            _ => Response::not_found(),
        })
    }
}

/// `POST /ballot`: records the caller's option in the shared document, replacing their earlier vote.
fn vote(options: &[String], request: &Request) -> Result<Response> {
    let chosen = request.json::<Vote>().ok().map(|vote| vote.option);
    let Some(option) = chosen.filter(|option| options.contains(option)) else {
        let problem = Detail::new("/option", "NOT_AN_OPTION", format!("must be one of: {}", options.join(", ")));
        return Ok(Response::bad_request("option must be one of the poll's options", vec![problem]));
    };
    let user = request.caller_user_id().to_owned();
    // One document changed with update_json: votes at once race on it, and the host runs a call that lost
    // the race again, so every vote lands.
    kv::update_json(BALLOT, |ballot: Option<BTreeMap<String, String>>| {
        let mut ballot = ballot.unwrap_or_default();
        ballot.insert(user.clone(), option.clone());
        Some(ballot)
    })?;
    Ok(Response::ok(&json!({"option": option})))
}

/// `GET /ballot/results`: the votes per option and the number of voters.
fn results(options: &[String]) -> Result<Response> {
    let ballot: BTreeMap<String, String> = kv::get_json(BALLOT)?.unwrap_or_default();
    let mut counts: BTreeMap<&str, usize> = options.iter().map(|option| (option.as_str(), 0)).collect();
    for option in ballot.values() {
        if let Some(count) = counts.get_mut(option.as_str()) {
            *count += 1;
        }
    }
    Ok(Response::ok(&json!({"counts": counts, "voters": ballot.len()})))
}

trellis_plugin_sdk::export_space_module!(Module);

// The SDK's test host exists natively only: `cargo test-native` runs these.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use trellis_plugin_sdk::CallerRole;
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
    fn a_re_vote_replaces_the_callers_vote_and_an_option_the_poll_lacks_is_a_400() {
        // Arrange: the schema's default options.
        let host = TestHost::new();
        let ctx = host.context(&Module::manifest(), "space-1", &json!({})).unwrap();
        let vote = |user: &str, option: &str| {
            let request = Request::post("/ballot").with_json(&json!({"option": option})).with_caller(
                user,
                user,
                CallerRole::Member,
            );
            host.handle_request::<Module>(&ctx, &request).unwrap().status()
        };

        // Act
        let statuses = [vote("ann", "red"), vote("bob", "red"), vote("ann", "green"), vote("bob", "purple")];
        let results = host.handle_request::<Module>(&ctx, &Request::get("/ballot/results")).unwrap();

        // Assert
        assert_eq!(statuses, [200, 200, 200, 400]);
        let expected = json!({"counts": {"red": 1, "green": 1, "blue": 0}, "voters": 2});
        assert_eq!(results.json_body::<serde_json::Value>().unwrap(), expected);
    }

    #[test]
    fn manifest_is_valid() {
        Module::manifest().check().unwrap();
    }
}
