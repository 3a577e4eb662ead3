from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="LiveMessageCreated")


@_attrs_define
class LiveMessageCreated:
    """`message.created`, to the recipient.

    Attributes:
        message_id (str):
        thread_id (str):
        unread (int): The recipient's unread messages, this one included.
    """

    message_id: str
    thread_id: str
    unread: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message_id = self.message_id

        thread_id = self.thread_id

        unread = self.unread

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "messageId": message_id,
                "threadId": thread_id,
                "unread": unread,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        message_id = d.pop("messageId")

        thread_id = d.pop("threadId")

        unread = d.pop("unread")

        live_message_created = cls(
            message_id=message_id,
            thread_id=thread_id,
            unread=unread,
        )

        live_message_created.additional_properties = d
        return live_message_created

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
