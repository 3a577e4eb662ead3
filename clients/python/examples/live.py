"""Live updates through the Python client: one user holds `GET /v0/events` open (`Trellis.events()`,
httpx streaming read by httpx-sse), another sends them a message over HTTP, and the stream must bring
`message.created` and `unread.changed` with the new message's ids and count. Then, with the stream
closed, a reply is sent, and a stream opened again from the last id seen must replay it (no `reset`).
Exits non-zero on the first failure.

    TRELLIS_BASE=http://127.0.0.1:8080 TRELLIS_DATA=data PYTHONPATH=clients/python python clients/python/examples/live.py

TRELLIS_DATA is the server's data directory (`license.key`, `outbox/`), as for quickstart.py, whose PIN
reader this uses. Each run signs up two new users. It waits for events without a deadline of its own:
scripts/clients runs it under `timeout`.
"""

from __future__ import annotations

import secrets
import sys

from quickstart import BASE, DATA, pin_from_outbox

from trellis_api.api.messages import send_message
from trellis_api.models import LiveMessageCreated, LiveUnreadChanged, NewMessage
from trellis_client import Trellis, TrellisError


def sign_up(trellis: Trellis, prefix: str) -> str:
    handle = f"{prefix}_{secrets.token_hex(4)}"
    details = {"email": f"{handle}@example.org", "handle": handle, "fullName": "Live Example", "displayName": prefix}
    trellis.sign_up(details, "correct horse 42", pin_from_outbox)
    return handle


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise RuntimeError(what)


def main() -> None:
    license_key = (DATA / "license.key").read_text().strip()
    with Trellis(BASE, license_key) as listener, Trellis(BASE, license_key) as sender:
        handle = sign_up(listener, "live")
        sign_up(sender, "sender")

        # `events()` returns once the stream is open: from then on it hears every event.
        with listener.events() as events:
            print("stream open")
            sent = sender.call(send_message, body=NewMessage(to=handle, subject="Live?", body="Seen live?"))
            created, unread = next(events), next(events)
        expect(created.name == "message.created", f"expected message.created, got {created.name} {created.data}")
        expect(isinstance(created.data, LiveMessageCreated), f"message.created data is {type(created.data)}")
        expect(
            (created.data.thread_id, created.data.message_id, created.data.unread)
            == (sent.thread_id, sent.message_id, 1),
            f"message.created {created.data.to_dict()} for {sent.to_dict()}",
        )
        expect(unread.name == "unread.changed", f"expected unread.changed, got {unread.name} {unread.data}")
        expect(isinstance(unread.data, LiveUnreadChanged) and unread.data.unread == 1, f"unread.changed {unread.data}")
        expect(events.last_event_id == unread.id, f"last_event_id {events.last_event_id}, not {unread.id}")
        print("message.created", created.id, created.data.to_dict())
        print("unread.changed", unread.id, unread.data.to_dict())

        # A reply while no stream is open; resuming from the last id seen replays it (no reset).
        second = sender.call(send_message, body=NewMessage(thread_id=sent.thread_id, body="Still there?"))
        with listener.events(last_event_id=unread.id) as resumed:
            event = next(resumed)
        expect(event.name == "message.created", f"the resumed stream began with {event.name}, not message.created")
        expect(event.data.message_id == second.message_id and event.data.unread == 2, f"resumed {event.data}")
        expect(int(event.id) > int(unread.id), f"id {event.id} after {unread.id}")
    print("live updates (Python): message.created and unread.changed arrived, and the stream resumed")


if __name__ == "__main__":
    try:
        main()
    except TrellisError as error:
        print(f"live example failed: {error} (request {error.request_id or '?'})", file=sys.stderr)
        sys.exit(1)
