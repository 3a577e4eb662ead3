"""Poll in Python (`poll-py`): the port of the Rust example (plugins/examples/poll), from
`trellis module new poll-py --lang python`. One vote per member on the options the space's configuration
lists; a re-vote moves it. A vote is three writes (the caller's vote by compare-and-swap, then two
counters) that the host commits together: `POST /vote?stall=1` writes, then spins until its deadline stops
it, and the totals stay exact.

`POST /ballot` and `GET /ballot/results` keep the same poll as one JSON document (`ballot`, every voter's
option) changed with `ctx.kv.update_json`: concurrent votes race on that one key, the host runs a call
that lost the race again (the replays of one space take turns), and every vote lands.
"""

from __future__ import annotations

from typing import Optional
from urllib.parse import parse_qs

from trellis_sdk import Context, Event, Manifest, Request, Response, Router, SpaceModule
from trellis_sdk import bad_request, json_response

router = Router()


def vote(ctx: Context, user: str, option: str) -> Optional[str]:
    """Records `option` as `user`'s vote and moves the counters; answers the vote it replaced."""
    key = f"vote/{user}"
    wanted = option.encode()
    while True:
        previous = ctx.kv.get(key)
        if previous == wanted:
            return option
        if ctx.kv.compare_and_swap(key, previous, wanted):
            break
    if previous is None:
        ctx.kv.increment("voters", 1)
    else:
        ctx.kv.increment(f"count/{previous.decode()}", -1)
    ctx.kv.increment(f"count/{option}", 1)
    return None if previous is None else previous.decode()


class Poll(SpaceModule):
    manifest = Manifest(
        id="poll-py",
        name="Poll (Python)",
        version="0.1.0",
        description="One vote per member on the options the space sets; a re-vote moves it",
        config_schema={
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "required": ["options"],
            "additionalProperties": False,
            "properties": {
                "options": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 2, "uniqueItems": True}
            },
        },
        # componentize-py imports the SDK's whole world, so the module asks for each of its interfaces.
        permissions=["key-value", "item-read", "logging"],
    )
    router = router

    def on_event(self, ctx: Context, event: Event) -> None:
        pass


def chosen_option(ctx: Context, request: Request) -> Optional[str]:
    """The body's `option` when it is one of the poll's, else None."""
    body = request.json()
    option = body.get("option") if isinstance(body, dict) else None
    return option if option in ctx.config["options"] else None


def not_an_option(ctx: Context) -> Response:
    options = ", ".join(ctx.config["options"])
    problem = {"path": "/option", "code": "NOT_AN_OPTION", "message": f"must be one of: {options}"}
    return bad_request("option must be one of the poll's options", [problem])


@router.post("/vote")
def post_vote(ctx: Context, request: Request) -> Response:
    option = chosen_option(ctx, request)
    if option is None:
        return not_an_option(ctx)
    previous = vote(ctx, request.caller_user_id, option)
    if "stall" in parse_qs(request.query, keep_blank_values=True):
        while True:  # the writes above are dropped when the deadline stops this call
            pass
    return json_response({"option": option, "previous": previous})


@router.post("/ballot")
def post_ballot(ctx: Context, request: Request) -> Response:
    option = chosen_option(ctx, request)
    if option is None:
        return not_an_option(ctx)
    user = request.caller_user_id
    old, _ = ctx.kv.update_json("ballot", lambda ballot: {**(ballot or {}), user: option})
    return json_response({"option": option, "previous": (old or {}).get(user)})


@router.get("/ballot/results")
def ballot_results(ctx: Context, _request: Request) -> Response:
    ballot = ctx.kv.get_json("ballot") or {}
    counts = {option: 0 for option in ctx.config["options"]}
    for option in ballot.values():
        if option in counts:
            counts[option] += 1
    return json_response({"counts": counts, "voters": len(ballot)})


@router.get("/vote")
def get_vote(ctx: Context, request: Request) -> Response:
    option = ctx.kv.get(f"vote/{request.caller_user_id}")
    return json_response({"option": None if option is None else option.decode()})


@router.get("/results")
def results(ctx: Context, _request: Request) -> Response:
    counts = {option: ctx.kv.get_int(f"count/{option}") for option in ctx.config["options"]}
    return json_response({"counts": counts, "voters": ctx.kv.get_int("voters")})
