"""{{name}}: a Trellis space module in Python.

`on_event` hears the space's events; `router` serves `/v0/spaces/{spaceId}/modules/{{name}}/...`, among it
a poll: `POST /ballot` (`{"option": "..."}`) records the caller's vote, replacing their earlier one, and
`GET /ballot/results` answers the counts.
Everything it asks of the host goes through `ctx` (`ctx.kv`, `ctx.item()`, `ctx.log`, `ctx.config`),
so `python -m unittest` runs it against `trellis_sdk.testing.FakeHost`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trellis_sdk import Context, Event, Manifest, Request, Response, Router, SpaceModule, bad_request, json_response

router = Router()

# The poll's options when the configuration names none (the schema's default).
OPTIONS = ["red", "green", "blue"]


@dataclass
class Config:
    greeting: str = "hello"
    options: list[str] = field(default_factory=lambda: list(OPTIONS))


class Module(SpaceModule):
    manifest = Manifest(
        id="{{name}}",
        name="{{name}}",
        version="0.1.0",
        description="Counts the space's events, greets and keeps a poll",
        config_schema={
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "greeting": {"type": "string"},
                "options": {
                    "type": "array",
                    "items": {"type": "string", "minLength": 1},
                    "minItems": 2,
                    "uniqueItems": True,
                    "default": OPTIONS,
                },
            },
        },
        # Every interface the component imports must be asked for, used or not: componentize-py imports the
        # whole world of wit/world.wit (key-value, item-read, logging), and the host refuses a module that
        # imports more than its manifest asks.
        permissions=["key-value", "item-read", "logging"],
    )
    router = router

    def on_event(self, ctx: Context, event: Event) -> None:
        # increment is atomic: events and route calls run in parallel.
        total = ctx.kv.increment("events", 1)
        ctx.log.debug(f"{event.kind} {event.item_id}: {total} events so far")


@router.get("/hello")
def hello(ctx: Context, request: Request) -> Response:
    config = ctx.config_as(Config)
    return json_response({"message": f"{config.greeting}, {request.caller_handle}", "events": ctx.kv.get_int("events")})


@router.post("/echo")
def echo(_ctx: Context, request: Request) -> Response:
    return json_response({"youSent": request.json()})


@router.put("/notes/{key}")
def put_note(ctx: Context, request: Request) -> Response:
    body = request.json()  # a body that is not JSON answers 400 by itself
    text = body.get("text") if isinstance(body, dict) else None
    if not isinstance(text, str):
        # A client's mistake answers 400 saying what is wrong (a raised exception would be a 502 module failure).
        problem = {"path": "/text", "code": "REQUIRED", "message": "must be a string"}
        return bad_request('body must be {"text": "..."}', [problem])
    ctx.kv.set_json(f"note/{request.params['key']}", text)
    return json_response({"key": request.params["key"], "text": text})


@router.post("/ballot")
def post_ballot(ctx: Context, request: Request) -> Response:
    options = ctx.config_as(Config).options
    body = request.json()
    option = body.get("option") if isinstance(body, dict) else None
    if option not in options:
        problem = {"path": "/option", "code": "NOT_AN_OPTION", "message": f"must be one of: {', '.join(options)}"}
        return bad_request("option must be one of the poll's options", [problem])
    user = request.caller_user_id
    # One document (each voter's option) changed with update_json: votes at once race on it, and the host runs
    # a call that lost the race again, so every vote lands. A re-vote replaces the caller's earlier one.
    ctx.kv.update_json("ballot", lambda ballot: {**(ballot or {}), user: option})
    return json_response({"option": option})


@router.get("/ballot/results")
def ballot_results(ctx: Context, _request: Request) -> Response:
    counts = {option: 0 for option in ctx.config_as(Config).options}
    ballot = ctx.kv.get_json("ballot") or {}
    for option in ballot.values():
        if option in counts:
            counts[option] += 1
    return json_response({"counts": counts, "voters": len(ballot)})
