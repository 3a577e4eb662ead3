"""Trellis SDK for Python space modules (WIT `trellis:module@0.2.0`, built with componentize-py).

A module is a `SpaceModule` subclass: a `Manifest`, an `on_event` and a `Router`. Everything it asks
of the host goes through the `Context` it is handed (`ctx.kv`, `ctx.item()`, `ctx.log`, `ctx.config`),
whose host is the real one inside the component (`trellis_sdk.guest`) and `trellis_sdk.testing.FakeHost`
under `python -m unittest`, so the module's logic runs and is tested without the host.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Optional, Protocol

__all__ = [
    "ModuleError", "HttpError", "Host", "Manifest", "Context", "Event", "Request", "Response", "KeyValue", "Log",
    "Router", "SpaceModule", "json_response", "not_found", "error_response", "bad_request",
]

SDK_VERSION = "0.2.0"

EVENT_KINDS = ("form-instance-created", "form-instance-updated", "asset-state-changed", "comment-created")
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
PERMISSIONS = ("key-value", "logging", "item-read", "outbound-http")
_ID = re.compile(r"^[a-z0-9-]{1,64}$")


class ModuleError(Exception):
    """A failure of the module itself (a broken invariant, a host call that failed): the host records it
    (events) or answers 502 MODULE_FAILED (routes) and logs the message. For a client's mistake, answer a
    4xx instead: return `bad_request(...)` / `error_response(...)`, or raise `HttpError`."""


class HttpError(Exception):
    """A 4xx (or 5xx) answer a route raises: the router answers it as `error_response(status, code, message,
    details)` rather than failing the call. Raised from `on_event`, it is a failure like any other."""

    def __init__(self, status: int, code: str, message: str, details: Iterable[Mapping[str, Any]] = ()):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = list(details)

    @classmethod
    def bad_request(cls, message: str, details: Iterable[Mapping[str, Any]] = ()) -> "HttpError":
        """400 VALIDATION_FAILED."""
        return cls(400, "VALIDATION_FAILED", message, details)

    def response(self) -> "Response":
        """The answer it stands for."""
        return error_response(self.status, self.code, self.message, self.details)


class Host(Protocol):
    """The host's imports, behind one small interface (the component's or `testing.FakeHost`)."""

    def kv_get(self, key: str) -> Optional[bytes]: ...
    def kv_set(self, key: str, value: bytes) -> None: ...
    def kv_delete(self, key: str) -> None: ...
    def kv_list_keys(self, prefix: str, start_after: Optional[str], limit: int) -> list[str]: ...
    def kv_compare_and_swap(self, key: str, expected: Optional[bytes], new: Optional[bytes]) -> bool: ...
    def kv_increment(self, key: str, delta: int) -> int: ...
    def current_item(self) -> Optional[str]: ...
    def log(self, level: str, message: str) -> None: ...


@dataclass
class Manifest:
    """What the module says about itself; `permissions` are `key-value`, `logging`, `item-read` or
    `outbound-http:<host>,<host>`."""

    id: str
    name: str
    version: str
    description: str = ""
    config_schema: dict = field(default_factory=lambda: {"type": "object"})
    permissions: list[str] = field(default_factory=list)

    def check(self) -> None:
        """Raises ModuleError for what the host would refuse in the manifest itself."""
        if not _ID.match(self.id):
            raise ModuleError(f"module id {self.id!r}: lowercase letters, digits and '-', 1 to 64 characters")
        for permission in self.permissions:
            if permission.split(":", 1)[0] not in PERMISSIONS:
                raise ModuleError(f"unknown permission {permission!r}")
        if not isinstance(self.config_schema, dict):
            raise ModuleError("config_schema must be a JSON object")


class Log:
    """Structured logging through the host (attributed to the module there)."""

    def __init__(self, host: Host):
        self._host = host

    def trace(self, message: str) -> None:
        self._host.log("trace", message)

    def debug(self, message: str) -> None:
        self._host.log("debug", message)

    def info(self, message: str) -> None:
        self._host.log("info", message)

    def warn(self, message: str) -> None:
        self._host.log("warn", message)

    def error(self, message: str) -> None:
        self._host.log("error", message)


class KeyValue:
    """The key-value store of (space, module), with JSON and atomic helpers.

    Events and route calls run in parallel: update shared values with `increment`, `compare_and_swap`
    or `update_json`, never with a `get` followed by a `set`.
    """

    def __init__(self, host: Host):
        self._host = host

    def get(self, key: str) -> Optional[bytes]:
        return self._host.kv_get(key)

    def set(self, key: str, value: bytes) -> None:
        self._host.kv_set(key, value)

    def delete(self, key: str) -> None:
        self._host.kv_delete(key)

    def list_keys(self, prefix: str = "", start_after: Optional[str] = None, limit: int = 1000) -> list[str]:
        return self._host.kv_list_keys(prefix, start_after, limit)

    def get_json(self, key: str, default: Any = None) -> Any:
        raw = self._host.kv_get(key)
        return default if raw is None else json.loads(raw)

    def set_json(self, key: str, value: Any) -> None:
        self._host.kv_set(key, _dump(value))

    def get_int(self, key: str) -> int:
        """The integer `increment` keeps at `key` (0 when absent)."""
        raw = self._host.kv_get(key)
        return 0 if raw is None else int(raw.decode("ascii"))

    def increment(self, key: str, delta: int = 1) -> int:
        """Adds `delta` atomically and answers the new value (kept as decimal text)."""
        return self._host.kv_increment(key, delta)

    def compare_and_swap(self, key: str, expected: Optional[bytes], new: Optional[bytes]) -> bool:
        """Stores `new` (deletes on None) only if the key holds exactly `expected` (None: absent)."""
        return self._host.kv_compare_and_swap(key, expected, new)

    def update_json(self, key: str, update: Callable[[Any], Any], max_attempts: int = 100) -> tuple[Any, Any]:
        """Applies `update(old)` (old is None when absent; a None result deletes) with compare-and-swap,
        retrying when another call changed the key meanwhile. Answers `(old, new)`."""
        for _ in range(max_attempts):
            raw = self._host.kv_get(key)
            old = None if raw is None else json.loads(raw)
            new = update(old)
            if self._host.kv_compare_and_swap(key, raw, None if new is None else _dump(new)):
                return old, new
        raise ModuleError(f"key {key!r} kept changing: gave up after {max_attempts} attempts")


def _dump(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


class Context:
    """Where an invocation happens, and what the module may ask of the host."""

    def __init__(self, host: Host, space_id: str = "space-1", config: Any = "", module_id: str = ""):
        self.host = host
        self.space_id = space_id
        self.module_id = module_id
        self.kv = KeyValue(host)
        self.log = Log(host)
        text = json.dumps(config) if isinstance(config, dict) else config
        try:
            self.config: dict = json.loads(text) if text and text.strip() else {}
        except ValueError as e:
            raise ModuleError(f"configuration is not JSON: {e}") from e

    def config_as(self, cls: type) -> Any:
        """The configuration as the dataclass `cls` (camelCase keys fill snake_case fields)."""
        names = {f.name for f in dataclasses.fields(cls)}
        values = {}
        for key, value in self.config.items():
            name = re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()
            if name not in names:
                raise ModuleError(f"unknown configuration key {key!r}")
            values[name] = value
        return cls(**values)

    def item(self) -> Optional[dict]:
        """The item the invocation is about (form instance, asset or comment), as parsed JSON."""
        text = self.host.current_item()
        return None if text is None else json.loads(text)


@dataclass
class Event:
    """`kind` is one of EVENT_KINDS; `item_id` the form instance, asset or comment."""

    kind: str
    item_id: str

    def is_form_instance(self) -> bool:
        return self.kind in ("form-instance-created", "form-instance-updated")


@dataclass
class Request:
    """A request to the module's routes; `path` starts with `/`."""

    method: str
    path: str
    query: str = ""
    body: bytes = b""
    caller_user_id: str = "user-1"
    caller_handle: str = "ann"
    caller_role: str = "owner"
    params: dict = field(default_factory=dict)

    @property
    def segments(self) -> list[str]:
        return [s for s in self.path.split("/") if s]

    def json(self) -> Any:
        """The body parsed as JSON (None when empty); a body that is not JSON raises HttpError (400)."""
        if not self.body:
            return None
        try:
            return json.loads(self.body)
        except ValueError as e:
            problem = {"path": "", "code": "NOT_JSON", "message": str(e)}
            raise HttpError.bad_request("request body is not JSON", [problem]) from e


@dataclass
class Response:
    status: int
    body: str = ""

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


def json_response(value: Any, status: int = 200) -> Response:
    return Response(status, json.dumps(value, separators=(",", ":")))


def not_found() -> Response:
    """404 `{"error": "not found"}` (the client gets 404 NOT_FOUND "not found")."""
    return json_response({"error": "not found"}, 404)


def error_response(status: int, code: str, message: str, details: Iterable[Mapping[str, Any]] = ()) -> Response:
    """An error answer in the contract's envelope, `{"error": {code, message, details}}`, which the host passes
    on to the client. `status` is 400 to 599; `code` is the contract's code for it (VALIDATION_FAILED 400,
    FORBIDDEN 403, NOT_FOUND 404, CONFLICT 409, ...: another code is replaced by the status's own);
    `details` lists problems as `{"path", "code", "message"}`, `path` a JSON Pointer into the body
    (`/choice`) or `query.<name>`; they are left out when there are none."""
    if not isinstance(status, int) or not 400 <= status <= 599:
        raise ValueError(f"an error answer needs a status from 400 to 599, not {status!r}")
    error: dict = {"code": str(code), "message": str(message)}
    problems = [{key: str(d.get(key, "")) for key in ("path", "code", "message")} for d in details]
    if problems:
        error["details"] = problems
    return json_response({"error": error}, status)


def bad_request(message: str, details: Iterable[Mapping[str, Any]] = ()) -> Response:
    """400 VALIDATION_FAILED with `message` and the problems behind it (`[{"path", "code", "message"}]`)."""
    return error_response(400, "VALIDATION_FAILED", message, details)


# Frames from here are not the module's own code: the SDK's folder and the standard library's.
_LIBRARY_DIRS = tuple(
    os.path.dirname(os.path.abspath(path)) + os.sep for path in (__file__, getattr(traceback, "__file__", None)) if path
)


def _in_library(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_LIBRARY_DIRS)


def describe_uncaught(e: BaseException, frames: int = 5) -> tuple[str, str]:
    """An exception nobody meant to raise: one line naming its type, message and where it was raised (the
    innermost frame of the module's own code: neither the SDK nor the standard library, when there is one),
    and that line followed by the innermost `frames` frames of its traceback, for stderr."""
    stack = traceback.extract_tb(e.__traceback__)
    own = [f for f in stack if not f.filename.startswith("<") and not _in_library(f.filename)]
    place = (own or list(stack) or [None])[-1]
    where = f" (at {place.filename}:{place.lineno})" if place else ""
    head = f"{type(e).__name__}: {e}{where}"
    trace = "".join(traceback.format_exception(type(e), e, e.__traceback__, limit=-frames))
    return head, f"{head}\n{trace}"


Handler = Callable[[Context, Request], Response]


class Router:
    """Method and path segments to a handler; `{name}` segments land in `request.params`."""

    def __init__(self) -> None:
        self._routes: list[tuple[str, list[str], Handler]] = []

    def route(self, method: str, path: str) -> Callable[[Handler], Handler]:
        if method not in METHODS:
            raise ValueError(f"unknown method {method!r}")
        pattern = [s for s in path.split("/") if s]

        def register(handler: Handler) -> Handler:
            self._routes.append((method, pattern, handler))
            return handler

        return register

    def get(self, path: str) -> Callable[[Handler], Handler]:
        return self.route("GET", path)

    def post(self, path: str) -> Callable[[Handler], Handler]:
        return self.route("POST", path)

    def put(self, path: str) -> Callable[[Handler], Handler]:
        return self.route("PUT", path)

    def patch(self, path: str) -> Callable[[Handler], Handler]:
        return self.route("PATCH", path)

    def delete(self, path: str) -> Callable[[Handler], Handler]:
        return self.route("DELETE", path)

    def dispatch(self, ctx: Context, request: Request) -> Response:
        """The matching handler's response (an `HttpError` it raises answers as its error response), or 404
        `{"error": "not found"}`."""
        segments = request.segments
        for method, pattern, handler in self._routes:
            if method != request.method or len(pattern) != len(segments):
                continue
            params = {}
            for want, got in zip(pattern, segments):
                if want.startswith("{") and want.endswith("}"):
                    params[want[1:-1]] = got
                elif want != got:
                    break
            else:
                request.params = params
                try:
                    return handler(ctx, request)
                except HttpError as e:
                    return e.response()
        return not_found()


def _as_one_call(hook: Callable[..., Any]) -> Callable[..., Any]:
    """`hook`, run through its context's host's `call` when that host has one (the test kit's FakeHost):
    there, as on the real host, a call that fails keeps none of its key-value writes."""

    def run(self: Any, ctx: Context, *args: Any) -> Any:
        call = getattr(ctx.host, "call", None)
        return call(hook, self, ctx, *args) if callable(call) else hook(self, ctx, *args)

    run.__name__, run.__qualname__, run.__doc__ = hook.__name__, hook.__qualname__, hook.__doc__
    run.__wrapped__ = hook  # type: ignore[attr-defined]
    return run


class SpaceModule:
    """Subclass it: set `manifest` and `router`, override `on_event` when the module listens to events.
    Called in a test with a `FakeHost`'s context, each hook is one call of that host, as in a deployment."""

    manifest: Manifest
    router: Router = Router()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in ("on_event", "handle_request"):
            hook = cls.__dict__.get(name)
            if callable(hook) and not hasattr(hook, "__wrapped__"):
                setattr(cls, name, _as_one_call(hook))

    @_as_one_call
    def on_event(self, ctx: Context, event: Event) -> None:
        pass

    @_as_one_call
    def handle_request(self, ctx: Context, request: Request) -> Response:
        return self.router.dispatch(ctx, request)
