"""An in-memory host for `python -m unittest`: the key-value store with the host's semantics
(compare-and-swap on exact bytes, `increment` on decimal ASCII text within 64 bits), the current item
and the log lines."""

from __future__ import annotations

import json
import re
from typing import Any, Optional

from . import Context, ModuleError, Response

MAX_KEY_BYTES = 512
MAX_VALUE_BYTES = 1024 * 1024
_INTEGER = re.compile(rb"^[+-]?[0-9]+$")
_I64 = (-(2**63), 2**63 - 1)


class FakeHost:
    """What the host would answer, kept in memory. `set_item` sets what `item-read` returns."""

    def __init__(self) -> None:
        self.kv: dict[str, bytes] = {}
        self.logs: list[tuple[str, str]] = []
        self.item: Optional[str] = None

    def context(self, config: Any = "", space_id: str = "space-1", module_id: str = "") -> Context:
        return Context(self, space_id, config, module_id)

    def set_item(self, item: Any) -> None:
        self.item = None if item is None else json.dumps(item)

    def _check(self, key: str, value: Optional[bytes] = None) -> None:
        if len(key.encode()) > MAX_KEY_BYTES:
            raise ModuleError(f"key longer than {MAX_KEY_BYTES} bytes")
        if value is not None and len(value) > MAX_VALUE_BYTES:
            raise ModuleError(f"value larger than {MAX_VALUE_BYTES} bytes")

    def kv_get(self, key: str) -> Optional[bytes]:
        return self.kv.get(key)

    def kv_set(self, key: str, value: bytes) -> None:
        self._check(key, value)
        self.kv[key] = bytes(value)

    def kv_delete(self, key: str) -> None:
        self.kv.pop(key, None)

    def kv_list_keys(self, prefix: str, start_after: Optional[str], limit: int) -> list[str]:
        keys = sorted(k for k in self.kv if k.startswith(prefix) and (start_after is None or k > start_after))
        return keys[: min(limit, 1000)]

    def kv_compare_and_swap(self, key: str, expected: Optional[bytes], new: Optional[bytes]) -> bool:
        self._check(key, new)
        if self.kv.get(key) != expected:
            return False
        if new is None:
            self.kv.pop(key, None)
        else:
            self.kv[key] = bytes(new)
        return True

    def kv_increment(self, key: str, delta: int) -> int:
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
        return self.item

    def log(self, level: str, message: str) -> None:
        self.logs.append((level, message))


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
