"""An in-memory host for `python -m unittest`: the key-value store with the host's semantics
(compare-and-swap on exact bytes, `increment` on decimal ASCII text within 64 bits), the current item
and the log lines.

Given the module's manifest (`FakeHost(Module.manifest)`), it refuses what the real host refuses: a module
whose component imports an interface its manifest does not ask for the permission of (`PermissionRefused`,
at once, as the host refuses it at load), and a configuration that breaks the manifest's `config_schema`
(`ConfigRefused` from `context(config)`, every problem listed, as when a space connects the module).
Configurations are checked with the `jsonschema` package."""

from __future__ import annotations

import json
import pathlib
import re
from typing import Any, Callable, Iterable, Optional

from . import Context, Manifest, ModuleError, Response

MAX_KEY_BYTES = 512
MAX_VALUE_BYTES = 1024 * 1024
_INTEGER = re.compile(rb"^[+-]?[0-9]+$")
_I64 = (-(2**63), 2**63 - 1)

# The interface behind each permission: its name, but for `media-decode`.
_INTERFACE_OF = {"media-decode": "media"}
_PERMISSION_OF = {"media": "media-decode"}
# What componentize-py imports with the SDK (guest.py imports all three) when there is no wit/world.wit.
_SDK_IMPORTS = ("key-value", "logging", "item-read")
_WORLD = pathlib.Path(__file__).resolve().parent.parent / "wit" / "world.wit"
_WORLD_IMPORT = re.compile(r"\bimport\s+trellis:module/([a-z-]+)@([0-9.]+)\s*;")


def _imported(permission: str, version: str = "0.2.0") -> tuple[str, str]:
    """`(permission, interface)` of an imported host interface."""
    return permission, f"trellis:module/{_INTERFACE_OF.get(permission, permission)}@{version}"


def world_imports() -> list[tuple[str, str]]:
    """The host interfaces the module's component imports, as `(permission, interface)`: those
    `wit/world.wit` beside `trellis_sdk/` lists (`./build.sh` builds with it, and componentize-py imports
    every interface of its world); without that file, the three the SDK's guest.py imports."""
    try:
        world = _WORLD.read_text(encoding="utf-8")
    except OSError:
        return [_imported(permission) for permission in _SDK_IMPORTS]
    found = _WORLD_IMPORT.findall(re.sub(r"//.*", "", world))
    return [_imported(_PERMISSION_OF.get(name, name), version) for name, version in found]


class PermissionRefused(Exception):
    """A module whose component imports a host interface its manifest does not ask for the permission of:
    the real host refuses to load it. `FakeHost(manifest)` raises it for every interface `wit/world.wit`
    imports (used or not), and a capability the manifest does not ask for raises it where it is used. Not a
    `ModuleError`, so the module's own `except ModuleError` does not hide it. `permissions` lists what is
    missing, and the message gives the line to add for each."""

    def __init__(self, module_id: str, imports: Iterable[tuple[str, str]]):
        imports = list(imports)
        reasons = "; it ".join(
            f'imports {interface} without asking for the "{permission}" permission: add it to the manifest '
            f'(`permissions=["{permission}", ...]`)'
            for permission, interface in imports
        )
        super().__init__(f'the host refuses to load module "{module_id}": it {reasons}')
        self.permissions = [permission for permission, _ in imports]


class ConfigRefused(ModuleError):
    """A configuration that breaks the manifest's `config_schema`, as the host refuses it when a space
    connects the module: `problems` lists every one as `{"path", "message"}` (`path` a JSON Pointer into the
    configuration, "" for the whole of it), and the message lists them as `path: message; ...`."""

    def __init__(self, problems: list[dict]):
        listed = "; ".join(f"{p['path']}: {p['message']}" for p in problems)
        super().__init__(f"the configuration breaks the module's schema: {listed}")
        self.problems = problems


class FakeHost:
    """What the host would answer, kept in memory. `set_item` sets what `item-read` returns.

    `manifest`: the module's; the host then refuses what the real host refuses (see the module's
    docstring). Without one everything is allowed and configurations are not checked. `imports`: the
    permissions whose interfaces the component imports (default: those of `wit/world.wit`)."""

    def __init__(self, manifest: Optional[Manifest] = None, imports: Optional[Iterable[str]] = None) -> None:
        self.kv: dict[str, bytes] = {}
        self.logs: list[tuple[str, str]] = []
        self.item: Optional[str] = None
        self.manifest = manifest
        self.imports = world_imports() if imports is None else [_imported(p) for p in imports]
        self._validator = None
        if manifest is not None:
            manifest.check()
            asked = _permissions_of(manifest)
            missing = [(permission, name) for permission, name in self.imports if permission not in asked]
            if missing:
                raise PermissionRefused(manifest.id, missing)

    def context(self, config: Any = "", space_id: str = "space-1", module_id: str = "") -> Context:
        """The context a hook gets, for a space that connected the module with `config` (a dict or other
        JSON value, or JSON text; "" or None: none, which the host takes as `{}`). With a manifest, a
        configuration that breaks its `config_schema` raises `ConfigRefused`, listing every problem, and
        `module_id` defaults to the manifest's id."""
        if self.manifest is None:
            return Context(self, space_id, config, module_id)
        value = _config_value(config)
        if self._validator is None:
            self._validator = _config_validator(self.manifest)
        problems = self._validator(value)
        if problems:
            raise ConfigRefused(problems)
        return Context(self, space_id, json.dumps(value), module_id or self.manifest.id)

    def _need(self, permission: str) -> None:
        """Raises `PermissionRefused` when the manifest does not ask for `permission`."""
        if self.manifest is not None and permission not in _permissions_of(self.manifest):
            raise PermissionRefused(self.manifest.id, [_imported(permission)])

    def call(self, handler: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Runs `handler(*args, **kwargs)` (a call of the module's hook or route) as the real host runs a
        call: when it raises, its key-value writes are dropped and the store is as it was before the call;
        the exception propagates. Logs stay, as they do there."""
        before = dict(self.kv)
        try:
            return handler(*args, **kwargs)
        except BaseException:
            self.kv.clear()
            self.kv.update(before)
            raise

    def set_item(self, item: Any) -> None:
        self.item = None if item is None else json.dumps(item)

    def _check(self, key: str, value: Optional[bytes] = None) -> None:
        if len(key.encode()) > MAX_KEY_BYTES:
            raise ModuleError(f"key longer than {MAX_KEY_BYTES} bytes")
        if value is not None and len(value) > MAX_VALUE_BYTES:
            raise ModuleError(f"value larger than {MAX_VALUE_BYTES} bytes")

    def kv_get(self, key: str) -> Optional[bytes]:
        self._need("key-value")
        return self.kv.get(key)

    def kv_set(self, key: str, value: bytes) -> None:
        self._need("key-value")
        self._check(key, value)
        self.kv[key] = bytes(value)

    def kv_delete(self, key: str) -> None:
        self._need("key-value")
        self.kv.pop(key, None)

    def kv_list_keys(self, prefix: str, start_after: Optional[str], limit: int) -> list[str]:
        self._need("key-value")
        keys = sorted(k for k in self.kv if k.startswith(prefix) and (start_after is None or k > start_after))
        return keys[: min(limit, 1000)]

    def kv_compare_and_swap(self, key: str, expected: Optional[bytes], new: Optional[bytes]) -> bool:
        self._need("key-value")
        self._check(key, new)
        if self.kv.get(key) != expected:
            return False
        if new is None:
            self.kv.pop(key, None)
        else:
            self.kv[key] = bytes(new)
        return True

    def kv_increment(self, key: str, delta: int) -> int:
        self._need("key-value")
        self._check(key)
        current = self.kv.get(key, b"0")
        if not _INTEGER.match(current):
            raise ModuleError(f"value of {key!r} is not a decimal integer")
        value = int(current) + delta
        if not _I64[0] <= int(current) <= _I64[1] or not _I64[0] <= value <= _I64[1]:
            raise ModuleError(f"increment of {key!r} overflows 64 bits")
        self.kv[key] = str(value).encode()
        return value

    def current_item(self) -> Optional[str]:
        self._need("item-read")
        return self.item

    def log(self, level: str, message: str) -> None:
        self._need("logging")
        self.logs.append((level, message))


def _permissions_of(manifest: Manifest) -> list[str]:
    """The permission names a manifest asks for (`outbound-http:<hosts>` is `outbound-http`)."""
    return [permission.split(":", 1)[0] for permission in manifest.permissions]


def _config_value(config: Any) -> Any:
    """A test's configuration as the JSON value the host would hold ({} for none)."""
    if config is None:
        return {}
    if isinstance(config, (str, bytes)):
        if not config.strip():
            return {}
        try:
            return json.loads(config)
        except ValueError as e:
            raise ModuleError(f"configuration is not JSON: {e}") from e
    return config


def check_config(manifest: Manifest, config: Any) -> list[dict]:
    """The configuration's problems by the manifest's `config_schema`, `[{"path", "message"}]` (empty: it
    fits). Raises ModuleError for a schema the host would refuse at load. Checked with `jsonschema` the way
    the host's validator (the Rust crate jsonschema) does: the draft its `$schema` names (2020-12 without
    one), every problem, unknown keywords ignored, `format` asserted only in drafts 7, 6 and 4 (an
    annotation in 2019-09 and 2020-12)."""
    return _config_validator(manifest)(config)


_DRAFTS = {
    "json-schema.org/draft/2020-12/schema": "Draft202012Validator",
    "json-schema.org/draft/2019-09/schema": "Draft201909Validator",
    "json-schema.org/draft-07/schema": "Draft7Validator",
    "json-schema.org/draft-06/schema": "Draft6Validator",
    "json-schema.org/draft-04/schema": "Draft4Validator",
}
_ASSERTS_FORMATS = ("Draft7Validator", "Draft6Validator", "Draft4Validator")


def _config_validator(manifest: Manifest):
    try:
        import jsonschema
    except ImportError:
        raise ModuleError(
            "FakeHost checks configurations against the manifest's config_schema with the jsonschema package, "
            "which is not installed: `python3 -m pip install jsonschema` (Debian: `apt-get install "
            "python3-jsonschema`)"
        ) from None
    schema = manifest.config_schema
    declared = schema.get("$schema") if isinstance(schema, dict) else None
    key = "json-schema.org/draft/2020-12/schema" if declared is None else re.sub(r"^https?://|#$", "", str(declared))
    if key not in _DRAFTS:
        raise ModuleError(f"config_schema's $schema {declared!r}: the host knows drafts 2020-12, 2019-09, 7, 6 and 4")
    cls = getattr(jsonschema, _DRAFTS[key])
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as e:
        raise ModuleError(f"config_schema is not a valid JSON Schema: {e.message}") from None
    formats = None
    if _DRAFTS[key] in _ASSERTS_FORMATS:
        formats = getattr(cls, "FORMAT_CHECKER", None) or jsonschema.FormatChecker()
    validator = cls(schema, format_checker=formats)

    def problems(config: Any) -> list[dict]:
        return [{"path": _pointer(e.absolute_path), "message": e.message} for e in validator.iter_errors(config)]

    return problems


def _pointer(path: Iterable[Any]) -> str:
    """A JSON Pointer (RFC 6901) to the value at `path`."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


# The contract's codes and their statuses, and the code of a bare status (the host's `status_of` and
# `code_for_status`): a module's code reaches the client only under its own status.
_CODE_STATUS = {
    "VALIDATION_FAILED": 400, "PIN_INVALID": 400, "UNAUTHENTICATED": 401, "LICENSE_REQUIRED": 401,
    "FORBIDDEN": 403, "ENTITLEMENT_LIMIT_EXCEEDED": 403, "LICENSE_INVALID": 403, "NOT_FOUND": 404,
    "FEATURE_DISABLED": 404, "METHOD_NOT_ALLOWED": 405, "CONFLICT": 409, "INVALID_TRANSITION": 409,
    "MAX_FILES_EXCEEDED": 409, "PRECONDITION_FAILED": 412, "PAYLOAD_TOO_LARGE": 413,
    "UNSUPPORTED_MEDIA_TYPE": 415, "RATE_LIMITED": 429, "INTERNAL": 500, "MODULE_FAILED": 502,
    "MEDIA_UNAVAILABLE": 503, "SERVICE_UNAVAILABLE": 503,
}
_STATUS_CODE = {
    400: "VALIDATION_FAILED", 401: "UNAUTHENTICATED", 403: "FORBIDDEN", 404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED",
    409: "CONFLICT", 412: "PRECONDITION_FAILED", 413: "PAYLOAD_TOO_LARGE", 415: "UNSUPPORTED_MEDIA_TYPE",
    422: "VALIDATION_FAILED", 429: "RATE_LIMITED", 503: "MEDIA_UNAVAILABLE",
}
_REASON = {
    400: "bad request", 401: "unauthorized", 403: "forbidden", 404: "not found", 405: "method not allowed",
    409: "conflict", 410: "gone", 412: "precondition failed", 413: "payload too large",
    415: "unsupported media type", 422: "unprocessable entity", 429: "too many requests",
    500: "internal server error", 501: "not implemented", 502: "bad gateway", 503: "service unavailable",
    504: "gateway timeout",
}


def client_error(response: Response) -> Optional[dict]:
    """What the HTTP client receives for an error answer, by the host's rules: `{"code", "message"}` (and
    `"details"`) of the contract's envelope, its `numeric` and `requestId` left out; None for a success.
    The module's code, message and details are kept from an envelope (the code only under its own status);
    `{"error": "text"}` or `{"message": "text"}` give the message; otherwise it is the status's reason."""
    if response.status < 400:
        return None
    try:
        body = json.loads(response.body)
    except ValueError:
        body = None
    error = body.get("error") if isinstance(body, dict) else None
    envelope = error if isinstance(error, dict) else {}
    code = envelope.get("code")
    if not isinstance(code, str) or _CODE_STATUS.get(code) != response.status:
        code = _STATUS_CODE.get(response.status, "INTERNAL")
    texts = [envelope.get("message"), error, body.get("message") if isinstance(body, dict) else None]
    message = next((t for t in texts if isinstance(t, str) and t.strip()), None)
    sent: dict = {"code": code, "message": _REASON.get(response.status, "error") if message is None else message[:500]}
    details = envelope.get("details")
    if isinstance(details, list):
        sent["details"] = [{key: _text(d, key) for key in ("path", "code", "message")} for d in details]
    return sent


def _text(detail: Any, key: str) -> str:
    value = detail.get(key) if isinstance(detail, dict) else None
    return value if isinstance(value, str) else ""
