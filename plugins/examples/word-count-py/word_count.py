"""Word count (`word-count-py`): the word-count example in Python, on the Trellis Python SDK.

On every form instance created or updated in a connected space it counts the words in the instance's
answers (`payload.fields`, minus the fields the configuration's `ignoreFields` names). Per item it keeps
`item/<id>` = its count, and the totals `items`, `words` and `comments`, updated atomically: a
compare-and-swap on the item's count, then `increment` of the totals by the difference, so concurrent
events never lose a count. `GET /stats` answers `{"items": n, "words": n, "comments": n}`; `POST /count`
answers `{"words": n}` for `{"text": "..."}`, and 400 with what is wrong for another body. `/spin`, `/fail`,
`/crash` and `/print` are for the host's conformance tests.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from trellis_sdk import Context, Event, Manifest, ModuleError, Request, Response, Router, SpaceModule
from trellis_sdk import bad_request, json_response

router = Router()


@dataclass
class Config:
    ignore_fields: list = field(default_factory=list)


def count_words(answer) -> int:
    """Words of a text answer (and of the strings of a list answer); numbers and choices count 0."""
    if isinstance(answer, str):
        return sum(1 for word in answer.split() if any(c.isalnum() for c in word))
    if isinstance(answer, list):
        return sum(count_words(a) for a in answer)
    return 0


def record_count(ctx: Context, item_id: str, words: int) -> None:
    """Replaces the item's count and moves the totals by the difference, safe under concurrent events."""
    key = f"item/{item_id}"
    while True:
        previous = ctx.kv.get(key)
        if ctx.kv.compare_and_swap(key, previous, str(words).encode()):
            break
    if previous is None:
        ctx.kv.increment("items", 1)
    delta = words - (0 if previous is None else int(previous))
    if delta:
        ctx.kv.increment("words", delta)


class WordCount(SpaceModule):
    manifest = Manifest(
        id="word-count-py",
        name="Word count (Python)",
        version="0.2.0",
        description="Counts the words in the text answers of the space's form instances",
        config_schema={
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "additionalProperties": False,
            "properties": {"ignoreFields": {"type": "array", "items": {"type": "string"}}},
        },
        permissions=["key-value", "item-read", "logging"],
    )
    router = router

    def on_event(self, ctx: Context, event: Event) -> None:
        if event.kind == "comment-created":
            ctx.kv.increment("comments", 1)
            return
        if not event.is_form_instance():
            return
        instance = ctx.item()
        if instance is None:
            return
        config = ctx.config_as(Config)
        fields = (instance.get("payload") or {}).get("fields")
        words = 0
        if isinstance(fields, dict):
            words = sum(count_words(a) for f, a in fields.items() if f not in config.ignore_fields)
        record_count(ctx, event.item_id, words)
        ctx.log.debug(f"{event.item_id} has {words} words")


@router.get("/stats")
def stats(ctx: Context, _request: Request) -> Response:
    return json_response({name: ctx.kv.get_int(name) for name in ("items", "words", "comments")})


@router.get("/config")
def config(ctx: Context, _request: Request) -> Response:
    return json_response(ctx.config)


@router.post("/spin")
def spin(_ctx: Context, _request: Request) -> Response:
    # Never returns: the host stops it at the request deadline (502).
    while True:
        pass


@router.post("/count")
def count(_ctx: Context, request: Request) -> Response:
    body = request.json()
    text = body.get("text") if isinstance(body, dict) else None
    if not isinstance(text, str):
        problem = {"path": "/text", "code": "REQUIRED", "message": "must be a string"}
        return bad_request("text must be a string", [problem])
    return json_response({"words": count_words(text)})


@router.post("/fail")
def fail(_ctx: Context, _request: Request) -> Response:
    raise ModuleError("asked to fail")


@router.post("/crash")
def crash(_ctx: Context, _request: Request) -> Response:
    asked: dict = {}
    return json_response(asked["crash"])  # a KeyError: the host's log names this file and line


@router.post("/print")
def print_hello(ctx: Context, _request: Request) -> Response:
    message = f"hello from {ctx.module_id}"
    print(message, flush=True)
    print(message, file=sys.stderr, flush=True)
    return json_response({})
