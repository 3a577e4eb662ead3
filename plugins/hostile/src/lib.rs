//! A space module that misbehaves on purpose. The host's tests load it to prove that each misbehaviour ends
//! only its own invocation and that the sandbox grants no ambient authority (files, environment, sockets).
//!
//! Routes: `GET /ok`, `/loop`, `/alloc`, `/trap`, `/malformed`, `/files`, `/env`, `/socket`, `/work?n=N` (N
//! rounds of busy work, then 200), `/sleep?ms=N` (a WASI sleep: the guest waits in a host call), and
//! `/vote?user=U&option=O&spin=1` for the tests of a call's writes committing together: it moves the user's
//! vote with compare-and-swap, moves two counters, and with `spin=1` then loops until its deadline; `/poll`
//! answers the votes and counters. Events do what
//! the configuration's `onEvent` says: `"ok"` (the default), `"fail"`, `"loop"`, `"alloc"` or `"trap"`.

use std::hint::black_box;

use serde::Deserialize;
use serde_json::json;
use trellis_plugin_sdk::{Context, Event, Manifest, Method, Permission, Request, Response, Result, SpaceModule, kv};

/// The module.
pub struct Hostile;

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct Config {
    on_event: Option<String>,
}

impl SpaceModule for Hostile {
    fn manifest() -> Manifest {
        Manifest::new("hostile", "Hostile", env!("CARGO_PKG_VERSION"))
            .description("Misbehaves on purpose: for containment tests only")
            .config_schema(json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "additionalProperties": false,
                "properties": {"onEvent": {"enum": ["ok", "fail", "loop", "alloc", "trap"]}}
            }))
            .permission(Permission::KeyValue)
            .permission(Permission::Logging)
    }

    fn on_event(ctx: &Context, _event: &Event) -> Result<()> {
        match ctx.config::<Config>()?.on_event.as_deref() {
            Some("fail") => Err(trellis_plugin_sdk::Error::new("configured to fail")),
            Some("loop") => spin(),
            Some("alloc") => hoard(),
            Some("trap") => panic!("configured to trap"),
            _ => Ok(()),
        }
    }

    fn handle_request(_ctx: &Context, request: &Request) -> Result<Response> {
        Ok(match (request.method(), request.segments().as_slice()) {
            (Method::Get, ["ok"]) => Response::ok(&json!({"ok": true})),
            (Method::Get, ["loop"]) => spin(),
            (Method::Get, ["alloc"]) => hoard(),
            (Method::Get, ["trap"]) => panic!("trap requested"),
            (Method::Get, ["malformed"]) => Response::raw(42, r#"{"status":"outside 200..=599"}"#),
            (Method::Get, ["files"]) => Response::ok(&files()),
            (Method::Get, ["env"]) => {
                Response::ok(&json!({"vars": std::env::vars_os().count(), "args": std::env::args_os().count()}))
            }
            (Method::Get, ["socket"]) => Response::ok(&sockets()),
            (Method::Get, ["work"]) => Response::ok(&json!({"sum": work(number(request, "n")?)})),
            (Method::Get, ["vote"]) => vote(request)?,
            (Method::Get, ["poll"]) => Response::ok(&json!({"votes": prefixed("vote/"), "counts": prefixed("count/")})),
            (Method::Get, ["sleep"]) => {
                std::thread::sleep(std::time::Duration::from_millis(number(request, "ms")?));
                Response::ok(&json!({"slept": true}))
            }
            _ => Response::not_found(),
        })
    }
}

trellis_plugin_sdk::export_space_module!(Hostile);

/// The poll of the commit tests: one vote per user, a re-vote moves it, a counter per option.
fn vote(request: &Request) -> Result<Response> {
    let (user, option) =
        (request.query_param("user").unwrap_or_default(), request.query_param("option").unwrap_or_default());
    let key = format!("vote/{user}");
    let old = kv::get(&key);
    if !kv::compare_and_swap(&key, old.as_deref(), Some(option.as_bytes()))? {
        return Ok(Response::error(409, "CONFLICT", "the vote moved meanwhile"));
    }
    if let Some(old) = old {
        kv::increment(format!("count/{}", String::from_utf8_lossy(&old)), -1)?;
    }
    kv::increment(format!("count/{option}"), 1)?;
    if request.query_param("spin").as_deref() == Some("1") {
        spin();
    }
    Ok(Response::ok(&json!({"voted": option})))
}

/// Every key under `prefix` (the prefix cut off) with its value as text.
fn prefixed(prefix: &str) -> serde_json::Map<String, serde_json::Value> {
    let keys = kv::list_keys(prefix, None, 1000);
    let text = |key: &String| String::from_utf8_lossy(&kv::get(key).unwrap_or_default()).into_owned();
    keys.iter().map(|key| (key[prefix.len()..].to_owned(), json!(text(key)))).collect()
}

fn number(request: &Request, name: &str) -> Result<u64> {
    let value = request.query_param(name).and_then(|text| text.parse().ok());
    value.ok_or_else(|| trellis_plugin_sdk::Error::new(format!("query parameter {name} must be a number")))
}

/// A fixed amount of computation: the same CPU time alone or under a burst.
fn work(rounds: u64) -> u64 {
    let mut sum = 0u64;
    for round in 0..rounds {
        sum = black_box(sum.wrapping_mul(31).wrapping_add(round));
    }
    sum
}

/// Never returns; `black_box` keeps the optimiser from proving the loop has no effect.
fn spin() -> ! {
    let mut counter = 0u64;
    loop {
        counter = black_box(counter.wrapping_add(1));
    }
}

/// Grabs 1 MiB after 1 MiB, writing into each, until the host's memory cap stops it. Only the first page of
/// a chunk is written: the cap counts linear memory, and faulting in every page would hit the deadline first.
fn hoard() -> ! {
    const CHUNK: usize = 1 << 20;
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    loop {
        let mut chunk = Vec::with_capacity(CHUNK);
        chunk.push(1u8);
        chunks.push(black_box(chunk));
    }
}

fn outcome<T, E>(result: std::result::Result<T, E>) -> &'static str {
    if result.is_ok() { "allowed" } else { "denied" }
}

fn files() -> serde_json::Value {
    json!({
        "readDir": outcome(std::fs::read_dir("/")),
        "readFile": outcome(std::fs::read("/etc/passwd")),
        "createFile": outcome(std::fs::File::create("x")),
    })
}

fn sockets() -> serde_json::Value {
    json!({
        "tcpConnect": outcome(std::net::TcpStream::connect("127.0.0.1:5432")),
        "udpBind": outcome(std::net::UdpSocket::bind("127.0.0.1:0")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ok_route_answers_and_unknown_route_is_404() {
        // Arrange
        let ctx = Context::default();

        // Act
        let ok = Hostile::handle_request(&ctx, &Request::get("/ok")).unwrap();
        let missing = Hostile::handle_request(&ctx, &Request::get("/nope")).unwrap();

        // Assert
        assert_eq!((ok.status(), ok.body()), (200, r#"{"ok":true}"#));
        assert_eq!(missing.status(), 404);
        Hostile::manifest().check().unwrap();
    }

    #[test]
    fn events_fail_only_when_configured_to() {
        let event = Event::new(trellis_plugin_sdk::EventKind::FormInstanceCreated, "i1");
        assert!(Hostile::on_event(&Context::default(), &event).is_ok());
        assert!(Hostile::on_event(&Context::new("s", r#"{"onEvent":"fail"}"#), &event).is_err());
    }
}
