from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.correspondent_view import CorrespondentView


T = TypeVar("T", bound="ThreadView")


@_attrs_define
class ThreadView:
    """A thread as the caller sees it.

    Attributes:
        last_message_at (datetime.datetime):
        participant (CorrespondentView): A participant of a thread or a message. The platform's notices come from
            `system`, which has no
            account: `{userId: null, handle: "system", displayName: "Trellis", avatar: null}`.
        subject (str): The first message's subject.
        thread_id (str):
        unread (int): The thread's messages to the caller not yet fetched.
    """

    last_message_at: datetime.datetime
    participant: CorrespondentView
    subject: str
    thread_id: str
    unread: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        last_message_at = self.last_message_at.isoformat()

        participant = self.participant.to_dict()

        subject = self.subject

        thread_id = self.thread_id

        unread = self.unread

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "lastMessageAt": last_message_at,
                "participant": participant,
                "subject": subject,
                "threadId": thread_id,
                "unread": unread,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.correspondent_view import CorrespondentView

        d = dict(src_dict)
        last_message_at = datetime.datetime.fromisoformat(d.pop("lastMessageAt"))

        participant = CorrespondentView.from_dict(d.pop("participant"))

        subject = d.pop("subject")

        thread_id = d.pop("threadId")

        unread = d.pop("unread")

        thread_view = cls(
            last_message_at=last_message_at,
            participant=participant,
            subject=subject,
            thread_id=thread_id,
            unread=unread,
        )

        thread_view.additional_properties = d
        return thread_view

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
