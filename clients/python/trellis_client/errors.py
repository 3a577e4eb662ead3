"""`TrellisError`: every failed answer, read from the error envelope the server sends."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class ErrorDetail:
    """One problem of a failed request: a JSON Pointer into the body (or `query.<name>`), a code, a message."""

    path: str
    code: str
    message: str


class TrellisError(Exception):
    """A non-2xx answer, read from the error envelope `{"error": {code, numeric, message, details, requestId}}`."""

    def __init__(
        self,
        status: int,
        code: str,
        numeric: int,
        message: str,
        details: list[ErrorDetail] | None = None,
        request_id: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        #: The contract's code, e.g. `VALIDATION_FAILED`; `HTTP_<status>` when the body was no envelope
        #: (a `HEAD`, or a 304 to `if_none_match`).
        self.code = code
        #: The code's number, e.g. 800; 0 when the body was no envelope.
        self.numeric = numeric
        self.message = message
        #: Every problem found, for validation failures; empty otherwise.
        self.details = details or []
        #: The request's id (`X-Request-Id`), for the server's log.
        self.request_id = request_id
        #: Seconds to wait before trying again (`Retry-After` of a 429 or 503), if the answer said.
        self.retry_after = retry_after

    @classmethod
    def from_answer(cls, status: int, content: bytes, headers: Mapping[str, str] | None = None) -> TrellisError:
        """The error a failed answer stands for."""
        header_id = headers.get("X-Request-Id") if headers is not None else None
        after = headers.get("Retry-After", "") if headers is not None else ""
        retry_after = float(after) if after.isdigit() else None
        try:
            body = json.loads(content) if content else None
        except ValueError:
            body = None
        error = body.get("error") if isinstance(body, dict) else None
        if not isinstance(error, dict) or not isinstance(error.get("code"), str):
            text = content.decode("utf-8", "replace").strip() or "request failed"
            return cls(status, f"HTTP_{status}", 0, text, [], header_id, retry_after)
        details = [
            ErrorDetail(str(d.get("path", "")), str(d.get("code", "")), str(d.get("message", "")))
            for d in error.get("details") or []
            if isinstance(d, dict)
        ]
        numeric = error.get("numeric")
        request_id = error.get("requestId")
        return cls(
            status,
            error["code"],
            numeric if isinstance(numeric, int) else 0,
            str(error.get("message", "")),
            details,
            request_id if isinstance(request_id, str) else header_id,
            retry_after,
        )
