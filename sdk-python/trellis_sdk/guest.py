"""The component's side: the real host imports and the exports componentize-py looks for.

Imported only inside the component (the `wit_world` bindings exist only while componentize-py builds
it); a module's app file does `ModuleInfo, SpaceHooks = export_space_module(MyModule())`.
"""

from __future__ import annotations

import json
import sys
from typing import Optional

from componentize_py_types import Err
from wit_world import exports
from wit_world.exports import space_hooks
from wit_world.imports import item_read, key_value, logging, types

from . import Context, Event, HttpError, ModuleError, Request, SpaceModule, describe_uncaught

_LEVELS = {
    "trace": logging.Level.TRACE,
    "debug": logging.Level.DEBUG,
    "info": logging.Level.INFO,
    "warn": logging.Level.WARN,
    "error": logging.Level.ERROR,
}
_KINDS = {
    space_hooks.EventKind.FORM_INSTANCE_CREATED: "form-instance-created",
    space_hooks.EventKind.FORM_INSTANCE_UPDATED: "form-instance-updated",
    space_hooks.EventKind.ASSET_STATE_CHANGED: "asset-state-changed",
    space_hooks.EventKind.COMMENT_CREATED: "comment-created",
}
_METHODS = {m: m.name for m in space_hooks.Method}


def _host_call(call, *args):
    """A WIT `err(string)` of an import becomes ModuleError."""
    try:
        return call(*args)
    except Err as e:
        raise ModuleError(str(e.value)) from None


class WitHost:
    """The host as the component sees it."""

    def kv_get(self, key: str) -> Optional[bytes]:
        return key_value.get(key)

    def kv_set(self, key: str, value: bytes) -> None:
        _host_call(key_value.set, key, value)

    def kv_delete(self, key: str) -> None:
        key_value.delete(key)

    def kv_list_keys(self, prefix: str, start_after: Optional[str], limit: int) -> list[str]:
        return key_value.list_keys(prefix, start_after, limit)

    def kv_compare_and_swap(self, key: str, expected: Optional[bytes], new: Optional[bytes]) -> bool:
        return _host_call(key_value.compare_and_swap, key, expected, new)

    def kv_increment(self, key: str, delta: int) -> int:
        return _host_call(key_value.increment, key, delta)

    def current_item(self) -> Optional[str]:
        return item_read.current_item()

    def log(self, level: str, message: str) -> None:
        logging.log(_LEVELS[level], message)


def _permission(text: str):
    name, _, hosts = text.partition(":")
    return {
        "key-value": types.Permission_KeyValue,
        "logging": types.Permission_Logging,
        "item-read": types.Permission_ItemRead,
    }[name]() if name != "outbound-http" else types.Permission_OutboundHttp([h for h in hosts.split(",") if h])


def _failure(e: BaseException) -> Err:
    """Any exception of a hook is the WIT error. A ModuleError is its message; an unexpected one names its
    type and the file and line it was raised at, and its traceback goes to stderr (the host's log)."""
    if isinstance(e, ModuleError):
        return Err(str(e))
    head, trace = describe_uncaught(e)
    print(trace, file=sys.stderr, end="", flush=True)
    return Err(head)


def export_space_module(module: SpaceModule):
    """The two classes componentize-py wants at the top of the app module."""
    host = WitHost()
    manifest = module.manifest
    manifest.check()

    def context(ctx: types.Context) -> Context:
        return Context(host, ctx.space_id, ctx.config, manifest.id)

    class ModuleInfo(exports.ModuleInfo):
        def manifest(self) -> types.Manifest:
            return types.Manifest(
                id=manifest.id,
                name=manifest.name,
                version=manifest.version,
                kind=types.ModuleKind.SPACE,
                description=manifest.description,
                config_schema=json.dumps(manifest.config_schema),
                permissions=[_permission(p) for p in manifest.permissions],
            )

    class SpaceHooks(exports.SpaceHooks):
        def on_event(self, ctx: types.Context, event: space_hooks.Event) -> None:
            try:
                module.on_event(context(ctx), Event(_KINDS[event.kind], event.item_id))
            except Exception as e:
                raise _failure(e) from None

        def handle_request(self, ctx: types.Context, request: space_hooks.Request) -> space_hooks.Response:
            try:
                wrapped = Request(
                    method=_METHODS[request.method],
                    path=request.path,
                    query=request.query,
                    body=bytes(request.body),
                    caller_user_id=request.caller_user_id,
                    caller_handle=request.caller_handle,
                    caller_role=request.caller_role.name.lower(),
                )
                try:
                    response = module.handle_request(context(ctx), wrapped)
                except HttpError as e:  # a handle_request of its own, without the Router
                    response = e.response()
                return space_hooks.Response(status=response.status, body=response.body)
            except Exception as e:
                raise _failure(e) from None

    return ModuleInfo, SpaceHooks
