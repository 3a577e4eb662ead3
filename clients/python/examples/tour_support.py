"""What the tour (tour.py) works with: its settings, the configuration documents and pictures it sends,
the PIN read from the outbox, sign-up, the operator's grant, and the checks (`expect`, `refusal`,
`deadline`) whose failure ends it."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shlex
import signal
import struct
import subprocess
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

from trellis_client import Trellis, TrellisError

BASE = os.environ.get("TRELLIS_BASE", "http://127.0.0.1:8080")
DATA = Path(os.environ.get("TRELLIS_DATA", "data"))
# The server's command that makes a handle a platform operator, short of the handle (for instance
# `trellis admin grant-operator --config /srv/trellis/trellis.toml`); without it the operator part is skipped.
GRANT_OPERATOR = os.environ.get("TRELLIS_GRANT_OPERATOR") or None
PASSWORD = "correct horse 42"
SUFFIX = secrets.token_hex(4)

# The ids the configuration documents give their page, fields, workbaskets, transition and view.
PAGE, AMOUNT, RECEIPT = (f"6c1e8a40-1d7b-4c55-9a0e-3f2b7d9c10{n}" for n in ("00", "01", "02"))
SUBMITTED, APPROVED, APPROVE, ALL_VIEW = (f"7d2f9b51-2e8c-4d66-8b1f-4a3c8e0d21{n}" for n in ("01", "02", "03", "04"))


class TourFailed(Exception):
    """A check of the tour did not hold."""


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise TourFailed(what)


def pin_from_outbox(email: str) -> str:
    """The 6-digit PIN of the newest mail to `email` in the outbox, waiting up to 10 seconds for it."""
    outbox = DATA / "outbox"
    for _ in range(50):
        pin = None
        for mail in sorted(outbox.glob("*")) if outbox.is_dir() else []:
            text = mail.read_text("utf-8", "replace").replace("\r", "")
            if email.lower() not in text.lower():
                continue
            pins: list[str] = re.findall(r"^ +([0-9]{6})$", text, re.MULTILINE)
            pin = pins[-1] if pins else pin
        if pin:
            return pin
        time.sleep(0.2)
    raise TourFailed(f"no PIN for {email} in {outbox}")


def picture(width: int, height: int) -> bytes:
    """A PNG of random pixels (so it hardly compresses): real bytes for the uploads to judge."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + secrets.token_bytes(width * 3) for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def form_configuration() -> dict[str, Any]:
    """A form with a text field and a file field taking several files; its history is kept."""
    return {
        "config": {
            "version": "1.0.0",
            "controls": {"enableLogging": True},
            "metadata": {
                "captureTimestamp": False,
                "captureTags": False,
                "captureSummary": False,
                "captureLocation": False,
            },
            "integrations": {"allowSpaceAssociations": False, "allowWorkflowStarts": True},
            "translations": {
                "defaultLanguage": "en",
                "en": {
                    "details": {"title": f"Expense claim {SUFFIX}"},
                    "pages": {
                        "p1": {
                            "title": "Claim",
                            "fields": {"amount": {"label": "Amount"}, "receipt": {"label": "Receipt"}},
                        }
                    },
                },
            },
            "pages": [
                {
                    "id": PAGE,
                    "key": "p1",
                    "order": 1,
                    "title": "$.pages.p1.title",
                    "fields": [
                        {
                            "id": AMOUNT,
                            "key": "amount",
                            "order": 1,
                            "type": "text",
                            "value": "",
                            "validation": r"[0-9]+(\.[0-9]{2})?",
                            "label": "$.pages.p1.fields.amount.label",
                            "visible": True,
                            "editable": True,
                            "required": True,
                        },
                        {
                            "id": RECEIPT,
                            "key": "receipt",
                            "order": 2,
                            "type": "file",
                            "value": "",
                            "label": "$.pages.p1.fields.receipt.label",
                            "visible": True,
                            "editable": True,
                            "required": False,
                            "file": {"accept": ["image/png"], "maxBytes": 1048576, "multiple": True, "maxFiles": 5},
                        },
                    ],
                }
            ],
        }
    }


def workflow_configuration(form_id: str) -> dict[str, Any]:
    """Claims move from submitted to approved; one view (permission slot 1) shows both workbaskets; the
    items' history is kept."""
    return {
        "config": {
            "version": "1.0.0",
            "controls": {"enableLogging": True},
            "translations": {
                "defaultLanguage": "en",
                "en": {
                    "details": {"title": f"Claims {SUFFIX}"},
                    "workbaskets": {"submitted": {"label": "Submitted"}, "approved": {"label": "Approved"}},
                    "transitions": {"approve": {"label": "Approve"}},
                    "views": {"all": {"label": "All claims", "description": "Every claim"}},
                },
            },
            "network": {
                "entryWorkbasketId": SUBMITTED,
                "workbaskets": [
                    {
                        "id": SUBMITTED,
                        "label": "$.workbaskets.submitted.label",
                        "order": 1,
                        "transitions": [
                            {"id": APPROVE, "targetWorkbasketId": APPROVED, "label": "$.transitions.approve.label"}
                        ],
                    },
                    {
                        "id": APPROVED,
                        "label": "$.workbaskets.approved.label",
                        "order": 2,
                        "terminal": True,
                        "transitions": [],
                    },
                ],
            },
            "views": [
                {
                    "id": ALL_VIEW,
                    "label": "$.views.all.label",
                    "description": "$.views.all.description",
                    "workbasketIds": [SUBMITTED, APPROVED],
                    "permissionSlot": 1,
                    "forms": {form_id: {"listFields": ["amount"], "detailFields": [{"fieldKey": "amount"}]}},
                }
            ],
            "integrations": {"forms": {"allowedConfigurationIds": [form_id]}},
        }
    }


def sign_up(trellis: Trellis, prefix: str, name: str) -> str:
    handle = f"{prefix}_{SUFFIX}"
    details = {"email": f"{handle}@example.org", "handle": handle, "fullName": f"{name} Example", "displayName": name}
    session = trellis.sign_up(details, PASSWORD, pin_from_outbox)
    expect(session.user.handle == handle, f"signed up as {session.user.handle}, not {handle}")
    return handle


def grant_operator(command: str, handle: str) -> None:
    """Runs the command with the handle. The tour's own variables are left out of its environment: they
    are no settings of the server, whose CLI refuses a TRELLIS_* variable that names none."""
    own = ("TRELLIS_BASE", "TRELLIS_DATA", "TRELLIS_GRANT_OPERATOR")
    env = {name: value for name, value in os.environ.items() if name not in own}
    done = subprocess.run(shlex.split(command) + [handle], env=env, capture_output=True, text=True)
    expect(done.returncode == 0, f"{command} {handle}: status {done.returncode}: {done.stderr.strip()}")


def refusal(attempt: Callable[[], object]) -> TrellisError:
    """The `TrellisError` that `attempt` must raise."""
    try:
        attempt()
    except TrellisError as error:
        return error
    raise TourFailed("a request that must be refused succeeded")


class Timeout(Exception):
    pass


@contextlib.contextmanager
def deadline(seconds: int, what: str) -> Iterator[None]:
    """Raises `TourFailed` if the block takes longer (SIGALRM interrupts a blocking read)."""

    def expire(_signal: int, _frame: FrameType | None) -> None:
        raise Timeout()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    except Timeout:
        raise TourFailed(f"{what}: nothing within {seconds} s") from None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
