"""Live updates (`GET /v0/events`, Server-Sent Events read with httpx-sse): the `LiveStream` that
`Trellis.events()` opens, and the `LiveEvent`s it gives."""

from __future__ import annotations

import json
import time
from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx
from httpx_sse import connect_sse

from trellis_api.models import (
    LiveAssetChanged,
    LiveCommentCreated,
    LiveInviteCreated,
    LiveItemChanged,
    LiveMessageCreated,
    LiveRegistrationChanged,
    LiveUnreadChanged,
)

from .errors import TrellisError

if TYPE_CHECKING:
    # Only for the annotations: client.py imports this module.
    from .client import Trellis

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

    def _run(self) -> Generator[LiveEvent | None, None, None]:
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
