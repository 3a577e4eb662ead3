from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.channel_view_role import ChannelViewRole

T = TypeVar("T", bound="ChannelView")


@_attrs_define
class ChannelView:
    """A channel as one of its members sees it.

    Attributes:
        channel_id (str):
        created_at (datetime.datetime):
        description (str): At most 1000 characters; empty when none was given.
        name (str): 1 to 100 characters.
        role (ChannelViewRole): The caller's role: `owner`, `inviter` or `member`.
        updated_at (datetime.datetime):
    """

    channel_id: str
    created_at: datetime.datetime
    description: str
    name: str
    role: ChannelViewRole
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        channel_id = self.channel_id

        created_at = self.created_at.isoformat()

        description = self.description

        name = self.name

        role = self.role.value

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "channelId": channel_id,
                "createdAt": created_at,
                "description": description,
                "name": name,
                "role": role,
                "updatedAt": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        channel_id = d.pop("channelId")

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        description = d.pop("description")

        name = d.pop("name")

        role = ChannelViewRole(d.pop("role"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))

        channel_view = cls(
            channel_id=channel_id,
            created_at=created_at,
            description=description,
            name=name,
            role=role,
            updated_at=updated_at,
        )

        channel_view.additional_properties = d
        return channel_view

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
