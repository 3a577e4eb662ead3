"""Schemathesis hooks for the contract fuzzing run (`scripts/fuzz`).

Every operation gets the session of a signed-in user. The user is signed up through the three
sign-up steps, reading the PIN from the server's outbox, and a new one is signed up whenever the
session stops working: the fuzzer itself logs sessions out (`POST /v0/auth/logout`), and
schemathesis asks for new credentials after a 401.
"""

import glob
import os
import re
import time
import uuid

import requests
import schemathesis

BASE = os.environ["TRELLIS_FUZZ_BASE"]
LICENSE = os.environ["TRELLIS_FUZZ_LICENSE"]
OUTBOX = os.environ["TRELLIS_FUZZ_OUTBOX"]
PASSWORD = "correct horse battery staple 42"


def _post(path, body):
    response = requests.post(BASE + path, json=body, headers={"X-License-Key": LICENSE}, timeout=60)
    if response.status_code >= 300:
        raise RuntimeError(f"{path}: {response.status_code} {response.text}")
    return response.json()


def _pin(email):
    """The PIN of the newest mail to `email` in the outbox."""
    for _ in range(200):
        mails = sorted(glob.glob(os.path.join(OUTBOX, "*.eml")), key=os.path.getmtime, reverse=True)
        for path in mails:
            with open(path, encoding="utf-8", errors="replace") as mail:
                text = mail.read()
            if f"To: {email}" in text:
                pin = re.search(r"^\s*(\d{6})\s*$", text, re.MULTILINE)
                if pin:
                    return pin.group(1)
        time.sleep(0.05)
    raise RuntimeError(f"no PIN was mailed to {email}")


def sign_up():
    """A new user's session token."""
    handle = "fuzz_" + uuid.uuid4().hex[:12]
    email = f"{handle}@example.org"
    started = _post(
        "/v0/auth/sign-up/start",
        {"email": email, "handle": handle, "fullName": "Fuzz Tester", "displayName": handle},
    )
    token = started["signupToken"]
    _post("/v0/auth/sign-up/verify-pin", {"signupToken": token, "pin": _pin(email)})
    completed = _post("/v0/auth/sign-up/complete", {"signupToken": token, "password": PASSWORD})
    return completed["sessionToken"]


@schemathesis.auth(refresh_interval=3600)
class Session:
    def get(self, case, ctx):
        return sign_up()

    def set(self, case, data, ctx):
        case.headers = case.headers or {}
        case.headers["Authorization"] = f"Bearer {data}"


@schemathesis.hook
def map_query(context, query):
    """A list's `cursor` is opaque: only one the list gave out (`nextCursor`) is valid, and the
    server refuses any other with 400 INVALID_CURSOR. Generated cursors are left out; the stateful
    phase still pages with real ones."""
    if query:
        query.pop("cursor", None)
    return query

