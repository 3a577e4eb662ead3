"""The hand-written part of the Trellis Python client: a thin layer over `trellis_api`.

`trellis_api` is generated from the server's OpenAPI document by openapi-python-client
(`scripts/clients generate`; never edit it). Its operations take a `client`; `Trellis` makes that
client carry the license key and the session, runs operations with errors raised as one
`TrellisError`, and adds what a person needs help with: sign-up with its PIN, paging, uploads and
module routes, and live updates (`events()`, Server-Sent Events read with httpx-sse).

    from trellis_api.api.spaces import list_spaces
    from trellis_client import Trellis

    trellis = Trellis("http://127.0.0.1:8080", license_key)
    trellis.login("ann", "correct horse 42")
    for space in trellis.paginate(list_spaces):
        print(space.name)
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import httpx
from httpx_sse import connect_sse

from trellis_api.client import AuthenticatedClient, Client
from trellis_api.models import (
    LiveAssetChanged,
    LiveCommentCreated,
    LiveInviteCreated,
    LiveItemChanged,
    LiveMessageCreated,
    LiveRegistrationChanged,
    LiveUnreadChanged,
)
from trellis_api.types import Unset

__all__ = ["AttachmentFile", "ErrorDetail", "LiveEvent", "LiveStream", "Trellis", "TrellisError", "UploadFile"]

#: The `data:` of each live event, as the generated model named after it; `reset` (and any event
#: this version does not know) keeps its JSON as a dict.
LIVE_EVENT_MODELS: dict[str, Any] = {
    "message.created": LiveMessageCreated,
    "unread.changed": LiveUnreadChanged,
    "comment.created": LiveCommentCreated,
    "asset.changed": LiveAssetChanged,
    "invite.created": LiveInviteCreated,
    "registration.changed": LiveRegistrationChanged,
    "item.changed": LiveItemChanged,
}


@dataclass(frozen=True)
class LiveEvent:
    """One event of `GET /v0/events`: its name (`message.created`, ..., or `reset`: read again what you
    show), its id (send it back to resume) and its data (`LiveMessageCreated`, ...; a dict for `reset`)."""

    name: str
    id: str
    data: Any


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
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        #: The contract's code, e.g. `VALIDATION_FAILED`; `HTTP_<status>` when the body was no envelope.
        self.code = code
        #: The code's number, e.g. 800; 0 when the body was no envelope.
        self.numeric = numeric
        self.message = message
        #: Every problem found, for validation failures; empty otherwise.
        self.details = details or []
        #: The request's id (`X-Request-Id`), for the server's log.
        self.request_id = request_id

    @classmethod
    def from_answer(cls, status: int, content: bytes, headers: Any = None) -> TrellisError:
        """The error a failed answer stands for."""
        header_id = headers.get("X-Request-Id") if headers is not None else None
        try:
            body = json.loads(content) if content else None
        except ValueError:
            body = None
        error = body.get("error") if isinstance(body, dict) else None
        if not isinstance(error, dict) or not isinstance(error.get("code"), str):
            text = content.decode("utf-8", "replace").strip() or "request failed"
            return cls(status, f"HTTP_{status}", 0, text, [], header_id)
        details = [
            ErrorDetail(str(d.get("path", "")), str(d.get("code", "")), str(d.get("message", "")))
            for d in error.get("details") or []
            if isinstance(d, dict)
        ]
        numeric = error.get("numeric")
        return cls(
            status,
            error["code"],
            numeric if isinstance(numeric, int) else 0,
            str(error.get("message", "")),
            details,
            error.get("requestId") if isinstance(error.get("requestId"), str) else header_id,
        )


@dataclass
class UploadFile:
    """A file for an upload: its bytes (or an open binary file), its name and its type."""

    content: bytes | BinaryIO
    name: str
    content_type: str = "application/octet-stream"


@dataclass
class AttachmentFile(UploadFile):
    """One file for a form instance's file field."""

    field_id: str = field(default="", kw_only=True)


class LiveStream:
    """The live updates of `GET /v0/events`, one `LiveEvent` at a time (`Trellis.events()` makes it).

    It is open when made: the first answer was 200, so every later event reaches it; a refusal of that
    first request raises `TrellisError` (401, 429 with five streams open, ...), a network failure
    httpx's error. Without `last_event_id` it starts with the next event; with one it resumes after
    that event (the missed ones first, or `reset` when too many were missed: read again what you show).
    After that, a dropped or ended stream is opened again with `Last-Event-ID` (the last id seen, kept
    in `last_event_id`) after `retry` seconds, doubled after each failure up to 30 (429 and 503 wait
    their `Retry-After`); a refusal (401 once logged out, 403, ...) raises `TrellisError`. Keep-alives
    arrive every 15 seconds, so a connection silent for 45 counts as dropped. `close()` (or leaving
    its `with`) closes the connection."""

    def __init__(self, trellis: Trellis, last_event_id: str | None = None, retry: float = 1.0) -> None:
        #: The id of the last event received, to resume from.
        self.last_event_id = last_event_id
        self._trellis = trellis
        self._retry = retry
        self._events = self._run()
        next(self._events)  # the first connection is open

    def __iter__(self) -> LiveStream:
        return self

    def __next__(self) -> LiveEvent:
        while True:
            event = next(self._events)
            if event is not None:  # None: a connection opened
                return event

    def close(self) -> None:
        """Closes the connection; the iteration ends."""
        self._events.close()

    def __enter__(self) -> LiveStream:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _run(self) -> Iterator[LiveEvent | None]:
        delay, first = self._retry, True
        timeout = httpx.Timeout(30.0, read=45.0)
        while True:
            headers = {"Last-Event-ID": self.last_event_id} if self.last_event_id else {}
            wait = delay
            try:
                client = self._trellis.client.get_httpx_client()
                with connect_sse(client, "GET", "/v0/events", headers=headers, timeout=timeout) as source:
                    answer = source.response
                    if answer.status_code in (429, 503) and not first:
                        answer.read()
                        after = answer.headers.get("Retry-After", "")
                        wait = float(after) if after.isdigit() else delay
                    elif not answer.is_success:
                        answer.read()
                        raise TrellisError.from_answer(answer.status_code, answer.content, answer.headers)
                    else:
                        first, delay, wait = False, self._retry, self._retry
                        yield None
                        for sse in source.iter_sse():
                            if not sse.event:
                                continue
                            model = LIVE_EVENT_MODELS.get(sse.event)
                            data = json.loads(sse.data) if sse.data else {}
                            self.last_event_id = sse.id or self.last_event_id
                            yield LiveEvent(sse.event, sse.id, model.from_dict(data) if model else data)
            except httpx.TransportError:
                # Dropped, timed out, or (httpx_sse.SSEError) not an event stream: try again, unless
                # the stream never opened.
                if first:
                    raise
            time.sleep(wait)
            delay = min(delay * 2, 30.0)


class Trellis:
    """A client of one server: `client` is the generated client carrying the license key and, once
    known, the session; `call` runs a generated operation and raises `TrellisError` on failure."""

    def __init__(self, base_url: str, license_key: str, token: str | None = None, *, timeout: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.license_key = license_key
        self._timeout = httpx.Timeout(timeout)
        self._client: Client | AuthenticatedClient | None = None
        self._token: str | None = None
        self.token = token

    @property
    def token(self) -> str | None:
        """The session token the next requests carry, if any; `sign_up` and `login` set it."""
        return self._token

    @token.setter
    def token(self, value: str | None) -> None:
        self.close()
        self._token = value

    @property
    def client(self) -> Client | AuthenticatedClient:
        """The generated client to pass to `trellis_api` operations (`AuthenticatedClient` once signed in)."""
        if self._client is None:
            headers = {"X-License-Key": self.license_key}
            if self._token:
                self._client = AuthenticatedClient(
                    base_url=self.base_url, token=self._token, headers=headers, timeout=self._timeout
                )
            else:
                self._client = Client(base_url=self.base_url, headers=headers, timeout=self._timeout)
        return self._client

    def close(self) -> None:
        """Closes the connections of the current client."""
        if self._client is not None:
            self._client.get_httpx_client().close()
            self._client = None

    def __enter__(self) -> Trellis:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def call(self, operation: Any, /, **kwargs: Any) -> Any:
        """Runs a generated operation (a module such as `trellis_api.api.spaces.list_spaces`, or its
        `sync_detailed`) with this client and returns its parsed answer; a failure raises `TrellisError`."""
        run = getattr(operation, "sync_detailed", operation)
        response = run(client=self.client, **kwargs)
        status = int(response.status_code)
        if not 200 <= status < 300:
            raise TrellisError.from_answer(status, response.content, response.headers)
        return response.parsed

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """A request by path with httpx's arguments (`json`, `params`, `files`, `data`), for what the
        generated operations do not cover; a failure raises `TrellisError`."""
        response = self.client.get_httpx_client().request(method, path, **kwargs)
        if not response.is_success:
            raise TrellisError.from_answer(response.status_code, response.content, response.headers)
        return response

    def _json(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self.request(method, path, **kwargs)
        return response.json() if response.content else None

    # --- sign-up and login ---

    def sign_up(self, details: dict[str, str], password: str, get_pin: Callable[[str], str]) -> dict[str, Any]:
        """Signs a new user up (`details`: email, handle, fullName, displayName): starts the sign-up,
        asks `get_pin(email)` for the PIN the server mailed, verifies it and sets the password. The
        client carries the new session from then on; the answer `{sessionToken, expiresAt, user}` is returned."""
        token = self._json("POST", "/v0/auth/sign-up/start", json=details)["signupToken"]
        pin = get_pin(details["email"])
        self._json("POST", "/v0/auth/sign-up/verify-pin", json={"signupToken": token, "pin": pin})
        session = self._json("POST", "/v0/auth/sign-up/complete", json={"signupToken": token, "password": password})
        self.token = session["sessionToken"]
        return session

    def login(self, login: str, password: str) -> dict[str, Any]:
        """Logs in with the handle or the e-mail; the client carries the session from then on."""
        session = self._json("POST", "/v0/auth/login", json={"login": login, "password": password})
        self.token = session["sessionToken"]
        return session

    # --- paging ---

    def paginate(self, operation: Any, /, **kwargs: Any) -> Iterator[Any]:
        """Every item of a list operation, page after page, following `nextCursor`:
        `for space in trellis.paginate(list_spaces): ...`. A failed page raises `TrellisError`."""
        cursor: str | None = None
        while True:
            page = self.call(operation, **kwargs, **({"cursor": cursor} if cursor else {}))
            if page is None:
                raise TrellisError(0, "UNDOCUMENTED_ANSWER", 0, "a list operation answered no page")
            yield from page.items
            next_cursor = page.next_cursor
            if isinstance(next_cursor, Unset) or not next_cursor:
                return
            cursor = next_cursor

    # --- uploads ---

    def upload_attachments(
        self, form_id: str, files: list[AttachmentFile], *, params: dict[str, str] | None = None
    ) -> dict[str, Any]:
        """Uploads files to file fields of a form instance, as one multipart request (all or nothing):
        `fieldIds` and `files` parts paired by position. `params` may name the workflow view
        (`workflowConfigurationId`, `workflowViewId`) the instance is reached through."""
        return self._json(
            "POST",
            f"/v0/media/forms/{form_id}/attachments",
            params=params,
            data={"fieldIds": [f.field_id for f in files]},
            files=[("files", (f.name, f.content, f.content_type)) for f in files],
        )

    def upload_asset(self, space_id: str, asset_id: str, upload: UploadFile) -> dict[str, Any]:
        """Uploads the bytes of an announced asset (`POST /v0/spaces/{spaceId}/assets` announced it)."""
        return self._json(
            "POST",
            f"/v0/media/spaces/{space_id}/assets/{asset_id}",
            files=[("file", (upload.name, upload.content, upload.content_type))],
        )

    def upload_avatar(self, upload: UploadFile) -> dict[str, Any]:
        """Sets the caller's avatar (PNG, JPEG, WebP or GIF)."""
        return self._json(
            "POST", "/v0/media/users/me/avatar", files=[("file", (upload.name, upload.content, upload.content_type))]
        )

    # --- live updates ---

    def events(self, last_event_id: str | None = None, *, retry: float = 1.0) -> LiveStream:
        """Opens the signed-in user's live updates (`GET /v0/events` with the client's headers) and
        returns once the stream is open: a `LiveStream`, an iterator of `LiveEvent`s.
        `with trellis.events() as events: for event in events: ...`. See `LiveStream`."""
        return LiveStream(self, last_event_id, retry)

    # --- module routes ---

    def call_module(self, space_id: str, module_id: str, method: str, path: str, body: Any = None) -> Any:
        """Calls a module's own route, `/v0/spaces/{spaceId}/modules/{moduleId}/{path}`, with any
        method and a JSON body; the module defines the path and the answer."""
        url = f"/v0/spaces/{space_id}/modules/{module_id}/{path.lstrip('/')}"
        return self._json(method, url, **({"json": body} if body is not None else {}))
