//! Poll (`poll`): one vote per member of the space, on the options the space's configuration lists.
//!
//! `POST /vote` with `{"option": "..."}` records the caller's vote; a second vote moves it. `GET /vote` answers
//! the caller's vote, `GET /results` the count per option and the number of voters. A vote is three writes:
//! the caller's `vote/<user>` (a compare-and-swap, so two votes of one caller at once cannot both move the
//! same old vote), then the two counters. The host commits a call's writes together, so a call stopped
//! between them leaves nothing: `POST /vote?stall=1` writes, then spins until its deadline stops it, and the
//! totals stay exact. The same module exists in JavaScript (`poll-js`) and Python (`poll-py`).
//!
//! `POST /ballot` and `GET /ballot/results` keep the same poll the other way the guides describe: as one JSON
//! document (`ballot`, every voter's option) changed with `kv::update_json`. Concurrent votes all race on that
//! one key; the host runs a call that lost the race again, the replays of one space taking turns, so every
//! vote lands and the counts stay exact.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, json};
use trellis_plugin_sdk::{Context, Detail, Event, Manifest, Method, Permission, Request, Response, Result};
use trellis_plugin_sdk::{Error, SpaceModule, kv};

/// The module.
pub struct Poll;

#[derive(Deserialize)]
struct Config {
    options: Vec<String>,
}

#[derive(Deserialize)]
struct Vote {
    option: Option<String>,
}

impl SpaceModule for Poll {
    fn manifest() -> Manifest {
        Manifest::new("poll", "Poll", env!("CARGO_PKG_VERSION"))
            .description("One vote per member on the options the space sets; a re-vote moves it")
            .config_schema(json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "required": ["options"],
                "additionalProperties": false,
                "properties": {
                    "options": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 2, "uniqueItems": true}
                }
            }))
            .permission(Permission::KeyValue)
    }

    fn on_event(_ctx: &Context, _event: &Event) -> Result<()> {
        Ok(())
    }

    fn handle_request(ctx: &Context, request: &Request) -> Result<Response> {
        let config: Config = ctx.config()?;
        Ok(match (request.method(), request.segments().as_slice()) {
            (Method::Post, ["vote"]) => {
                let Some(option) = chosen_option(&config, request) else { return Ok(not_an_option(&config)) };
                let previous = vote(request.caller_user_id(), &option)?;
                if request.query_param("stall").is_some() {
                    spin();
                }
                Response::ok(&json!({"option": option, "previous": previous}))
            }
            (Method::Get, ["vote"]) => {
                let option =
                    kv::get(vote_key(request.caller_user_id())).map(|b| String::from_utf8_lossy(&b).into_owned());
                Response::ok(&json!({"option": option}))
            }
            (Method::Post, ["ballot"]) => {
                let Some(option) = chosen_option(&config, request) else { return Ok(not_an_option(&config)) };
                let user = request.caller_user_id().to_owned();
                let mut previous = None;
                kv::update_json(BALLOT, |ballot: Option<BTreeMap<String, String>>| {
                    let mut ballot = ballot.unwrap_or_default();
                    previous = ballot.insert(user.clone(), option.clone());
                    Some(ballot)
                })?;
                Response::ok(&json!({"option": option, "previous": previous}))
            }
            (Method::Get, ["ballot", "results"]) => {
                let ballot: BTreeMap<String, String> = kv::get_json(BALLOT)?.unwrap_or_default();
                let mut counts: Map<String, serde_json::Value> =
                    config.options.iter().map(|option| (option.clone(), json!(0))).collect();
                for option in ballot.values() {
                    if let Some(count) = counts.get_mut(option) {
                        *count = json!(count.as_i64().unwrap_or(0) + 1);
                    }
                }
                Response::ok(&json!({"counts": counts, "voters": ballot.len()}))
            }
            (Method::Get, ["results"]) => {
                let mut counts = Map::new();
                for option in &config.options {
                    counts.insert(option.clone(), json!(counter(&format!("count/{option}"))?));
                }
                Response::ok(&json!({"counts": counts, "voters": counter("voters")?}))
            }
            _ => Response::not_found(),
        })
    }
}

trellis_plugin_sdk::export_space_module!(Poll);

/// The body's `option` when it is one of the poll's.
fn chosen_option(config: &Config, request: &Request) -> Option<String> {
    match request.json::<Vote>() {
        Ok(Vote { option: Some(option) }) if config.options.contains(&option) => Some(option),
        _ => None,
    }
}

fn not_an_option(config: &Config) -> Response {
    let allowed = config.options.join(", ");
    let problem = Detail::new("/option", "NOT_AN_OPTION", format!("must be one of: {allowed}"));
    Response::bad_request("option must be one of the poll's options", vec![problem])
}

/// The key of the shared document: every voter's option, by user id.
const BALLOT: &str = "ballot";

fn vote_key(user: &str) -> String {
    format!("vote/{user}")
}

/// Records `option` as the caller's vote and moves the counters; answers the vote it replaced.
fn vote(user: &str, option: &str) -> Result<Option<String>> {
    let key = vote_key(user);
    let previous = loop {
        let old = kv::get(&key);
        if old.as_deref() == Some(option.as_bytes()) {
            return Ok(Some(option.to_owned()));
        }
        if kv::compare_and_swap(&key, old.as_deref(), Some(option.as_bytes()))? {
            break old.map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
        }
    };
    match &previous {
        Some(old) => kv::increment(format!("count/{old}"), -1)?,
        None => kv::increment("voters", 1)?,
    };
    kv::increment(format!("count/{option}"), 1)?;
    Ok(previous)
}

/// A counter (decimal text kept by `kv::increment`); 0 before the first.
fn counter(key: &str) -> Result<i64> {
    match kv::get(key) {
        None => Ok(0),
        Some(bytes) => String::from_utf8_lossy(&bytes)
            .parse()
            .map_err(|error| Error::new(format!("{key} is not a counter: {error}"))),
    }
}

/// Never returns; the host stops the call at its deadline and drops its writes.
fn spin() -> ! {
    let mut counter = 0u64;
    loop {
        counter = std::hint::black_box(counter.wrapping_add(1));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;
    use trellis_plugin_sdk::CallerRole;
    use trellis_plugin_sdk::testing::TestHost;

    use super::*;

    fn call(host: &TestHost, request: Request) -> Response {
        let ctx = host.context(&Poll::manifest(), "space-1", &json!({"options": ["yes", "no"]})).unwrap();
        Poll::handle_request(&ctx, &request).unwrap()
    }

    fn vote_as(host: &TestHost, user: &str, option: &str) -> Response {
        let request =
            Request::post("/vote").with_json(&json!({"option": option})).with_caller(user, user, CallerRole::Member);
        call(host, request)
    }

    #[test]
    fn a_re_vote_moves_the_callers_vote_and_the_counts_follow() {
        let host = TestHost::new();
        vote_as(&host, "ann", "yes");
        vote_as(&host, "bob", "yes");
        vote_as(&host, "ann", "no");
        let results = call(&host, Request::get("/results"));
        assert_eq!(results.json_body::<Value>().unwrap(), json!({"counts": {"yes": 1, "no": 1}, "voters": 2}));
    }

    #[test]
    fn ballots_on_the_shared_document_count_each_voter_once() {
        let host = TestHost::new();
        for (user, option) in [("ann", "yes"), ("bob", "yes"), ("ann", "no")] {
            let request = Request::post("/ballot").with_json(&json!({"option": option})).with_caller(
                user,
                user,
                CallerRole::Member,
            );
            assert_eq!(call(&host, request).status(), 200);
        }
        let results = call(&host, Request::get("/ballot/results"));
        assert_eq!(results.json_body::<Value>().unwrap(), json!({"counts": {"yes": 1, "no": 1}, "voters": 2}));
    }

    #[test]
    fn an_option_the_poll_lacks_is_a_400_and_a_config_without_options_is_refused() {
        let host = TestHost::new();
        let answer = vote_as(&host, "ann", "maybe");
        assert_eq!(answer.status(), 400);
        assert!(host.context(&Poll::manifest(), "space-1", &json!({})).is_err());
    }
}
