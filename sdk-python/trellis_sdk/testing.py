"""An in-memory host for `python -m unittest`: the key-value store with the host's semantics
(compare-and-swap on exact bytes, `increment` on decimal ASCII text within 64 bits), the current item
and the log lines."""

from __future__ import annotations

import json
import re
from typing import Any, Optional

from . import Context, ModuleError

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
