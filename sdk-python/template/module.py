"""{{name}}: a Trellis space module in Python.

`on_event` hears the space's events; `router` serves `/v0/spaces/{spaceId}/modules/{{name}}/...`.
Everything it asks of the host goes through `ctx` (`ctx.kv`, `ctx.item()`, `ctx.log`, `ctx.config`),
so `python -m unittest` runs it against `trellis_sdk.testing.FakeHost`.
"""

from __future__ import annotations

from dataclasses import dataclass

from trellis_sdk import Context, Event, Manifest, Request, Response, Router, SpaceModule, bad_request, json_response

router = Router()


@dataclass
class Config:
    greeting: str = "hello"


class Module(SpaceModule):
    manifest = Manifest(
        id="{{name}}",
        name="{{name}}",
        version="0.1.0",
        description="Counts the space's events and greets",
        config_schema={
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "additionalProperties": False,
            "properties": {"greeting": {"type": "string"}},
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
