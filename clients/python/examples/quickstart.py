"""The README's quickstart through the Python client: sign up (the PIN read from the outbox folder of a
server without SMTP), log in, a form configuration with a text and a file field, an instance and its
attachment, a workflow started and moved one step, a space with the Tags module and a tag added through
the module's route. Exits non-zero on the first failure.

    TRELLIS_BASE=http://127.0.0.1:8080 TRELLIS_DATA=data PYTHONPATH=clients/python python clients/python/examples/quickstart.py

TRELLIS_DATA is the server's data directory: its `license.key` and `outbox/`. Each run signs up a new user
(`ann_<random>`) and space (`expenses-<random>`), so it can run again against the same server.
"""

from __future__ import annotations

import base64
import os
import re
import secrets
import sys
import time
from pathlib import Path

from trellis_api.api.forms import create_form, create_form_configuration, get_form
from trellis_api.api.modules import replace_space_modules
from trellis_api.api.spaces import create_space
from trellis_api.api.users import get_me
from trellis_api.api.workflows import create_workflow_configuration, get_item, start_workflow, transition_item
from trellis_api.models import (
    ConfigurationWrapper,
    ConnectedModules,
    NewSpace,
    PayloadWrapper,
    StartWorkflow,
    TransitionRequest,
    WorkflowWrapper,
)
from trellis_client import AttachmentFile, Trellis, TrellisError

BASE = os.environ.get("TRELLIS_BASE", "http://127.0.0.1:8080")
DATA = Path(os.environ.get("TRELLIS_DATA", "data"))


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
    raise RuntimeError(f"no PIN for {email} in {outbox}")


def main() -> None:
    license_key = (DATA / "license.key").read_text().strip()
    suffix = secrets.token_hex(4)
    handle, password = f"ann_{suffix}", "correct horse 42"
    email = f"{handle}@example.org"
    with Trellis(BASE, license_key) as trellis:
        # 1. Sign up; the PIN mail is a file in the outbox.
        details = {"email": email, "handle": handle, "fullName": "Ann Example", "displayName": "Ann"}
        trellis.sign_up(details, password, pin_from_outbox)

        # 2. Log in (with the handle or the e-mail): the session is the bearer of every later call.
        trellis.token = None
        trellis.login(handle, password)
        me = trellis.call(get_me)
        print("signed in as", me.handle)

        # 3. A form configuration with a text field and a file field; texts live in translations.
        amount, receipt = "8b0f6bd4-54a4-4e11-9d3b-2f6f0c5f1a01", "8b0f6bd4-54a4-4e11-9d3b-2f6f0c5f1a02"
        form_config = {
            "config": {
                "version": "1.0.0",
                "controls": {"enableLogging": False},
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
                        "details": {"title": "Expense claim"},
                        "pages": {
                            "p1": {
                                "title": "Claim",
                                "fields": {"p1_amount": {"label": "Amount"}, "p1_receipt": {"label": "Receipt"}},
                            }
                        },
                    },
                },
                "pages": [
                    {
                        "id": "8b0f6bd4-54a4-4e11-9d3b-2f6f0c5f1a00",
                        "key": "p1",
                        "order": 1,
                        "title": "$.pages.p1.title",
                        "fields": [
                            {
                                "id": amount,
                                "key": "p1_amount",
                                "order": 1,
                                "type": "text",
                                "value": "",
                                "validation": r"[0-9]+(\.[0-9]{2})?",
                                "label": "$.pages.p1.fields.p1_amount.label",
                                "visible": True,
                                "editable": True,
                                "required": True,
                            },
                            {
                                "id": receipt,
                                "key": "p1_receipt",
                                "order": 2,
                                "type": "file",
                                "value": "",
                                "label": "$.pages.p1.fields.p1_receipt.label",
                                "visible": True,
                                "editable": True,
                                "required": False,
                                "file": {"accept": ["image/png", "application/pdf"], "maxBytes": 1048576, "multiple": False},
                            },
                        ],
                    }
                ],
            }
        }
        form = trellis.call(create_form_configuration, body=ConfigurationWrapper.from_dict(form_config))
        print("form configuration", form.id)

        # 4. An instance (file fields stay empty in JSON), then its attachment as multipart.
        payload = {"payload": {"configurationId": form.id, "language": "en", "fields": {amount: "42.50", receipt: []}}}
        claim = trellis.call(create_form, body=PayloadWrapper.from_dict(payload)).form_id
        # A 1x1 picture stands in for the receipt.
        png = base64.b64decode(
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
        )
        uploaded = trellis.upload_attachments(claim, [AttachmentFile(png, "receipt.png", "image/png", field_id=receipt)])
        print("attachments", len(uploaded.attachments))
        trellis.call(get_form, form_id=claim)

        # 5. A workflow (submitted, then approved) that allows this form; start it on the claim and move it.
        submitted, approved = "2b8f4c1e-0a4d-4f7a-9c1e-5d6f7a8b9c01", "2b8f4c1e-0a4d-4f7a-9c1e-5d6f7a8b9c02"
        flow_config = {
            "config": {
                "version": "1.0.0",
                "controls": {"enableLogging": False},
                "translations": {
                    "defaultLanguage": "en",
                    "en": {
                        "details": {"title": "Claims"},
                        "workbaskets": {"submitted": {"label": "Submitted"}, "approved": {"label": "Approved"}},
                        "transitions": {"approve": {"label": "Approve"}},
                        "views": {"all": {"label": "All claims", "description": "Every claim"}},
                    },
                },
                "network": {
                    "entryWorkbasketId": submitted,
                    "workbaskets": [
                        {
                            "id": submitted,
                            "label": "$.workbaskets.submitted.label",
                            "order": 1,
                            "transitions": [
                                {
                                    "id": "2b8f4c1e-0a4d-4f7a-9c1e-5d6f7a8b9c03",
                                    "targetWorkbasketId": approved,
                                    "label": "$.transitions.approve.label",
                                }
                            ],
                        },
                        {
                            "id": approved,
                            "label": "$.workbaskets.approved.label",
                            "order": 2,
                            "terminal": True,
                            "transitions": [],
                        },
                    ],
                },
                "views": [
                    {
                        "id": "2b8f4c1e-0a4d-4f7a-9c1e-5d6f7a8b9c04",
                        "label": "$.views.all.label",
                        "description": "$.views.all.description",
                        "workbasketIds": [submitted, approved],
                        "permissionSlot": 1,
                        "forms": {form.id: {"listFields": ["p1_amount"], "detailFields": [{"fieldKey": "p1_amount"}]}},
                    }
                ],
                "integrations": {"forms": {"allowedConfigurationIds": [form.id]}},
            }
        }
        flow = trellis.call(create_workflow_configuration, body=WorkflowWrapper.from_dict(flow_config))
        start = {"workflowConfigurationId": flow.id, "itemId": claim}
        trellis.call(start_workflow, body=StartWorkflow.from_dict(start))
        item = trellis.call(get_item, item_id=claim, workflow_configuration_id=flow.id)
        if not item.transitions:
            raise RuntimeError("the new item offers no transition")
        move = TransitionRequest.from_dict({"transitionId": item.transitions[0].transition_id})
        moved = trellis.call(transition_item, item_id=claim, workflow_configuration_id=flow.id, body=move)
        print("moved to workbasket", moved.workbasket_id)

        # 6. A space with the Tags module connected, and a tag on the claim through the module's route.
        new_space = {"name": f"expenses-{suffix}", "displayName": "Expenses", "summary": "Claims of the team"}
        space = trellis.call(create_space, body=NewSpace.from_dict(new_space))
        modules = ConnectedModules.from_dict({"modules": [{"moduleId": "tags", "config": {}}]})
        trellis.call(replace_space_modules, space_id=space.space_id, body=modules)
        tags = trellis.call_module(space.space_id, "tags", "POST", f"items/{claim}/tags", {"tags": ["travel"]})
        print("tags", tags)
    print("quickstart (Python): every step answered 2xx")


if __name__ == "__main__":
    try:
        main()
    except TrellisError as error:
        print(f"quickstart failed: {error} (request {error.request_id or '?'})", file=sys.stderr)
        for detail in error.details:
            print(f"  {detail.path}: {detail.code} {detail.message}", file=sys.stderr)
        sys.exit(1)
