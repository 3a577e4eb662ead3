from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="NewMessage")


@_attrs_define
class NewMessage:
    """A new message or a reply. The handler reads the body as a map so it can name every unknown
    property; this type documents it.

        Attributes:
            body (str): 1 to 10,000 characters, not blank; no control characters other than line breaks and tabs.
            subject (str | Unset): 1 to 200 characters, not blank, no control characters. Required for a new thread (it
                becomes the thread's subject); a reply that leaves it out takes the thread's.
            thread_id (None | str | Unset): The thread to reply in; the sender must take part in it. Left out (or `null`): a
                new thread.
            to (str | Unset): The recipient's handle, without `@`. Required for a new thread; a reply may leave it out,
                and when it gives it, it must name the thread's other participant. Never `system`.
    """

    body: str
    subject: str | Unset = UNSET
    thread_id: None | str | Unset = UNSET
    to: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        body = self.body

        subject = self.subject

        thread_id: None | str | Unset
        if isinstance(self.thread_id, Unset):
            thread_id = UNSET
        else:
            thread_id = self.thread_id

        to = self.to

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "body": body,
            }
        )
        if subject is not UNSET:
            field_dict["subject"] = subject
        if thread_id is not UNSET:
            field_dict["threadId"] = thread_id
        if to is not UNSET:
            field_dict["to"] = to

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        body = d.pop("body")

        subject = d.pop("subject", UNSET)

        def _parse_thread_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        thread_id = _parse_thread_id(d.pop("threadId", UNSET))

        to = d.pop("to", UNSET)

        new_message = cls(
            body=body,
            subject=subject,
            thread_id=thread_id,
            to=to,
        )

        return new_message
