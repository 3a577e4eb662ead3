"""Schemathesis hooks for the contract fuzzing run (`scripts/fuzz`).

Every operation gets the session of a signed-in user. The user is signed up through the three
sign-up steps, reading the PIN from the server's outbox, and logs in again whenever the session
stops working: the fuzzer itself logs sessions out (`POST /v0/auth/logout`), and schemathesis asks
for new credentials after a 401.

The user owns a small world made once, after sign-up (`World`): a form configuration and an
instance, a space with the Tags module and an asset, a channel, a workflow with an item, and a
message thread with a second user. Two in three generated ids in paths and queries are swapped for
the world's, so requests reach the routes' own logic instead of ending at 404; the rest stay
random, so unknown ids are still tried.
"""

import glob
import json
import os
import re
import threading
import time
import uuid
import zlib

import requests
import schemathesis

BASE = os.environ["TRELLIS_FUZZ_BASE"]
LICENSE = os.environ["TRELLIS_FUZZ_LICENSE"]
OUTBOX = os.environ["TRELLIS_FUZZ_OUTBOX"]
PASSWORD = "correct horse battery staple 42"


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _call(method, path, body=None, token=None):
    headers = {"X-License-Key": LICENSE}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    response = requests.request(method, BASE + path, json=body, headers=headers, timeout=60)
    if response.status_code >= 300:
        raise RuntimeError(f"{method} {path}: {response.status_code} {response.text}")
    return response.json() if response.content else None


def _post(path, body, token=None):
    return _call("POST", path, body, token)


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
    """A new user: (handle, session token)."""
    handle = "fuzz_" + uuid.uuid4().hex[:12]
    email = f"{handle}@example.org"
    started = _post(
        "/v0/auth/sign-up/start",
        {"email": email, "handle": handle, "fullName": "Fuzz Tester", "displayName": handle},
    )
    token = started["signupToken"]
    _post("/v0/auth/sign-up/verify-pin", {"signupToken": token, "pin": _pin(email)})
    completed = _post("/v0/auth/sign-up/complete", {"signupToken": token, "password": PASSWORD})
    return handle, completed["sessionToken"]


# The test documents' own ids, made new for each world: a second run against the same server (the
# extra stateful passes of scripts/fuzz) would otherwise find them taken (409) and build no world.
_FORM_ID = "6513270e-269e-4d37-b2a7-4de452e6b438"
_WORKFLOW_ID = "7b036b63-712b-4ee1-833a-6dfb2b1371f1"
_FRESH_IDS = {_FORM_ID: str(uuid.uuid4()), _WORKFLOW_ID: str(uuid.uuid4())}


def _testdata(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as file:
        text = file.read()
    for old, new in _FRESH_IDS.items():
        text = text.replace(old, new)
    return json.loads(text)


class World:
    """What the fuzzing user owns, by the name of the parameter that takes its id."""

    def __init__(self):
        self.ids = {}

    def build(self, token, peer_handle):
        """Makes each part it can; a part the server refuses is left out (its ids stay random)."""
        steps = [self._space, self._forms, self._channel, self._workflow, lambda t: self._thread(t, peer_handle)]
        for step in steps:
            try:
                step(token)
            except (RuntimeError, KeyError, IndexError, requests.RequestException) as error:
                print(f"fuzz world: a part was not made: {error}")

    def _forms(self, token):
        config = _testdata("host/src/domain/forms/testdata/sample_config.json")
        self.ids["configurationId"] = _post("/v0/forms/configurations", {"config": config}, token)["id"]
        payload = _testdata("host/src/domain/forms/testdata/sample_payload.json")
        # In the world's space, so its Tags module gets the instance's events.
        payload["payload"]["integrations"] = {"spaceId": self.ids["spaceId"]} if "spaceId" in self.ids else {}
        self.ids["formId"] = _post("/v0/forms", payload, token)["formId"]

    def _space(self, token):
        space = _post("/v0/spaces", {"name": "fuzz-" + uuid.uuid4().hex[:8], "displayName": "Fuzz"}, token)
        self.ids["spaceId"] = space["spaceId"]
        _call("PUT", f"/v0/spaces/{space['spaceId']}/modules", {"modules": [{"moduleId": "tags", "config": {}}]}, token)
        self.ids["moduleId"] = "tags"
        asset = {"title": "Fuzz asset", "filename": "fuzz.png", "contentType": "image/png"}
        self.ids["assetId"] = _post(f"/v0/spaces/{space['spaceId']}/assets", asset, token)["newPublishedAssetId"]

    def _channel(self, token):
        self.ids["channelId"] = _post("/v0/channels", {"name": "Fuzz", "description": "fuzzing"}, token)["channelId"]

    def _workflow(self, token):
        workflow = _testdata("host/src/domain/workflows/testdata/sample_workflow.json")
        _post("/v0/workflows/configurations", {"config": workflow}, token)
        self.ids["workflowConfigurationId"] = workflow["id"]
        self.ids["viewId"] = self.ids["workflowViewId"] = workflow["views"][0]["id"]
        self.ids["workbasketId"] = workflow["network"]["entryWorkbasketId"]
        payload = _testdata("host/src/domain/forms/testdata/sample_payload.json")
        payload["payload"]["integrations"] = {"workflowConfigurationId": workflow["id"]}
        _post("/v0/forms", payload, token)
        view = f"/v0/workflows/views/{self.ids['viewId']}/items?workflowConfigurationId={workflow['id']}"
        self.ids["itemId"] = _call("GET", view, token=token)["items"][0]["itemId"]

    def _thread(self, token, peer_handle):
        sent = _post("/v0/messages", {"to": peer_handle, "subject": "Fuzz", "body": "Hello"}, token)
        self.ids["threadId"] = sent["threadId"]
        self.ids["messageId"] = sent["messageId"]

    def swap(self, context, params):
        """Swaps two in three of the generated ids in `params` for the world's (chosen by the
        generated value, so a run stays reproducible from its seed)."""
        if not params:
            return params
        operation = getattr(context, "operation", None)
        workflow_route = getattr(operation, "path", "").startswith("/v0/workflows/")
        for name, value in params.items():
            # The workflow routes' `configurationId` names a workflow configuration.
            key = "workflowConfigurationId" if name == "configurationId" and workflow_route else name
            real = self.ids.get(key)
            if real is not None and zlib.crc32(repr(value).encode()) % 3 != 0:
                params[name] = real
        return params


WORLD = World()
_user = {}
_user_lock = threading.Lock()


def session_token():
    """The fuzzing user's session: signed up (with its world) the first time, logged in again after."""
    with _user_lock:
        if _user:
            try:
                return _post("/v0/auth/login", {"login": _user["handle"], "password": PASSWORD})["sessionToken"]
            except RuntimeError as error:
                print(f"fuzz user: logging in again failed, signing a new one up: {error}")
        handle, token = sign_up()
        _user["handle"] = handle
        peer_handle, _ = sign_up()
        WORLD.build(token, peer_handle)
        return token


# A tus PATCH body is plain bytes under the protocol's own media type (conventions section 14).
schemathesis.serializer.alias("application/offset+octet-stream", "application/octet-stream")


@schemathesis.auth(refresh_interval=3600)
class Session:
    def get(self, case, ctx):
        return session_token()

    def set(self, case, data, ctx):
        case.headers = case.headers or {}
        case.headers["Authorization"] = f"Bearer {data}"


@schemathesis.hook
def map_path_parameters(context, path_parameters):
    return WORLD.swap(context, path_parameters)


@schemathesis.hook
def map_query(context, query):
    """A list's `cursor` is opaque: only one the list gave out (`nextCursor`) is valid, and the
    server refuses any other with 400 INVALID_CURSOR. Generated cursors are left out; the stateful
    phase still pages with real ones. Ids are swapped for the world's as in paths."""
    if query:
        query.pop("cursor", None)
    return WORLD.swap(context, query)

