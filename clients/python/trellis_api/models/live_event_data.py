from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="LiveEventData")


@_attrs_define
class LiveEventData:
    """One event of the stream as its lines carry it: `id`, `event` (one of the names below) and
    `data`, one line of JSON whose schema is the event's (`message.created`: `LiveMessageCreated`,
    and so on; `reset`: `{}`).

        Attributes:
            data (str): One line of JSON.
            event (str): `message.created`, `unread.changed`, `comment.created`, `asset.changed`, `invite.created`,
                `registration.changed`, `item.changed` or `reset`. Example: message.created.
            id (str | Unset): Increasing; send the last one back as `Last-Event-ID`. A `reset` sent before any event
                exists has none.
    """

    data: str
    event: str
    id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = self.data

        event = self.event

        id = self.id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
                "event": event,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        data = d.pop("data")

        event = d.pop("event")

        id = d.pop("id", UNSET)

        live_event_data = cls(
            data=data,
            event=event,
            id=id,
        )

        live_event_data.additional_properties = d
        return live_event_data

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
